"""Many servers, one store: ``ridgeline index --store S --watch`` keeps a store current and ``ridgeline serve --store
S`` replicas read it without writing (docs/store.md, *Many servers, one store*).

Expected answers are a ``ridgeline serve --logdir`` over the same log directory, or the points the tests wrote.
"""

from __future__ import annotations

import functools
import hashlib
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import ridgeline
from ridgeline.api import RecordsUnavailable, open_replica, scalars_only
from ridgeline.cli import main
from ridgeline.store.files import StoreError
from tests.conftest import WAIT_S, wait_until
from tests.server.conftest import Served, clean_env, serving
from tests.store.test_disk import expected, write_run

LONG = 70_000  # points: a series in files of its own, with a level-of-detail pyramid


def write_logs(logs: Path) -> None:
    write_run(logs / "short", ["loss", "acc"], range(300))
    write_run(logs / "long" / "sub", ["loss"], range(LONG))


def files_of(store: Path) -> dict[str, tuple[int, int, str]]:
    """Every file in the store: its size, modification time and content hash."""
    return {
        str(path.relative_to(store)): (path.stat().st_size, path.stat().st_mtime_ns, _sha(path))
        for path in sorted(store.rglob("*"))
        if path.is_file()
    }


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@contextmanager
def indexing(logs: Path, store: Path | str, *more: str, env: dict[str, str] | None = None) -> Iterator[list[str]]:
    """``ridgeline index --logdir LOGS --store STORE --watch 0.1`` running; yields its output once its first
    pass committed (it says so), stops it with SIGTERM after."""
    process = subprocess.Popen(
        [sys.executable, "-m", "ridgeline.cli", "index", "--logdir", str(logs), "--store", str(store), *more],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env or clean_env(),
    )
    assert process.stdout is not None
    output: list[str] = []
    drain = threading.Thread(target=lambda: output.extend(iter(process.stdout.readline, "")), daemon=True)  # type: ignore[union-attr]
    drain.start()
    try:
        wait_until(lambda: any("committed" in line for line in output) or process.poll() is not None, "a commit")
        assert any("committed" in line for line in output), "".join(output)
        yield output
    finally:
        if process.poll() is None:
            process.terminate()
            assert process.wait(WAIT_S) == 0, "".join(output)
        drain.join(5)
        process.stdout.close()


def answers(served: Served, runs: dict[str, list[str]]) -> dict[str, object]:
    """/api/runs (less what differs between servers by design) and /api/scalars of every series."""
    get = served.get
    listing = get("/api/runs").json()
    found: dict[str, object] = {
        "runs": listing["runs"],
        "logdir": listing["logdir"],
    }
    for run, tags in runs.items():
        for tag in tags:
            found[f"{run}/{tag}"] = get("/api/scalars", run=run, tag=tag).json()
            found[f"{run}/{tag} reduced"] = get("/api/scalars", run=run, tag=tag, max_points=500).json()
    return found


SERIES = {"short": ["loss", "acc"], "long/sub": ["loss"]}


def caught_up(replica: Served) -> bool:
    """Whether ``replica`` answers the points the first test appended."""
    return (
        len(replica.get("/api/scalars", run="long/sub", tag="loss").json()["step"]) == LONG + 5_000
        and len(replica.get("/api/scalars", run="short", tag="acc").json()["step"]) == 450
        and "new" in [run["run"] for run in replica.get("/api/runs").json()["runs"]]
    )


def test_two_replicas_answer_as_a_logdir_server_and_follow_the_indexer(tmp_path: Path) -> None:
    logs, store = tmp_path / "logs", tmp_path / "store"
    write_logs(logs)
    with serving("--logdir", str(logs.resolve()), "--port", "0", "--no-cache") as reference:
        wanted = answers(reference, SERIES)
    with (
        indexing(logs, store, "--watch", "0.1") as indexer,
        serving("--store", str(store), "--port", "0", "--reload-interval", "0.1") as first,
        serving("--store", str(store), "--port", "0", "--reload-interval", "0.1") as second,
    ):
        assert answers(first, SERIES) == wanted
        assert answers(second, SERIES) == wanted
        # The log directory grows; the indexer commits; each replica answers the new points on its next reload.
        write_run(logs / "short", ["loss", "acc"], range(300, 450))
        write_run(logs / "long" / "sub", ["loss"], range(LONG, LONG + 5_000))
        write_run(logs / "new", ["loss"], range(10))
        for replica in (first, second):
            wait_until(functools.partial(caught_up, replica), "the replica to answer what the indexer committed")
            long = replica.get("/api/scalars", run="long/sub", tag="loss").json()
            assert long["step"] == list(range(LONG + 5_000))
            assert long["value"] == expected(0, range(LONG + 5_000))
            short = replica.get("/api/scalars", run="short", tag="acc").json()
            assert short["value"] == expected(1, range(450))
        assert "Traceback" not in "".join(indexer)
    grown = {**SERIES, "new": ["loss"]}
    with serving("--logdir", str(logs.resolve()), "--port", "0", "--no-cache") as reference:
        wanted = answers(reference, grown)
    with serving("--store", str(store), "--port", "0") as replica:
        assert answers(replica, grown) == wanted


