"""The compiled scanner (``_scan.c``) against the orjson path: the same Trace, column for column, on the real torch
traces, on Hypothesis-generated events and on hostile bytes (cut at every length, bad escapes and UTF-8, huge
numbers, deep nesting); its event bounds and nesting against the numpy and Python versions."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ridgeline.profile import scanned, split
from ridgeline.profile.columns import Trace
from ridgeline.profile.parse import _Builder, nesting, nesting_python, open_trace, parse_stream, parse_trace
from tests.profile import handmade
from tests.profile.same import assert_same, fuzz_input
from tests.profile.traces import trace_files

pytestmark = pytest.mark.skipif(not scanned.AVAILABLE, reason="the compiled scanner is not built")


def both(path: Path, chunk: int = split.CHUNK) -> tuple[Trace, Trace]:
    return parse_trace(path, chunk, scanner=False), parse_trace(path, chunk)


def scanned_batches(path: Path, chunk: int = split.CHUNK) -> list[bool]:
    """For each batch of the trace, whether the scanner took it."""
    builder = _Builder()
    with open_trace(path) as file:
        return [scanned.add_scanned(builder, batch) for batch in split.EventStream(file, chunk)]


def test_real_torch_traces_read_the_same_and_the_scanner_takes_them(gloo_logs: Path) -> None:
    paths = trace_files(gloo_logs)
    assert len(paths) == 2
    for path in paths:
        for chunk in (split.CHUNK, 4096):
            orjson_trace, scanner_trace = both(path, chunk)
            assert_same(orjson_trace, scanner_trace)
            assert orjson_trace.span_count > 100 and orjson_trace.memory["ts"].size > 0
            assert all(scanned_batches(path, chunk))


def test_a_gpu_trace_reads_the_same(tmp_path: Path) -> None:
    path = handmade.write(tmp_path / "gpu.pt.trace.json", handmade.gpu_trace(1))
    assert_same(*both(path))
    assert all(scanned_batches(path))
    assert parse_trace(path).kernels["span"].size > 0


# Values that mean something to parse.py, and the odd ones beside them.
numbers = st.one_of(
    st.integers(-(10**6), 10**15),
    st.floats(-1e6, 1e15, allow_nan=False),
    st.sampled_from([0, -0.0, 1e-320, 2**53 + 1, 10**18 - 1, 10**18, 2**63, 2**64, 10**30, 1.5e300]),
)
texts = st.one_of(
    st.sampled_from(["aten::mm", "kernel", "Kernel", "cpu_op", "[memory]", "", "ProfilerStep#3", 'q"uote\\', "ü✓"]),
    st.text(max_size=8),
)
odd = st.one_of(st.none(), st.booleans(), numbers, texts, st.lists(st.integers(0, 512), max_size=3))
dims = st.one_of(st.lists(st.lists(st.integers(0, 4096), max_size=3), max_size=3), odd)
maybe: Any = lambda values: st.one_of(values, values, odd)  # noqa: E731 - mostly the usual type, sometimes not

args = st.fixed_dictionaries(
    {},
    optional={
        "External id": maybe(st.integers(-5, 10**6)),
        "correlation": maybe(st.integers(0, 10**6)),
        "Input Dims": dims,
        "grid": maybe(st.lists(st.integers(1, 2**20), min_size=1, max_size=3)),
        "block": maybe(st.lists(st.integers(1, 1024), min_size=1, max_size=3)),
        "registers per thread": maybe(numbers),
        "shared memory": maybe(numbers),
        "est. achieved occupancy %": maybe(numbers),
        "blocks per SM": maybe(numbers),
        "warps per SM": maybe(numbers),
        "Total Allocated": maybe(numbers),
        "Total Reserved": maybe(numbers),
        "Bytes": maybe(numbers),
        "Device Type": maybe(st.integers(-1, 2**33)),
        "Device Id": maybe(st.integers(-1, 8)),
        "name": texts,
        "sort_index": maybe(numbers),
        "other": st.recursive(
            odd, lambda inner: st.lists(inner, max_size=2) | st.dictionaries(texts, inner, max_size=2)
        ),
    },
)
events = st.fixed_dictionaries(
    {},
    optional={
        "ph": st.one_of(st.sampled_from(["X", "X", "X", "i", "I", "M", "s", "f", "C", "Q"]), odd),
        "name": st.one_of(
            st.sampled_from(["process_name", "thread_name", "process_sort_index", "[memory]"]), texts, odd
        ),
        "cat": st.one_of(st.sampled_from(["cpu_op", "kernel", "Kernel", "gpu_memcpy", "cuda_runtime"]), odd),
        "pid": st.one_of(st.integers(0, 3), st.sampled_from(["0", "Spans"]), odd),
        "tid": st.one_of(st.integers(0, 3), st.sampled_from(["1", "stream 7"]), odd),
        "ts": maybe(numbers),
        "dur": maybe(st.one_of(numbers, st.floats(-5, 5, allow_nan=False))),
        "args": maybe(args),
        "s": st.just("t"),
    },
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    trace=st.lists(events, max_size=25),
    indent=st.sampled_from([None, 2]),
    ascii_only=st.booleans(),
    chunk=st.sampled_from([64, 1 << 20]),
)
def test_generated_events_read_the_same(
    tmp_path: Path, trace: list[Any], indent: int | None, ascii_only: bool, chunk: int
) -> None:
    path = tmp_path / "h.pt.trace.json"
    path.write_text(json.dumps({"traceEvents": trace}, indent=indent, ensure_ascii=ascii_only), encoding="utf-8")
    assert_same(*both(path, chunk))


def test_plain_generated_events_are_taken_by_the_scanner(tmp_path: Path) -> None:
    """Not only declined: events of the usual types (no \\u escapes, ids as integers) go through the scanner."""
    trace = handmade.gpu_trace(0)
    trace["traceEvents"].append(
        {"ph": "X", "name": 'ünï ✓ "q" \\', "cat": "cpu_op", "pid": 1, "tid": 2, "ts": 5, "dur": 1}
    )
    path = tmp_path / "plain.pt.trace.json"
    path.write_text(json.dumps(trace, ensure_ascii=False), encoding="utf-8")
    assert all(scanned_batches(path))
    assert_same(*both(path))


def hostile_bodies() -> list[bytes]:
    good = (
        b'{"ph": "X", "name": "a", "cat": "kernel", "pid": 1, "tid": 2, "ts": 1.5, "dur": 2, "args": {"grid": [2, 3]}}'
    )
    return [
        good.replace(b'"a"', b'"\\x"'),  # an escape JSON does not have
        good.replace(b'"a"', b'"\\ud800"'),  # a lone surrogate
        good.replace(b'"a"', b'"\\u00e9"'),
        good.replace(b'"a"', b'"\xff"'),  # not UTF-8
        good.replace(b'"a"', b'"\xed\xa0\x80"'),  # a surrogate in UTF-8
        good.replace(b'"a"', b'"\xc0\xaf"'),  # overlong
        good.replace(b'"a"', b'"\x01"'),  # a control character
        good.replace(b"1.5", b"1e400"),
        good.replace(b"1.5", b"-0"),
        good.replace(b"1.5", b"123456789012345678901234567890"),
        good.replace(b"1.5", b"01"),
        good.replace(b"1.5", b"1."),
        good.replace(b"1.5", b"-"),
        good.replace(b"1.5", b'"1.5"'),
        good.replace(b"[2, 3]", b"[9223372036854775807, 9]"),
        good.replace(b"[2, 3]", b"[2, 3,]"),
        good.replace(b'"grid"', b'"External id": 18446744073709551615, "grid"'),
        good.replace(b'"grid"', b'"External id": 9223372036854775808, "grid"'),
        good.replace(b'"grid"', b'"External id": 99999999999999999999999, "grid"'),
        good.replace(b'"grid"', b'"nested": ' + b"[" * 200 + b"]" * 200 + b', "grid"'),
        good.replace(b'"grid"', b'"nested": ' + b"[" * 100 + b"]" * 100 + b', "grid"'),
        good.replace(b'"args"', b'"args": 5, "args"'),
        good.replace(b'"name": "a"', b'"name": "a", "name": "b"'),
        good.replace(b'"ts": 1.5', b'"t\\u0073": 1.5'),
        good.replace(b"}}", b"}} x"),
        good.replace(b"true", b"tru"),
        good + b" , " + good.replace(b'"ph": "X"', b'"ph": "i", "ph": "X"'),
        good + b", [1]",
        good + b", " + good.replace(b"}}", b', "other": [true, false, null, -1.5e-3, {"k": "v"}]}}'),
        b'{"ph": "i", "name": "[memory]", "ts": 3, "args": {"Device Type": 4294967296, "Bytes": -4096}}',
    ]


@pytest.mark.parametrize("body", hostile_bodies())
def test_hostile_events_read_the_same(tmp_path: Path, body: bytes) -> None:
    path = tmp_path / "x.pt.trace.json"
    path.write_bytes(b'{"traceEvents": [' + body + b"]}")
    assert_same(*both(path))


def test_a_trace_cut_at_every_length_reads_the_same(tmp_path: Path) -> None:
    data = json.dumps(handmade.gpu_trace(0), indent=1).encode()
    cut = tmp_path / "cut.pt.trace.json"
    for length in range(data.index(b"traceEvents") + 20, len(data), 7):
        cut.write_bytes(data[:length])
        assert_same(*both(cut, chunk=256))


def test_every_prefix_of_a_batch_is_scanned_safely() -> None:
    body = hostile_bodies()[-2]
    from ridgeline.profile import _scan  # type: ignore[attr-defined]

    for length in range(len(body) + 1):
        for count in (0, 1, 2, 3):
            found = _scan.scan(body[:length], count)
            if found is not None:  # only what orjson reads as exactly `count` events
                assert len(orjson.loads(b"[" + body[:length] + b"]")) == count


def test_bounds_match_numpy_on_every_cut() -> None:
    data = json.dumps({"traceEvents": split_events()}, indent=2).encode() + b'\\\\" \\"'
    start = data.index(b"[") + 1
    for length in range(start, len(data) + 1):
        for begin in (start, min(start + 5, length)):
            commas, end = split.scan(data[:length], begin)
            expected, expected_end = split.scan_numpy(data[:length], begin)
            assert commas.tolist() == expected.tolist() and end == expected_end


def split_events() -> list[Any]:
    return [{"name": 'a "b", [c] {d}', "args": {"x": "\\", "y": '\\"', "z": [[1], {"w": ","}]}}, {"ph": "X"}] * 3


def test_nesting_in_c_is_the_python_one() -> None:
    rng = np.random.default_rng(1)
    lane = np.sort(rng.integers(0, 4, 5000))
    ts, dur = np.round(rng.random(5000) * 100, 1), np.round(rng.random(5000) * 3, 1)
    order = np.lexsort((-dur, ts, lane))
    fast = nesting(lane[order], ts[order], dur[order])
    slow = nesting_python(lane[order], ts[order], dur[order])
    assert fast[0].tolist() == slow[0].tolist() and fast[1].tolist() == slow[1].tolist()
    assert fast[0].dtype == slow[0].dtype and fast[1].dtype == slow[1].dtype
    assert (fast[1] > 0).any()


FUZZ_CORPUS = Path(__file__).resolve().parents[2] / "fuzz" / "corpus" / "scanner"


@pytest.mark.parametrize("seed", sorted(FUZZ_CORPUS.iterdir()), ids=lambda path: path.name)
def test_the_fuzz_corpus_reads_the_same(seed: Path) -> None:
    """The fuzz target's seeds and findings (fuzz/corpus/scanner/, `make fuzz`) through both paths."""
    chunk, payload, _ = fuzz_input(seed.read_bytes())
    try:
        fallback = parse_stream(io.BytesIO(payload), chunk, scanner=False)
    except split.NotATrace:
        with pytest.raises(split.NotATrace):
            parse_stream(io.BytesIO(payload), chunk)
        return
    assert_same(fallback, parse_stream(io.BytesIO(payload), chunk))
