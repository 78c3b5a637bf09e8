"""Reading gzip-compressed event files (``*.tfevents*.gz``, issue 19) through the reading API: members written
by the standard library's zlib, appended between reloads as a writer would; only complete members are read, a
member cut short is waited for, a corrupt one is skipped and reported once, and memory stays bounded."""

from __future__ import annotations

import io
import itertools
import tracemalloc
import zlib
from pathlib import Path

import numpy as np
import pytest

import ridgeline
from ridgeline.format import records
from ridgeline.format.proto import event_pb2
from ridgeline.ingest.discovery import LogDirSource, filesystem_for, find_runs
from tests.ingest.fastpath_helpers import scalar_record

FILE = "events.out.tfevents.1.h.1.0.gz"

pytestmark = pytest.mark.usefixtures("default_implementation")  # every test on both record loops


def scalars(steps: range, tag: str = "x") -> bytes:
    return b"".join(scalar_record(tag, step, float(step)) for step in steps)


def member(data: bytes) -> bytes:
    """One complete gzip member holding ``data`` (zlib, not ridgeline's writer)."""
    return zlib.compress(data, 6, wbits=31)


def append(path: Path, data: bytes) -> None:
    with path.open("ab") as file:
        file.write(data)


def steps(logdir: ridgeline.LogDir, run: str = ".") -> list[int]:
    return logdir.scalars(run, "x").step.tolist() if "x" in logdir.tags(run).get("scalars", []) else []


def test_discovery_takes_compressed_event_files(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / FILE).write_bytes(member(scalars(range(3))))
    (tmp_path / "a" / "trace.json.gz").write_bytes(member(b"{}"))
    ((_, files),) = find_runs(LogDirSource(str(tmp_path)), filesystem_for(str(tmp_path))).values()
    assert [Path(path).name for path in files] == [FILE]


def test_a_growing_file_is_read_member_by_member_even_where_members_cut_records(tmp_path: Path) -> None:
    path = tmp_path / FILE
    plain = scalars(range(300))
    cuts = [0, 1000, 1001, 1777, 5000, len(plain)]  # arbitrary byte positions: records straddle members
    path.write_bytes(member(plain[: cuts[1]]))
    logdir = ridgeline.open(tmp_path, cache=False)
    seen = [steps(logdir)]
    for start, end in itertools.pairwise(cuts[1:]):
        append(path, member(plain[start:end]))
        logdir.reload()
        seen.append(steps(logdir))
    ends = list(np.cumsum([len(scalar_record("x", step, float(step))) for step in range(300)]))
    assert seen == [[step for step in range(300) if ends[step] <= cut] for cut in cuts[1:]]
    assert logdir.problems() == []