def test_a_replica_never_writes_into_the_store_nor_takes_its_lock(tmp_path: Path) -> None:
    logs, store = tmp_path / "logs", tmp_path / "store"
    write_logs(logs)
    done = subprocess.run(
        [sys.executable, "-m", "ridgeline.cli", "index", "--logdir", str(logs), "--store", str(store)],
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=WAIT_S,
    )
    assert done.returncode == 0, done.stderr
    before = files_of(store)
    assert any(name.endswith(".value4") for name in before) and "sources.json" in before
    with serving("--store", str(store), "--port", "0", "--reload-interval", "0.1") as replica:
        for run, tags in SERIES.items():
            for tag in tags:
                assert replica.get("/api/scalars", run=run, tag=tag, max_points=100).status_code == 200
        assert files_of(store) == before
        # The writer lock is free while the replica serves: an indexer takes it (in this process) and lets go.
        writer = ridgeline.open(logs, store=store)
        writer.provider.close()  # type: ignore[attr-defined]
    assert {name: entry for name, entry in files_of(store).items() if name in before} == before


def test_a_second_indexer_is_refused_and_told_about_replicas(tmp_path: Path) -> None:
    logs, store = tmp_path / "logs", tmp_path / "store"
    write_logs(logs)
    first = ridgeline.open(logs, store=store)
    with pytest.raises(StoreError, match=r"another indexer.*replica"):
        ridgeline.open(logs, store=store)
    assert ridgeline.open(store=store).scalars("short", "acc").value.tolist() == expected(1, range(300))
    first.provider.close()  # type: ignore[attr-defined]


def test_a_corrupt_column_is_refused_not_served(tmp_path: Path) -> None:
    logs, store = tmp_path / "logs", tmp_path / "store"
    write_logs(logs)
    writer = ridgeline.open(logs, store=store)
    replica = open_replica(store)
    assert replica.scalars("long/sub", "loss").value.tolist() == expected(0, range(LONG))
    # The indexer commits more points; a bit flips in what it committed, before the replica reads it.
    write_run(logs / "long" / "sub", ["loss"], range(LONG, LONG + 1_000))
    writer.reload()
    (values,) = store.rglob("*.value4")
    with open(values, "r+b") as file:
        file.seek((LONG + 500) * 4)
        byte = file.read(1)
        file.seek((LONG + 500) * 4)
        file.write(bytes([byte[0] ^ 0x10]))
    replica.reload()
    assert replica.runs() == ["short"]  # refused, never served
    (problem,) = [p for p in replica.problems() if "damaged" in p.reason]
    assert "'long/sub'" in problem.reason and "not served" in problem.reason
    # A fresh replica refuses it too; the short run is untouched.
    fresh = open_replica(store)
    assert fresh.runs() == ["short"] and fresh.scalars("short", "loss").value.tolist() == expected(0, range(300))
    # The indexer's next start finds the damage and reads the run again; the replica serves it, whole, again.
    writer.provider.close()  # type: ignore[attr-defined]
    writer = ridgeline.open(logs, store=store)
    replica.reload()
    assert replica.runs() == ["long/sub", "short"]
    assert replica.scalars("long/sub", "loss").value.tolist() == expected(0, range(LONG + 1_000))
    assert not [p for p in replica.problems() if "damaged" in p.reason]
    writer.provider.close()  # type: ignore[attr-defined]


def test_a_directory_that_is_no_store_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    for where in (tmp_path / "missing", tmp_path / "empty"):
        done = subprocess.run(
            [sys.executable, "-m", "ridgeline.cli", "serve", "--store", str(where), "--get", "/api/runs"],
            capture_output=True,
            text=True,
            env=clean_env(),
            timeout=WAIT_S,
        )
        assert done.returncode == 2 and "--store" in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert not (tmp_path / "missing").exists() and list((tmp_path / "empty").iterdir()) == []


