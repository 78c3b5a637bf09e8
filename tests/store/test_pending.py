"""A long cold pass writes what it read between runs (DiskStore.write_pending), so that it never holds more than
about ``PENDING_RECORDS`` points pending; a process killed after such a write recovers at its next open."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import ridgeline
import ridgeline.ingest.loop
from ridgeline.store.disk_provider import DiskProvider
from tests.store.test_disk import expected, write_run

RUNS, STEPS = 6, 500  # 1,000 scalar records a run (two tags), and a few of metadata


def packs(store: Path) -> list[Path]:
    return sorted((store / "packs").glob("*.segments"))


def write_logs(logs: Path) -> None:
    for run in range(RUNS):
        write_run(logs / f"run{run}", ["loss", "acc"], range(STEPS))


def test_a_pass_writes_its_points_between_runs_and_serves_them_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_logs(tmp_path / "logs")
    monkeypatch.setattr(ridgeline.ingest.loop, "PENDING_RECORDS", 1_500)  # a write after every second run
    store = tmp_path / "store"
    provider = ridgeline.open(tmp_path / "logs", store=store).provider
    assert isinstance(provider, DiskProvider)
    assert len(packs(store)) == RUNS // 2  # one a write; the checkpoint found nothing left to write
    for run in range(RUNS):
        assert provider.scalars(f"run{run}", "acc").value.tolist() == expected(1, range(STEPS))
    provider.close()
    again = ridgeline.open(tmp_path / "logs", store=store).provider
    assert isinstance(again, DiskProvider) and again.restored_runs == RUNS
    assert again.scalars(f"run{RUNS - 1}", "loss").value.tolist() == expected(0, range(STEPS))
    assert len(packs(store)) == RUNS // 2
    again.close()


def test_a_pass_killed_after_writing_some_runs_is_recovered_from(tmp_path: Path) -> None:
    """Killed once a pack is written and before any manifest names it: the next open reads every run again,
    serves exactly what the files hold, and deletes the pack nobody names."""
    write_logs(tmp_path / "logs")
    store = tmp_path / "store"
    child = subprocess.run(
        [sys.executable, "-c", KILLED_AFTER_A_WRITE, str(tmp_path / "logs"), str(store)], check=False
    )
    assert child.returncode == -signal.SIGKILL
    orphans = packs(store)
    assert orphans and not list((store / "manifests").iterdir())  # a pack written, no run committed
    provider = ridgeline.open(tmp_path / "logs", store=store).provider
    assert isinstance(provider, DiskProvider) and provider.restored_runs == 0
    for run in range(RUNS):
        assert provider.scalars(f"run{run}", "loss").value.tolist() == expected(0, range(STEPS))
    assert provider.problems() == []
    assert not set(orphans) & set(packs(store))
    provider.close()


KILLED_AFTER_A_WRITE = textwrap.dedent(
    """
    import os, signal, sys, time
    from pathlib import Path
    import ridgeline, ridgeline.ingest.loop
    ridgeline.ingest.loop.PENDING_RECORDS = 1_500
    store = Path(sys.argv[2])

    def progress(done, total):
        if done >= 2:  # the first write between runs has begun (in the background): kill once its pack is there
            waited = 0
            while not list((store / "packs").glob("*.segments")):
                waited += 1
                if waited > 60_000:  # five minutes: the write failed, say so rather than hang
                    sys.exit("no pack was written")
                time.sleep(0.005)
            os.kill(os.getpid(), signal.SIGKILL)

    ridgeline.open(sys.argv[1], store=store, progress=progress)
    """
)
