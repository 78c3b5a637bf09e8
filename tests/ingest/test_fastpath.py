"""parse_records against protobuf and a plain sequential reader: same records, same values, same corruption."""

from __future__ import annotations

import json
import math
import struct
import subprocess
import sys
from pathlib import Path

import crc32c
import numpy as np
import pytest
from google.protobuf import unknown_fields
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ridgeline.format import records
from ridgeline.format.proto import event_pb2, summary_pb2
from ridgeline.ingest import fastpath
from ridgeline.ingest.fastpath import ParsedRecords, parse_records
from ridgeline.writer.event_file import _scalar_head, encode_scalar_event

BENCH = Path(__file__).resolve().parents[2] / "bench" / "fastpath.py"
HEADER = struct.Struct("<QI")
CRC = struct.Struct("<I")
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- a plain reader, one record at a time, with the same rules -----------------------------------------------
def reference(buffer: bytes, *, check_crc: bool) -> tuple[int, list[tuple[int, bytes]], list[tuple[int, str]]]:
    """(end, [(header offset, data)] of the good records, corrupt), the slow and obvious way."""

    def header_ok(at: int) -> bool:
        return records.masked_crc32c(buffer[at : at + 8]) == CRC.unpack_from(buffer, at + 8)[0]

    def data_ok(at: int, length: int) -> bool:
        data = buffer[at + 12 : at + 12 + length]
        return records.masked_crc32c(data) == CRC.unpack_from(buffer, at + 12 + length)[0]

    n = len(buffer)
    pos, good, corrupt = 0, [], []
    while pos + 12 <= n:
        length = HEADER.unpack_from(buffer, pos)[0]
        if not header_ok(pos):
            resume = None
            for q in range(pos + 1, n - 11):
                if header_ok(q):
                    size = HEADER.unpack_from(buffer, q)[0]
                    if q + 16 + size > n or data_ok(q, size):
                        resume = q
                        break
            if resume is None:
                break
            corrupt.append((pos, "length CRC mismatch"))
            pos = resume
            continue
        if pos + 16 + length > n:
            break
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
    assert np.all(np.diff(parsed.scalar_order) > 0) and np.all(np.diff(parsed.other_order) > 0)
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


def check(buffer: bytes, *, check_crc: bool = True) -> tuple[ParsedRecords, list[tuple[int, bytes]]]:
    parsed = parse_records(buffer, check_crc=check_crc)
    end, good, corrupt = reference(buffer, check_crc=check_crc)
    assert (parsed.end, parsed.corrupt) == (end, corrupt)
    check_against(parsed, good)
    return parsed, good


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


# --- the tests -------------------------------------------------------------------------------------------------
@SETTINGS
@given(events)
def test_every_record_as_protobuf_reads_it(datas: list[bytes]) -> None:
    buffer, offsets = stream(datas)
    few_rows = fastpath._FEW_ROWS
    for check_crc, fastpath._FEW_ROWS in ((True, few_rows), (False, 0)):  # tags: the dict and the arrays
        try:
            parsed, good = check(buffer, check_crc=check_crc)
        finally:
            fastpath._FEW_ROWS = few_rows
        assert parsed.end == len(buffer) and not parsed.corrupt
        assert [offset for offset, _ in good] == offsets[:-1]
        scalars = set(parsed.scalar_order.tolist())
        for number, data in enumerate(datas):  # what the writers produce always takes the fast path
            if data in NOT_SCALARS:
                assert number not in scalars
            elif (
                (decoded := simple_scalar(data)) is not None
                and decoded[0]
                and event_pb2.Event.FromString(data).SerializeToString() == data
            ):
                assert number in scalars, data


def test_which_encodings_take_the_fast_path() -> None:
    datas = UNUSUAL_SCALARS + NOT_SCALARS
    parsed, _ = check(stream(datas)[0])
    fast = [0, 1, 2, 3, 4, 11, 12, 13]  # a bits-past-64 varint, odd orders and lengths: protobuf's to read
    assert parsed.scalar_order.tolist() == fast
    assert parsed.step.tolist() == [0, 0, 0, 0, -1, 0, 0, 0]
    assert [parsed.tags[i] for i in parsed.tag_index] == ["a"] * 5 + ["", "s", "x" * 100]
    assert np.signbit(parsed.wall_time[1]) and np.isnan(parsed.value[5:7]).all()