def test_records_are_read_from_the_event_files_or_refused_clearly_without_them(tmp_path: Path) -> None:
    logs, store = tmp_path / "logs", tmp_path / "store"
    with ridgeline.SummaryWriter(str(logs / "run")) as writer:
        for step in range(3):
            writer.add_scalar("loss", 1.0 / (step + 1), step)
            writer.add_histogram("weights", np.arange(10.0) * (step + 1), step)
    direct = ridgeline.open(logs, cache=False)
    indexer = ridgeline.open(logs, store=store)
    indexer.provider.close()  # type: ignore[attr-defined]
    replica = open_replica(store)
    assert not scalars_only(replica)
    wanted = [(entry.step, repr(entry.value)) for entry in direct.histograms("run", "weights")]
    assert len(wanted) == 3
    assert [(entry.step, repr(entry.value)) for entry in replica.histograms("run", "weights")] == wanted
    # Where the log directory cannot be read: scalars only, and a record asked for is refused with a reason.
    logs.rename(tmp_path / "elsewhere")
    blind = open_replica(store)
    assert scalars_only(blind)
    assert blind.scalars("run", "loss").value.tolist() == direct.scalars("run", "loss").value.tolist()
    with pytest.raises(RecordsUnavailable, match="scalars only"):
        _ = blind.histograms("run", "weights")[0].value


def test_a_replica_reading_while_the_indexer_commits_sees_only_whole_commits(tmp_path: Path) -> None:
    logs, store = tmp_path / "logs", tmp_path / "store"
    write_run(logs / "run", ["loss", "acc"], range(1_000))
    final = 80_000  # the series cross 64k points meanwhile: copied from the packed file into files of their own
    with indexing(logs, store, "--watch", "0.1"):
        replica = open_replica(store)
        assert len(replica.scalars("run", "acc").step) == 1_000  # the first commit, before the log grows

        def grow() -> None:
            for start in range(1_000, final, 4_000):
                write_run(logs / "run", ["loss", "acc"], range(start, min(start + 4_000, final)))

        writing = threading.Thread(target=grow)
        writing.start()
        lengths: list[int] = []

        def whole_and_caught_up() -> bool:
            replica.reload()
            if "run" not in replica.runs():
                return False
            for index, tag in enumerate(["loss", "acc"]):
                got = replica.scalars("run", tag)
                n = len(got.step)
                # Whatever the replica serves is a prefix of what was written, whole: never a torn column.
                assert np.array_equal(got.step, np.arange(n)) and got.value.tolist() == expected(index, range(n))
                lengths.append(n)
            assert not [p for p in replica.problems() if "damaged" in p.reason]
            return min(lengths[-2:]) == final

        try:
            wait_until(whole_and_caught_up, "the replica to serve every point written")
        finally:
            writing.join()


def test_a_replica_reads_through_a_run_the_indexer_read_again(tmp_path: Path) -> None:
    """A rewritten event file: the indexer replaces the run's reading and deletes the old files, which the replica
    last read; its next request reads the new manifest instead of failing."""
    logs, store = tmp_path / "logs", tmp_path / "store"
    first, second = logs / "run" / "events.out.tfevents.1.a", logs / "run" / "events.out.tfevents.2.b"
    write_run(first.parent, ["loss"], range(100), name=first.name)
    write_run(second.parent, ["loss"], range(100, 200), name=second.name)
    writer = ridgeline.open(logs, store=store)
    replica = open_replica(store)
    assert replica.scalars("run", "loss").value.tolist() == expected(0, range(200))
    old = {path.name for path in store.rglob("*.segments")}
    second.unlink()
    write_run(second.parent, ["loss"], range(150, 400), name=second.name)  # other bytes from the start, longer
    writer.reload()
    assert old and not old & {path.name for path in store.rglob("*.segments")}  # the old reading is gone
    steps = [*range(100), *range(150, 400)]
    assert replica.scalars("run", "loss").value.tolist() == [step / 8 for step in steps]
    assert replica.scalars("run", "loss").step.tolist() == steps
    writer.provider.close()  # type: ignore[attr-defined]


def test_a_server_with_logdir_and_store_is_the_indexer_a_replica_follows(tmp_path: Path) -> None:
    logs, store = tmp_path / "logs", tmp_path / "store"
    write_logs(logs)
    runner = CliRunner()
    direct = runner.invoke(main, ["serve", "--logdir", str(logs), "--store", str(store), "--get", "/api/runs"])
    assert direct.exit_code == 0, direct.output
    replica = runner.invoke(main, ["serve", "--store", str(store), "--get", "/api/runs"])
    assert replica.exit_code == 0, replica.output
    assert json.loads(replica.stdout)["runs"] == json.loads(direct.stdout)["runs"]
    assert json.loads(replica.stdout)["logdir"] == str(logs.resolve())
    refused = runner.invoke(main, ["serve", "--store", str(store), "--retention", "--keep-last 1", "--get", "/"])
    assert refused.exit_code == 2 and "deletes nothing" in refused.output
