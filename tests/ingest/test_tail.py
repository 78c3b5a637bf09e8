"""Reading damaged and growing files through the reading API: nothing after the damage is lost, the damage is
reported once, a record still being written waits for the next pass, and memory stays bounded however large a
damaged span or a claimed length is."""

from __future__ import annotations

import struct
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import ridgeline
from ridgeline.format import records
from ridgeline.format.proto import event_pb2
from ridgeline.ingest import fastpath, tail
from tests.ingest.fastpath_helpers import scalar_record

FILE = "events.out.tfevents.1.h.1.0"


pytestmark = pytest.mark.usefixtures("default_implementation")  # every test on both record loops


def scalars(steps: range, tag: str = "x") -> bytes:
    return b"".join(scalar_record(tag, step, float(step)) for step in steps)


def claiming(length: int) -> bytes:
    """A header that looks valid (its length CRC matches) and claims ``length`` bytes of data."""
    head = struct.pack("<Q", length)
    return head + struct.pack("<I", records.masked_crc32c(head))


def peak_bytes_while(action: object) -> int:
    """The most memory Python and numpy held at once (tracemalloc) while ``action()`` ran. The record loop's
    one-time lookup tables (the numpy loop's: 4 MB, built on first use) are built first, so the bound is on what
    the file costs whichever test ran before in this process (alone, the test measured the tables)."""
    fastpath.parse_records(scalars(range(1)), check_crc=True, available=None)
    tracemalloc.start()
    try:
        action()  # type: ignore[operator]
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("length", [2**32, 2**62, 2**64 - 1])
def test_a_length_past_the_end_of_the_file_loses_nothing_after_it(tmp_path: Path, length: int) -> None:
    """Issue 13: a huge length whose CRC was rewritten too made the reader stop there, silently."""
    before = scalars(range(0, 20))
    after = scalars(range(21, 40_000))  # several read chunks
    (tmp_path / FILE).write_bytes(before + claiming(length) + scalar_record("x", 20, 20.0)[12:] + after)
    logdir = ridgeline.open(tmp_path, cache=False)
    assert logdir.scalars(".", "x").step.tolist() == [*range(20), *range(21, 40_000)]
    (problem,) = logdir.problems()
    assert (problem.offset, problem.reason) == (len(before), "length past the end of the file")


def test_a_length_past_the_end_followed_by_damage_longer_than_a_chunk(tmp_path: Path) -> None:
    junk = np.random.default_rng(1).integers(0, 256, 3 * tail.CHUNK_BYTES, dtype=np.uint8).tobytes()
    (tmp_path / FILE).write_bytes(scalars(range(3)) + claiming(2**62) + junk + scalars(range(3, 10)))
    logdir = ridgeline.open(tmp_path, cache=False)
    assert logdir.scalars(".", "x").step.tolist() == list(range(10))
    assert [(p.offset, p.reason) for p in logdir.problems()] == [
        (len(scalars(range(3))), "length past the end of the file")
    ]


def test_a_growing_file_keeps_its_partial_tail_for_the_next_pass(tmp_path: Path) -> None:
    path = tmp_path / FILE
    big = event_pb2.Event(step=5)
    big.summary.value.add(tag="big", obsolete_old_style_histogram=bytes(3 * tail.CHUNK_BYTES))
    last = records.frame(big.SerializeToString())
    path.write_bytes(scalars(range(5)) + last[: tail.CHUNK_BYTES])  # the writer is half way through
    logdir = ridgeline.open(tmp_path, cache=False)
    assert logdir.scalars(".", "x").step.tolist() == list(range(5)) and logdir.problems() == []
    with path.open("ab") as file:
        file.write(last[tail.CHUNK_BYTES :] + scalars(range(6, 9)))
    logdir.reload()
    assert logdir.scalars(".", "x").step.tolist() == [0, 1, 2, 3, 4, 6, 7, 8] and logdir.problems() == []


def test_a_huge_length_at_the_end_waits_until_intact_records_follow_it(tmp_path: Path) -> None:
    path = tmp_path / FILE
    path.write_bytes(scalars(range(5)) + claiming(2**40) + b"\x00" * 100)
    logdir = ridgeline.open(tmp_path, cache=False)
    assert logdir.scalars(".", "x").step.tolist() == list(range(5)) and logdir.problems() == []
    with path.open("ab") as file:
        file.write(scalars(range(5, 8)))
    logdir.reload()
    assert logdir.scalars(".", "x").step.tolist() == list(range(8))
    assert [(p.offset, p.reason) for p in logdir.problems()] == [
        (len(scalars(range(5))), "length past the end of the file")
    ]


def test_a_junk_file_is_read_in_bounded_memory_and_reported(tmp_path: Path) -> None:
    """Issue 13: a 1.5 GB junk file was held in memory whole (2.5 GiB), and nothing was reported."""
    path = tmp_path / FILE
    junk = np.random.default_rng(2).integers(0, 256, 48 << 20, dtype=np.uint8).tobytes()
    path.write_bytes(junk)
    del junk
    opened: list[ridgeline.LogDir] = []
    peak = peak_bytes_while(lambda: opened.append(ridgeline.open(tmp_path, cache=False)))
    assert peak < 12 << 20, f"{peak / 1e6:.1f} MB held at once for a 48 MiB junk file"
    (logdir,) = opened
    assert [(p.offset, p.reason) for p in logdir.problems()] == [(0, "length CRC mismatch")]
    # Intact records written after the junk are found, and the junk is not reported again.
    with path.open("ab") as file:
        file.write(scalars(range(4)))
    peak = peak_bytes_while(logdir.reload)
    assert peak < 12 << 20
    assert logdir.scalars(".", "x").step.tolist() == list(range(4))
    assert [(p.offset, p.reason) for p in logdir.problems()] == [(0, "length CRC mismatch")]


def test_a_huge_record_is_checked_in_windows_before_it_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tail, "WHOLE_RECORD_BYTES", 2 << 20)
    big = event_pb2.Event(step=1)
    big.summary.value.add(tag="big", obsolete_old_style_histogram=bytes(12 << 20))
    intact = records.frame(big.SerializeToString())
    damaged = bytearray(intact)
    damaged[len(damaged) // 2] ^= 1
    path = tmp_path / FILE
    path.write_bytes(scalars(range(2)) + bytes(damaged) + scalars(range(2, 4)))
    opened: list[ridgeline.LogDir] = []
    peak = peak_bytes_while(lambda: opened.append(ridgeline.open(tmp_path, cache=False)))
    assert peak < len(damaged) // 2, f"{peak / 1e6:.1f} MB held at once: the damaged record was read whole"
    (logdir,) = opened
    assert logdir.scalars(".", "x").step.tolist() == list(range(4))
    assert [(p.offset, p.reason) for p in logdir.problems()] == [(len(scalars(range(2))), "data CRC mismatch")]
    with path.open("ab") as file:  # an intact one, as large: checked, then read and decoded
        file.write(intact + scalars(range(4, 6)))
    logdir.reload()
    assert logdir.scalars(".", "x").step.tolist() == list(range(6)) and len(logdir.problems()) == 1
