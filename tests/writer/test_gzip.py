"""Gzip-compressed event files (issue 19): ``SummaryWriter(..., compression="gzip")``.

The files are checked with the standard library's zlib (an independent gzip reader) and read back through
``ridgeline.open``; a SIGKILL after a flush loses nothing flushed; TensorBoard, which cannot read them, reads
nothing from them (and the docs say so)."""

from __future__ import annotations

import signal
import struct
import subprocess
import sys
import textwrap
import zlib
from pathlib import Path

import numpy as np
import pytest

import ridgeline
from ridgeline import SummaryWriter

ROOT = Path(__file__).resolve().parents[2]


def members(data: bytes) -> list[bytes]:
    """The decompressed bytes of each gzip member of ``data``, by zlib (raises on a member cut short)."""
    found = []
    while data:
        inflate = zlib.decompressobj(wbits=31)
        found.append(inflate.decompress(data))
        assert inflate.eof, "a member cut short"
        data = inflate.unused_data
    return found


def record_count(data: bytes) -> int:
    """How many whole TFRecords ``data`` holds; fails unless it is whole records exactly."""
    count, position = 0, 0
    while position < len(data):
        (length,) = struct.unpack_from("<Q", data, position)
        position += 12 + length + 4
        count += 1
    assert position == len(data), "a record crosses the end"
    return count


def event_file(run: Path) -> Path:
    (path,) = run.glob("*tfevents*")
    return path


def test_a_gzip_run_reads_back_as_written(tmp_path: Path) -> None:
    with SummaryWriter(tmp_path / "run", compression="gzip", max_queue=7) as writer:
        for step in range(500):
            writer.add_scalar("loss", 1.0 / (step + 1), step)
            if step % 100 == 0:
                writer.add_histogram("weights", np.arange(10.0) + step, step)
                writer.add_text("note", f"at step {step}", step)
                writer.flush()
    path = event_file(tmp_path / "run")
    assert path.name.endswith(".gz") and ".tfevents." in path.name
    parts = members(path.read_bytes())
    assert len(parts) > 5  # the header, then one member per write
    assert all(record_count(part) >= 1 for part in parts)  # every member ends on a record boundary

    logdir = ridgeline.open(tmp_path, cache=False)
    assert logdir.runs() == ["run"]
    loss = logdir.scalars("run", "loss")
    assert loss.step.tolist() == list(range(500))
    assert loss.value.tolist() == [float(np.float32(1.0 / (step + 1))) for step in range(500)]
    histograms = logdir.histograms("run", "weights")
    assert [entry.step for entry in histograms] == [0, 100, 200, 300, 400]
    assert histograms[3].value.max == 309.0 and histograms[3].value.num == 10
    assert [str(entry.value.text[0]) for entry in logdir.text("run", "note/text_summary")] == [
        f"at step {step}" for step in range(0, 500, 100)
    ]
    assert logdir.run_metadata("run") is not None
    assert logdir.problems() == []


def test_add_scalars_sub_runs_are_compressed_too(tmp_path: Path) -> None:
    with SummaryWriter(tmp_path / "run", compression="gzip") as writer:
        for step in range(10):
            writer.add_scalars("lr", {"a": 0.1 * step, "b": 0.2 * step}, step)
    files = sorted(path.name for path in (tmp_path / "run").rglob("*tfevents*"))
    assert len(files) == 3 and all(name.endswith(".gz") for name in files)
    logdir = ridgeline.open(tmp_path, cache=False)
    assert logdir.scalars("run/lr_b", "lr").step.tolist() == list(range(10))


@pytest.mark.parametrize("bad", ["zip", "GZIP", "", True, 1])
def test_compression_must_be_none_or_gzip(tmp_path: Path, bad: object) -> None:
    with pytest.raises(ValueError, match="compression must be None or 'gzip'"):
        SummaryWriter(tmp_path / "run", compression=bad)  # type: ignore[arg-type]
    assert not (tmp_path / "run").exists()


def test_a_sigkill_after_a_flush_loses_nothing_flushed(tmp_path: Path) -> None:
    code = f"""
    import time, ridgeline
    writer = ridgeline.SummaryWriter({str(tmp_path / "run")!r}, compression="gzip", max_queue=1000, flush_secs=120)
    for step in range(300):
        writer.add_scalar("loss", float(step), step)
        if step % 50 == 49:
            writer.flush()
    for step in range(300, 320):
        writer.add_scalar("loss", float(step), step)  # queued, never flushed
    print("ready", flush=True)
    while True:
        time.sleep(1)
    """
    process = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    line = process.stdout.readline()  # blocks until the child has flushed (or died)
    if line.strip() != "ready":
        process.kill()
        raise AssertionError(f"the child did not get ready: {line!r}\n{process.communicate(timeout=120)[1]}")
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=120)
    assert process.returncode == -signal.SIGKILL
    members(event_file(tmp_path / "run").read_bytes())  # every member the kill left is complete
    logdir = ridgeline.open(tmp_path, cache=False)
    assert logdir.scalars("run", "loss").step.tolist() == list(range(300))
    assert logdir.problems() == []


def test_tensorboard_cannot_read_them_and_the_docs_say_so(tmp_path: Path) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    with SummaryWriter(tmp_path / "plain") as writer:
        writer.add_scalar("loss", 1.0, 1)
    with SummaryWriter(tmp_path / "compressed", compression="gzip") as writer:
        writer.add_scalar("loss", 1.0, 1)
    plain = EventAccumulator(str(tmp_path / "plain"))
    plain.Reload()
    assert plain.Tags()["scalars"] == ["loss"]  # the same write, uncompressed: TensorBoard reads it
    compressed = EventAccumulator(str(tmp_path / "compressed"))
    compressed.Reload()
    assert compressed.Tags()["scalars"] == []
    for page in ("writer.md", "reading.md"):
        assert "TensorBoard cannot read" in (ROOT / "docs" / page).read_text(), page
