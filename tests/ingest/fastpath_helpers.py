"""What the record-loop tests share: a plain reader with the same rules, protobuf as the judge of scalars, the
events hypothesis draws, and a comparison of two parses."""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest
from google.protobuf import unknown_fields
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from ridgeline.format import records
from ridgeline.format.proto import event_pb2, summary_pb2
from ridgeline.ingest import fastpath
from ridgeline.ingest.fastpath import ParsedRecords, parse_records
from ridgeline.writer.event_file import _scalar_head, encode_scalar_event

HEADER = struct.Struct("<QI")
CRC = struct.Struct("<I")
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Every test of the record loop runs on both implementations; the compiled one where it is built.
IMPLEMENTATIONS = [
    pytest.param(name, marks=[] if name in fastpath.implementations() else [pytest.mark.skip("core not built")])
    for name in ("numpy", "core")
]
each_implementation = pytest.mark.parametrize("implementation", IMPLEMENTATIONS)


def scalar_record(tag: str, step: int, value: float) -> bytes:
    """One framed scalar Event, as protobuf encodes it, at wall time 1 + step."""
    event = event_pb2.Event(wall_time=1.0 + step, step=step)
    event.summary.value.add(tag=tag, simple_value=value)
    return records.frame(event.SerializeToString())


# --- a plain reader, one record at a time, with the same rules -----------------------------------------------
def reference(
    buffer: bytes, *, check_crc: bool, available: int | None = None
) -> tuple[int, list[tuple[int, bytes]], list[tuple[int, str]]]:
    """(end, [(header offset, data)] of the good records, corrupt), the slow and obvious way."""
    n = len(buffer)
    limit = n if available is None else available

    def header_ok(at: int) -> bool:
        return records.masked_crc32c(buffer[at : at + 8]) == CRC.unpack_from(buffer, at + 8)[0]

    def data_ok(at: int, length: int) -> bool:
        data = buffer[at + 12 : at + 12 + length]
        return records.masked_crc32c(data) == CRC.unpack_from(buffer, at + 12 + length)[0]

    def resume(bad: int, *, intact: bool) -> int | None:
        for q in range(bad + 1, n - 11):
            if header_ok(q):
                size = HEADER.unpack_from(buffer, q)[0]
                if q + 16 + size > limit:  # claims more than the file holds
                    if intact:
                        continue
                    return q
                if q + 16 + size > n:  # cannot be judged from this buffer
                    return None
                if data_ok(q, size):
                    return q
        return None

    pos, good, corrupt = 0, [], []
    while pos + 12 <= n:
        length = HEADER.unpack_from(buffer, pos)[0]
        if not header_ok(pos):
            resumed = resume(pos, intact=False)
            if resumed is None:
                break
            corrupt.append((pos, "length CRC mismatch"))
            pos = resumed
            continue
        if pos + 16 + length > n:
            if pos + 16 + length <= limit:
                break
            resumed = resume(pos, intact=True)
            if resumed is None:
                break
            corrupt.append((pos, "length past the end of the file"))
            pos = resumed
            continue
        if check_crc and not data_ok(pos, length):
            corrupt.append((pos, "data CRC mismatch"))
        else:
            good.append((pos, buffer[pos + 12 : pos + 12 + length]))
        pos += 16 + length
    return pos, good, corrupt


def float_same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or struct.pack("<d", a) == struct.pack("<d", b)


def simple_scalar(data: bytes) -> tuple[str, int, float, float] | None:
    """What protobuf makes of ``data`` if it is an Event holding one simple_value and nothing else."""
    try:
        event = event_pb2.Event.FromString(data)
    except Exception:
        return None
    if {f.name for f, _ in event.ListFields()} - {"wall_time", "step"} != {"summary"}:
        return None
    if len(event.summary.value) != 1:
        return None
    value = event.summary.value[0]
    if not value.HasField("simple_value") or {f.name for f, _ in value.ListFields()} - {"tag"} != {"simple_value"}:
        return None
    if any(len(unknown_fields.UnknownFieldSet(m)) for m in (event, event.summary, value)):
        return None
    return value.tag, event.step, event.wall_time, value.simple_value


