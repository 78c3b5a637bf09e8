"""Shared test helpers: reading event files back with nothing but the format layer; the shared log directory
(``logs``) the server's and the scalars plugin's API tests read, written by the real writers: torch's
``torch.utils.tensorboard.SummaryWriter`` and ridgeline's, with the awkward cases (tags that need escaping,
NaN/±Inf, steps going backwards, one point); waiting for a condition on a busy machine."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

import ridgeline
from ridgeline.format import records
from ridgeline.format.proto import event_pb2


def event_files(log_dir: Path) -> list[Path]:
    return sorted(p for p in Path(log_dir).iterdir() if "tfevents" in p.name)


def read_events(path: Path) -> list[event_pb2.Event]:
    """Every event of one file, checking both CRCs of every record; fails on a corrupt or partial record."""
    buffer = Path(path).read_bytes()
    events = []
    end = 0
    for record in records.iter_records(buffer):
        events.append(event_pb2.Event.FromString(record.data))
        end = record.end
    assert end == len(buffer), f"{path}: {len(buffer) - end} bytes after the last complete record"
    return events


def read_scalars(log_dir: Path, tag: str) -> list[tuple[int, float]]:
    """(step, simple_value) of every scalar event under ``tag`` in every file of ``log_dir``, in file order."""
    points = []
    for path in event_files(log_dir):
        for event in read_events(path):
            for value in event.summary.value:
                if value.tag == tag and value.HasField("simple_value"):
                    points.append((event.step, value.simple_value))
    return points


# Hypothesis' defaults time each example (a 200 ms deadline) and fail a strategy that generates slowly: timed
# assertions, which fail on a busy machine. Tests that set their own settings inherit the rest from this profile.
settings.register_profile("ridgeline", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ridgeline")

T = TypeVar("T")
# How long a test waits for something to happen before it fails: generous, because CI is a busy 2-core machine
# where a reload, a subprocess or a page can be many times slower than on a quiet one. How fast things happen is
# measured in bench/, never asserted in a test.
WAIT_S = 120.0


def wait_until(condition: Callable[[], T], what: str, timeout: float = WAIT_S, interval: float = 0.05) -> T:
    """Polls ``condition()`` until it returns something truthy and returns that; after ``timeout`` seconds fails
    naming ``what`` it waited for (e.g. "the new trial in /api/hparams/table") and the last value seen."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:.0f} s for {what}; the last check gave {value!r}")
        time.sleep(interval)
    return value


WALL = 1_700_000_000.0
RIDGELINE_SERIES: dict[str, list[tuple[int, float]]] = {
    "loss": [(step, 1.0 / (step + 1)) for step in range(1000)],
    "acc(top-1)[val]": [(0, 1.5), (1, math.nan), (2, math.inf), (3, -math.inf), (4, 2.5)],
    "Loss/训练": [(7, 3.0)],
    # Steps 0..9, then the job went back to 5: the second 5..7 replace the first (last write wins).
    "backwards": [(step, float(step)) for step in range(10)] + [(step, 100.0 + step) for step in range(5, 8)],
}
TORCH_SERIES: dict[str, list[tuple[int, float]]] = {
    "train/loss": [(step, 2.0 * math.exp(-step / 50)) for step in range(300)],
    "train/acc": [(step, 0.25 + step / 400) for step in range(0, 300, 3)],
}
HPARAMS = {"lr": 0.001, "optimiser": "adam", "augment": True, "layers": 4}


def run_coroutine(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coroutine)`` in a thread of its own: the test's thread may already run an event loop (a
    pytest worker that ran a browser test first keeps Playwright's sync API loop there), which ``asyncio.run``
    refuses, so a test calling it directly passed or failed by which tests its worker had run before."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def wall(step: int) -> float:
    return WALL + step * 0.25


def write_ridgeline_run(directory: Path, series: dict[str, list[tuple[int, float]]], **kwargs: object) -> None:
    writer = ridgeline.SummaryWriter(str(directory), **kwargs)  # type: ignore[arg-type]
    for tag, points in series.items():
        for step, value in points:
            writer.add_scalar(tag, value, step, walltime=wall(step))
    writer.close()


def write_torch_run(directory: Path, series: dict[str, list[tuple[int, float]]]) -> None:
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(directory))
    for tag, points in series.items():
        for step, value in points:
            writer.add_scalar(tag, value, step, walltime=wall(step))
    writer.close()


def as_read(points: list[tuple[int, float]]) -> tuple[list[int], list[float], list[float | None]]:
    """What the API answers for these points written in step order: simple_value is a float32; NaN/±Inf null."""
    steps = [step for step, _ in points]
    values = [float(np.float32(value)) if math.isfinite(value) else None for _, value in points]
    return steps, [wall(step) for step in steps], values


@pytest.fixture(scope="session")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("logs")
    write_ridgeline_run(root / "mixed", RIDGELINE_SERIES, hparams=HPARAMS)
    writer = ridgeline.SummaryWriter(str(root / "mixed"))
    writer.add_annotation("warm-up done", 5, walltime=wall(5))
    writer.add_annotation("lr drop", 300, walltime=wall(300))
    writer.close()
    write_torch_run(root / "torch", TORCH_SERIES)
    return root
