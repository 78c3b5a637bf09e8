"""The background event file: exact encoding, nothing lost, flush/close/exit semantics, errors, fork."""

from __future__ import annotations

import math
import signal
import struct
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ridgeline import SummaryWriter
from ridgeline.format.proto import event_pb2
from ridgeline.writer import event_file
from ridgeline.writer.event_file import EventFileWriter
from tests.conftest import event_files, read_events, read_scalars

INT64 = st.integers(min_value=-(2**63), max_value=2**63 - 1)


@given(
    tag=st.text(min_size=1, max_size=200),
    value=st.floats(allow_nan=True, allow_infinity=True),
    step=INT64,
    wall_time=st.floats(allow_nan=False, allow_infinity=False),
)
def test_scalar_encoding_is_what_protobuf_writes(tag: str, value: float, step: int, wall_time: float) -> None:
    ours = event_file.encode_scalar_event(event_file._scalar_head(tag), value, step, wall_time)
    try:
        float32 = struct.unpack("<f", struct.pack("<f", value))[0]
    except OverflowError:
        float32 = math.copysign(math.inf, value)
    expected = event_pb2.Event(wall_time=wall_time, step=step)
    expected.summary.value.add(tag=tag, simple_value=float32)
    if math.isnan(value):  # NaN payload bits need not survive; compare the decoded message instead
        decoded = event_pb2.Event.FromString(ours)
        assert math.isnan(decoded.summary.value[0].simple_value)
        decoded.summary.value[0].simple_value = 0.0
        expected.summary.value[0].simple_value = 0.0
        assert decoded == expected
    else:
        assert ours == expected.SerializeToString()


def test_flush_makes_everything_readable_before_close(tmp_path: Path) -> None:
    writer = SummaryWriter(tmp_path, max_queue=1000, flush_secs=3600)
    for step in range(250):
        writer.add_scalar("loss", 1 / (step + 1), step)
    writer.flush()
    assert [s for s, _ in read_scalars(tmp_path, "loss")] == list(range(250))
    writer.close()


def test_a_full_queue_blocks_and_drops_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(event_file, "MAX_PENDING_EVENTS", 64)
    monkeypatch.setattr(event_file, "MAX_PENDING_BYTES", 1 << 20)
    writer = SummaryWriter(tmp_path, max_queue=10**9, flush_secs=3600, record_run_metadata=False)
    file = writer.file_writer
    assert file is not None
    payload = bytes(200_000)
    largest_backlog = 0
    for step in range(20_000):
        writer.add_scalar("loss", float(step), step)
        largest_backlog = max(largest_backlog, len(file._queue))
        if step % 500 == 0:
            event = event_pb2.Event(step=step)
            event.summary.value.add(tag="big", obsolete_old_style_histogram=payload)
            file.add_event(event)
            assert file._bytes_queued - file._bytes_written <= (1 << 20) + len(payload) + 100
    assert largest_backlog <= 64
    writer.close()
    assert [s for s, _ in read_scalars(tmp_path, "loss")] == list(range(20_000))
    big = [
        e for p in event_files(tmp_path) for e in read_events(p) if e.summary.value and e.summary.value[0].tag == "big"
    ]
    assert len(big) == 40
    assert all(e.summary.value[0].obsolete_old_style_histogram == payload for e in big)


def _run_child(code: str, *args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args], capture_output=True, text=True, timeout=60, **kwargs
    )


def test_flushed_events_survive_sigkill(tmp_path: Path) -> None:
    with subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                """
                import sys, time
                from ridgeline import SummaryWriter
                writer = SummaryWriter(sys.argv[1], flush_secs=3600, max_queue=10**6)
                for step in range(5000):
                    writer.add_scalar("loss", step * 0.5, step)
                writer.flush()
                print("flushed", flush=True)
                for step in range(5000, 10000):  # queued, never flushed: may be lost, must not corrupt
                    writer.add_scalar("loss", step * 0.5, step)
                time.sleep(60)
                """
            ),
            str(tmp_path),
        ],
        stdout=subprocess.PIPE,
        text=True,
    ) as child:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "flushed"
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    points = read_scalars(tmp_path, "loss")  # also checks every record's CRCs and that no partial record is left
    assert points[:5000] == [(step, step * 0.5) for step in range(5000)]