def check_against(parsed: ParsedRecords, good: list[tuple[int, bytes]]) -> None:
    """``parsed`` holds exactly the records ``good``, in order, each scalar exactly as protobuf decodes it."""
    assert parsed.tag_index.dtype == np.int32 and parsed.step.dtype == np.int64
    assert parsed.wall_time.dtype == parsed.value.dtype == np.float64
    assert len(parsed.tag_index) == len(parsed.step) == len(parsed.wall_time) == len(parsed.value)
    assert len(parsed.scalar_order) + len(parsed.other_order) == len(good)
    everything = np.sort(np.concatenate([parsed.scalar_order, parsed.other_order]))
    assert np.array_equal(everything, np.arange(len(good)))
    assert np.all(np.diff(parsed.other_order) > 0)
    for order, offset, length in zip(
        parsed.other_order.tolist(), parsed.other_offsets.tolist(), parsed.other_lengths.tolist(), strict=True
    ):
        assert (offset - 12, length) == (good[order][0], len(good[order][1]))
    for i, order in enumerate(parsed.scalar_order.tolist()):
        expected = simple_scalar(good[order][1])
        assert expected is not None, good[order][1]
        tag, step, wall_time, value = expected
        assert parsed.tags[parsed.tag_index[i]] == tag
        assert int(parsed.step[i]) == step
        assert float_same(float(parsed.wall_time[i]), wall_time)
        assert float_same(float(parsed.value[i]), value)
    assert len(set(parsed.tags)) == len(parsed.tags)
    # Grouped by tag: each tag's scalars together and in record order, the tags in the order they first appear.
    assert parsed.tag_bounds.dtype == np.int64 and len(parsed.tag_bounds) == len(parsed.tags) + 1
    assert parsed.tag_bounds[0] == 0 and parsed.tag_bounds[-1] == len(parsed.step)
    firsts = []
    for number in range(len(parsed.tags)):
        group = slice(parsed.tag_bounds[number], parsed.tag_bounds[number + 1])
        assert np.all(parsed.tag_index[group] == number) and np.all(np.diff(parsed.scalar_order[group]) > 0)
        firsts.append(int(parsed.scalar_order[group][0]))
    assert firsts == sorted(firsts)


def check(
    buffer: bytes, implementation: str, *, check_crc: bool = True, available: int | None = None
) -> tuple[ParsedRecords, list[tuple[int, bytes]]]:
    """parse_records with ``implementation`` agrees with the plain reader and with protobuf."""
    parsed = parse_records(buffer, check_crc=check_crc, available=available, implementation=implementation)
    end, good, corrupt = reference(buffer, check_crc=check_crc, available=available)
    assert (parsed.end, parsed.corrupt) == (end, corrupt)
    check_against(parsed, good)
    return parsed, good


def in_record_order(parsed: ParsedRecords) -> list[int]:
    """The steps of the fast-path scalars in record order (the columns are grouped by tag)."""
    return parsed.step[np.argsort(parsed.scalar_order, kind="stable")].tolist()


def bits(column: np.ndarray) -> np.ndarray:
    return column.view(np.uint64) if column.dtype == np.float64 else column


def assert_same_parse(a: ParsedRecords, b: ParsedRecords) -> None:
    """Two parses of one buffer are the same: records, columns (float bits included), tags of every scalar."""
    assert (a.end, a.corrupt) == (b.end, b.corrupt)
    for name in ("step", "wall_time", "value", "scalar_order", "other_offsets", "other_lengths", "other_order"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and np.array_equal(bits(x), bits(y)), name
    assert a.tag_index.dtype == b.tag_index.dtype == np.int32
    assert a.tags == b.tags and np.array_equal(a.tag_index, b.tag_index)  # the same grouping, tags in first-seen order
    assert a.tag_bounds.dtype == b.tag_bounds.dtype and np.array_equal(a.tag_bounds, b.tag_bounds)


# --- events ----------------------------------------------------------------------------------------------------
def scalar_bytes(tag: str, value: float, step: int, wall_time: float) -> bytes:
    return encode_scalar_event(_scalar_head(tag), value, step, wall_time)


def summary_event(*values: summary_pb2.Summary.Value, step: int = 3) -> bytes:
    return event_pb2.Event(wall_time=1.5, step=step, summary=summary_pb2.Summary(value=values)).SerializeToString()


ONE = struct.pack("<f", 1.0)
WALL = b"\x09" + struct.pack("<d", 2.5)


def value_field(tag: bytes, value: bytes = ONE, *, key: bytes = b"\x15", extra: bytes = b"") -> bytes:
    """A Summary.value field built by hand, so that the tag may be any bytes."""
    inner = b"\x0a" + bytes([len(tag)]) + tag + key + value + extra
    return b"\x0a" + bytes([len(inner)]) + inner


def summary_field(*values: bytes) -> bytes:
    content = b"".join(values)
    return b"\x2a" + bytes([len(content)]) + content


A = summary_field(value_field(b"a"))
assert event_pb2.Event.FromString(A).summary.value[0].tag == "a"

NOT_SCALARS = [
    b"",
    event_pb2.Event(wall_time=2.0, file_version="brain.Event:2").SerializeToString(),
    summary_event(
        summary_pb2.Summary.Value(
            tag="w", histo=summary_pb2.HistogramProto(min=-1, max=1, num=3, bucket_limit=[0, 1], bucket=[1, 2])
        )
    ),
    summary_event(summary_pb2.Summary.Value(tag="a", simple_value=1), summary_pb2.Summary.Value(tag="b")),
    summary_event(
        summary_pb2.Summary.Value(tag="a", simple_value=1), summary_pb2.Summary.Value(tag="b", simple_value=2)
    ),
    summary_event(
        summary_pb2.Summary.Value(
            tag="m",
            simple_value=2.0,
            metadata=summary_pb2.SummaryMetadata(
                plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="scalars")
            ),
        )
    ),
    summary_event(summary_pb2.Summary.Value(tag="n", node_name="x", simple_value=1.0)),
    summary_event(summary_pb2.Summary.Value(tag="no value")),
    summary_event(),
    event_pb2.Event(step=5).SerializeToString(),
    # Invalid UTF-8 in the tag: protobuf refuses it, so must we.
    summary_field(value_field(b"\xff")),
    WALL + b"\x10\x07" + summary_field(value_field(b"a\xc3")),
    WALL + summary_field(value_field(b"\xed\xa0\x80")),  # a surrogate
    # The right shape, with one thing wrong.
    A + b"\x00",  # a trailing byte: no valid field
    summary_field(value_field(b"a", key=b"\x1d")),  # field 3 (bytes) with a fixed32 wire type: unknown
    summary_field(value_field(b"a", extra=b"\x12\x00")),  # and with a length-delimited one
    WALL + b"\x10" + b"\xff" * 10 + b"\x01" + A,  # an 11-byte varint
    b"\x2a\x06" + value_field(b""),  # a length shorter than its content
    b"\x2a\x20" + value_field(b""),  # and longer
    WALL + b"\x10\x01" + summary_field(value_field(b"a"), value_field(b"b")),  # two values
    WALL + b"\x10\x01" + A + b"\x52\x00",  # source_metadata
]

