"""Reduced answers are remembered per series version: polled again unchanged they are the same, and a series
that grew is answered with its new points (never a stale answer)."""

from __future__ import annotations

from pathlib import Path

import ridgeline
from tests.conftest import wait_until
from tests.plugins.conftest import in_process

WALL = 1_700_000_000.0


def test_a_reduced_answer_follows_the_series_as_it_grows(tmp_path: Path) -> None:
    writer = ridgeline.SummaryWriter(str(tmp_path / "run"))
    for step in range(100):
        writer.add_scalar("loss", step / 8, step, walltime=WALL + step)
    writer.flush()
    with in_process(tmp_path, reload_interval=0.05) as api:
        first = api.get("/api/scalars", run="run", tag="loss", max_points=10).json()
        again = api.get("/api/scalars", run="run", tag="loss", max_points=10).json()
        assert first == again and first["total_points"] == 100 and first["reduced"]
        for step in range(100, 150):
            writer.add_scalar("loss", 1000.0 if step == 120 else step / 8, step, walltime=WALL + step)
        writer.flush()
        grown = wait_until(
            lambda: (
                (body := api.get("/api/scalars", run="run", tag="loss", max_points=10).json())["total_points"] == 150
                and body
            ),
            "the reduced answer to include the appended points",
        )
        assert grown["step"][-1] == 149
        assert max(grown["value"]) == 1000.0  # the spike in the new points is kept by the reduction
    writer.close()