@SETTINGS
@given(events, st.data())
def test_a_prefix_holds_exactly_the_records_wholly_in_it(datas: list[bytes], data: st.DataObject) -> None:
    buffer, offsets = stream(datas)
    whole = parse_records(buffer)
    cut = data.draw(st.integers(0, len(buffer)))
    parsed, _ = check(buffer[:cut])
    complete = max(i for i, offset in enumerate(offsets) if offset <= cut)
    assert parsed.end == offsets[complete]
    in_prefix = whole.scalar_order < complete
    assert np.array_equal(parsed.scalar_order, whole.scalar_order[in_prefix])
    assert np.array_equal(parsed.step, whole.step[in_prefix])
    assert [parsed.tags[i] for i in parsed.tag_index] == [whole.tags[i] for i in whole.tag_index[in_prefix]]
    assert np.array_equal(parsed.other_offsets, whole.other_offsets[whole.other_order < complete])


@SETTINGS
@given(events, st.lists(st.tuples(st.integers(0, 1 << 30), st.integers(0, 255), st.booleans()), min_size=1))
def test_mutated_bytes_never_give_a_wrong_value(datas: list[bytes], mutations: list[tuple[int, int, bool]]) -> None:
    buffer, offsets = stream(datas)
    if not buffer:
        return
    mutated = bytearray(buffer)
    for position, byte, flip in mutations:
        position %= len(mutated)
        mutated[position] = mutated[position] ^ (1 << (byte % 8)) if flip else byte
    for check_crc in (True, False):
        _, good = check(bytes(mutated), check_crc=check_crc)  # as protobuf and the plain reader say
        if check_crc:  # and nothing that passed both CRCs was changed
            written = dict(zip(offsets, datas, strict=False))
            for offset, data in good:
                assert written.get(offset) == data


@SETTINGS
@given(
    st.lists(st.sampled_from(["a", "bb", "cccc", "loss/train_0"]), min_size=1, max_size=5),
    st.integers(100, 400),
    st.lists(st.tuples(st.floats(0, 1), st.integers(0, 255)), max_size=3),
)
def test_mutations_in_long_regular_runs(pattern: list[str], count: int, mutations: list[tuple[float, int]]) -> None:
    """Where framing guesses record sizes: a damaged record ends a guess, and the records after it still come."""
    datas = [scalar_bytes(pattern[i % len(pattern)], float(i), i * 7, 1.0) for i in range(count)]
    buffer, offsets = stream(datas)
    mutated = bytearray(buffer)
    for where, byte in mutations:
        mutated[int(where * (len(mutated) - 1))] = byte
    parsed, good = check(bytes(mutated))
    written = dict(zip(offsets, datas, strict=False))
    assert all(written.get(offset) == data for offset, data in good)
    assert len(good) >= count - 2 * len(mutations) - (parsed.end < len(buffer)) * count


