"""Realistic log directories, written with ridgeline's own SummaryWriter.

One source of sample data for ``ridgeline demo``, the tests, the docs and the benchmarks: a small learning-rate
sweep of a simulated image classifier, so every dashboard has something to show on a fresh machine.

The curves are simulated, not trained: a loss that decays at a speed set by the learning rate, a floor that drops
when the learning rate is decayed, batch noise that grows with the learning rate, one run that overfits and one
with a loss spike. Everything comes from ``numpy.random.Generator`` seeded by ``seed``, so two demos with the same
seed hold the same values; only wall times (which end "now") and run metadata differ.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from ridgeline import SummaryWriter
from ridgeline.fixtures_graph import demo_graph

Progress = Callable[[int, int], None]
Behaviour = Literal["normal", "overfit", "spike"]

MIN_STEPS = 10
CLASSES = ("plane", "car", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck")
INITIAL_LOSS = math.log(len(CLASSES))  # cross-entropy of a uniform guess over the classes
LR_MILESTONES = (0.5, 0.75)  # fractions of training where the learning rate is divided by 10
LAYERS = (("conv1", 27), ("fc1", 512), ("fc2", 128))  # (name, fan_in)
HISTOGRAM_SAMPLES = 2048
STEP_SECONDS = 0.1  # simulated time of one step at batch size 128
EVAL_SECONDS = 3.0  # simulated time of one validation pass
RUN_STAGGER_SECONDS = 20.0  # the sweep launches one run after another
PROGRESS_EVERY = 100


@dataclass(frozen=True)
class RunSpec:
    """One simulated training run of the demo sweep."""

    name: str
    lr: float
    batch_size: int
    optimizer: str
    dropout: float
    behaviour: Behaviour = "normal"
    lr_decay: bool = True  # step decay at LR_MILESTONES; False keeps the learning rate constant
    showcase: bool = False  # also writes the one-off summaries: custom scalars layout, audio, embedding, graph

    def hparams(self) -> dict[str, float | int | str]:
        return {"lr": self.lr, "batch_size": self.batch_size, "optimizer": self.optimizer, "dropout": self.dropout}

    @property
    def learning_speed(self) -> float:
        """How far one unit of learning rate moves the model; Adam moves much further than SGD per unit."""
        return 10.0 if self.optimizer == "adam" else 1.0


DEMO_RUNS: tuple[RunSpec, ...] = (
    RunSpec("resnet/lr_0.1", lr=0.1, batch_size=128, optimizer="sgd", dropout=0.1),
    RunSpec("resnet/lr_0.01", lr=0.01, batch_size=128, optimizer="sgd", dropout=0.1, showcase=True),
    RunSpec("resnet/lr_0.001", lr=0.001, batch_size=128, optimizer="sgd", dropout=0.1),
    RunSpec(
        "resnet/overfit", lr=0.001, batch_size=32, optimizer="adam", dropout=0.0, behaviour="overfit", lr_decay=False
    ),
    RunSpec("resnet/spike", lr=0.05, batch_size=256, optimizer="sgd", dropout=0.1, behaviour="spike"),
)


@dataclass(frozen=True)
class Schedule:
    """Which steps get which kind of summary, scaled to the number of steps (so short demos have all of them)."""

    steps: int

    @property
    def val_every(self) -> int:
        return max(1, self.steps // 40)  # 50 for the default 2000 steps

    @property
    def histogram_every(self) -> int:
        return max(1, self.steps // 20)  # 100 for the default 2000 steps

    @property
    def last(self) -> int:
        return self.steps - 1

    def is_val_step(self, step: int) -> bool:
        return step % self.val_every == 0 or step == self.last

    def is_histogram_step(self, step: int) -> bool:
        return step % self.histogram_every == 0 or step == self.last

    def lr_milestones(self) -> list[int]:
        return [int(self.steps * fraction) for fraction in LR_MILESTONES]

    def spread(self, count: int) -> set[int]:
        """``count`` steps spread evenly from the first to the last."""
        return {round(i * self.last / (count - 1)) for i in range(count)}


@dataclass(frozen=True)
class Curves:
    """Per-step values of one simulated run (val_* are meaningful at validation steps)."""

    lr: np.ndarray
    trained: np.ndarray  # 0 at initialisation, towards 1 when fully trained: drives histograms, images, PR curves
    train_loss: np.ndarray
    train_accuracy: np.ndarray
    val_loss: np.ndarray
    val_accuracy: np.ndarray
    grad_norm: np.ndarray
    wall_offset: np.ndarray  # seconds since the run started


# --- simulation ---------------------------------------------------------------------------------------------------
def lr_milestones(spec: RunSpec, schedule: Schedule) -> list[int]:
    return schedule.lr_milestones() if spec.lr_decay else []


def lr_schedule(spec: RunSpec, schedule: Schedule) -> np.ndarray:
    """Step decay: divided by 10 at each milestone."""
    decays = np.zeros(schedule.steps)
    for milestone in lr_milestones(spec, schedule):
        decays[milestone:] += 1
    return spec.lr * 0.1**decays


def accuracy_from_loss(loss: np.ndarray) -> np.ndarray:
    """A monotone map from cross-entropy to accuracy: chance level at the initial loss, near 1 at loss 0."""
    return 0.1 + 0.89 * np.clip(1 - loss / INITIAL_LOSS, 0, 1) ** 0.8


def spike_factor(schedule: Schedule) -> np.ndarray:
    """A sudden jump of the loss at 40% of training that decays back within a few percent of the run."""
    start = int(schedule.steps * 0.4)
    since = np.arange(schedule.steps) - start
    recovery = max(2.0, schedule.steps / 100)
    return np.where(since >= 0, 1 + 6 * np.exp(-np.maximum(since, 0) / recovery), 1.0)


def simulate(spec: RunSpec, schedule: Schedule, rng: np.random.Generator) -> Curves:
    lr = lr_schedule(spec, schedule)
    effective_lr = lr / (1 + lr / 0.03)  # large learning rates help less than in proportion
    # Scaled so SGD at lr 0.01 ends about 3 e-folds from its initial loss, whatever the number of steps.
    progress = np.cumsum(effective_lr) * spec.learning_speed * 700 / schedule.steps
    trained = 1 - np.exp(-progress)
    # Dropout keeps the training loss up; without it the model can memorise the training set.
    floor = 0.04 + 0.4 * spec.dropout + (0.0 if spec.behaviour != "overfit" else -0.035)
    # The noise floor of a large learning rate (6 * lr) is what drops at each lr decay.
    clean_train = floor + 6 * lr / spec.learning_speed + (INITIAL_LOSS - floor) * np.exp(-progress)
    generalisation_gap = (0.12 + 0.5 * spec.dropout) * trained
    overfitting = np.zeros(schedule.steps)
    if spec.behaviour == "overfit":
        overfitting = 1.2 * np.maximum(0, np.linspace(0, 1, schedule.steps) - 0.3) ** 1.5
    spike = spike_factor(schedule) if spec.behaviour == "spike" else np.ones(schedule.steps)
    batch_noise = (0.04 + 0.8 * np.sqrt(lr / spec.learning_speed)) * math.sqrt(128 / spec.batch_size)
    train_loss = clean_train * spike * rng.lognormal(0, batch_noise)
    clean_val = (clean_train + generalisation_gap) * np.sqrt(spike)
    val_loss = (clean_val + overfitting) * rng.lognormal(0, 0.01, schedule.steps)
    return Curves(
        lr=lr,
        trained=trained,
        train_loss=train_loss,
        train_accuracy=rng.binomial(spec.batch_size, accuracy_from_loss(train_loss)) / spec.batch_size,
        val_loss=val_loss,
        val_accuracy=rng.binomial(10_000, accuracy_from_loss(clean_val + 0.2 * overfitting)) / 10_000,
        grad_norm=(0.3 + 2 * clean_train) * spike**2 * rng.lognormal(0, 0.2, schedule.steps),
        wall_offset=simulate_wall_offsets(spec, schedule, rng),
    )


def simulate_wall_offsets(spec: RunSpec, schedule: Schedule, rng: np.random.Generator) -> np.ndarray:
    """Seconds since the run's start at each step: jittered step times, pauses for validation passes."""
    step_seconds = STEP_SECONDS * spec.batch_size / 128 * rng.lognormal(0, 0.15, schedule.steps)
    eval_pauses = np.array([EVAL_SECONDS if schedule.is_val_step(s) else 0.0 for s in range(schedule.steps)])
    return np.cumsum(step_seconds + eval_pauses)


