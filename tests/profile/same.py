"""Two parses of one trace compared column for column, the compiled scanner's against the orjson path's, and what
an input of the fuzz target fuzz/fuzz_scanner.py means (its seeds and findings, fuzz/corpus/scanner/, are read
by the scanner tests too)."""

from __future__ import annotations

import numpy as np

from ridgeline.profile.columns import Trace


def assert_same(a: Trace, b: Trace) -> None:
    for group in ("spans", "memory", "kernels"):
        x, y = getattr(a, group), getattr(b, group)
        assert list(x) == list(y)
        for name in x:
            assert x[name].dtype == y[name].dtype, (group, name)
            assert np.array_equal(x[name], y[name], equal_nan=x[name].dtype.kind == "f"), (group, name)
            if x[name].dtype.kind == "f":  # -0.0 and 0.0 alike are not enough
                assert np.array_equal(np.signbit(x[name]), np.signbit(y[name])), (group, name)
    for name in ("names", "cats", "shapes", "kernel_text", "header", "notes"):
        assert getattr(a, name) == getattr(b, name), name
    assert list(a.counts.items()) == list(b.counts.items())
    assert [vars(lane) for lane in a.lanes] == [vars(lane) for lane in b.lanes]


FUZZ_CHUNKS = (64, 256, 4096, 1 << 20)


def fuzz_input(data: bytes) -> tuple[int, bytes, int]:
    """A fuzz input's (chunk, trace bytes, start of a bounds pass): its first byte's bits 0-1 choose the chunk,
    bit 2 wraps the rest in ``{"traceEvents": [`` and ``]}``, bits 3-7 are the start."""
    if not data:
        return FUZZ_CHUNKS[0], b"", 0
    flags, rest = data[0], data[1:]
    if flags & 4:
        rest = b'{"traceEvents": [' + rest + b"]}"
    return FUZZ_CHUNKS[flags & 3], rest, flags >> 3
