"""Log directories with labelled anomalies for the alerts tests (API and CLI), written by ridgeline's writer
and by torch's."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

import ridgeline
from tests.conftest import wall

STEPS = 400


def curve(seed: int) -> list[float]:
    """A healthy noisy loss: decay plus 1% Gaussian noise (float32-exact, as the writers store it)."""
    rng = np.random.default_rng(seed)
    x = np.arange(STEPS)
    values = (1.5 * np.exp(-x / 150) + 0.4) * (1 + 0.01 * rng.normal(size=STEPS))
    return [float(np.float32(value)) for value in values]


def labelled_series() -> dict[str, list[float]]:
    """Per tag, the values; LABELS says which alerts each must raise."""
    spiky = curve(1)
    spiky[250] = spiky[250] * 4
    diverging = curve(2)
    diverging[300:] = [math.nan] * (STEPS - 300)
    overflow = curve(3)
    overflow[120] = math.inf
    shifted = [0.5 + 0.005 * math.sin(step * 1.7) for step in range(STEPS)]
    shifted[200:206] = [value + 0.03 for value in shifted[200:206]]  # beyond 3 sigma, within 10 robust sigma
    return {
        "train/loss": curve(0),
        "spiky": spiky,
        "diverging": diverging,
        "overflow": overflow,
        "shifted": shifted,
    }


LABELS = {
    ("spiky", "spike", 250),
    ("diverging", "nan", 300),
    ("overflow", "inf", 120),
    ("shifted", "outlier", 202),
}


def write_ridgeline(directory: Path, series: dict[str, list[float]], steps: range = range(STEPS)) -> None:
    writer = ridgeline.SummaryWriter(str(directory))
    for step in steps:
        for tag, values in series.items():
            writer.add_scalar(tag, values[step], step, walltime=wall(step))
    writer.close()


def write_torch(directory: Path, series: dict[str, list[float]]) -> None:
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(directory))
    for step in range(STEPS):
        for tag, values in series.items():
            writer.add_scalar(tag, values[step], step, walltime=wall(step))
    # A tag that stops at step 99 while the others go on to 399: stalled.
    for step in range(100):
        writer.add_scalar("grad_norm", 1.0 + 0.01 * math.sin(step), step, walltime=wall(step))
    writer.close()