# --- histograms and media -----------------------------------------------------------------------------------------
def weight_values(initial: np.ndarray, fan_in: int, trained: float, layer: int) -> np.ndarray:
    """Weights that spread out and drift as training goes on; the last layer splits into two modes."""
    scale = math.sqrt(2 / fan_in)
    values = initial * (1 + 0.6 * trained) + 0.15 * scale * trained * (layer - 1)
    if layer == len(LAYERS) - 1:
        values = values + np.sign(initial) * scale * trained
    return values


def gradient_values(rng: np.random.Generator, grad_norm: float, fan_in: int) -> np.ndarray:
    """Heavy-tailed gradients whose spread follows the gradient norm, so they shrink over training."""
    return rng.laplace(0, 0.02 * grad_norm / math.sqrt(fan_in), HISTOGRAM_SAMPLES)


def sample_batch(rng: np.random.Generator, count: int = 8, size: int = 32) -> tuple[np.ndarray, np.ndarray]:
    """A synthetic NCHW batch in [0, 1]: each class is a coloured blob on a noisy background."""
    labels = rng.integers(0, len(CLASSES), count)
    y, x = np.mgrid[0:size, 0:size] / size
    hues = labels / len(CLASSES) * 2 * np.pi
    colours = 0.5 + 0.5 * np.cos(hues[:, None] + np.array([0.0, 2.1, 4.2]))  # (N, 3)
    centres = rng.uniform(0.3, 0.7, (count, 2))
    radii = rng.uniform(0.12, 0.3, count)
    distance = np.hypot(x[None] - centres[:, 0, None, None], y[None] - centres[:, 1, None, None])
    blob = (distance < radii[:, None, None]).astype(np.float32)  # (N, H, W)
    background = rng.uniform(0.0, 0.25, (count, 3, size, size))
    images = background * (1 - blob[:, None]) + colours[:, :, None, None] * blob[:, None]
    return np.clip(images, 0, 1).astype(np.float32), labels


