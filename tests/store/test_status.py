"""Run status (ridgeline.store.status), from real training scripts in subprocesses that close, raise, are killed,
and from writers in this process; a run is made old by the clock the derivation is given (``now``) or by its files'
modification time (``os.utime``), never by waiting."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import ridgeline
from ridgeline.integrations._common import STATUS_FAILURE, end_session
from ridgeline.store.status import CRASHED_AFTER_S, RunStatus
from ridgeline.writer import event_file

pytestmark = pytest.mark.slow

SCRIPT = """
import sys
from ridgeline import SummaryWriter

writer = SummaryWriter(sys.argv[1], capture_console=True)
for step in range(3):
    writer.add_scalar("loss", 1.0 / (step + 1), step)
    print(f"step {step}")
writer.flush()
ending = sys.argv[2]
if ending == "close":
    writer.close()
elif ending == "raise":
    raise RuntimeError("the loader broke")
elif ending == "wait":
    print("ready", flush=True)
    sys.stdin.readline()
"""

LATER = CRASHED_AFTER_S + 60  # seconds: "a while" after the last write, for the clock given to the derivation


def train(tmp_path: Path, ending: str) -> subprocess.Popen[str]:
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    return subprocess.Popen(
        [sys.executable, str(script), str(tmp_path / "run"), ending],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def status(run: Path, *, later: bool = False) -> RunStatus:
    logdir = ridgeline.open(run, cache=False)
    return logdir.status(".", now=time.time() + LATER if later else None)


def test_a_run_that_closes_is_finished_even_long_after(tmp_path: Path) -> None:
    process = train(tmp_path, "close")
    process.communicate(timeout=120)
    assert process.returncode == 0
    found = status(tmp_path / "run", later=True)
    assert found.status == "finished"
    assert found.end_time is not None and found.start_time is not None and found.end_time >= found.start_time
    assert found.error is None


def test_a_run_that_raises_is_failed_with_its_error_and_traceback(tmp_path: Path) -> None:
    process = train(tmp_path, "raise")
    _, err = process.communicate(timeout=120)
    assert process.returncode == 1 and "RuntimeError: the loader broke" in err
    found = status(tmp_path / "run", later=True)
    assert found.status == "failed"
    assert found.error == "RuntimeError: the loader broke"
    assert found.traceback is not None and found.traceback.startswith("Traceback (most recent call last):")
    assert found.traceback.endswith("RuntimeError: the loader broke")


def test_a_live_run_is_running_and_crashed_once_killed_and_old(tmp_path: Path) -> None:
    process = train(tmp_path, "wait")
    assert process.stdout is not None
    while process.stdout.readline() != "ready\n":
        pass
    try:
        assert status(tmp_path / "run").status == "running"
    finally:
        process.kill()
        process.communicate(timeout=120)
    assert status(tmp_path / "run").status == "running"  # no end yet, but not quiet for long either
    found = status(tmp_path / "run", later=True)
    assert (found.status, found.end_time) == ("crashed", None)


def test_a_run_from_a_writer_that_records_no_end_is_stopped_not_crashed(tmp_path: Path) -> None:
    writer = ridgeline.SummaryWriter(tmp_path, record_run_metadata=False)  # as torch's writer: no run metadata
    writer.add_scalar("loss", 1.0, 1)
    writer.flush()
    for path in tmp_path.iterdir():  # the files say an hour ago, and so do the records' wall times
        os.utime(path, (time.time() - 3600, time.time() - 3600))
    logdir = ridgeline.open(tmp_path, cache=False)
    assert logdir.status(".", crashed_after=7200).status == "running"
    assert logdir.status(".", now=time.time() + 3600, crashed_after=60).status == "stopped"
    writer.close()
    assert ridgeline.open(tmp_path, cache=False).status(".", now=time.time() + 3600).status == "finished"


def test_a_failure_reported_by_a_framework_and_a_with_block_that_raises_are_failed(tmp_path: Path) -> None:
    writer = ridgeline.SummaryWriter(tmp_path / "lightning")
    end_session(writer, STATUS_FAILURE)  # what RidgelineLogger.finalize("failed") does before closing
    writer.close()
    with pytest.raises(ValueError), ridgeline.SummaryWriter(tmp_path / "block") as block:
        block.add_scalar("loss", 1.0, 1)
        raise ValueError("nan loss")
    with ridgeline.SummaryWriter(tmp_path / "clean"):
        pass
    logdir = ridgeline.open(tmp_path, cache=False)
    assert logdir.status("lightning").status == "failed"
    assert logdir.hparams_session_end("lightning") is not None
    block_status = logdir.status("block")
    assert (block_status.status, block_status.error) == ("failed", "ValueError: nan loss")
    assert logdir.status("clean").status == "finished"


def test_a_writer_used_again_after_close_is_running_until_closed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = ridgeline.SummaryWriter(tmp_path)
    past = time.time() - 100
    writer.add_scalar("loss", 1.0, 1, walltime=past)
    with monkeypatch.context() as clock:  # the first close happened 100 s ago
        clock.setattr(time, "time", lambda: past)
        writer.close()
    logdir = ridgeline.open(tmp_path, cache=False)
    assert logdir.status(".").status == "finished"
    writer.add_scalar("loss", 0.5, 2)  # now: long after that end
    writer.flush()
    logdir.reload()
    assert logdir.status(".").status == "running"
    writer.close()
    logdir.reload()
    assert logdir.status(".").status == "finished"


def test_add_scalars_sub_runs_record_their_end_too(tmp_path: Path) -> None:
    with ridgeline.SummaryWriter(tmp_path) as writer:
        writer.add_scalars("loss", {"train": 1.0, "val": 2.0}, 1)
    logdir = ridgeline.open(tmp_path, cache=False)
    assert {run: logdir.status(run, now=time.time() + LATER).status for run in logdir.runs()} == {
        ".": "finished",
        "loss_train": "finished",
        "loss_val": "finished",
    }


def test_an_open_writer_keeps_its_file_fresh_while_nothing_is_logged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(event_file, "HEARTBEAT_SECS", 0.05)
    writer = ridgeline.SummaryWriter(tmp_path)
    try:
        (path,) = [p for p in tmp_path.iterdir() if p.name.startswith("events")]
        os.utime(path, (1000.0, 1000.0))
        deadline = time.monotonic() + 60
        while path.stat().st_mtime == 1000.0:  # wait for the heartbeat (the condition), at most a minute
            assert time.monotonic() < deadline, "the open file was never touched"
            time.sleep(0.01)
        size = path.stat().st_size
        logdir = ridgeline.open(tmp_path, cache=False)
        last = logdir.last_modified(".")
        assert last is not None and last > 1000.0
    finally:
        writer.close()
    assert size < path.stat().st_size  # the heartbeat wrote nothing; close wrote the end record
