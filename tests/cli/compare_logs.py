"""Two runs and an overfitting one, written with ridgeline's writer, that ``compare`` and ``check`` read."""

from __future__ import annotations

import time
from pathlib import Path

from ridgeline import SummaryWriter
from ridgeline.fixtures.problems import write_problem_runs


def write_runs(root: Path) -> str:
    """``baseline`` and ``candidate`` (val/loss 1% higher at the end, val/acc 0.3 points lower, lr differs, ran
    60 s and 90 s from now); returns the name of a run the diagnosis finds overfitting."""
    start = time.time()  # the session records (hparams) are stamped now, the points from now on
    for name, lr, worse, seconds in (("baseline", 0.1, 0.0, 60.0), ("candidate", 0.2, 1.0, 90.0)):
        with SummaryWriter(root / name, hparams={"lr": lr, "optimizer": "sgd"}, record_run_metadata=False) as w:
            for step in range(11):
                at = start + seconds * step / 10
                w.add_scalar("val/loss", 1.0 / (step + 1) * (1 + 0.01 * worse * (step == 10)) + 0.5, step, at)
                w.add_scalar("val/acc", 0.5 + 0.04 * step - 0.003 * worse * (step == 10), step, at)
                w.add_scalar("train/loss", 2.0 - 0.1 * step, step, at)
    overfit = write_problem_runs(root / "problems", seeds=(1,), kinds=["overfitting"])
    for case in sorted(overfit):
        if any((root / "problems" / case).glob("events.out.tfevents.*")):
            return f"problems/{case}"
    raise AssertionError("every overfitting case has split runs")