def confusion_matrix(rng: np.random.Generator, accuracy: float, per_class: int = 100) -> np.ndarray:
    """Counts (true class × predicted class) for a model of the given accuracy; cat and dog get confused most."""
    classes = len(CLASSES)
    matrix = np.zeros((classes, classes), dtype=np.int64)
    for true_class in range(classes):
        confusion = np.full(classes, 1.0)
        confusion[true_class] = 0
        confusion[CLASSES.index("dog") if true_class == CLASSES.index("cat") else true_class] += 4
        probabilities = confusion / confusion.sum() * (1 - accuracy)
        probabilities[true_class] = accuracy
        matrix[true_class] = rng.multinomial(per_class, probabilities / probabilities.sum())
    return matrix


def render_matrix(matrix: np.ndarray, cell: int = 16) -> np.ndarray:
    """An HWC uint8 heat map of a square matrix (white → dark blue), with grid lines between cells.

    The colour follows the square root of the count, so the few confusions stay visible next to the diagonal.
    """
    share = np.sqrt(matrix / max(1, matrix.max()))
    white, blue = np.array([255.0, 255.0, 255.0]), np.array([8.0, 48.0, 107.0])
    colours = white + share[..., None] * (blue - white)  # (K, K, 3)
    image = np.repeat(np.repeat(colours, cell, axis=0), cell, axis=1)
    image[::cell, :] = image[:, ::cell] = 200
    return image.astype(np.uint8)


