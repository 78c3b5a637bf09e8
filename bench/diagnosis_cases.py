"""Labelled training runs for the diagnosis evaluation (issue 17), generated from what each problem does to the
curves, not from the rules that detect it.

A case is one training run: its scalar series (and histogram summaries) named by one of four conventions, the
kinds it must be diagnosed with (``labels``) and kinds that are also a fair reading of it (``allowed``: an
exploding gradient usually comes from too high a learning rate, a network whose units died early underfits).
Everything comes from ``numpy.random.default_rng`` seeded by (split, seed, kind, variant).

The two halves share nothing but the kinds: the development half uses seeds 0.., Gaussian (additive) and
multiplicative (log-normal) noise and the torch-examples and Lightning naming conventions; the held-out half
uses seeds 2,000,000.., Laplace and Student-t noise and the Hugging Face and Keras conventions (train and
validation as two runs, as Keras writes them). Rules are developed on the first and reported on the second.

What each label means here (the margin between kinds is kept on purpose, so that a label is true):

- healthy: the loss keeps improving over the run (power-law decay towards a floor, which may be high as with
  label noise), under a constant, step, warm-up, cosine or linear learning-rate schedule, with noise from
  none to very noisy, isolated spikes, a gap between training and validation that stays put, gradients that
  shrink by less than an order of magnitude, weights that move (a backbone frozen from the start is a choice).
- overfitting: validation loss rises 8-150% above its best while the training loss keeps falling (also with a
  learning-rate decay in the middle).
- underfitting: the loss drops at most 12% (quickly, then flat) and the accuracy stays low.
- plateau: the loss falls 35-80% within the first 5-30% of the run, then stays flat for at least half of it
  (in one variant it recovers at the end, after a learning-rate decay).
- lr_too_high: the loss turns NaN, diverges (climbs back above its early level), or jumps and oscillates
  around a high level (structured swings and divergence spikes of 10-60% of the level, over the batch noise)
  without settling; with a learning-rate tag, the instability starts when a warm-up reaches a too-high peak.
- lr_too_low: the loss falls 8-35% over the run along an exponential with a time constant several times
  the run's length: still at nearly its starting pace at the end.
- vanishing_gradients: gradient norms decay smoothly (geometrically) by 3-8 orders of magnitude while the loss
  stalls, or per-layer norms lie 3.5-8 orders of magnitude apart (the first layers get nothing) while the loss
  barely moves.
- exploding_gradients: gradient norms grow by 2.5-6 orders of magnitude, often followed by NaN.
- dead_units: one layer's gradients drop abruptly to exactly zero, or its weights stop changing, while the
  others train; or a layer is dead from the first step: its gradients exactly zero, or its activations all
  zero or constant.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np

from ridgeline.analysis.diagnosis import HistogramSeries, Series, histogram_series, summarise_histogram

HISTOGRAM_SIZE = 256
HISTOGRAM_STEPS = 60


@dataclass(frozen=True)
class Naming:
    """A logging convention: tag names (``{layer}`` filled in) and whether train/validation are two runs."""

    name: str
    train_loss: str
    val_loss: str
    train_acc: str
    val_acc: str
    lr: str
    grad: str  # per-layer gradient norm scalar
    grad_total: str
    weight: str  # weight histogram
    grad_hist: str
    activation: str
    split_runs: bool = False


NAMINGS: dict[str, Naming] = {
    "torch": Naming(
        "torch",
        "Loss/train",
        "Loss/test",
        "Accuracy/train",
        "Accuracy/test",
        "lr",
        "grad_norm/{layer}",
        "grad_norm/total",
        "{layer}.weight",
        "{layer}.weight.grad",
        "activations/{layer}",
    ),
    "lightning": Naming(
        "lightning",
        "train_loss",
        "val_loss",
        "train_acc",
        "val_acc",
        "lr-SGD",
        "grad_2.0_norm/{layer}.weight",
        "grad_2.0_norm_total",
        "{layer}.weight",
        "{layer}.weight_grad",
        "{layer}_activation",
    ),
    "huggingface": Naming(
        "huggingface",
        "train/loss",
        "eval/loss",
        "train/accuracy",
        "eval/accuracy",
        "train/learning_rate",
        "train/grad_norm/{layer}",
        "train/grad_norm",
        "parameters/{layer}.weight",
        "gradients/{layer}.weight",
        "activations/{layer}.output",
    ),
    "keras": Naming(
        "keras",
        "train/epoch_loss",
        "validation/epoch_loss",
        "train/epoch_accuracy",
        "validation/epoch_accuracy",
        "train/epoch_learning_rate",
        "train/{layer}/kernel_0/grad_norm",
        "train/global_grad_norm",
        "train/{layer}/kernel_0",
        "train/{layer}/kernel_0/gradient",
        "train/{layer}/activation",
        split_runs=True,
    ),
}


@dataclass(frozen=True)
class Split:
    name: str
    first_seed: int
    noises: tuple[str, ...]
    namings: tuple[str, ...]


SPLITS = {
    "dev": Split("dev", 0, ("gaussian", "multiplicative"), ("torch", "lightning")),
    # Seeds 1,000,000-1,000,009 of this half were looked at a few times while the rules were developed (whether
    # they generalise); the figures reported come from seeds 2,000,000 on, which nobody looked at before.
    "heldout": Split("heldout", 2_000_000, ("laplace", "student_t"), ("huggingface", "keras")),
}


@dataclass
class Curves:
    """What a run logs before noise and naming: per-step arrays on the training step axis."""

    steps: np.ndarray
    t: np.ndarray  # steps as a fraction of the run
    train: np.ndarray  # clean training loss (NaN: the value logged is NaN)
    val: np.ndarray | None = None  # clean validation loss (logged every val_every points)
    accuracy: np.ndarray | None = None  # clean validation accuracy
    lr: np.ndarray | None = None
    grads: dict[str, np.ndarray] = field(default_factory=dict)  # layer -> clean norm (0: exactly zero)
    drift: dict[str, np.ndarray] = field(default_factory=dict)  # layer -> how fast its weights move (0: frozen)
    activations: dict[str, np.ndarray] = field(default_factory=dict)  # layer -> activation scale (0: dead)
    constant_activation: set[str] = field(default_factory=set)  # layers whose activations never change
    grad_histograms: bool = False
    spikes: bool = False  # isolated batch spikes on the training loss (healthy)


@dataclass(frozen=True)
class Case:
    name: str
    kind: str  # the generator ("healthy" or a kind)
    variant: int
    labels: frozenset[str]
    allowed: frozenset[str]
    scalars: dict[str, Series]
    histograms: dict[str, HistogramSeries]
    meta: dict[str, object]


# --- shapes -------------------------------------------------------------------------------------------------------
def _axis(rng: np.random.Generator, quick: bool) -> tuple[np.ndarray, np.ndarray]:
    """Steps of a run of 50-100,000 steps logged every 1-100 steps (at least 40 points)."""
    total = int(math.exp(rng.uniform(math.log(50), math.log(20_000 if quick else 100_000))))
    intervals = [i for i in (1, 2, 5, 10, 20, 50, 100) if total // i >= 40]
    interval = int(rng.choice(intervals))
    steps = np.arange(0, total, interval, dtype=np.int64)
    return steps, steps / max(total - 1, 1)


def _schedule(rng: np.random.Generator, t: np.ndarray, kind: str | None = None) -> tuple[np.ndarray, str]:
    """A learning-rate schedule relative to its peak (1.0), and its name."""
    kind = kind or str(rng.choice(["constant", "step", "warmup", "cosine", "linear"]))
    if kind == "step":
        lr = np.ones_like(t)
        for milestone in sorted(rng.uniform(0.4, 0.85, int(rng.integers(1, 3)))):
            lr = np.where(t >= milestone, lr * 0.1, lr)
    elif kind == "warmup":
        warm = rng.uniform(0.02, 0.1)
        lr = np.minimum(t / warm, 1.0)
        lr = np.where(t > warm, 0.5 * (1 + np.cos(np.pi * (t - warm) / (1 - warm))), lr)
    elif kind == "cosine":
        lr = 0.5 * (1 + np.cos(np.pi * t))
    elif kind == "linear":
        lr = 1 - t
    else:
        lr = np.ones_like(t)
    return np.maximum(lr, 1e-3), kind


def _progress(lr: np.ndarray, t: np.ndarray) -> np.ndarray:
    """How far training got by each step: the integral of the square root of the learning rate (1.0 at the end
    of a constant one): a lower learning rate slows progress, without stopping it."""
    dt = np.diff(t, prepend=t[0])
    return np.cumsum(np.sqrt(lr) * dt)


def _power(x: np.ndarray, tau: float, alpha: float) -> np.ndarray:
    return (1 + np.maximum(x, 0) / tau) ** -alpha


def _layers(rng: np.random.Generator) -> list[str]:
    style = int(rng.integers(3))
    n = int(rng.integers(3, 7))
    if style == 0:
        return [f"fc{i + 1}" for i in range(n)]
    if style == 1:
        return [f"conv{i + 1}" for i in range(n - 1)] + ["head"]
    return [f"layers.{i}" for i in range(n)]


def _healthy_grads(rng: np.random.Generator, t: np.ndarray, layers: list[str]) -> dict[str, np.ndarray]:
    shrink = rng.uniform(0.0, 0.8)  # orders of magnitude over the run: less than one
    return {layer: 10 ** rng.uniform(-2, 0.5) * 10 ** (-shrink * (1 - _power(t, 0.05, 0.5)) / 0.9) for layer in layers}


def _drift(rng: np.random.Generator, t: np.ndarray, layers: list[str]) -> dict[str, np.ndarray]:
    return {layer: rng.uniform(0.5, 2) * _power(t, rng.uniform(0.02, 0.2), 0.6) for layer in layers}


def _accuracy(loss: np.ndarray, start: float, best: float) -> np.ndarray:
    """An accuracy that rises as the loss falls from ``start`` towards 0, up to ``best``."""
    share = np.clip(1 - loss / start, 0, 1)
    return 0.1 + (best - 0.1) * share**0.5


def _base(rng: np.random.Generator, quick: bool) -> tuple[np.ndarray, np.ndarray, float]:
    steps, t = _axis(rng, quick)
    return steps, t, float(math.exp(rng.uniform(math.log(0.4), math.log(7.0))))


def _extras(rng: np.random.Generator, c: Curves, start: float, layers: list[str], grads: float = 0.5) -> Curves:
    """The series a run logs besides its loss, each present by chance: validation, accuracy, gradients,
    weights (a clean curve's defaults; generators set what their kind needs first)."""
    if c.val is None and rng.random() < 0.8:
        c.val = c.train * rng.uniform(1.0, 1.15)
    if c.accuracy is None and rng.random() < 0.6:
        c.accuracy = _accuracy(np.nan_to_num(c.val if c.val is not None else c.train, nan=start), start, 0.95)
    if not c.grads and rng.random() < grads:
        c.grads = _healthy_grads(rng, c.t, layers)
    if not c.drift and rng.random() < 0.3:
        c.drift = _drift(rng, c.t, layers)
    return c


# --- the kinds ----------------------------------------------------------------------------------------------------
def healthy(rng: np.random.Generator, variant: int, quick: bool) -> Curves:
    steps, t, start = _base(rng, quick)
    layers = _layers(rng)
    schedule = ("constant", "step", "warmup", "cosine", "linear", None, None, None)[variant % 8]
    lr, _ = _schedule(rng, t, schedule)
    floor = start * (rng.uniform(0.2, 0.6) if variant in (5, 6) else rng.uniform(0.0, 0.15))  # 5, 6: label noise
    tau, alpha = rng.uniform(0.03, 0.15), rng.uniform(0.4, 0.8)
    p = _progress(lr, t) / max(_progress(lr, t)[-1], 1e-9)
    excess = rng.uniform(0.02, 0.1) * (start - floor) * lr  # the part of the loss a high learning rate holds up
    train = floor + (start - floor) * _power(p, tau, alpha) + excess
    if schedule == "warmup":  # nothing learned while the learning rate is still tiny
        warming = (np.arange(len(t)) < int(np.argmax(lr))) & (lr < 0.3)
        train = np.maximum(train, np.where(warming, start * (1 - 0.1 * lr), 0))
    c = Curves(steps, t, train, lr=lr if rng.random() < 0.6 else None, spikes=variant == 7)
    gap = rng.uniform(1.0, 1.2)
    if rng.random() < 0.8:
        c.val = train * gap + rng.uniform(0, 0.05) * floor
    if variant == 6:  # a backbone frozen from the start, the head trains
        c.drift = _drift(rng, t, layers)
        c.drift[layers[0]] = np.zeros_like(t)
    c.grad_histograms = rng.random() < 0.3
    return _extras(rng, c, start, layers)


def overfitting(rng: np.random.Generator, variant: int, quick: bool) -> Curves:
    steps, t, start = _base(rng, quick)
    layers = _layers(rng)
    lr = np.ones_like(t)
    if variant == 2:  # a learning-rate decay in the middle: training drops again, validation keeps rising
        lr = np.where(t >= rng.uniform(0.4, 0.7), 0.1, 1.0)
    p = _progress(lr, t) / _progress(lr, t)[-1]
    train = start * _power(p, rng.uniform(0.01, 0.06), rng.uniform(0.8, 1.5)) * (1 + 0.3 * lr) / 1.3
    turn = rng.uniform(0.15, 0.5)
    best = start * rng.uniform(0.3, 0.6)
    rise = rng.uniform(0.08, 0.25) if variant == 1 else rng.uniform(0.3, 1.5)
    fall = best + (start - best) * np.exp(-t / (turn / 4))
    val = np.where(t < turn, fall, best * (1 + rise * (np.maximum(t - turn, 0) / (1 - turn)) ** rng.uniform(0.7, 1.3)))
    accuracy = np.clip(0.9 - 0.1 * rise * np.maximum(t - turn, 0), 0, 1) * np.minimum(1, 0.3 + t / turn)
    c = Curves(steps, t, train, val, accuracy, lr=lr if rng.random() < 0.6 or variant == 2 else None)
    return _extras(rng, c, start, layers)


def underfitting(rng: np.random.Generator, variant: int, quick: bool) -> Curves:
    steps, t, start = _base(rng, quick)
    level = start * rng.uniform(0.88, 0.99)
    train = level + (start - level) * np.exp(-t / rng.uniform(0.01, 0.08))
    chance = rng.uniform(0.05, 0.5)
    accuracy = chance + (rng.uniform(0.0, 0.15) * (1 - np.exp(-t / 0.05)))
    c = Curves(steps, t, train, train * rng.uniform(0.98, 1.05) if variant != 1 else None, accuracy)
    c.lr = np.ones_like(t) if rng.random() < 0.5 else None
    return _extras(rng, c, start, _layers(rng), grads=0.3)


def plateau(rng: np.random.Generator, variant: int, quick: bool) -> Curves:
    steps, t, start = _base(rng, quick)
    level = start * rng.uniform(0.2, 0.65)
    stop = rng.uniform(0.05, 0.3)
    train = level + (start - level) * np.exp(-t / (stop / 4))
    lr = np.ones_like(t)
    if variant == 1:  # plateau, then recovery when the learning rate finally decays
        decay = rng.uniform(0.7, 0.85)
        lr = np.where(t >= decay, 0.1, 1.0)
        train = np.where(t >= decay, level * (1 - rng.uniform(0.2, 0.4) * (1 - np.exp(-(t - decay) / 0.03))), train)
    c = Curves(steps, t, train, train * rng.uniform(1.0, 1.1) if variant != 2 else None)
    c.lr = lr if rng.random() < 0.5 or variant == 1 else None
    if variant != 2:
        c.accuracy = _accuracy(train, start, rng.uniform(0.5, 0.9))
    return _extras(rng, c, start, _layers(rng), grads=0.3)


def lr_too_high(rng: np.random.Generator, variant: int, quick: bool) -> Curves:
    steps, t, start = _base(rng, quick)
    n = len(t)
    lr = np.ones_like(t)
    if variant == 0:  # falls a little, then NaN
        train = start * _power(t, 0.05, rng.uniform(0.1, 0.4))
        train[t >= rng.uniform(0.1, 0.7)] = np.nan
    elif variant == 1:  # falls, then diverges back above where it started
        turn = rng.uniform(0.1, 0.5)
        best = start * rng.uniform(0.3, 0.7)
        fall = best + (start - best) * np.exp(-t / (turn / 4))
        climb = best * np.exp(
            math.log(start / best * rng.uniform(1.1, 3.0)) * (np.maximum(t - turn, 0) / (1 - turn)) ** 1.5
        )
        train = np.where(t < turn, fall, climb)
    else:  # jumps around a high level, never settles; 3: a warm-up that reaches a too-high peak
        level = start * rng.uniform(0.45, 0.9)
        train = level + (start - level) * np.exp(-t / rng.uniform(0.01, 0.05))
        amplitude = rng.uniform(0.1, 0.6)
        swings = _swings(rng, n, amplitude)
        if variant == 3:
            warm = rng.uniform(0.05, 0.2)
            lr = np.minimum(t / warm, 1.0)
            train = start * (1 - 0.5 * np.minimum(t / warm, 1) * (1 - level / start))
            swings = 1 + (swings - 1) * np.clip((t - 0.6 * warm) / (0.4 * warm), 0, 1)
        train = train * swings
    c = Curves(steps, t, train, lr=lr if rng.random() < 0.5 or variant == 3 else None)
    c.val = train * rng.uniform(1.0, 1.1) if rng.random() < 0.7 else None
    return _extras(rng, c, start, _layers(rng), grads=0.0)


def _swings(rng: np.random.Generator, n: int, amplitude: float) -> np.ndarray:
    """Multiplicative swings of a loss a too-large step size throws around: a slow random oscillation plus
    divergence spikes that decay over a few steps, about ``amplitude`` of the level."""
    period = max(4.0, n * rng.uniform(0.01, 0.08))
    phase = np.cumsum(rng.uniform(0.5, 1.5, n)) * 2 * np.pi / period
    slow = 0.5 * amplitude * (1 + np.sin(phase))
    jumps = np.zeros(n)
    for at in rng.choice(n, size=max(3, n // int(rng.integers(15, 40))), replace=False):
        length = int(rng.integers(2, max(3, n // 50) + 2))
        jumps[at : at + length] += amplitude * rng.uniform(0.5, 2.0) * np.exp(-np.arange(min(length, n - at)) / 2)
    return 1 + slow + jumps


def lr_too_low(rng: np.random.Generator, variant: int, quick: bool) -> Curves:
    steps, t, start = _base(rng, quick)
    total = rng.uniform(0.08, 0.35)  # how much of the loss it loses over the whole run
    scale = -1 / math.log(1 - total)  # the time constant, in runs
    floor = start * rng.uniform(0.0, 0.1)
    train = floor + (start - floor) * np.exp(-t / scale)
    c = Curves(steps, t, train, train * rng.uniform(1.0, 1.05) if variant != 1 else None)
    c.accuracy = _accuracy(train, start, 0.95) if rng.random() < 0.6 else None
    c.lr = np.ones_like(t) * rng.uniform(0.3, 1.0) if rng.random() < 0.5 or variant == 2 else None
    return _extras(rng, c, start, _layers(rng), grads=0.6 if variant == 2 else 0.3)


def vanishing_gradients(rng: np.random.Generator, variant: int, quick: bool) -> Curves:
    steps, t, start = _base(rng, quick)
    layers = _layers(rng)
    stall = start * rng.uniform(0.85, 0.97)
    train = stall + (start - stall) * np.exp(-t / rng.uniform(0.02, 0.1))
    grads: dict[str, np.ndarray] = {}
    if variant == 2:  # across depth: the first layers get nothing, from the start
        spread = rng.uniform(3.5, 8.0)
        for depth, layer in enumerate(layers):
            grads[layer] = 10 ** (rng.uniform(-1, 0.5) - spread * (1 - depth / (len(layers) - 1))) * np.ones_like(t)
    else:  # over time: a smooth geometric decay
        orders = rng.uniform(3.0, 8.0)
        over = rng.uniform(0.3, 1.0)  # the fraction of the run the decay takes
        for depth, layer in enumerate(layers):
            shrink = orders * (1 - 0.3 * depth / len(layers))
            grads[layer] = 10 ** (rng.uniform(-1, 0.5) - shrink * np.minimum(t / over, 1.0))
    c = Curves(steps, t, train, grads=grads, grad_histograms=variant == 1)
    c.drift = _drift(rng, t, layers) if rng.random() < 0.3 else {}
    return _extras(rng, c, start, layers)


def exploding_gradients(rng: np.random.Generator, variant: int, quick: bool) -> Curves:
    steps, t, start = _base(rng, quick)
    layers = _layers(rng)
    blow = rng.uniform(0.2, 0.6)
    growth = rng.uniform(2.5, 6.0)
    span = rng.uniform(0.1, 0.3)
    grads = {
        layer: 10 ** rng.uniform(-1.5, 0.5) * 10 ** (growth * np.clip((t - blow) / span, 0, 1.2)) for layer in layers
    }
    train = start * (0.3 + 0.7 * _power(t, 0.05, 0.6)) * (1 + 3 * np.clip((t - blow) / span, 0, None))
    if variant != 2:
        for g in grads.values():
            g[t >= blow + span] = np.nan
        train[t >= blow + span + 0.01] = np.nan
    c = Curves(steps, t, train, grads=grads, grad_histograms=variant == 1)
    c.val = train * rng.uniform(1.0, 1.1) if rng.random() < 0.5 else None
    return _extras(rng, c, start, layers)


def dead_units(rng: np.random.Generator, variant: int, quick: bool) -> Curves:
    steps, t, start = _base(rng, quick)
    layers = _layers(rng)
    floor = start * rng.uniform(0.0, 0.2)
    train = floor + (start - floor) * _power(t, rng.uniform(0.03, 0.1), rng.uniform(0.4, 0.8))
    grads = _healthy_grads(rng, t, layers)
    drift = _drift(rng, t, layers)
    dead = layers[int(rng.integers(len(layers) - 1))]  # not the head: it keeps the loss moving
    die = rng.uniform(0.15, 0.6)
    c = Curves(steps, t, train)
    if variant == 0:  # alive, then its weights freeze (no gradients logged)
        drift[dead] = np.where(t >= die, 0.0, drift[dead])
        c.drift = drift
    elif variant == 1:  # alive, then its gradients drop to exactly zero (and its weights freeze)
        grads[dead] = np.where(t >= die, 0.0, grads[dead])
        drift[dead] = np.where(t >= die, 0.0, drift[dead])
        c.grads, c.drift = grads, drift if rng.random() < 0.5 else {}
    elif variant == 2:  # dead from the first step: its gradients are exactly zero throughout
        grads[dead] = np.zeros_like(t)
        c.grads = grads
    else:  # dead from the first step: its activations are all zero (3) or constant (4)
        c.activations = {layer: np.ones_like(t) for layer in layers}
        c.activations[dead] = np.zeros_like(t) if variant == 3 else np.ones_like(t)
        if variant == 4:
            c.constant_activation = {dead}
        if rng.random() < 0.5:
            grads[dead] = np.zeros_like(t)
            c.grads = grads
    c.grad_histograms = rng.random() < 0.3
    return _extras(rng, c, start, layers)


def overfitting_and_dead(rng: np.random.Generator, variant: int, quick: bool) -> Curves:
    """Two problems at once: validation rises while one layer's gradients are zero from the start."""
    c = overfitting(rng, 0, quick)
    layers = _layers(rng)
    c.grads = _healthy_grads(rng, c.t, layers)
    c.grads[layers[0]] = np.zeros_like(c.t)
    return c


GENERATORS: dict[str, tuple[Callable[[np.random.Generator, int, bool], Curves], int, frozenset[str], frozenset[str]]]
GENERATORS = {
    # generator: (make, variants, labels, allowed)
    "healthy": (healthy, 8, frozenset(), frozenset()),
    "overfitting": (overfitting, 3, frozenset({"overfitting"}), frozenset()),
    "underfitting": (underfitting, 2, frozenset({"underfitting"}), frozenset()),
    "plateau": (plateau, 3, frozenset({"plateau"}), frozenset()),
    "lr_too_high": (lr_too_high, 4, frozenset({"lr_too_high"}), frozenset()),
    "lr_too_low": (lr_too_low, 3, frozenset({"lr_too_low"}), frozenset()),
    "vanishing_gradients": (vanishing_gradients, 3, frozenset({"vanishing_gradients"}), frozenset({"underfitting"})),
    "exploding_gradients": (exploding_gradients, 3, frozenset({"exploding_gradients"}), frozenset({"lr_too_high"})),
    "dead_units": (dead_units, 5, frozenset({"dead_units"}), frozenset()),
    "overfitting+dead_units": (overfitting_and_dead, 1, frozenset({"overfitting", "dead_units"}), frozenset()),
}
# How many cases of each generator per seed (healthy runs are a good share, as in real life).
REPEATS = {"healthy": 3}


# --- noise and naming ---------------------------------------------------------------------------------------------
def noise(rng: np.random.Generator, family: str, values: np.ndarray, sigma: float) -> np.ndarray:
    """``values`` with noise of the family, about ``sigma`` of the level (additive families: of the final level,
    as batch noise that does not shrink with the loss)."""
    n = len(values)
    if sigma == 0:
        return values.copy()
    if family == "multiplicative":
        return values * np.exp(rng.normal(0, sigma, n))
    if family == "gaussian":
        finite = values[np.isfinite(values)]
        level = float(np.median(np.abs(finite[-max(3, len(finite) // 10) :]))) if len(finite) else 1.0
        return np.abs(values + rng.normal(0, sigma, n) * level)
    if family == "laplace":
        return values * np.maximum(1 + rng.laplace(0, sigma / math.sqrt(2), n), 0.05)
    df = float(rng.uniform(3, 6))
    t = rng.standard_t(df, n) * math.sqrt((df - 2) / df)
    return values * np.maximum(1 + sigma * t, 0.05)


def _histograms(rng: np.random.Generator, c: Curves, naming: Naming, every: np.ndarray) -> dict[str, HistogramSeries]:
    out: dict[str, HistogramSeries] = {}
    steps = c.steps[every]
    edges = np.linspace(-3, 3, 31)
    base = rng.normal(0, 1, HISTOGRAM_SIZE)

    def summaries(rows: list[np.ndarray], at: np.ndarray = steps) -> HistogramSeries:
        table = []
        for values in rows:
            lo, hi = float(values.min()), float(values.max())
            grid = edges * max(abs(lo), abs(hi), 1e-12) / 3 if hi > lo else np.array([lo - 1e-3, lo + 1e-3])
            count, bounds = np.histogram(values, bins=grid)
            table.append(summarise_histogram(bounds[:-1], bounds[1:], count))
        return histogram_series(at.tolist(), table)

    for layer, drift in c.drift.items():
        w = rng.normal(0, 0.1, HISTOGRAM_SIZE)
        direction = rng.normal(0, 1, HISTOGRAM_SIZE)
        rows = []
        move = np.cumsum(drift) * 0.01 / max(len(drift) / 200, 1)
        for i in every:
            rows.append(w + move[i] * direction + (move[i] * 0.3) * base)
        out[naming.weight.format(layer=layer)] = summaries(rows)
    if c.grad_histograms:
        for layer, norm in c.grads.items():
            rows = [rng.normal(0, 1, HISTOGRAM_SIZE) * norm[i] / math.sqrt(HISTOGRAM_SIZE) for i in every]
            keep = [i for i, r in enumerate(rows) if np.isfinite(r).all()]  # writers refuse histograms of NaN
            if keep:
                out[naming.grad_hist.format(layer=layer)] = summaries([rows[i] for i in keep], steps[keep])
    for layer, scale in c.activations.items():
        if layer in c.constant_activation:
            rows = [np.full(HISTOGRAM_SIZE, 1.0) for _ in every]
        else:
            rows = [np.maximum(rng.normal(0.2, 1, HISTOGRAM_SIZE), 0) * scale[i] for i in every]
        out[naming.activation.format(layer=layer)] = summaries(rows)
    return out


def render(
    rng: np.random.Generator, c: Curves, naming: Naming, family: str, sigma: float
) -> tuple[dict[str, Series], dict[str, HistogramSeries]]:
    """The series of ``c`` as one run logs them: noise of ``family``, tags named by ``naming``."""
    n = len(c.steps)
    scalars: dict[str, Series] = {}
    train = noise(rng, family, c.train, sigma)
    if c.spikes:
        at = rng.choice(np.arange(n // 10, n), size=min(3, n // 20 + 1), replace=False)
        train[at] *= rng.uniform(2, 4, len(at))
    train[np.isnan(c.train)] = np.nan
    scalars[naming.train_loss] = Series(c.steps, train)
    epochs = int(rng.integers(8, 60))
    val_at = np.unique(np.linspace(0, n - 1, min(n, epochs)).astype(np.int64))
    if c.val is not None:
        val = noise(rng, family, c.val[val_at], sigma / 4)
        val[np.isnan(c.val[val_at])] = np.nan
        scalars[naming.val_loss] = Series(c.steps[val_at], val)
    if c.accuracy is not None:
        acc = np.clip(c.accuracy[val_at] + rng.normal(0, 0.005 + sigma / 20, len(val_at)), 0, 1)
        scalars[naming.val_acc] = Series(c.steps[val_at], acc)
    if c.lr is not None:
        peak = float(10 ** rng.uniform(-4, -0.5))
        scalars[naming.lr] = Series(c.steps, c.lr * peak)
    if c.grads and not c.grad_histograms:
        for layer, g in c.grads.items():
            values = g * np.exp(rng.normal(0, rng.uniform(0.05, 0.4), n))
            values[g == 0] = 0.0
            scalars[naming.grad.format(layer=layer)] = Series(c.steps, values)
        if rng.random() < 0.5:
            total = np.sqrt(sum(np.square(g) for g in c.grads.values()))
            scalars[naming.grad_total] = Series(c.steps, total * np.exp(rng.normal(0, 0.2, n)))
    every = np.unique(np.linspace(0, n - 1, min(n, HISTOGRAM_STEPS)).astype(np.int64))
    return scalars, _histograms(rng, c, naming, every)


def cases(split: Split, seeds: int, quick: bool = False, kinds: list[str] | None = None) -> Iterator[Case]:
    """The labelled cases of ``seeds`` seeds of ``split`` (each seed: every generator, every variant)."""
    chosen = kinds or list(GENERATORS)
    for seed in range(split.first_seed, split.first_seed + seeds):
        for k, kind in enumerate(GENERATORS):
            if kind not in chosen:
                continue
            make, variants, labels, allowed = GENERATORS[kind]
            for variant in range(variants):
                for repeat in range(REPEATS.get(kind, 1)):
                    rng = np.random.default_rng([seed, k, variant, repeat])
                    curves = make(rng, variant, quick)
                    naming = NAMINGS[split.namings[int(rng.integers(len(split.namings)))]]
                    family = split.noises[int(rng.integers(len(split.noises)))]
                    sigma = 0.0 if rng.random() < 0.1 else float(math.exp(rng.uniform(math.log(0.003), math.log(0.25))))
                    scalars, histograms = render(rng, curves, naming, family, sigma)
                    name = f"{kind}-v{variant}-r{repeat}-s{seed}"
                    meta = {
                        "naming": naming.name,
                        "noise": family,
                        "sigma": round(sigma, 4),
                        "points": len(curves.steps),
                    }
                    yield Case(name, kind, variant, labels, allowed, scalars, histograms, meta)
