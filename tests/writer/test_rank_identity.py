"""Which rank wrote a run: the launcher's identity in the run metadata, and the sync records of sync_step."""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path

import numpy as np
import pytest

import ridgeline
from ridgeline import SummaryWriter
from ridgeline.format.tags import SYNC_TAG

TORCHRUN = {
    "TORCHELASTIC_RUN_ID": "abc123",
    "TORCHELASTIC_RESTART_COUNT": "1",
    "RANK": "3",
    "LOCAL_RANK": "1",
    "WORLD_SIZE": "8",
    "GROUP_RANK": "1",
}


def test_the_launchers_identity_is_recorded_once_per_rank_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in TORCHRUN.items():
        monkeypatch.setenv(name, value)
    with SummaryWriter(tmp_path) as writer:
        writer.add_scalar("loss", 1.0, 0)
    metadata = ridgeline.open(tmp_path).run_metadata("rank3")
    assert metadata is not None
    assert metadata["distributed"] == {
        "run_id": "abc123",
        "restart_count": 1,
        "rank": 3,
        "local_rank": 1,
        "world_size": 8,
        "group_rank": 1,
    }
    assert metadata["host"] == socket.gethostname() and metadata["pid"] == os.getpid()


def test_a_rank_given_to_the_writer_is_recorded_and_a_plain_run_has_no_identity(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in TORCHRUN:
        monkeypatch.delenv(name, raising=False)
    with SummaryWriter(tmp_path / "job", rank=5):
        pass
    with SummaryWriter(tmp_path / "plain"):
        pass
    logdir = ridgeline.open(tmp_path)
    assert logdir.run_metadata("job/rank5")["distributed"] == {"rank": 5}  # type: ignore[index]
    assert "distributed" not in logdir.run_metadata("plain")  # type: ignore[operator]


def test_a_variable_that_is_not_a_number_is_kept_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GROUP_RANK", "node-a")
    with SummaryWriter(tmp_path, per_rank=False):
        pass
    assert ridgeline.open(tmp_path).run_metadata(".")["distributed"]["group_rank"] == "node-a"  # type: ignore[index]


def test_sync_step_records_departure_and_wait_around_the_barrier(tmp_path: Path) -> None:
    released = threading.Event()
    calls = []

    def barrier() -> None:
        calls.append(1)
        released.wait(5)

    with SummaryWriter(tmp_path, per_rank=False) as writer:
        threading.Timer(0.05, released.set).start()
        writer.sync_step(7, barrier=barrier)
        writer.sync_step(8, barrier=lambda: None)
    series = ridgeline.open(tmp_path).scalars(".", SYNC_TAG)
    assert series.step.tolist() == [7, 8] and len(calls) == 1
    assert series.value[0] >= 0.04  # it waited for the release (the timer cannot fire sooner)
    assert series.value[1] >= 0 and np.all(np.diff(series.wall_time) >= 0)
    assert ridgeline.open(tmp_path).tags(".") == {}  # a bookkeeping tag: not listed with the user's tags


def test_sync_step_without_a_process_group_records_the_arrival_alone(tmp_path: Path) -> None:
    with SummaryWriter(tmp_path, per_rank=False) as writer:
        writer.sync_step(0)
    assert ridgeline.open(tmp_path).scalars(".", SYNC_TAG).value.tolist() == [pytest.approx(0, abs=0.05)]


def test_sync_step_refuses_what_is_not_a_step_or_a_barrier(tmp_path: Path) -> None:
    with SummaryWriter(tmp_path, per_rank=False) as writer:
        with pytest.raises(TypeError, match="sync_step: barrier must be a callable taking no argument, got int"):
            writer.sync_step(0, barrier=3)  # type: ignore[arg-type]
        with pytest.raises((TypeError, ValueError), match="sync_step: step"):
            writer.sync_step("x")