@SETTINGS
@given(events, st.data())
def test_no_flipped_bit_in_a_payload_goes_unnoticed(datas: list[bytes], data: st.DataObject) -> None:
    buffer, offsets = stream(datas)
    payloads = [(offset, len(d)) for offset, d in zip(offsets, datas, strict=False) if d]
    if not payloads:
        return
    record, length = data.draw(st.sampled_from(payloads))
    bit = data.draw(st.integers(0, 8 * length - 1))
    mutated = bytearray(buffer)
    mutated[record + 12 + bit // 8] ^= 1 << (bit % 8)
    parsed, good = check(bytes(mutated))
    assert parsed.corrupt == [(record, "data CRC mismatch")]
    assert len(good) == len(datas) - 1 and parsed.end == len(buffer)


@SETTINGS
@given(events, st.lists(st.integers(1, 400), min_size=1, max_size=20))
def test_chunks_fed_with_their_remainder_add_up_to_the_whole(datas: list[bytes], sizes: list[int]) -> None:
    buffer, _ = stream(datas)
    whole = parse_records(buffer)
    start, read, position, steps_seen, others = 0, 0, 0, [], []
    while read < len(buffer):
        read = min(len(buffer), read + sizes[position % len(sizes)])
        position += 1
        parsed = parse_records(buffer[start:read])
        assert not parsed.corrupt
        steps_seen.extend(parsed.step.tolist())
        others.extend((parsed.other_offsets + start).tolist())
        start += parsed.end
    assert start == len(buffer)
    assert steps_seen == whole.step.tolist() and others == whole.other_offsets.tolist()


def test_a_bad_header_waits_for_where_the_records_resume_and_is_reported_once() -> None:
    first, second = records.frame(scalar_bytes("a", 1.0, 1, 2.0)), records.frame(scalar_bytes("b", 2.0, 2, 3.0))
    garbage = b"\x07" * 40
    file = first + garbage + second
    p = len(first)
    for cut in range(p + 12, p + len(garbage) + 12):  # the resume point's header is not whole yet
        parsed, _ = check(file[:cut])
        assert parsed.end == p and not parsed.corrupt and len(parsed.step) == 1
        again = parse_records(file[p:cut])  # the next pass starts at the bad header: still waiting
        assert again.end == 0 and not again.corrupt
    parsed, _ = check(file[: p + len(garbage) + 12])  # resume point found, its record cut short
    assert parsed.corrupt == [(p, "length CRC mismatch")] and parsed.end == p + len(garbage)
    parsed, _ = check(file)
    assert parsed.corrupt == [(p, "length CRC mismatch")] and parsed.step.tolist() == [1, 2]
    follow = parse_records(file[p:])  # a pass that starts at the bad header reports it there, once
    assert follow.corrupt == [(0, "length CRC mismatch")] and follow.step.tolist() == [2]


def test_growing_file_with_a_corrupt_span_reports_it_once() -> None:
    datas = [scalar_bytes(f"t{i % 3}", float(i), i, 1.0 + i) for i in range(60)]
    buffer, offsets = stream(datas)
    broken = bytearray(buffer)
    broken[offsets[20] : offsets[20] + 5] = b"\xaa" * 5  # a bad header: record 20 goes
    broken[offsets[40] + 20] ^= 0x10  # a bad payload: record 40 goes
    whole, _ = check(bytes(broken))
    start, reported, steps_seen = 0, [], []
    for cut in range(0, len(broken) + 1, 37):
        parsed = parse_records(bytes(broken[start:cut]))
        reported.extend((start + offset, reason) for offset, reason in parsed.corrupt)
        steps_seen.extend(parsed.step.tolist())
        start += parsed.end
    parsed = parse_records(bytes(broken[start:]))
    reported.extend((start + offset, reason) for offset, reason in parsed.corrupt)
    steps_seen.extend(parsed.step.tolist())
    assert reported == whole.corrupt == [(offsets[20], "length CRC mismatch"), (offsets[40], "data CRC mismatch")]
    assert steps_seen == whole.step.tolist() == [i for i in range(60) if i not in (20, 40)]


def test_many_records_periodic_and_irregular() -> None:
    """Long enough for the guessed framing to kick in, with the breaks that end a guess."""
    rng = np.random.default_rng(7)
    datas: list[bytes] = []
    tag_names = ["loss", "accuracy/validation", "lr", "é"]
    for step in range(3000):
        for tag in tag_names:
            datas.append(scalar_bytes(tag, float(rng.standard_normal()), step, 1.7e9 + step))
        if step % 97 == 0:
            datas.append(NOT_SCALARS[2])
        if step % 501 == 0:
            datas.append(bytes(rng.integers(0, 256, int(rng.integers(0, 70_000)), dtype=np.uint8)))
        if step % 7 == 0:
            datas.append(scalar_bytes(f"irregular/{rng.integers(0, 10 ** int(rng.integers(1, 6)))}", 1.0, step, 0.0))
    buffer, offsets = stream(datas)
    parsed = parse_records(buffer)
    assert parsed.end == len(buffer) and not parsed.corrupt
    good = list(zip(offsets, datas, strict=False))
    check_against(parsed, good)
    assert len(parsed.step) == sum(1 for d in datas if simple_scalar(d) is not None)
    parsed_loose = parse_records(memoryview(bytearray(buffer)), check_crc=False)
    check_against(parsed_loose, good)
    # One bad payload in the middle of a long run of intact records: found, and only it.
    broken = bytearray(buffer)
    broken[offsets[5000] + 15] ^= 1
    parsed = parse_records(bytes(broken))
    assert parsed.corrupt == [(offsets[5000], "data CRC mismatch")]
    check_against(parsed, good[:5000] + good[5001:])


def test_long_runs_of_guessed_records_and_big_ones() -> None:
    """Runs long enough for the guesses to grow, across step varints of 1, 2 and 3 bytes; records past 64 KiB."""
    datas = [scalar_bytes(tag, float(step), step, 1.7e9) for step in range(20_000) for tag in ("a", "bc", "def")]
    big = bytes(range(256)) * 280  # 71,680 bytes
    datas += [d for step in range(40) for d in (big, scalar_bytes("after/big", 1.0, step, 0.0))]
    buffer, offsets = stream(datas)
    good = list(zip(offsets, datas, strict=False))
    for check_crc in (True, False):
        parsed = parse_records(buffer, check_crc=check_crc)
        assert parsed.end == len(buffer) and not parsed.corrupt
        check_against(parsed, good)
        assert len(parsed.step) == 60_040 and parsed.other_lengths.tolist() == [len(big)] * 40
    # Any kind of bytes-like buffer.
    even = buffer[: len(buffer) // 2 * 2]
    parsed = parse_records(memoryview(np.frombuffer(even, dtype=np.uint16)))  # type: ignore[arg-type]
    end, good, _ = reference(even, check_crc=True)
    assert parsed.end == end
    check_against(parsed, good)


@pytest.mark.parametrize("multiplier", [fastpath._HASH_MULTIPLIER, np.uint64(0)])  # 0: all in one bucket
def test_tags_in_large_groups(monkeypatch: pytest.MonkeyPatch, multiplier: np.uint64) -> None:
    monkeypatch.setattr(fastpath, "_HASH_MULTIPLIER", multiplier)
    tags = ["aaaaaaaaaaaa", "aaaaaaaaaaab", "baaaaaaaaaaa", "aaaaaaaaaa\u00e9", "aaaaaaaa\u4e2d"]
    datas = [scalar_bytes(tag, 1.0, 1, 1.0) for tag in tags * 60]
    datas += [summary_field(value_field(tag.encode())) for tag in tags] * 30  # no wall time, no step
    datas += [summary_field(value_field(b"aaaaaaaaaaa\xff"))] * 130  # invalid UTF-8
    datas += [summary_field(value_field(b"a" * n)) for n in range(1, 9)] * 130  # tags shorter than a word
    parsed, _ = check(stream(datas)[0])
    assert len(parsed.step) == 300 + 150 + 1040 and len(parsed.other_order) == 130
    assert sorted(parsed.tags) == sorted(tags + ["a" * n for n in range(1, 9)])


@settings(max_examples=30, deadline=None)
@given(st.lists(st.binary(max_size=300), min_size=1, max_size=40), st.data())
def test_vectorised_crcs_equal_crc32c(datas: list[bytes], data: st.DataObject) -> None:
    for length in {len(d) for d in datas}:
        same = [d for d in datas if len(d) == length]
        rows = np.frombuffer(b"".join(same), dtype=np.uint8).reshape(len(same), length)
        assert fastpath._crc32c_rows(rows).tolist() == [crc32c.crc32c(row.tobytes()) for row in rows]
    tables = fastpath._tables()
    lengths = data.draw(st.lists(st.integers(0, 2**64 - 1) | st.integers(0, 70_000), max_size=20))
    expected = [records.masked_crc32c(struct.pack("<Q", n)) for n in lengths]
    assert tables.masked_length_crc(np.array(lengths, dtype=np.uint64)).tolist() == expected
    # The chained check of data CRCs flags exactly the records whose CRC is wrong.
    broken = data.draw(st.sets(st.integers(0, len(datas) - 1)))
    framed = []
    for i, d in enumerate(datas):
        record = bytearray(records.frame(d))
        if i in broken:
            record[data.draw(st.integers(12, len(record) - 1))] ^= 1 << data.draw(st.integers(0, 7))
        framed.append(bytes(record))
    buffer = b"".join(framed)
    hoff = np.cumsum([0] + [len(f) for f in framed[:-1]]).astype(np.int64)
    dlen = np.array([len(d) for d in datas], dtype=np.int64)
    arr = np.frombuffer(buffer, dtype=np.uint8)
    assert fastpath._bad_data_crcs(arr, hoff, dlen, [], len(buffer), tables).tolist() == sorted(broken)


@pytest.mark.slow
def test_the_benchmark_runs(tmp_path: Path) -> None:
    """bench/fastpath.py still runs and checks its results; its timings are never asserted on."""
    out = tmp_path / "figures.json"
    done = subprocess.run(
        [sys.executable, str(BENCH), "--records", "20000", "--repeats", "1", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(out.read_text())["errors"] == []
