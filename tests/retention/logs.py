"""Log directories for the retention tests, written by ridgeline's SummaryWriter with event times in the past,
and their files' modification times set to match (as if the job had stopped writing then)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from ridgeline import SummaryWriter

DAY = 86400.0


def ago(days: float) -> float:
    return time.time() - days * DAY


def write_run(directory: Path, days_ago: float, *, steps: int = 20, embedding: bool = False) -> Path:
    """A run whose last event is ``days_ago`` days old, its files last modified then too."""
    last = ago(days_ago)
    with SummaryWriter(directory) as writer:
        for step in range(steps):
            writer.add_scalar("loss", 1.0 / (step + 1), step, walltime=last - (steps - 1 - step))
        if embedding:
            writer.add_embedding(np.arange(12.0).reshape(4, 3), metadata=list("abcd"), global_step=3)
    age(directory, last)
    return directory


def write_trial_and_series(directory: Path, days_ago: float) -> list[str]:
    """Runs nested in the run at ``directory``, as ``add_scalars`` and ``add_hparams`` lay them out: two series
    ``acc_train``, ``acc_val`` and a trial named by a time stamp (written here with ``add_scalar`` so that its events
    can be as old as the rest; ``add_hparams`` stamps its own with the current time). Their names, sorted."""
    last = ago(days_ago)
    with SummaryWriter(directory) as writer:
        writer.add_scalars("acc", {"train": 0.5, "val": 0.4}, 3, walltime=last)
        writer.add_scalar("loss", 0.1, 3, walltime=last)  # the parent's new file ends as old as the rest
    with SummaryWriter(directory / f"{last:.6f}") as trial:
        trial.add_scalar("hparam/acc", 0.4, 3, walltime=last)
    age(directory, last)
    return sorted(str(path.relative_to(directory)) for path in directory.iterdir() if path.is_dir())


def age(directory: Path, when: float) -> None:
    """Every file below ``directory`` (symlinks themselves, not followed) last modified at ``when``."""
    for path in files_below(directory):
        os.utime(path, (when, when), follow_symlinks=False)


def files_below(directory: Path) -> list[Path]:
    found = []
    for parent, _, names in os.walk(directory):
        found += [Path(parent) / name for name in names]
    return sorted(found)


def snapshot(directory: Path) -> dict[str, tuple[int, float]]:
    """Every file below ``directory`` (relative path -> size, modification time), symlinks included."""
    found = {}
    for parent, directories, names in os.walk(directory):
        for name in [*names, *(d for d in directories if (Path(parent) / d).is_symlink())]:
            path = Path(parent) / name
            info = path.lstat()
            found[str(path.relative_to(directory))] = (info.st_size, info.st_mtime)
    return found


def relative(paths: Iterable[Path], root: Path) -> set[str]:
    return {str(path.relative_to(root)) for path in paths}
