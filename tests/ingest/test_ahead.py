"""Reading ahead in worker threads (ingest.ahead): the same store as one thread reading alone, on real files with
every kind of record, damage, records longer than a chunk and restarts; from any thread, with no process started;
and at most ``limit`` parsed chunks waiting."""

from __future__ import annotations

import dataclasses
import math
import multiprocessing
import os
import shutil
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ridgeline
from ridgeline import SummaryWriter
from ridgeline.fixtures.demo import write_demo
from ridgeline.format import records
from ridgeline.format.proto import event_pb2
from ridgeline.ingest import ahead, tail
from ridgeline.ingest.ahead import FileJob, ReadAhead
from ridgeline.ingest.decode import EventDecoder
from ridgeline.ingest.discovery import LocalFileSystem
from ridgeline.store.run import RunData
from tests.ingest.fastpath_helpers import scalar_record

FILE = "events.out.tfevents.1.h.1.0"


pytestmark = pytest.mark.usefixtures("default_implementation")  # every test on both record loops


def scalars(steps: range, tags: tuple[str, ...] = ("a", "b", "c")) -> bytes:
    return b"".join(scalar_record(tag, step, step / 7) for step in steps for tag in tags)


def session_start(step: int) -> bytes:
    event = event_pb2.Event(wall_time=1.0 + step, step=step)
    event.session_log.status = event_pb2.SessionLog.START
    return records.frame(event.SerializeToString())


def big_record(step: int, size: int) -> bytes:
    event = event_pb2.Event(wall_time=1.0, step=step)
    event.summary.value.add(tag="big", obsolete_old_style_histogram=bytes(size))
    return records.frame(event.SerializeToString())


def flipped(data: bytes, at: int) -> bytes:
    out = bytearray(data)
    out[at] ^= 0x40
    return bytes(out)