def test_a_member_cut_short_is_waited_for_and_not_reported(tmp_path: Path) -> None:
    path = tmp_path / FILE
    second = member(scalars(range(10, 20)))
    path.write_bytes(member(scalars(range(10))) + second[: len(second) // 2])
    logdir = ridgeline.open(tmp_path, cache=False)
    assert steps(logdir) == list(range(10))
    logdir.reload()
    assert steps(logdir) == list(range(10)) and logdir.problems() == []
    append(path, second[len(second) // 2 :])
    logdir.reload()
    assert steps(logdir) == list(range(20))
    assert logdir.problems() == []


def test_a_file_cut_inside_its_first_member_header_reads_nothing_yet(tmp_path: Path) -> None:
    path = tmp_path / FILE
    whole = member(scalars(range(5)))
    path.write_bytes(whole[:4])
    logdir = ridgeline.open(tmp_path, cache=False)
    assert logdir.runs() == ["."] and steps(logdir) == [] and logdir.problems() == []
    append(path, whole[4:])
    logdir.reload()
    assert steps(logdir) == list(range(5))


@pytest.mark.parametrize("where", ["data", "crc"])
def test_a_corrupt_member_is_skipped_and_reported_once(tmp_path: Path, where: str) -> None:
    path = tmp_path / FILE
    first, third = member(scalars(range(10))), member(scalars(range(20, 30)))
    second = bytearray(member(scalars(range(10, 20))))
    if where == "data":
        second[len(second) // 2] ^= 0xFF  # inside the deflate stream
    else:
        second[-8] ^= 0xFF  # the CRC32 of the member's trailer
    path.write_bytes(first + bytes(second) + third)
    logdir = ridgeline.open(tmp_path, cache=False)
    assert steps(logdir) == [*range(10), *range(20, 30)]
    (problem,) = logdir.problems()
    assert problem.path.endswith(FILE) and problem.offset == len(first)
    assert "corrupt gzip member" in problem.reason
    append(path, member(scalars(range(30, 40))))
    logdir.reload()
    assert steps(logdir) == [*range(10), *range(20, 40)]
    assert len(logdir.problems()) == 1


def test_a_corrupt_last_member_is_reported_and_the_next_member_read_when_it_comes(tmp_path: Path) -> None:
    path = tmp_path / FILE
    broken = bytearray(member(scalars(range(10, 20))))
    broken[len(broken) // 2] ^= 0xFF
    path.write_bytes(member(scalars(range(10))) + bytes(broken))
    logdir = ridgeline.open(tmp_path, cache=False)
    assert steps(logdir) == list(range(10))
    assert len(logdir.problems()) == 1  # reported at once, though nothing follows it yet
    later = member(scalars(range(20, 30)))
    append(path, later[:10])  # the next member begins...
    logdir.reload()
    assert steps(logdir) == list(range(10))
    append(path, later[10:])  # ...and ends
    logdir.reload()
    assert steps(logdir) == [*range(10), *range(20, 30)]
    assert len(logdir.problems()) == 1


def test_images_in_a_compressed_file_decode_from_their_member(tmp_path: Path) -> None:
    from PIL import Image

    from ridgeline import SummaryWriter

    rng = np.random.default_rng(3)
    pictures = [rng.integers(0, 256, (3, 16, 16), dtype=np.uint8) for _ in range(4)]
    with SummaryWriter(tmp_path / "run", compression="gzip") as writer:
        for step, picture in enumerate(pictures):
            writer.add_image("picture", picture, step)
            for point in range(2000):  # members between the images, larger than the read chunks' records
                writer.add_scalar("x", float(point), step * 2000 + point)
            writer.flush()
    logdir = ridgeline.open(tmp_path, cache=False)
    entries = logdir.images("run", "picture")
    assert [entry.step for entry in entries] == [0, 1, 2, 3]
    for entry, picture in zip(reversed(entries), reversed(pictures), strict=True):  # out of order on purpose
        decoded = np.asarray(Image.open(io.BytesIO(entry.value.encoded[0])))
        assert np.array_equal(decoded, picture.transpose(1, 2, 0))
    assert steps(logdir, "run") == list(range(8000))


def test_memory_stays_bounded_over_a_large_member(tmp_path: Path) -> None:
    """64 MiB of zeros (no record: damage) in one member of 64 KiB, then records: read in pieces, never whole."""
    path = tmp_path / FILE
    path.write_bytes(member(scalars(range(5))) + member(bytes(64 << 20)) + member(scalars(range(5, 10))))
    found: list[list[int]] = []

    def read() -> None:
        logdir = ridgeline.open(tmp_path, cache=False)
        found.append(steps(logdir))

    tracemalloc.start()
    try:
        read()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert found == [list(range(10))]
    assert peak < 24 << 20, f"peak {peak / 2**20:.1f} MiB"


def test_a_compressed_run_comes_back_from_the_on_disk_store_and_continues(tmp_path: Path) -> None:
    logs, cache = tmp_path / "logs", tmp_path / "cache"
    logs.mkdir()
    path = logs / FILE
    path.write_bytes(member(scalars(range(10))))
    first = ridgeline.open(logs, cache_dir=cache)
    assert steps(first) == list(range(10))
    first.provider.close()  # type: ignore[attr-defined]
    append(path, member(scalars(range(10, 20))))
    second = ridgeline.open(logs, cache_dir=cache)
    assert second.provider.restored_runs == 1  # type: ignore[attr-defined]
    assert steps(second) == list(range(20))
    second.provider.close()  # type: ignore[attr-defined]
    path.write_bytes(member(scalars(range(100, 130))))  # copied over by another run's file, longer
    third = ridgeline.open(logs, cache_dir=cache)
    assert third.provider.restored_runs == 0  # type: ignore[attr-defined]
    assert steps(third) == list(range(100, 130))
    third.provider.close()  # type: ignore[attr-defined]


def test_a_compressed_file_copied_over_while_read_makes_its_run_be_read_again(tmp_path: Path) -> None:
    path = tmp_path / FILE
    path.write_bytes(member(scalars(range(10))) + member(scalars(range(10, 20))))
    logdir = ridgeline.open(tmp_path, cache=False)
    assert steps(logdir) == list(range(20))
    path.write_bytes(member(scalars(range(500, 540))) + member(scalars(range(540, 600))))  # longer, other bytes
    logdir.reload()
    assert steps(logdir) == list(range(500, 600))
    assert any("rewritten" in problem.reason or "shrank" in problem.reason for problem in logdir.problems())


def test_memory_stays_bounded_over_many_compressed_files(tmp_path: Path) -> None:
    """40 files of 1.5 MiB decompressed each (60 MiB): what is kept decompressed is bounded across files."""
    big = records.frame(event_pb2.Event(file_version="v" * (3 << 19)).SerializeToString())  # one 1.5 MiB record
    for number in range(40):
        (tmp_path / f"run{number:02d}").mkdir()
        body = member(scalars(range(3))) + member(big) + member(scalars(range(3, 6)))
        (tmp_path / f"run{number:02d}" / FILE).write_bytes(body)
    found: list[list[int]] = []
    tracemalloc.start()
    try:
        logdir = ridgeline.open(tmp_path, cache=False)
        found.extend(steps(logdir, f"run{number:02d}") for number in range(40))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert found == [list(range(6))] * 40
    assert logdir.problems() == []  # each member's end found where it is (more than one piece decompressed)
    assert peak < 44 << 20, f"peak {peak / 2**20:.1f} MiB"