# Valid, unusual encodings of simple scalars: either path may take them, and must decode them right.
UNUSUAL_SCALARS = [
    b"\x09" + bytes(8) + A,  # wall_time +0.0 written out
    b"\x09" + struct.pack("<d", -0.0) + A,
    b"\x10\x00" + A,  # step 0 written out
    b"\x10\x80\x00" + A,  # a step varint longer than it needs to be
    b"\x10" + b"\xff" * 9 + b"\x01" + A,  # step -1
    b"\x10" + b"\xff" * 9 + b"\x7f" + A,  # a 10th varint byte with bits past 64
    b"\x10\x01" + WALL + A,  # fields out of order
    A + b"\x10\x01",  # the step after the summary
    WALL + A + A,  # the summary twice: protobuf merges them into two values
    b"\x2a\x8a\x00" + A[2:],  # a length varint longer than it needs to be
    b"\x2a\x0a\x0a\x08\x15" + ONE + b"\x0a\x01a",  # the tag after the value
    summary_field(value_field(b"", struct.pack("<I", 0x7FC00000))),  # empty tag written out, NaN
    summary_field(value_field(b"s", struct.pack("<I", 0x7F800001))),  # a signalling NaN
    summary_field(value_field(b"x" * 100)),
]
assert [simple_scalar(data) is not None for data in UNUSUAL_SCALARS].count(False) == 1  # only A + A

tags = st.one_of(
    st.sampled_from(["loss", "loss/train_0", "accuracy", "", "é/中文/🙂", "a\x00b"]),
    st.text(max_size=20),
    st.text(alphabet="xyz/", min_size=120, max_size=300),  # two-byte length varints
)
steps = st.one_of(st.integers(-(2**63), 2**63 - 1), st.integers(0, 200_000), st.sampled_from([0, -1, 2**63 - 1]))
wall_times = st.one_of(st.sampled_from([0.0, -0.0, 1.7e9]), st.floats(allow_nan=True, allow_infinity=True))
values = st.one_of(
    st.floats(width=32, allow_nan=True, allow_infinity=True, allow_subnormal=True),
    st.sampled_from([0.0, -0.0, math.nan, math.inf, -math.inf, 1e-45]),
)


@st.composite
def scalar_events(draw: st.DrawFn) -> bytes:
    tag, value, step, wall_time = draw(tags), draw(values), draw(steps), draw(wall_times)
    if draw(st.booleans()):
        return scalar_bytes(tag, value, step, wall_time)
    # protobuf's own encoding: the same bytes as our writer's
    event = event_pb2.Event(
        wall_time=wall_time, step=step, summary=summary_pb2.Summary(value=[{"tag": tag, "simple_value": value}])
    )
    data = event.SerializeToString()
    if tag:  # protobuf leaves out an empty tag, which our writer writes out: both read back the same
        assert data == scalar_bytes(tag, value, step, wall_time)
    return data


events = st.lists(
    st.one_of(
        scalar_events(),
        scalar_events(),
        st.sampled_from(NOT_SCALARS),
        st.sampled_from(UNUSUAL_SCALARS),
        st.binary(max_size=40),
    ),
    max_size=25,
)


def stream(datas: list[bytes]) -> tuple[bytes, list[int]]:
    framed = [records.frame(data) for data in datas]
    offsets = np.cumsum([0] + [len(f) for f in framed]).tolist()
    return b"".join(framed), offsets
