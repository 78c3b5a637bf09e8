"""Fuzz target: the compiled record loop (ridgeline.ingest._core, built with AddressSanitizer) against the numpy
one, on arbitrary bytes. Run by ``make fuzz`` (see fuzz/run.sh); any disagreement or memory error is a crash.

The first byte of an input chooses the options: bit 0 checks data CRCs, bit 1 tells the parse that the file goes
on past the buffer (by the next 4 bytes, little-endian, plus one), bits 2-7 pick a position to resync from.
Both implementations must return the same records, columns (to the bit), tags and corrupt spans, and the same
resume points.
"""

from __future__ import annotations

import sys

import atheris
from common import ROOT, Guarded, load_sanitized

sys.path.insert(0, str(ROOT))
load_sanitized("ridgeline.ingest._core")

# Coverage comes from the C core's instrumentation; instrumenting the numpy path's Python too would make every
# input several times slower for little guidance.
from ridgeline.ingest import fastpath  # noqa: E402
from tests.ingest.fastpath_helpers import assert_same_parse  # noqa: E402


def options(data: bytes) -> tuple[bool, int | None, int, bytes]:
    """(check_crc, available beyond the buffer or None, a resync start, the buffer)."""
    if not data:
        return True, None, 0, b""
    flags = data[0]
    if flags & 2 and len(data) >= 5:
        extra = int.from_bytes(data[1:5], "little") + 1
        return bool(flags & 1), extra, flags >> 2, data[5:]
    return bool(flags & 1), None, flags >> 2, data[1:]


def test_one_input(data: bytes) -> None:
    check_crc, extra, first, payload = options(data)
    guarded = Guarded(payload)
    try:
        available = None if extra is None else len(payload) + extra
        core = fastpath.parse_records(guarded.view, check_crc=check_crc, available=available, implementation="core")
        numpy = fastpath.parse_records(payload, check_crc=check_crc, available=available, implementation="numpy")
        assert_same_parse(core, numpy)
        for intact in (False, True):
            found = [
                fastpath.resume_point(buffer, first, intact=intact, available=available, implementation=name)
                for buffer, name in ((guarded.view, "core"), (payload, "numpy"))
            ]
            assert found[0] == found[1], (intact, found)
        del core
    finally:
        guarded.close()


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