@pytest.mark.parametrize("ending", ["return normally", "raise", "sys.exit(3)"])
def test_exit_without_close_loses_nothing(tmp_path: Path, ending: str) -> None:
    last_line = {"return normally": "pass", "raise": "raise SystemError('boom')", "sys.exit(3)": "sys.exit(3)"}[ending]
    result = _run_child(
        f"""
        import sys
        from ridgeline import SummaryWriter
        writer = SummaryWriter(sys.argv[1])  # default flush_secs=120: nothing is written before exit
        for step in range(3000):
            writer.add_scalar("loss", float(step), step)
        writer.add_text("notes", "the end", 2999)
        {last_line}
        """,
        str(tmp_path),
    )
    assert result.returncode == {"return normally": 0, "raise": 1, "sys.exit(3)": 3}[ending], result.stderr
    assert read_scalars(tmp_path, "loss") == [(step, float(step)) for step in range(3000)]


def test_background_errors_reach_the_caller(tmp_path: Path) -> None:
    result = _run_child(
        """
        import resource, signal, sys
        from ridgeline import SummaryWriter
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        writer = SummaryWriter(sys.argv[1], record_run_metadata=False)
        resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))
        try:  # the background thread may fail while these are queued: the next call raises
            for step in range(5000):
                writer.add_scalar("loss", 1.0, step)
        except RuntimeError as error:
            print("add_scalar raised:", error)
        calls = (("flush", writer.flush), ("add_scalar", lambda: writer.add_scalar("x", 1.0)), ("close", writer.close))
        for name, call in calls:
            try:
                call()
            except RuntimeError as error:
                print(name, "raised:", error)
        """,
        str(tmp_path),
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines][-3:] == ["flush", "add_scalar", "close"], result.stdout
    assert all("File too large" in line and "events.out.tfevents" in line for line in lines)


def test_a_forked_child_writes_its_own_file_and_never_the_parents(tmp_path: Path) -> None:
    result = _run_child(
        """
        import os, sys
        from ridgeline import SummaryWriter
        writer = SummaryWriter(sys.argv[1], record_run_metadata=False, max_queue=5)
        for step in range(100):
            writer.add_scalar("parent", float(step), step)
        quiet = os.fork()
        if quiet == 0:  # a child that never logs (e.g. a DataLoader worker) leaves no file behind
            writer.close()
            os._exit(0)
        os.waitpid(quiet, 0)
        pid = os.fork()
        if pid == 0:
            for step in range(50):
                writer.add_scalar("child", float(step), step)
            writer.close()
            os._exit(0)
        for step in range(100, 200):
            writer.add_scalar("parent", float(step), step)
        os.waitpid(pid, 0)
        writer.close()
        """,
        str(tmp_path),
    )
    assert result.returncode == 0, result.stderr
    files = event_files(tmp_path)
    assert len(files) == 2
    tags_per_file = [{v.tag for e in read_events(f) for v in e.summary.value} for f in files]
    # each process's close records its end in its own file
    assert sorted(map(sorted, tags_per_file)) == [["_ridgeline/run_end", "child"], ["_ridgeline/run_end", "parent"]]
    assert read_scalars(tmp_path, "parent") == [(step, float(step)) for step in range(200)]
    assert read_scalars(tmp_path, "child") == [(step, float(step)) for step in range(50)]


def test_unwritable_log_dir_fails_at_construction(tmp_path: Path) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("not a directory")
    with pytest.raises(ValueError, match=r"log_dir .*a_file/run.* is not writable"):
        SummaryWriter(blocker / "run")
    with pytest.raises(ValueError, match=r"log_dir .*a_file.* is not writable"):
        EventFileWriter(str(blocker))


def test_every_file_starts_with_its_version_record(tmp_path: Path) -> None:
    with SummaryWriter(tmp_path) as writer:
        writer.add_scalar("x", 1.0)
    first = read_events(event_files(tmp_path)[0])[0]
    assert first.file_version == "brain.Event:2"
    assert first.wall_time > 0


def test_close_twice_and_reuse_after_close_start_a_new_file(tmp_path: Path) -> None:
    writer = SummaryWriter(tmp_path)
    writer.add_scalar("x", 1.0, 1)
    writer.close()
    writer.close()
    writer.add_scalar("x", 2.0, 2)
    writer.close()
    assert len(event_files(tmp_path)) == 2
    assert read_scalars(tmp_path, "x") == [(1, 1.0), (2, 2.0)]
