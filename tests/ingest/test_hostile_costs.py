"""Pathological but valid logs cost memory in proportion to what they hold: many restarts across many tags, a
huge tag name. Measured by sizes (what a run's data pickles to, tracemalloc's peak), never by time.
"""

from __future__ import annotations

import pickle
import tracemalloc
from pathlib import Path

import numpy as np

import ridgeline
from ridgeline.format import records
from ridgeline.format.proto import event_pb2, summary_pb2
from ridgeline.ingest.discovery import LogDirSource
from ridgeline.ingest.loop import Ingestor
from ridgeline.store.restarts import visible


def scalar(tag: str, step: int, value: float) -> bytes:
    summary = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, simple_value=value)])
    return records.frame(event_pb2.Event(wall_time=1.7e9 + step, step=step, summary=summary).SerializeToString())


def start(step: int) -> bytes:
    session = event_pb2.SessionLog(status=event_pb2.SessionLog.START)
    return records.frame(event_pb2.Event(wall_time=1.7e9, step=step, session_log=session).SerializeToString())


def write_restarting_run(directory: Path, tags: int, restarts: int) -> None:
    """Every tag at steps 0..9, then ``restarts`` START events (the pattern that cost T x S x S)."""
    directory.mkdir(parents=True)
    version = records.frame(event_pb2.Event(wall_time=1.7e9, file_version="brain.Event:2").SerializeToString())
    body = [version] + [scalar(f"t{tag}", step, 1.0) for step in range(10) for tag in range(tags)]
    body += [start(5 + index % 3) for index in range(restarts)]
    (directory / "events.out.tfevents.1.host.1.0").write_bytes(b"".join(body))


def run_size(logdir: Path) -> int:
    ingestor = Ingestor([LogDirSource(str(logdir))], parallel=False)
    ingestor.load()
    (run,) = ingestor.store.runs.values()
    return len(pickle.dumps(run))


def test_restarts_cost_memory_per_restart_not_per_restart_and_tag(tmp_path: Path) -> None:
    tags = 300
    write_restarting_run(tmp_path / "few" / "run", tags, 100)
    write_restarting_run(tmp_path / "many" / "run", tags, 400)
    grown = run_size(tmp_path / "many") - run_size(tmp_path / "few")
    # One mark per series per START would add 300 x 300 tuples (over 2 MB); one log entry per START adds 8 bytes.
    assert grown < 64 * 300, f"300 more restarts made the run {grown} bytes larger"


def test_restarts_hide_what_they_hide_for_every_series(tmp_path: Path) -> None:
    """The STARTs are logged once per run; each series still sees them after the points it had."""
    run = tmp_path / "run"
    run.mkdir()
    body = [scalar("a", step, 1.0) for step in range(10)] + [scalar("b", step, 1.0) for step in range(4)]
    body += [start(3)]  # after a's 0..9 and b's 0..3: hides a's 3..9 and b's 3
    body += [scalar("a", step, 2.0) for step in range(3, 6)] + [scalar("c", 0, 1.0), start(1)]
    body += [scalar("b", step, 2.0) for step in range(1, 3)]  # after the START at 1: b's 1..2 are new
    (run / "events.out.tfevents.1.host.1.0").write_bytes(b"".join(body))

    opened = ridgeline.open(tmp_path, cache=False)

    def shown(tag: str) -> list[int]:
        return opened.scalars("run", tag).step.tolist()

    assert shown("a") == [0]  # 3..5 written again, then hidden by the START at step 1
    assert shown("b") == [0, 1, 2]
    assert shown("c") == [0]  # before the START at 1, which hides steps >= 1 only
    assert np.array_equal(visible(np.array([0, 1, 2, 3]), [(4, 1)]), [True, False, False, False])


def test_a_huge_tag_name_is_held_a_few_times_at_most(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    name = "x" * (20 << 20)
    body = [scalar(name, step, float(step)) for step in range(3)] + [scalar("loss", 0, 1.0)]
    (run / "events.out.tfevents.1.host.1.0").write_bytes(b"".join(body))
    tracemalloc.start()
    try:
        opened = ridgeline.open(tmp_path, cache=False)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert opened.scalars("run", name).step.tolist() == [0, 1, 2]
    assert opened.scalars("run", "loss").step.tolist() == [0]
    assert peak < 8 * len(name), f"reading a 20 MiB tag name peaked at {peak >> 20} MiB"
