"""Log directories of training runs with known, labelled problems, for the diagnosis tests and benchmark.

:func:`write_problem_runs` writes, as real event files through :class:`ridgeline.SummaryWriter` (scalars and
histograms), one run per case: each diagnosis kind (:data:`ridgeline.analysis.diagnosis.KINDS`) in several
variants and seeds, plus healthy runs that must raise nothing. The cases rotate through the naming conventions
people use (``train/loss`` + ``val/loss``, ``loss/train`` + ``loss/valid``, ``train_loss`` + ``eval_loss``, and
Keras-style ``<case>/train`` + ``<case>/validation`` runs sharing the tag ``epoch_loss``; gradients as
``grad_norm/<layer>``, ``grad/<layer>``, ``<param>/grad`` or ``<param>_grad`` scalars and histograms; weights as
histograms named after the parameter). Every value comes from ``numpy.random.default_rng(seed)``.

:func:`write_torch_overfitting` trains a real tiny MLP with torch on the CPU that memorises a small noisy data
set, logged through ``torch.utils.tensorboard.SummaryWriter`` (torch imported lazily).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ridgeline import SummaryWriter

LAYERS = ("fc1", "fc2", "fc3")
HISTOGRAM_SIZE = 512


@dataclass(frozen=True)
class Naming:
    """How a case names its tags (and whether train and validation are separate runs)."""

    train_loss: str
    val_loss: str
    train_acc: str
    val_acc: str
    grad_scalar: str  # format with {layer}
    grad_hist: str  # format with {param}
    split_runs: bool = False


NAMINGS = (
    Naming("train/loss", "val/loss", "train/acc", "val/acc", "grad_norm/{layer}", "{param}/grad"),
    Naming("loss/train", "loss/valid", "accuracy/train", "accuracy/eval", "grad/{layer}", "grad/{param}"),
    Naming("train_loss", "eval_loss", "train_accuracy", "eval_accuracy", "{layer}_grad_norm", "{param}_grad"),
    Naming("epoch_loss", "epoch_loss", "epoch_accuracy", "epoch_accuracy", "grad_norm/{layer}", "{param}.grad", True),
)


@dataclass
class Curves:
    """What one case logs: per-step arrays on a common step axis (NaN: a non-finite value to write)."""

    steps: np.ndarray
    train_loss: np.ndarray
    val_every: int
    val_loss: np.ndarray | None = None
    train_acc: np.ndarray | None = None
    val_acc: np.ndarray | None = None
    grad_norms: dict[str, np.ndarray] = field(default_factory=dict)  # layer -> norm per step
    weight_scale: dict[str, np.ndarray] = field(default_factory=dict)  # layer -> drift per step (0: frozen)
    grad_as_histograms: bool = False
    histogram_every: int = 10


def _noise(rng: np.random.Generator, n: int, sigma: float) -> np.ndarray:
    return np.exp(rng.normal(0.0, sigma, n))


def _power(t: np.ndarray, tau: float, alpha: float) -> np.ndarray:
    return (1 + t / tau) ** -alpha


def _accuracy(loss: np.ndarray, start: float) -> np.ndarray:
    return np.clip(0.1 + 0.88 * (1 - np.minimum(loss, start) / start) ** 0.6, 0, 1)


def _healthy_grads(rng: np.random.Generator, t: np.ndarray, tau: float) -> dict[str, np.ndarray]:
    return {
        layer: rng.uniform(0.3, 3.0) * (0.3 + 0.7 * _power(t, tau, 0.5)) * _noise(rng, len(t), 0.2) for layer in LAYERS
    }


def _drift(t: np.ndarray, tau: float) -> dict[str, np.ndarray]:
    return {layer: 0.2 * _power(t, tau, 0.7) for layer in LAYERS}


def _base(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, float, float]:
    steps_total = int(rng.choice([1000, 2000, 5000]))
    stride = steps_total // int(rng.choice([200, 250, 400]))
    steps = np.arange(0, steps_total, stride, dtype=np.int64)
    t = steps / steps_total
    return steps, t, float(rng.uniform(1.5, 2.5)), float(rng.uniform(0.03, 0.12))


def healthy(rng: np.random.Generator, variant: int) -> Curves:
    steps, t, start, sigma = _base(rng)
    tau = rng.uniform(0.02, 0.08)
    floor = rng.uniform(0.0, 0.1)
    clean = floor + (start - floor) * _power(t, tau, rng.uniform(0.5, 0.9))
    if variant == 1:  # step decay: the loss drops at each learning-rate milestone
        for milestone in (0.5, 0.75):
            clean = np.where(t > milestone, clean * 0.75, clean)
    if variant == 2:  # warm-up: flat for the first few percent
        clean = np.where(t < 0.04, start, clean)
    if variant == 6:  # cosine schedule: progress follows the integral of the learning rate
        progress = t + np.sin(np.pi * t) * (1 - t) * 0.3
        clean = floor + (start - floor) * _power(progress, tau, rng.uniform(0.5, 0.9))
    if variant == 7:  # a short run
        keep = np.linspace(0, len(t) - 1, 40).astype(np.int64)
        steps, t, clean = steps[keep], t[keep], clean[keep]
    if variant == 4:  # small batches: much noisier
        sigma = rng.uniform(0.2, 0.3)
    train = clean * _noise(rng, len(t), sigma)
    if variant == 5:  # a few isolated loss spikes
        train[rng.choice(np.arange(len(t) // 10, len(t)), 3, replace=False)] *= rng.uniform(2, 4)
    gap = rng.uniform(1.02, 1.1)
    val = clean * gap * _noise(rng, len(t), 0.02)
    return Curves(
        steps,
        train,
        10,
        val,
        _accuracy(train, start),
        _accuracy(val, start),
        _healthy_grads(rng, t, tau),
        _drift(t, tau),
        grad_as_histograms=variant == 3,
    )


def overfitting(rng: np.random.Generator, variant: int) -> Curves:
    steps, t, start, sigma = _base(rng)
    tau = rng.uniform(0.02, 0.06)
    train_clean = start * _power(t, tau, rng.uniform(0.9, 1.4))
    turn = rng.uniform(0.15, 0.45)
    val_best = start * rng.uniform(0.3, 0.5)
    rise_rate = rng.uniform(0.25, 0.4) if variant == 2 else rng.uniform(0.6, 1.5)  # variant 2: a mild rise
    fall = val_best + (start - val_best) * np.exp(-t / (turn / 4))
    rise = val_best * (1 + rise_rate * np.maximum(t - turn, 0) / (1 - turn))
    val_clean = np.where(t < turn, np.maximum(fall, val_best), rise)
    train = train_clean * _noise(rng, len(t), sigma)
    val = val_clean * _noise(rng, len(t), 0.02)
    return Curves(
        steps,
        train,
        int(rng.choice([5, 10])),
        val,
        _accuracy(train, start),
        np.clip(_accuracy(np.full_like(val, val_best), start) - 0.05 * np.maximum(t - turn, 0), 0, 1),
        _healthy_grads(rng, t, tau),
        _drift(t, tau),
    )


def underfitting(rng: np.random.Generator, variant: int) -> Curves:
    steps, t, start, sigma = _base(rng)
    level = start * rng.uniform(0.8, 0.95)
    clean = level + (start - level) * np.exp(-t / rng.uniform(0.01, 0.04))
    train = clean * _noise(rng, len(t), sigma)
    val = clean * rng.uniform(1.0, 1.05) * _noise(rng, len(t), 0.02)
    acc = rng.uniform(0.15, 0.4) * np.ones_like(t) + rng.normal(0, 0.01, len(t))
    return Curves(
        steps,
        train,
        10,
        val if variant != 1 else None,
        acc,
        acc - 0.01,
        {layer: rng.uniform(0.1, 1) * _noise(rng, len(t), 0.15) for layer in LAYERS} if variant == 2 else {},
        {},
    )


def plateau(rng: np.random.Generator, variant: int) -> Curves:
    steps, t, start, sigma = _base(rng)
    level = start * rng.uniform(0.3, 0.6)
    stop = rng.uniform(0.08, 0.25)
    clean = level + (start - level) * np.exp(-t / (stop / 4))
    train = clean * _noise(rng, len(t), sigma)
    val = clean * rng.uniform(1.02, 1.08) * _noise(rng, len(t), 0.02)
    return Curves(
        steps,
        train,
        10,
        val if variant != 1 else None,
        _accuracy(train, start) if variant != 2 else None,
        _accuracy(val, start),
        _healthy_grads(rng, t, 0.05) if variant == 0 else {},
        {},
    )


def lr_too_high(rng: np.random.Generator, variant: int) -> Curves:
    steps, t, start, _sigma = _base(rng)
    n = len(t)
    if variant == 0:  # oscillating around a high level, big swings
        period = rng.uniform(0.02, 0.08)
        clean = start * rng.uniform(0.6, 0.9) * (1 + 0.4 * np.sin(2 * np.pi * t / period))
        train = clean * _noise(rng, n, rng.uniform(0.3, 0.5))
    elif variant == 1:  # falls, then diverges
        turn = rng.uniform(0.2, 0.5)
        best = start * rng.uniform(0.3, 0.5)
        fall = best + (start - best) * np.exp(-t / (turn / 4))
        grow = best * np.exp(rng.uniform(2.5, 4.0) * np.maximum(t - turn, 0) / (1 - turn))
        train = np.where(t < turn, fall, grow) * _noise(rng, n, 0.05)
    else:  # falls a little, then NaN
        turn = rng.uniform(0.3, 0.7)
        train = start * _power(t, 0.05, 0.3) * _noise(rng, n, 0.15)
        train[t >= turn] = np.nan
    val = train * rng.uniform(1.0, 1.1)
    return Curves(steps, train, 10, val, None, None, {}, {})


def lr_too_low(rng: np.random.Generator, variant: int) -> Curves:
    steps, t, start, sigma = _base(rng)
    total = rng.uniform(0.08, 0.35)
    clean = start * (1 - total * (t + rng.uniform(0, 0.4) * t * (1 - t)))
    train = clean * _noise(rng, len(t), sigma * 0.5)
    val = clean * rng.uniform(1.01, 1.05) * _noise(rng, len(t), 0.01)
    return Curves(
        steps,
        train,
        10,
        val if variant != 1 else None,
        _accuracy(train, start),
        _accuracy(val, start),
        _healthy_grads(rng, t, 10.0) if variant == 2 else {},
        _drift(t, 10.0) if variant == 2 else {},
    )


def vanishing_gradients(rng: np.random.Generator, variant: int) -> Curves:
    steps, t, start, sigma = _base(rng)
    collapse = rng.uniform(0.1, 0.35)
    orders = rng.uniform(3.0, 6.0)
    grads = {}
    for depth, layer in enumerate(LAYERS):
        shrink = orders * (1 - 0.3 * depth / len(LAYERS))
        grads[layer] = (
            rng.uniform(0.2, 2) * 10 ** (-shrink * np.minimum(t / collapse, 1.0) ** 0.7) * _noise(rng, len(t), 0.2)
        )
    level = start * rng.uniform(0.6, 0.9)
    clean = level + (start - level) * np.exp(-t / (collapse / 3))
    train = clean * _noise(rng, len(t), sigma)
    return Curves(
        steps,
        train,
        10,
        clean * 1.03 * _noise(rng, len(t), 0.02),
        None,
        None,
        grads,
        _drift(t, 0.05),
        grad_as_histograms=variant == 1,
    )


def exploding_gradients(rng: np.random.Generator, variant: int) -> Curves:
    steps, t, start, sigma = _base(rng)
    blow = rng.uniform(0.3, 0.6)
    growth = rng.uniform(3.0, 6.0)
    nan_at = blow + rng.uniform(0.1, 0.3)
    grads = {}
    for layer in LAYERS:
        g = rng.uniform(0.5, 2) * 10 ** (growth * np.maximum(t - blow, 0) / max(nan_at - blow, 1e-3))
        g = g * _noise(rng, len(t), 0.2)
        if variant != 2:
            g[t >= nan_at] = np.nan
        grads[layer] = g
    clean = 0.2 + (start - 0.2) * _power(t, 0.05, 0.7)
    train = clean * (1 + np.maximum(t - blow, 0) * 5) * _noise(rng, len(t), sigma)
    if variant != 2:
        train[t >= nan_at + 0.02] = np.nan
    return Curves(steps, train, 10, None, None, None, grads, _drift(t, 0.05), grad_as_histograms=variant == 1)


def dead_units(rng: np.random.Generator, variant: int) -> Curves:
    steps, t, start, sigma = _base(rng)
    tau = rng.uniform(0.02, 0.08)
    clean = 0.05 + (start - 0.05) * _power(t, tau, 0.7)
    train = clean * _noise(rng, len(t), sigma)
    grads = _healthy_grads(rng, t, tau)
    drift = _drift(t, tau)
    dead_layer = LAYERS[int(rng.integers(len(LAYERS)))]
    die = rng.uniform(0.2, 0.5)
    if variant != 1:  # its weights freeze
        drift[dead_layer] = np.where(t >= die, 0.0, drift[dead_layer])
    if variant != 0:  # its gradients drop to exactly zero
        grads[dead_layer] = np.where(t >= die, 0.0, grads[dead_layer])
    if variant == 0:
        grads = {}
    return Curves(
        steps,
        train,
        10,
        clean * 1.05 * _noise(rng, len(t), 0.02),
        _accuracy(train, start),
        None,
        grads,
        drift,
        grad_as_histograms=variant == 2,
    )


GENERATORS: dict[str, tuple[Callable[[np.random.Generator, int], Curves], int]] = {
    "healthy": (healthy, 8),
    "overfitting": (overfitting, 3),
    "underfitting": (underfitting, 3),
    "plateau": (plateau, 3),
    "lr_too_high": (lr_too_high, 3),
    "lr_too_low": (lr_too_low, 3),
    "vanishing_gradients": (vanishing_gradients, 2),
    "exploding_gradients": (exploding_gradients, 3),
    "dead_units": (dead_units, 3),
}


def _write(root: Path, case: str, curves: Curves, naming: Naming, rng: np.random.Generator) -> None:
    """One case as event files: one run ``<case>`` (or ``<case>/train`` + ``<case>/validation``)."""
    train_dir = root / case / "train" if naming.split_runs else root / case
    val_dir = root / case / "validation" if naming.split_runs else root / case
    train = SummaryWriter(str(train_dir), flush_secs=3600, max_queue=1000)
    val = train if not naming.split_runs else SummaryWriter(str(val_dir), flush_secs=3600, max_queue=1000)
    weights = {layer: rng.normal(0, 0.1, HISTOGRAM_SIZE) for layer in curves.weight_scale}
    direction = {layer: rng.normal(0, 1, HISTOGRAM_SIZE) for layer in curves.weight_scale}
    try:
        for i, step in enumerate(curves.steps.tolist()):
            train.add_scalar(naming.train_loss, float(curves.train_loss[i]), step)
            if curves.train_acc is not None:
                train.add_scalar(naming.train_acc, float(curves.train_acc[i]), step)
            if i % curves.val_every == 0 or i == len(curves.steps) - 1:
                if curves.val_loss is not None:
                    val.add_scalar(naming.val_loss, float(curves.val_loss[i]), step)
                if curves.val_acc is not None:
                    val.add_scalar(naming.val_acc, float(curves.val_acc[i]), step)
            histogram_step = i % curves.histogram_every == 0 or i == len(curves.steps) - 1
            for layer, norm in curves.grad_norms.items():
                if curves.grad_as_histograms:
                    spread = float(norm[i]) / math.sqrt(HISTOGRAM_SIZE)
                    if histogram_step and math.isfinite(spread):  # writers refuse a histogram of NaNs
                        values = rng.normal(0, 1, HISTOGRAM_SIZE) * spread
                        train.add_histogram(naming.grad_hist.format(param=f"{layer}.weight"), values, step)
                else:
                    train.add_scalar(naming.grad_scalar.format(layer=layer), float(norm[i]), step)
            for layer, drift in curves.weight_scale.items():
                weights[layer] = weights[layer] + drift[i] * 0.01 * (
                    direction[layer] + rng.normal(0, 1, HISTOGRAM_SIZE)
                )
                if histogram_step:
                    name = f"{layer}.weight" if not naming.split_runs else f"{layer}/kernel_0"
                    train.add_histogram(name, weights[layer], step)
    finally:
        train.close()
        val.close()


def write_problem_runs(
    root: str | Path, seeds: Iterable[int] = (0, 1), kinds: Iterable[str] | None = None
) -> dict[str, frozenset[str]]:
    """Write every case under ``root``; returns each case's name and its expected kinds (empty: healthy).

    A case is the run ``<case>``, or the runs ``<case>/train`` and ``<case>/validation`` (Keras style); every
    finding about it names a run that starts with ``<case>``.
    """
    root = Path(root)
    labels: dict[str, frozenset[str]] = {}
    chosen = list(kinds) if kinds is not None else list(GENERATORS)
    for seed in seeds:
        for kind in chosen:
            k = list(GENERATORS).index(kind)  # (a case is the same whichever kinds are chosen)
            generator, variants = GENERATORS[kind]
            for variant in range(variants):
                rng = np.random.default_rng([seed, k, variant])
                naming = NAMINGS[(seed + variant + k) % len(NAMINGS)]
                case = f"{kind}-v{variant}-s{seed}"
                _write(root, case, generator(rng, variant), naming, rng)
                labels[case] = frozenset() if kind == "healthy" else frozenset({kind})
    return labels


def write_torch_overfitting(root: str | Path, *, seed: int = 0, epochs: int = 120) -> str:
    """Train a tiny MLP (torch, CPU) to memorise 96 noisy examples and log it with torch's SummaryWriter: train
    and validation loss and accuracy per epoch, the global gradient norm, per-parameter gradient norms and weight
    histograms. The validation loss bottoms out early and climbs: a textbook overfit. Returns the run name."""
    import torch
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a model this small only loses time to thread hand-offs
    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    dims, classes = 20, 4
    centres = torch.randn(classes, dims, generator=generator) * 0.6

    def data(n: int) -> tuple[torch.Tensor, torch.Tensor]:
        y = torch.randint(0, classes, (n,), generator=generator)
        x = centres[y] + torch.randn(n, dims, generator=generator)
        flip = torch.rand(n, generator=generator) < 0.3  # label noise the model can only memorise
        y = torch.where(flip, torch.randint(0, classes, (n,), generator=generator), y)
        return x, y

    x_train, y_train = data(96)
    x_val, y_val = data(512)
    model = torch.nn.Sequential(
        torch.nn.Linear(dims, 128),
        torch.nn.ReLU(),
        torch.nn.Linear(128, 128),
        torch.nn.ReLU(),
        torch.nn.Linear(128, classes),
    )
    optimiser = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = torch.nn.CrossEntropyLoss()
    run = "torch_mlp_overfit"
    writer = TorchWriter(str(Path(root) / run))
    try:
        for epoch in range(epochs):
            model.train()
            optimiser.zero_grad()
            logits = model(x_train)
            loss = loss_fn(logits, y_train)
            loss.backward()
            norms = {name: float(p.grad.norm()) for name, p in model.named_parameters() if p.grad is not None}
            total = math.sqrt(sum(v * v for v in norms.values()))
            optimiser.step()
            writer.add_scalar("train/loss", float(loss.detach()), epoch)
            writer.add_scalar("train/acc", float((logits.argmax(1) == y_train).float().mean()), epoch)
            writer.add_scalar("grad_norm/total", total, epoch)
            model.eval()
            with torch.no_grad():
                val_logits = model(x_val)
                writer.add_scalar("val/loss", float(loss_fn(val_logits, y_val)), epoch)
                writer.add_scalar("val/acc", float((val_logits.argmax(1) == y_val).float().mean()), epoch)
            if epoch % 10 == 0 or epoch == epochs - 1:
                for name, p in model.named_parameters():
                    writer.add_histogram(name, p.detach(), epoch)
                    if p.grad is not None:
                        writer.add_histogram(f"{name}/grad", p.grad, epoch)
    finally:
        writer.close()
        torch.set_num_threads(threads)
    return run


TORCH_RUNS: dict[str, tuple[frozenset[str], dict[str, float | str]]] = {
    # run: (expected kinds, training settings)
    "torch_sgd_healthy": (frozenset(), {"optimiser": "sgd", "lr": 0.05}),
    "torch_adam_healthy": (frozenset(), {"optimiser": "adam", "lr": 1e-3}),
    "torch_sgd_lr_too_high": (frozenset({"lr_too_high"}), {"optimiser": "sgd", "lr": 3.0}),
    "torch_sgd_lr_too_low": (frozenset({"lr_too_low"}), {"optimiser": "sgd", "lr": 1e-4}),
    "torch_deep_sigmoid": (
        frozenset({"vanishing_gradients"}),
        {"optimiser": "sgd", "lr": 0.05, "depth": 10, "activation": "sigmoid"},
    ),
}


def write_torch_runs(root: str | Path, *, epochs: int = 30, seed: int = 0) -> dict[str, frozenset[str]]:
    """Train a small MLP classifier (torch, CPU, minibatches of 64 over 2,000 examples of 4 Gaussian classes) once
    per :data:`TORCH_RUNS` entry, logged with torch's SummaryWriter as people do: ``train/loss`` and
    ``grad_norm/total`` and ``grad_norm/<weight>`` per layer every 5 steps, ``val/loss`` and ``val/acc`` per
    epoch, weight histograms every other epoch. Healthy settings, a learning rate so high the loss blows up, one
    so low it barely learns, and a 10-layer sigmoid network whose first layers get almost no gradient. Returns
    each run's expected kinds."""
    import torch
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    labels: dict[str, frozenset[str]] = {}
    try:
        for run, (kinds, settings) in TORCH_RUNS.items():
            torch.manual_seed(seed)
            generator = torch.Generator().manual_seed(seed)
            dims, classes, n = 20, 4, 2000
            centres = torch.randn(classes, dims, generator=generator)
            y_all = torch.randint(0, classes, (n + 500,), generator=generator)
            x_all = centres[y_all] + torch.randn(n + 500, dims, generator=generator)
            x_train, y_train, x_val, y_val = x_all[:n], y_all[:n], x_all[n:], y_all[n:]
            activation = torch.nn.Sigmoid if settings.get("activation") == "sigmoid" else torch.nn.ReLU
            layers: list[torch.nn.Module] = [torch.nn.Linear(dims, 64), activation()]
            for _ in range(int(settings.get("depth", 2)) - 1):
                layers += [torch.nn.Linear(64, 64), activation()]
            model = torch.nn.Sequential(*layers, torch.nn.Linear(64, classes))
            lr = float(settings["lr"])
            optimiser = (
                torch.optim.SGD(model.parameters(), lr=lr)
                if settings["optimiser"] == "sgd"
                else torch.optim.Adam(model.parameters(), lr=lr)
            )
            loss_fn = torch.nn.CrossEntropyLoss()
            writer = TorchWriter(str(Path(root) / run))
            step = 0
            try:
                for epoch in range(epochs):
                    order = torch.randperm(n, generator=generator)
                    for start in range(0, n, 64):
                        batch = order[start : start + 64]
                        optimiser.zero_grad()
                        loss = loss_fn(model(x_train[batch]), y_train[batch])
                        loss.backward()
                        norms = {
                            name: float(p.grad.norm()) for name, p in model.named_parameters() if p.grad is not None
                        }
                        optimiser.step()
                        if step % 5 == 0:
                            writer.add_scalar("train/loss", float(loss.detach()), step)
                            writer.add_scalar("grad_norm/total", math.sqrt(sum(v * v for v in norms.values())), step)
                            for name, value in norms.items():
                                if name.endswith("weight"):
                                    writer.add_scalar(f"grad_norm/{name}", value, step)
                        step += 1
                    with torch.no_grad():
                        logits = model(x_val)
                        writer.add_scalar("val/loss", float(loss_fn(logits, y_val)), step)
                        writer.add_scalar("val/acc", float((logits.argmax(1) == y_val).float().mean()), step)
                    if epoch % 2 == 0:
                        for name, p in model.named_parameters():
                            if bool(torch.isfinite(p).all()):  # torch's writer refuses NaN weights
                                writer.add_histogram(name, p.detach(), step)
            finally:
                writer.close()
            labels[run] = kinds
    finally:
        torch.set_num_threads(threads)
    return labels


__all__ = ["GENERATORS", "NAMINGS", "TORCH_RUNS", "write_problem_runs", "write_torch_overfitting", "write_torch_runs"]
