"""The compiled record loop against the numpy one: the same answer on real event files (ridgeline's, torch's,
tensorboardX's), on the fuzz corpus, and on mutated files (bit flips, cuts, huge lengths, junk); and with threads."""

from __future__ import annotations

import struct
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ridgeline.fixtures.demo import write_demo
from ridgeline.format import records
from ridgeline.ingest import fastpath
from ridgeline.ingest.fastpath import FOUND, NONE, UNDECIDED, parse_records, resume_point
from tests.ingest.fastpath_helpers import (
    SETTINGS,
    assert_same_parse,
    check,
    events,
    in_record_order,
    scalar_bytes,
    stream,
)

pytestmark = pytest.mark.skipif("core" not in fastpath.implementations(), reason="the compiled core is not built")

CORPUS = Path(__file__).resolve().parents[2] / "fuzz" / "corpus" / "records"


def both_agree(buffer: bytes, *, check_crc: bool = True, available: int | None = None) -> fastpath.ParsedRecords:
    """Both implementations parse ``buffer`` alike, and as the plain reference reader does."""
    core, _ = check(buffer, "core", check_crc=check_crc, available=available)
    numpy, _ = check(buffer, "numpy", check_crc=check_crc, available=available)
    assert_same_parse(core, numpy)
    return core


def chunked(buffer: bytes, sizes: list[int], implementation: str) -> tuple[list[int], list[tuple[int, str]], int]:
    """(steps, corrupt, end) of reading ``buffer`` the way ingest.tail does: chunks, each told the file's size."""
    start, steps, corrupt = 0, [], []
    for size in sizes:
        if start >= len(buffer):
            break
        piece = buffer[start : start + size]
        parsed = parse_records(piece, available=len(buffer) - start, implementation=implementation)
        steps += in_record_order(parsed)
        corrupt += [(start + offset, reason) for offset, reason in parsed.corrupt]
        start += parsed.end
    return steps, corrupt, start