def pr_predictions(rng: np.random.Generator, trained: float, count: int = 512) -> tuple[np.ndarray, np.ndarray]:
    """Binary labels ("cat" or not) and predicted probabilities that separate better as training goes on."""
    labels = rng.random(count) < 0.3
    logits = (2 * labels - 1) * (0.2 + 3 * trained) + rng.normal(0, 1, count)
    return labels, 1 / (1 + np.exp(-logits))


def tones(sample_rate: int = 16_000) -> np.ndarray:
    """An A-major arpeggio: three short sine tones with soft edges, values in [-1, 1]."""
    length = sample_rate // 3
    t = np.arange(length) / sample_rate
    envelope = np.minimum(1, np.minimum(t, t[::-1]) * 50)
    notes = [0.5 * envelope * np.sin(2 * np.pi * frequency * t) for frequency in (440.0, 554.37, 659.25)]
    return np.concatenate(notes).astype(np.float32)


def embedding_points(rng: np.random.Generator, count: int = 300, dims: int = 16) -> tuple[np.ndarray, list[str]]:
    """Feature vectors that cluster by class, with each point's class name as its label."""
    labels = rng.integers(0, len(CLASSES), count)
    centres = rng.normal(0, 3, (len(CLASSES), dims))
    vectors = centres[labels] + rng.normal(0, 1, (count, dims))
    return vectors.astype(np.float32), [CLASSES[label] for label in labels]


# --- text ---------------------------------------------------------------------------------------------------------
def markdown_table(rows: dict[str, object], header: tuple[str, str]) -> str:
    lines = [f"| {header[0]} | {header[1]} |", "| --- | --- |"]
    lines += [f"| {key} | {value} |" for key, value in rows.items()]
    return "\n".join(lines)


def config_notes(spec: RunSpec, steps: int) -> str:
    purpose = {
        "normal": "One point of the learning-rate sweep.",
        "overfit": "No dropout and a small batch: expect the validation loss to turn up while training loss falls.",
        "spike": "A bad batch at 40% of training makes the loss jump; it recovers.",
    }[spec.behaviour]
    decay = "÷10 at " + " and ".join(f"{fraction:.0%}" for fraction in LR_MILESTONES) if spec.lr_decay else "none"
    rows: dict[str, object] = {**spec.hparams(), "steps": steps, "lr decay": decay}
    return f"## {spec.name}\n\n{purpose}\n\n" + markdown_table(rows, ("setting", "value"))


def results_notes(curves: Curves, schedule: Schedule) -> str:
    val_steps = [s for s in range(schedule.steps) if schedule.is_val_step(s)]
    best = min(val_steps, key=lambda s: curves.val_loss[s])
    rows: dict[str, object] = {
        "final train loss": f"{curves.train_loss[-1]:.4f}",
        "final val loss": f"{curves.val_loss[-1]:.4f}",
        "best val loss": f"{curves.val_loss[best]:.4f} (step {best})",
        "best val accuracy": f"{max(curves.val_accuracy[s] for s in val_steps):.2%}",
    }
    return "## Results\n\n" + markdown_table(rows, ("metric", "value"))


# --- writing ------------------------------------------------------------------------------------------------------
def custom_scalars_layout() -> dict[str, dict[str, list[object]]]:
    return {
        "Loss": {
            # Regexes match from the tag's start (TensorBoard's re.match): "$" keeps train/loss_window/* out.
            "train vs val": ["Multiline", ["train/loss$", "val/loss$"]],
            "train loss, min and max of the last window": [
                "Margin",
                ["train/loss_window/mean", "train/loss_window/min", "train/loss_window/max"],
            ],
        },
        "Accuracy": {"train vs val": ["Multiline", [r"(train|val)/accuracy"]]},
    }


