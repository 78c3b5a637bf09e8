"""The writer when the job around it goes wrong (issue 13), each in a real process: stopped by a signal, killed,
its log directory removed, its disk full. Nothing flushed is ever lost, and a loss that cannot be prevented is an
error at the training code's next call, never silence."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import ridgeline

CHILD_HEAD = """
import os, signal, sys, time
import ridgeline
"""


def child(code: str, log_dir: Path) -> subprocess.Popen[str]:
    """A Python process running ``code`` (LOG_DIR set); it prints "ready" when it wants the signal."""
    source = CHILD_HEAD + f"LOG_DIR = {str(log_dir)!r}\n" + textwrap.dedent(code)
    return subprocess.Popen(
        [sys.executable, "-c", source], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=log_dir.parent
    )


def wait_ready(process: subprocess.Popen[str]) -> None:
    assert process.stdout is not None
    line = process.stdout.readline()  # blocks until the child says so (or dies)
    if line.strip() != "ready":
        process.kill()
        _, err = process.communicate(timeout=120)
        raise AssertionError(f"the child did not get ready: {line!r}\n{err}")


def steps(log_dir: Path, tag: str = "loss", *, all_points: bool = False) -> list[int]:
    logdir = ridgeline.open(log_dir.parent, cache=False)
    run = log_dir.name
    if run not in logdir.runs() or tag not in logdir.tags(run).get("scalars", []):
        return []
    return [int(s) for s in logdir.scalars(run, tag, all_points=all_points).step]


# Nothing reaches the file before the signal: the queue wakes the thread at 1,000 events or after 120 s.
LOG_100_THEN_WAIT = """
writer = ridgeline.SummaryWriter(LOG_DIR, max_queue=1000, flush_secs=120{options})
for step in range(100):
    writer.add_scalar("loss", 1.0 / (step + 1), step)
print("ready", flush=True)
while True:
    time.sleep(1)
"""


@pytest.mark.slow
@pytest.mark.parametrize("name", ["SIGTERM", "SIGINT", "SIGHUP"])
def test_a_stopping_signal_flushes_every_value_then_acts_as_the_signal(tmp_path: Path, name: str) -> None:
    number = getattr(signal, name)
    process = child(LOG_100_THEN_WAIT.format(options=""), tmp_path / "run")
    wait_ready(process)
    process.send_signal(number)
    _, err = process.communicate(timeout=120)
    assert process.returncode == -number, err  # ended by the signal, as without the handler (SIGINT: after
    # Python's KeyboardInterrupt, which it re-raises as the signal when uncaught)
    assert steps(tmp_path / "run") == list(range(100))


@pytest.mark.slow
def test_a_handler_the_program_installed_still_runs(tmp_path: Path) -> None:
    code = textwrap.dedent("""
    def mine(number, frame):
        print("mine", flush=True)
        writer.add_scalar("loss", 0.0, 100)  # the program's own last words, flushed by its own close
        writer.close()
        sys.exit(3)
    signal.signal(signal.SIGTERM, mine)
    """) + LOG_100_THEN_WAIT.format(options="")
    process = child(code, tmp_path / "run")
    wait_ready(process)
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 3 and "mine" in out, err
    assert steps(tmp_path / "run") == list(range(101))


@pytest.mark.slow
def test_opting_out_leaves_the_signal_alone(tmp_path: Path) -> None:
    process = child(LOG_100_THEN_WAIT.format(options=", flush_on_signals=False"), tmp_path / "run")
    wait_ready(process)
    process.send_signal(signal.SIGTERM)
    process.communicate(timeout=120)
    assert process.returncode == -signal.SIGTERM
    assert steps(tmp_path / "run") == []  # what the opt-out means: queued values die with the process


@pytest.mark.slow
def test_killed_then_restarted_every_flushed_value_and_both_sessions(tmp_path: Path) -> None:
    code = """
    writer = ridgeline.SummaryWriter(LOG_DIR, max_queue=1000, flush_secs=120)
    for step in range(50):
        writer.add_scalar("loss", float(step), step)
    writer.flush()
    for step in range(50, 60):
        writer.add_scalar("loss", float(step), step)  # queued, never flushed: SIGKILL cannot be caught
    print("ready", flush=True)
    while True:
        time.sleep(1)
    """
    process = child(code, tmp_path / "run")
    wait_ready(process)
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=120)
    assert steps(tmp_path / "run") == list(range(50))  # every flushed value, the torn tail (if any) skipped
    resume = """
    with ridgeline.SummaryWriter(LOG_DIR, purge_step=40) as resumed:  # the job again, from its step-40 checkpoint
        for step in range(40, 80):
            resumed.add_scalar("loss", 1000.0 + step, step)
    """
    restarted = child(resume, tmp_path / "run")  # a new process, as a restart is (its file sorts after)
    _, err = restarted.communicate(timeout=120)
    assert restarted.returncode == 0, err
    logdir = ridgeline.open(tmp_path, cache=False)
    shown = logdir.scalars("run", "loss")
    assert shown.step.tolist() == list(range(80))
    assert shown.value.tolist() == [float(s) for s in range(40)] + [1000.0 + s for s in range(40, 80)]
    assert steps(tmp_path / "run", all_points=True) == [*range(50), *range(40, 80)]  # both sessions, all kept


def test_a_log_directory_removed_while_writing_is_an_error_at_the_next_call(tmp_path: Path) -> None:
    writer = ridgeline.SummaryWriter(str(tmp_path / "run"))
    for step in range(100):
        writer.add_scalar("loss", 1.0, step)
    writer.flush()
    shutil.rmtree(tmp_path / "run")
    writer.add_scalar("loss", 1.0, 100)
    with pytest.raises(RuntimeError, match="deleted or replaced while the run was writing"):
        writer.flush()
    with pytest.raises(RuntimeError, match="log directory"):
        writer.add_scalar("loss", 1.0, 101)
    with pytest.raises(RuntimeError):
        writer.close()


@pytest.mark.slow
def test_a_full_disk_is_an_error_at_the_next_call_and_nothing_flushed_is_lost(tmp_path: Path) -> None:
    """RLIMIT_FSIZE stands in for a full disk: the write that would pass it fails (EFBIG) as ENOSPC would."""
    code = """
    import resource
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit then fails instead of killing us
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))
    writer = ridgeline.SummaryWriter(LOG_DIR, record_run_metadata=False)
    flushed = -1
    try:
        for step in range(100_000):
            writer.add_scalar("loss", float(step), step)
            if step % 100 == 99:
                writer.flush()
                flushed = step
    except RuntimeError as error:
        print(f"error after {flushed}: {error}", flush=True)
    """
    process = child(code, tmp_path / "run")
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    assert out.startswith("error after ") and "File too large" in out, out
    flushed = int(out.split()[2].rstrip(":"))
    assert flushed > 0
    written = steps(tmp_path / "run")
    assert written[: flushed + 1] == list(range(flushed + 1))  # everything flushed is there, in order