@pytest.fixture(scope="module")
def real_files(tmp_path_factory: pytest.TempPathFactory) -> list[bytes]:
    """Event files of every kind of summary, from ridgeline's writer (the demo) and from torch's and tensorboardX's."""
    root = tmp_path_factory.mktemp("writers")
    write_demo(root / "ridgeline", steps=40, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from tensorboardX import SummaryWriter as XWriter
        from torch.utils.tensorboard import SummaryWriter as TorchWriter

        rng = np.random.default_rng(0)
        for name, make in (("torch", TorchWriter), ("tensorboardx", XWriter)):
            writer = make(str(root / name))
            for step in range(200):
                writer.add_scalar("loss", float(rng.standard_normal()), step)
                writer.add_scalars("pair", {"a": float(step), "b": -float(step)}, step)
                if step % 50 == 0:
                    writer.add_histogram("w", rng.standard_normal(1000), step)
                    writer.add_image("img", rng.random((3, 8, 8)), step)
                    writer.add_text("t", f"step {step}", step)
                    writer.add_pr_curve("pr", rng.random(30) > 0.5, rng.random(30), step)
            writer.add_hparams({"lr": 0.1}, {"hparam/m": 1.0})
            writer.close()
    files = [path.read_bytes() for path in sorted(root.rglob("*")) if "tfevents" in path.name]
    assert len(files) >= 8
    return files


def test_real_event_files(real_files: list[bytes]) -> None:
    for data in real_files:
        for check_crc in (True, False):
            parsed = both_agree(data, check_crc=check_crc)
            assert parsed.end == len(data) and not parsed.corrupt
        cut = len(data) * 3 // 5
        both_agree(data[:cut])  # a file still being written
        both_agree(data[:cut], available=len(data))  # a chunk of a longer file
        sizes = [4096, 1000, 65536] * (len(data) // 1000 + 1)
        assert chunked(data, sizes, "core") == chunked(data, sizes, "numpy")


def test_the_fuzz_corpus() -> None:
    """Every seed and every input the fuzzer added to fuzz/corpus/records, with the options fuzz_records.py reads."""
    files = sorted(CORPUS.iterdir())
    assert len(files) >= 20
    for path in files:
        data = path.read_bytes()
        check_crc = bool(data[0] & 1) if data else True
        if data and data[0] & 2 and len(data) >= 5:
            payload = data[5:]
            available: int | None = len(payload) + int.from_bytes(data[1:5], "little") + 1
        else:
            payload, available = data[1:], None
        both_agree(payload, check_crc=check_crc, available=available)


@SETTINGS
@given(
    events,
    st.lists(
        st.tuples(st.sampled_from(["flip", "byte", "cut", "length", "junk"]), st.integers(0, 1 << 30), st.integers()),
        min_size=1,
        max_size=6,
    ),
    st.booleans(),
    st.integers(0, 5000),
)
def test_mutated_streams(
    datas: list[bytes], mutations: list[tuple[str, int, int]], check_crc: bool, beyond: int
) -> None:
    buffer, offsets = stream(datas)
    mutated = bytearray(buffer)
    for kind, where, value in mutations:
        if not mutated:
            break
        at = where % len(mutated)
        if kind == "flip":
            mutated[at] ^= 1 << (value % 8)
        elif kind == "byte":
            mutated[at] = value % 256
        elif kind == "cut":
            del mutated[at:]
        elif kind == "junk":
            mutated[at:at] = np.random.default_rng(abs(value)).integers(0, 256, value % 300, dtype=np.uint8).tobytes()
        else:  # a record's length rewritten, its CRC too: a header that looks valid
            record = offsets[where % len(datas)] if datas else 0
            if record + 12 <= len(mutated):
                length = (2**32, 2**62, 2**64 - 1, value % 2**64)[value % 4]
                head = struct.pack("<Q", length)
                mutated[record : record + 12] = head + struct.pack("<I", records.masked_crc32c(head))
    data = bytes(mutated)
    both_agree(data, check_crc=check_crc)
    both_agree(data, check_crc=check_crc, available=len(data) + beyond)
    sizes = [max(1, beyond % 700), 97, 4096]
    assert chunked(data, sizes * 200, "core") == chunked(data, sizes * 200, "numpy")


@SETTINGS
@given(st.binary(max_size=3000), st.integers(0, 3100), st.booleans(), st.integers(0, 10_000))
def test_resume_points(data: bytes, first: int, intact: bool, beyond: int) -> None:
    for available in (None, len(data) + beyond):
        core = resume_point(data, first, intact=intact, available=available, implementation="core")
        numpy = resume_point(data, first, intact=intact, available=available, implementation="numpy")
        assert core == numpy
        assert core[0] in (FOUND, NONE, UNDECIDED)


def test_resume_points_in_a_damaged_file() -> None:
    framed = [records.frame(b"x" * size) for size in (10, 2000, 30)]
    data = b"\xee" * 7 + b"".join(framed)
    for implementation in fastpath.implementations():
        assert resume_point(data, 0, intact=True, implementation=implementation) == (FOUND, 7)
        second = 7 + len(framed[0])
        assert resume_point(data, 8, intact=True, implementation=implementation) == (FOUND, second)
        # the second record cut by the buffer but not by the file: only its whole record can tell
        cut = data[: second + 100]
        assert resume_point(cut, 8, intact=True, available=len(data), implementation=implementation) == (
            UNDECIDED,
            second,
        )
        # ... and cut by the end of the file: still being written, so a resync after a bad length CRC takes it
        assert resume_point(cut, 8, intact=False, implementation=implementation) == (FOUND, second)
        assert resume_point(cut, 8, intact=True, implementation=implementation) == (NONE, 0)


def test_threads_parse_at_once_and_alike() -> None:
    """The core releases the GIL for its loop: threads parsing at once get what one thread gets."""
    buffer, _ = stream([scalar_bytes(f"tag/{i % 13}", float(i), i, 1.7e9 + i) for i in range(40_000)])
    expected = parse_records(buffer, implementation="numpy")
    results: list[fastpath.ParsedRecords] = []
    lock = threading.Lock()

    def parse() -> None:
        for _ in range(3):
            parsed = parse_records(buffer, implementation="core")
            with lock:
                results.append(parsed)

    threads = [threading.Thread(target=parse) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 12
    for parsed in results:
        assert_same_parse(parsed, expected)


WITHOUT_THE_CORE = """
import logging, sys
logging.basicConfig(level=logging.DEBUG, format="%(name)s: %(message)s")
sys.modules["ridgeline.ingest._core"] = None  # as if it had not been built
from ridgeline.ingest import fastpath
print(fastpath.IMPLEMENTATION, fastpath.implementations(), fastpath.parse_records(b"abc").end)
try:
    fastpath.parse_records(b"", implementation="core")
except RuntimeError as error:
    print(error)
"""


def test_without_the_core_the_numpy_path_is_taken_and_logged() -> None:
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_THE_CORE], capture_output=True, text=True, timeout=120, check=True
    )
    lines = done.stdout.splitlines()
    assert lines[0] == "numpy ['numpy'] 0"
    assert lines[1].startswith("ridgeline's compiled record loop is not built")
    assert "ridgeline.ingest.fastpath: ridgeline's compiled record loop is not built" in done.stderr
    assert fastpath.IMPLEMENTATION == "core"  # here, where it is built, it is the default
    with pytest.raises(ValueError, match="implementation must be 'core' or 'numpy'"):
        parse_records(b"", implementation="rust")