def write_step_scalars(
    writer: SummaryWriter, spec: RunSpec, curves: Curves, schedule: Schedule, step: int, wall: float
) -> None:
    writer.add_scalar("train/loss", curves.train_loss[step], step, wall)
    writer.add_scalar("train/accuracy", curves.train_accuracy[step], step, wall)
    writer.add_scalar("train/lr", curves.lr[step], step, wall)
    writer.add_scalar("train/grad_norm", curves.grad_norm[step], step, wall)
    if schedule.is_val_step(step):
        writer.add_scalar("val/loss", curves.val_loss[step], step, wall)
        writer.add_scalar("val/accuracy", curves.val_accuracy[step], step, wall)
    window = 10
    if spec.showcase and (step + 1) % window == 0:
        recent = curves.train_loss[step + 1 - window : step + 1]
        writer.add_scalar("train/loss_window/mean", recent.mean(), step, wall)
        writer.add_scalar("train/loss_window/min", recent.min(), step, wall)
        writer.add_scalar("train/loss_window/max", recent.max(), step, wall)


def write_histograms(
    writer: SummaryWriter,
    curves: Curves,
    initial_weights: list[np.ndarray],
    rng: np.random.Generator,
    step: int,
    wall: float,
) -> None:
    trained = float(curves.trained[step])
    for layer, ((name, fan_in), initial) in enumerate(zip(LAYERS, initial_weights, strict=True)):
        writer.add_histogram(f"weights/{name}", weight_values(initial, fan_in, trained, layer), step, walltime=wall)
        gradients = gradient_values(rng, float(curves.grad_norm[step]), fan_in)
        writer.add_histogram(f"grad/{name}", gradients, step, walltime=wall)


def write_media(writer: SummaryWriter, curves: Curves, rng: np.random.Generator, step: int, wall: float) -> None:
    batch, _ = sample_batch(rng)
    writer.add_images("samples/input", batch, step, wall)
    matrix = confusion_matrix(rng, float(curves.val_accuracy[step]))
    writer.add_image("eval/confusion_matrix", render_matrix(matrix), step, wall, dataformats="HWC")


def write_pr_curve(writer: SummaryWriter, curves: Curves, rng: np.random.Generator, step: int, wall: float) -> None:
    labels, predictions = pr_predictions(rng, float(curves.trained[step]))
    writer.add_pr_curve("pr/cat", labels, predictions, step, walltime=wall)


def write_run_end(
    writer: SummaryWriter, spec: RunSpec, curves: Curves, schedule: Schedule, rng: np.random.Generator, wall: float
) -> None:
    """Final metrics for the hparams dashboard, the results note, and the showcase run's one-off summaries."""
    last = schedule.last
    val_steps = [s for s in range(schedule.steps) if schedule.is_val_step(s)]
    writer.add_scalar("hparam/best_val_accuracy", max(curves.val_accuracy[s] for s in val_steps), last, wall)
    writer.add_scalar("hparam/final_val_loss", curves.val_loss[last], last, wall)
    writer.add_text("notes", results_notes(curves, schedule), last, wall)
    if spec.showcase:
        writer.add_audio("samples/tones", tones(), last, sample_rate=16_000, walltime=wall)
        vectors, labels = embedding_points(rng)
        writer.add_embedding(vectors, metadata=labels, global_step=last, tag="penultimate_layer")
        writer.add_graph(demo_graph())


