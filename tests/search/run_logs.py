"""A log directory for run-query and question tests, and the model it was written from.

Runs written by ridgeline's SummaryWriter (scalars with chosen wall times, ``hparams=``) and by torch's
SummaryWriter (training curves in ``sweep``, two ``add_hparams`` trials as its timestamped sub-runs). Tests
compute what a query should select from ``MODEL`` with plain Python, never through the code under test.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

DAY = 86400.0
NOW = time.time()
STEPS = list(range(0, 100, 5))


@dataclass
class RunModel:
    hparams: dict[str, Any] = field(default_factory=dict)
    scalars: dict[str, list[float]] = field(default_factory=dict)  # values as float32 rounds them
    started: float | None = None  # wall time of the first point
    parent: str | None = None  # torch trial: the run holding the curves

    def values(self, tag: str) -> list[float] | None:
        """The run's tag (a torch trial falls back to its parent's), as the docs define metric()."""
        if tag in self.scalars:
            return self.scalars[tag]
        return MODEL[self.parent].scalars.get(tag) if self.parent else None


def curve(floor: float, rise: bool = False) -> list[float]:
    """A loss decaying towards ``floor`` (or an accuracy rising to ``1 - floor``), float32 as written."""
    values = [floor + (1 - floor) * math.exp(-step / 20) for step in STEPS]
    return [float(np.float32(1 - v if rise else v)) for v in values]


def _with(values: list[float], index: int, value: float) -> list[float]:
    return [*values[:index], value, *values[index + 1 :]]


MODEL: dict[str, RunModel] = {
    "resnet-a": RunModel(
        {"lr": 0.001, "batch_size": 64, "optimizer": "adam", "augment": True},
        {"train/loss": curve(0.1), "val/loss": curve(0.25), "val/acc": curve(0.12, rise=True)},
        started=NOW - 1 * DAY,
    ),
    "resnet-b": RunModel(
        {"lr": 0.01, "batch_size": 32, "optimizer": "sgd", "augment": False},
        {"train/loss": curve(0.3), "val/loss": curve(0.45), "val/acc": curve(0.3, rise=True)},
        started=NOW - 3 * DAY,
    ),
    "vit-a": RunModel(
        {"lr": 0.0005, "batch_size": 64, "optimizer": "adam"},
        {"train/loss": _with(curve(0.05), 12, math.nan), "val/loss": curve(0.2), "val/acc": curve(0.08, rise=True)},
        started=NOW - 2 * DAY,
    ),
    "vit-b": RunModel(
        {"lr": 0.001, "batch_size": 128, "optimizer": "adamw", "model/depth": 12},
        {"train/loss": _with(curve(0.2), 5, math.inf), "loss/val": curve(0.28), "acc/val": curve(0.2, rise=True)},
        started=NOW - 5 * DAY,
    ),
    "baseline": RunModel(
        {},
        {"train/loss": curve(0.5), "val/loss": curve(0.6), "val/acc": [math.nan] * len(STEPS)},
        started=NOW - 20 * DAY,
    ),
    "mlp": RunModel(
        {"lr": 0.1, "batch_size": "auto", "optimizer": "sgd"},
        {"train/loss": curve(0.4), "val/loss": curve(0.5)},
        started=NOW - 30 * DAY,
    ),
    "sweep": RunModel({}, {"val/loss": curve(0.35), "val/acc": curve(0.33, rise=True)}, started=NOW - 4 * DAY),
}
TORCH_TRIALS = [
    ({"lr": 0.003, "batch_size": 16}, {"hparam/acc": 0.7}),
    ({"lr": 0.03, "batch_size": 16}, {"hparam/acc": 0.6}),
]


_WRITTEN: list[Path] = []


def logs(root: Path) -> Path:
    """The log directory, written once per test process (under ``root`` the first time)."""
    if not _WRITTEN:
        write_logs(root)
        _WRITTEN.append(root)
    return _WRITTEN[0]


def write_logs(root: Path) -> None:
    """Write every run of MODEL under ``root``; the torch trials are added to MODEL under their sub-run names."""
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    from ridgeline import SummaryWriter

    for name, run in MODEL.items():
        if name == "sweep":
            continue
        with SummaryWriter(root / name, hparams=run.hparams or None, record_run_metadata=False) as writer:
            _write_scalars(writer, run)
    sweep = MODEL["sweep"]
    torch_writer = TorchWriter(str(root / "sweep"))
    _write_scalars(torch_writer, sweep)
    for hparams, metrics in TORCH_TRIALS:
        before = {path.name for path in (root / "sweep").iterdir() if path.is_dir()}
        torch_writer.add_hparams(hparams, metrics)
        torch_writer.flush()
        (trial,) = {path.name for path in (root / "sweep").iterdir() if path.is_dir()} - before
        scalars = {tag: [float(np.float32(value))] for tag, value in metrics.items()}
        MODEL[f"sweep/{trial}"] = RunModel(dict(hparams), scalars, started=time.time(), parent="sweep")
        time.sleep(0.01)  # distinct timestamps
    torch_writer.close()


def _write_scalars(writer: Any, run: RunModel) -> None:
    assert run.started is not None
    for tag, values in run.scalars.items():
        for i, (step, value) in enumerate(zip(STEPS, values, strict=True)):
            writer.add_scalar(tag, value, step, walltime=run.started + 60.0 * i)


def expected(predicate: Any) -> list[str]:
    """The runs of MODEL (in run order: sorted names) for which ``predicate(name, run)`` holds."""
    return [name for name in sorted(MODEL) if predicate(name, MODEL[name])]


def finite_min(values: list[float] | None) -> float | None:
    kept = [v for v in values or [] if not math.isnan(v)]
    return min(kept) if kept else None


def finite_max(values: list[float] | None) -> float | None:
    kept = [v for v in values or [] if not math.isnan(v)]
    return max(kept) if kept else None


def ranked(value: Any, desc: bool, limit: int | None = None) -> list[str]:
    """The runs of MODEL with a value (``value(name, run)``, None or NaN: left out), sorted by it; a torch trial
    whose parent run is ranked too is left out (docs/search.md: they are one training run)."""
    pairs = [(v, name) for name in sorted(MODEL) if (v := value(name, MODEL[name])) is not None and not math.isnan(v)]
    names = {name for _, name in pairs}
    pairs = [(v, name) for v, name in pairs if MODEL[name].parent not in names]
    order = [name for _, name in sorted(pairs, key=lambda pair: -pair[0] if desc else pair[0])]
    return order[:limit] if limit is not None else order


# The pattern language's documented examples (SA's engine): neither run queries nor questions.
PATTERNS = [
    "(lr=0.001|batch_size=64).*(dropout=0.2)",
    "202411[0-9]{2}[0-9]{4}",
    "tag:^train_",
    r"hparam:lr=0\.00[1-5]",
    "text:nan detected",
    "run:resnet",
    "date:202411",
    "resnet",
    "loss AND NOT val",
]
