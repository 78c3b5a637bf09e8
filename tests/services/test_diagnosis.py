"""The diagnosis cache over a log directory that grows: after a reload only the groups whose runs got data are
diagnosed again (their findings are new objects; the others' are the very same), and a run that starts to
overfit gets its finding."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import ridgeline
from ridgeline.services.diagnosis import DiagnosisCache

STEPS = np.arange(0, 3000, 10)
T = STEPS / STEPS[-1]
TRAIN = 2.0 * (1 + T / 0.04) ** -1.2
VAL = np.where(T < 0.3, 0.6 + 1.4 * np.exp(-T / 0.06), 0.6 * (1 + 1.5 * (T - 0.3)))


def write(writer: ridgeline.SummaryWriter, part: slice) -> None:
    for step, a, b in zip(STEPS[part].tolist(), TRAIN[part], VAL[part], strict=True):
        writer.add_scalar("train/loss", float(a), step)
        writer.add_scalar("val/loss", float(b), step)
    writer.flush()


def test_only_runs_that_changed_are_diagnosed_again(tmp_path: Path) -> None:
    done = ridgeline.SummaryWriter(str(tmp_path / "done"))
    write(done, slice(None))
    done.close()
    live = ridgeline.SummaryWriter(str(tmp_path / "live"))
    split = int(len(STEPS) * 0.3)
    write(live, slice(0, split))
    try:
        logdir = ridgeline.open(tmp_path, cache=False)
        cache = DiagnosisCache(logdir)
        before = cache.findings()
        assert [(f.run, f.kind) for f in before] == [("done", "overfitting")]
        assert cache.findings("live") == []
        write(live, slice(split, None))
        logdir.reload()
        after = cache.findings()
        assert sorted((f.run, f.kind) for f in after) == [("done", "overfitting"), ("live", "overfitting")]
        assert next(f for f in after if f.run == "done") is before[0]  # not diagnosed again
    finally:
        live.close()