def write_run(
    writer: SummaryWriter,
    spec: RunSpec,
    curves: Curves,
    schedule: Schedule,
    rng: np.random.Generator,
    start: float,
    on_steps: Callable[[int], None],
) -> None:
    """Everything one run logs, step by step, as a training loop would."""
    walls = start + curves.wall_offset
    writer.add_text("notes", config_notes(spec, schedule.steps), 0, start)
    if spec.showcase:
        writer.add_custom_scalars(custom_scalars_layout())
    initial_weights = [rng.normal(0, math.sqrt(2 / fan_in), HISTOGRAM_SAMPLES) for _, fan_in in LAYERS]
    image_steps, pr_steps, milestones = schedule.spread(5), schedule.spread(4), set(lr_milestones(spec, schedule))
    for step in range(schedule.steps):
        wall = float(walls[step])
        write_step_scalars(writer, spec, curves, schedule, step, wall)
        if step in milestones:
            writer.add_annotation(f"lr decayed to {curves.lr[step]:g}", step, wall)
        if schedule.is_histogram_step(step):
            write_histograms(writer, curves, initial_weights, rng, step, wall)
        if step in image_steps:
            write_media(writer, curves, rng, step, wall)
        if step in pr_steps:
            write_pr_curve(writer, curves, rng, step, wall)
        if (step + 1) % PROGRESS_EVERY == 0:
            on_steps(PROGRESS_EVERY)
    write_run_end(writer, spec, curves, schedule, rng, float(walls[-1]))
    on_steps(schedule.steps % PROGRESS_EVERY)


def run_generators(seed: int, count: int) -> Iterator[np.random.Generator]:
    """One independent generator per run, so each run's values depend only on the seed and its position."""
    for index in range(count):
        yield np.random.default_rng([seed, index])


def write_demo(
    logdir: str | Path,
    *,
    steps: int = 2000,
    seed: int = 0,
    progress: Progress | None = None,
    start_time: float | None = None,
) -> list[str]:
    """Write the demo sweep into ``logdir`` and return the names of the runs written (paths relative to it).

    Args:
        logdir: the log directory; created if missing. A run directory that already holds event files is an
            error (writing again would double every series).
        steps: training steps per run (at least 10). Validation, histograms, images and PR curves are spaced
            in proportion, so a short demo still has every kind of summary.
        seed: seeds every simulated value.
        progress: called as ``progress(done, total)`` with done and total counted in steps over all runs.
        start_time: wall time (seconds since the epoch) of the first run's first step. Default: chosen so the
            runs end just now.
    """
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < MIN_STEPS:
        raise ValueError(f"write_demo: steps must be an integer of at least {MIN_STEPS}, got {steps!r}")
    root = Path(logdir)
    check_runs_absent(root)
    schedule = Schedule(steps)
    generators = list(run_generators(seed, len(DEMO_RUNS)))
    all_curves = [simulate(spec, schedule, rng) for spec, rng in zip(DEMO_RUNS, generators, strict=True)]
    starts = run_start_times(all_curves, start_time)
    total, done = len(DEMO_RUNS) * steps, 0

    def on_steps(count: int) -> None:
        nonlocal done
        done += count
        if progress is not None and count:
            progress(done, total)

    if progress is not None:
        progress(0, total)
    for spec, curves, rng, start in zip(DEMO_RUNS, all_curves, generators, starts, strict=True):
        with SummaryWriter(root / spec.name, hparams=spec.hparams()) as writer:
            write_run(writer, spec, curves, schedule, rng, start, on_steps)
    return [spec.name for spec in DEMO_RUNS]


def run_start_times(all_curves: list[Curves], start_time: float | None) -> list[float]:
    """Staggered starts; by default the last run to finish ends one second ago."""
    offsets = [index * RUN_STAGGER_SECONDS for index in range(len(all_curves))]
    if start_time is None:
        ends = [offset + float(curves.wall_offset[-1]) for offset, curves in zip(offsets, all_curves, strict=True)]
        start_time = math.floor(time.time() - max(ends) - 1)
    return [start_time + offset for offset in offsets]


def check_runs_absent(root: Path) -> None:
    for spec in DEMO_RUNS:
        run_dir = root / spec.name
        if run_dir.is_dir() and any("tfevents" in path.name for path in run_dir.iterdir()):
            raise FileExistsError(f"write_demo: {run_dir} already holds event files; choose a new or empty logdir")
