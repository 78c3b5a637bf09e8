"""Invalidation per file: a changed or truncated event file takes back only what its run gained since that file
was first read; the run's other files are not read again, and the answer is a cold read's.

"Not read again" is counted by ingest itself (the records a pass read); "a cold read's" is a fresh in-memory
read of the same directory. Expected values are never what the store computed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import ridgeline
from ridgeline.ingest.discovery import LogDirSource
from ridgeline.ingest.loop import Ingestor
from ridgeline.store.disk import DiskStore
from ridgeline.store.disk_provider import DiskProvider
from tests.store.test_disk import WALL, write_run

FIRST, SECOND = "events.out.tfevents.1.test", "events.out.tfevents.2.test"
TAGS = ["loss", "acc"]


def opened(logs: Path, store: Path) -> tuple[Ingestor, DiskProvider, int, int]:
    """A store-backed reader as ``ridgeline.open`` builds one; with the runs taken whole from the store and the
    records the first pass read."""
    disk = DiskStore(store)
    ingestor = Ingestor([LogDirSource(str(logs))], store=disk, parallel=False)
    restored, stats = ingestor.load()
    return ingestor, DiskProvider(disk, ingestor, restored_runs=restored), restored, stats.records


def assert_cold(provider: DiskProvider, logs: Path) -> None:
    cold = ridgeline.open(logs, cache=False)
    assert provider.runs() == cold.runs()
    for run in cold.runs():
        assert sorted(provider.run_info(run).tags["scalars"]) == sorted(cold.tags(run)["scalars"])
        for tag in cold.tags(run)["scalars"]:
            for all_points in (False, True):
                mine, theirs = (
                    provider.scalars(run, tag, all_points=all_points),
                    cold.scalars(run, tag, all_points=all_points),
                )
                assert mine.step.tolist() == theirs.step.tolist(), (run, tag, all_points)
                assert mine.value.tolist() == theirs.value.tolist(), (run, tag, all_points)
                assert mine.wall_time.tolist() == theirs.wall_time.tolist(), (run, tag, all_points)


def rewrite(path: Path, steps: range, tags: list[str] = TAGS) -> None:
    path.unlink()
    write_run(path.parent, tags, steps, name=path.name)


@pytest.mark.parametrize("warm", [False, True], ids=["live", "warm-start"])
@pytest.mark.parametrize("change", ["rewritten", "truncated"])
def test_a_changed_last_file_is_read_again_alone(tmp_path: Path, warm: bool, change: str) -> None:
    logs, store = tmp_path / "logs", tmp_path / "store"
    write_run(logs / "run", TAGS, range(70_000), name=FIRST)  # long series: files of their own
    write_run(logs / "run", TAGS, range(70_000, 71_000), name=SECOND)
    write_run(logs / "other", ["loss"], range(10))
    ingestor, provider, _, records = opened(logs, store)
    assert records == 2 * 71_000 + 10
    before = provider.version("run", "scalars", "loss")
    if change == "rewritten":
        rewrite(logs / "run" / SECOND, range(70_001, 70_500))  # other bytes from the start, and fewer
    else:
        data = (logs / "run" / SECOND).read_bytes()
        (logs / "run" / SECOND).write_bytes(data[: len(data) // 3])
    second_records = len(ridgeline.open(logs / "run", cache=False).scalars(".", "loss", all_points=True)) - 70_000
    if warm:
        provider.close()
        ingestor, provider, restored, records = opened(logs, store)
        assert restored == 1, "the other run is taken whole; the changed one only in part"
    else:
        records = ingestor.reload().records
    assert records == 2 * second_records, "only the changed file's records were read again"
    assert_cold(provider, logs)
    if not warm:
        assert provider.version("run", "scalars", "loss") != before
    provider.close()
    _, again, restored, records = opened(logs, store)
    assert restored == 2 and records == 0, "and the store holds the result whole"
    assert_cold(again, logs)


def test_a_changed_first_file_keeps_nothing_after_it(tmp_path: Path) -> None:
    """The first file rewritten: what the files after it added came after it in a cold read, so they are read
    again too (their order is the files' order); the run's answer is a cold read's."""
    logs, store = tmp_path / "logs", tmp_path / "store"
    write_run(logs / "run", TAGS, range(100), name=FIRST)
    write_run(logs / "run", TAGS, range(50, 150), name=SECOND)  # overlaps: the second file's points win
    ingestor, provider, _, _ = opened(logs, store)
    rewrite(logs / "run" / FIRST, range(1, 120))  # other bytes from the first record on
    assert ingestor.reload().records == 2 * 119 + 2 * 100
    assert_cold(provider, logs)


def test_restarts_in_a_changed_file_are_taken_back_with_its_points(tmp_path: Path) -> None:
    """The second file is a restart (a START at step 50); rewritten as a restart at step 80, the first file's
    points from 50 to 79 are visible again, as in a cold read."""
    logs, store = tmp_path / "logs", tmp_path / "store"
    write_run(logs / "run", TAGS, range(100), name=FIRST)

    def restart(at: int, value: float, steps: int) -> None:
        with ridgeline.SummaryWriter(str(logs / "run"), purge_step=at) as writer:
            for step in range(at, at + steps):
                for tag in TAGS:
                    writer.add_scalar(tag, value, step, walltime=WALL + 1000 + step)
        (written,) = [p for p in (logs / "run").iterdir() if p.name not in (FIRST, SECOND)]
        written.rename(logs / "run" / SECOND)

    restart(50, 7.0, 30)
    ingestor, provider, _, _ = opened(logs, store)
    assert provider.scalars("run", "loss").step.tolist() == list(range(80))
    (logs / "run" / SECOND).unlink()
    restart(80, 9.0, 60)  # longer: a file that grew is checked for other bytes (one that did not is not, live)
    ingestor.reload()
    assert provider.scalars("run", "loss").step.tolist() == list(range(140))
    assert_cold(provider, logs)
    provider.close()
    _, again, _, _ = opened(logs, store)
    assert_cold(again, logs)