def awkward_logdir(root: Path) -> Path:
    """Runs that put the read-ahead on every edge: chunks of scalars, every kind of record, a data CRC and a
    length CRC broken, a record longer than a chunk, junk longer than one, a restart, an empty file."""
    write_demo(root / "demo", steps=60, seed=5)
    with SummaryWriter(root / "kinds") as writer:
        rng = np.random.default_rng(1)
        for step in range(3000):
            writer.add_scalar("loss", float(rng.normal()), step)
            if step % 500 == 0:
                writer.add_histogram("weights", rng.normal(size=200), step)
                writer.add_image("img", np.ones((3, 4, 5), dtype=np.float32), step)
                writer.add_text("notes", f"step {step}", step)
    body = scalars(range(40_000))  # several chunks
    (root / "plain").mkdir()
    (root / "plain" / FILE).write_bytes(body)
    (root / "damaged").mkdir()
    damaged = flipped(flipped(body, 50_000), tail.CHUNK_BYTES + 3)  # a payload byte, then a header byte
    (root / "damaged" / FILE).write_bytes(damaged)
    (root / "long").mkdir()
    junk = bytes(range(256)) * ((2 * tail.CHUNK_BYTES) // 256)
    long = scalars(range(100)) + big_record(100, 2 * tail.CHUNK_BYTES) + scalars(range(101, 5000)) + junk
    (root / "long" / FILE).write_bytes(long + scalars(range(5000, 6000)))
    (root / "restarted").mkdir()
    restarted = scalars(range(3000)) + session_start(1000) + scalars(range(1000, 2500))
    (root / "restarted" / FILE).write_bytes(restarted)
    (root / "restarted" / f"{FILE}.2").write_bytes(scalars(range(2500, 2600)))
    (root / "empty").mkdir()
    (root / "empty" / FILE).write_bytes(b"")
    return root


def digest(logdir: ridgeline.api.LogDir) -> dict[str, Any]:
    """Everything the store holds: every point of every series, every entry of every other kind, the problems."""
    out: dict[str, Any] = {"problems": sorted((p.path, p.offset or 0, p.reason) for p in logdir.problems())}
    for run in logdir.runs():
        for kind, tags in logdir.tags(run).items():
            for tag in tags:
                if kind == "scalars":
                    s = logdir.scalars(run, tag, all_points=True)
                    out[f"{run}/{kind}/{tag}"] = (s.step.tolist(), s.wall_time.tobytes(), s.value.tobytes())
                else:
                    out[f"{run}/{kind}/{tag}"] = [
                        (e.step, e.wall_time, e.ref) for e in logdir.provider.entries(run, kind, tag)
                    ]
        out[f"{run}/info"] = dataclasses.replace(logdir.run_info(run), epoch=0)  # epoch: a process-wide counter
    return out


def read_file(path: Path, job: FileJob | None) -> tuple[RunData, list[tuple[str, int | None, str]]]:
    run = RunData("r")
    result = tail.read_new(tail.FileTail(str(path)), LocalFileSystem(), run, EventDecoder(), ahead=job)
    return run, [(p.path, p.offset, p.reason) for p in result.problems]


def series_of(run: RunData) -> dict[str, Any]:
    """Every point of every series, scalar or not, and the restart marks."""
    out: dict[str, Any] = {}
    for tag, series in run.scalars.items():
        snapshot = series.snapshot()
        out[tag] = [snapshot.step.tolist(), snapshot.value.tolist(), snapshot.restarts]
    for key, blobs in run.blobs.items():
        snapshot = blobs.snapshot()
        out[repr(key)] = [snapshot.refs.tolist(), snapshot.restarts]
    return out


def test_each_file_read_ahead_reads_as_one_thread_reads_it(tmp_path: Path) -> None:
    root = awkward_logdir(tmp_path / "logs")
    files = sorted(p for p in root.rglob("*tfevents*"))
    fs = LocalFileSystem()
    with ReadAhead([(str(p), fs, p.stat().st_size) for p in files], check_crc=True, workers=2) as pool:
        for path in files:
            job = pool.take(str(path))
            assert job is not None
            alone, alone_problems = read_file(path, None)
            threaded, threaded_problems = read_file(path, job)
            assert series_of(threaded) == series_of(alone) and threaded_problems == alone_problems


def test_a_log_directory_read_ahead_holds_what_one_thread_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the reading API, from a thread that is not the main one while another thread runs (the server's
    situation): the read-ahead threads are there while it reads, no process is started, and the store is the
    same as with ``parallel=False``."""
    root = awkward_logdir(tmp_path / "logs")
    for copy in range(4):  # enough bytes that reading ahead pays (ahead.MIN_BYTES)
        shutil.copytree(root / "plain", root / f"plain{copy}")
    # The machine's load decides too; here it is taken as idle, so that the threads are there to be tested.
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    if not ahead.worth_threads(sum(p.stat().st_size for p in root.rglob("*tfevents*"))):
        pytest.skip("reading ahead does not pay here: the numpy record loop, or one CPU")
    stop = threading.Event()
    bystander = threading.Thread(target=stop.wait)
    bystander.start()
    seen: list[set[str]] = []
    results: dict[str, Any] = {}

    def progress(done: int, total: int) -> None:
        seen.append({t.name for t in threading.enumerate() if t.name.startswith("ridgeline-read-ahead")})
        results.setdefault("children", multiprocessing.active_children())

    def load() -> None:
        results["threaded"] = digest(ridgeline.open(root, cache=False, progress=progress))

    try:
        loader = threading.Thread(target=load)
        loader.start()
        loader.join()
    finally:
        stop.set()
        bystander.join()
    alone = digest(ridgeline.open(root, cache=False, parallel=False))
    assert results["threaded"] == alone
    assert any(seen) and results["children"] == []
    assert alone["problems"] and "plain0/scalars/a" in alone


def test_at_most_limit_chunks_wait_and_a_job_not_taken_stops(tmp_path: Path) -> None:
    path = tmp_path / FILE
    path.write_bytes(scalars(range(60_000)))  # about 8 chunks
    fs = LocalFileSystem()
    job = FileJob(str(path), fs, path.stat().st_size, check_crc=True, limit=1)
    worker = threading.Thread(target=job.run)
    worker.start()
    offsets = []
    for chunk in job.chunks():
        assert job.pending <= 1
        offsets.append(chunk.offset)
    worker.join()
    assert len(offsets) > 4 and offsets == sorted(offsets)
    steps = series_of(read_file(path, None)[0])["a"][0]
    assert steps == list(range(60_000))
    # Jobs nobody takes: their workers wait at their limit, and closing the pool stops them.
    pool = ReadAhead([(str(path), fs, path.stat().st_size)] * 3, check_crc=True, workers=2)
    closer = threading.Thread(target=pool.close)
    closer.start()
    closer.join(timeout=120)  # a guard against a hang, not a measurement
    assert not closer.is_alive()


def test_a_file_that_grew_after_its_job_started_is_read_to_its_new_end(tmp_path: Path) -> None:
    path = tmp_path / FILE
    path.write_bytes(scalars(range(20_000)))
    job = FileJob(str(path), LocalFileSystem(), path.stat().st_size, check_crc=True)
    job.run()
    with path.open("ab") as file:
        file.write(scalars(range(20_000, 21_000)))
    run, problems = read_file(path, job)
    assert series_of(run)["c"][0] == list(range(21_000)) and problems == []
    steps, values, _ = series_of(run)["b"]
    assert all(math.isclose(v, s / 7, rel_tol=1e-6) for s, v in zip(steps, values, strict=True))


def test_threads_only_where_a_cpu_is_idle_and_there_is_enough_to_read(default_implementation: str) -> None:
    """Measured (bench/ingest.py): on a saturated machine threads lose to one thread; with a CPU to spare they win."""
    core = default_implementation == "core"
    assert ahead.worth_threads(64 << 20, cpus=2, load=0.3) is core
    assert ahead.worth_threads(64 << 20, cpus=2, load=1.0) is core
    assert not ahead.worth_threads(64 << 20, cpus=2, load=1.5)  # the other CPU is busy too
    assert not ahead.worth_threads(64 << 20, cpus=1, load=0.0)
    assert not ahead.worth_threads(ahead.MIN_BYTES - 1, cpus=8, load=0.0)
    assert ahead.worth_threads(ahead.MIN_BYTES, cpus=8, load=6.5) is core
