"""parse_records against protobuf and a plain sequential reader: same records, same values, same corruption, on
both implementations (the compiled core where it is built, and numpy)."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path

import crc32c
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ridgeline.format import records
from ridgeline.format.proto import event_pb2
from ridgeline.ingest import fastpath
from ridgeline.ingest._fastpath_numpy import crc as numpy_crc
from ridgeline.ingest._fastpath_numpy import scalars as numpy_scalars
from ridgeline.ingest.fastpath import parse_records
from tests.ingest.fastpath_helpers import (
    NOT_SCALARS,
    SETTINGS,
    UNUSUAL_SCALARS,
    check,
    check_against,
    each_implementation,
    events,
    in_record_order,
    reference,
    scalar_bytes,
    simple_scalar,
    stream,
    summary_field,
    value_field,
)

BENCH = Path(__file__).resolve().parents[2] / "bench" / "fastpath.py"


# --- the tests -------------------------------------------------------------------------------------------------
@each_implementation
@SETTINGS
@given(events)
def test_every_record_as_protobuf_reads_it(implementation: str, datas: list[bytes]) -> None:
    buffer, offsets = stream(datas)
    few_rows = numpy_scalars._FEW_ROWS
    for check_crc, numpy_scalars._FEW_ROWS in ((True, few_rows), (False, 0)):  # numpy's tags: the dict and the arrays
        try:
            parsed, good = check(buffer, implementation, check_crc=check_crc)
        finally:
            numpy_scalars._FEW_ROWS = few_rows
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


@each_implementation
def test_which_encodings_take_the_fast_path(implementation: str) -> None:
    datas = UNUSUAL_SCALARS + NOT_SCALARS
    parsed, _ = check(stream(datas)[0], implementation)
    fast = [0, 1, 2, 3, 4, 11, 12, 13]  # a bits-past-64 varint, odd orders and lengths: protobuf's to read
    assert parsed.scalar_order.tolist() == fast
    assert parsed.step.tolist() == [0, 0, 0, 0, -1, 0, 0, 0]
    assert [parsed.tags[i] for i in parsed.tag_index] == ["a"] * 5 + ["", "s", "x" * 100]
    assert np.signbit(parsed.wall_time[1]) and np.isnan(parsed.value[5:7]).all()


@each_implementation
@SETTINGS
@given(events, st.data())
def test_a_prefix_holds_exactly_the_records_wholly_in_it(
    implementation: str, datas: list[bytes], data: st.DataObject
) -> None:
    buffer, offsets = stream(datas)
    whole = parse_records(buffer, implementation=implementation)
    cut = data.draw(st.integers(0, len(buffer)))
    parsed, _ = check(buffer[:cut], implementation)
    complete = max(i for i, offset in enumerate(offsets) if offset <= cut)
    assert parsed.end == offsets[complete]
    in_prefix = whole.scalar_order < complete
    assert np.array_equal(parsed.scalar_order, whole.scalar_order[in_prefix])
    assert np.array_equal(parsed.step, whole.step[in_prefix])
    assert [parsed.tags[i] for i in parsed.tag_index] == [whole.tags[i] for i in whole.tag_index[in_prefix]]
    assert np.array_equal(parsed.other_offsets, whole.other_offsets[whole.other_order < complete])


@each_implementation
@SETTINGS
@given(events, st.lists(st.tuples(st.integers(0, 1 << 30), st.integers(0, 255), st.booleans()), min_size=1))
def test_mutated_bytes_never_give_a_wrong_value(
    implementation: str, datas: list[bytes], mutations: list[tuple[int, int, bool]]
) -> None:
    buffer, offsets = stream(datas)
    if not buffer:
        return
    mutated = bytearray(buffer)
    for position, byte, flip in mutations:
        position %= len(mutated)
        mutated[position] = mutated[position] ^ (1 << (byte % 8)) if flip else byte
    for check_crc in (True, False):
        _, good = check(bytes(mutated), implementation, check_crc=check_crc)  # as protobuf and the plain reader say
        if check_crc:  # and nothing that passed both CRCs was changed
            written = dict(zip(offsets, datas, strict=False))
            for offset, data in good:
                assert written.get(offset) == data


@each_implementation
@SETTINGS
@given(
    st.lists(st.sampled_from(["a", "bb", "cccc", "loss/train_0"]), min_size=1, max_size=5),
    st.integers(100, 400),
    st.lists(st.tuples(st.floats(0, 1), st.integers(0, 255)), max_size=3),
)
def test_mutations_in_long_regular_runs(
    implementation: str, pattern: list[str], count: int, mutations: list[tuple[float, int]]
) -> None:
    """Where framing guesses record sizes: a damaged record ends a guess, and the records after it still come."""
    datas = [scalar_bytes(pattern[i % len(pattern)], float(i), i * 7, 1.0) for i in range(count)]
    buffer, offsets = stream(datas)
    mutated = bytearray(buffer)
    for where, byte in mutations:
        mutated[int(where * (len(mutated) - 1))] = byte
    parsed, good = check(bytes(mutated), implementation)
    written = dict(zip(offsets, datas, strict=False))
    assert all(written.get(offset) == data for offset, data in good)
    assert len(good) >= count - 2 * len(mutations) - (parsed.end < len(buffer)) * count


@each_implementation
@SETTINGS
@given(events, st.data())
def test_no_flipped_bit_in_a_payload_goes_unnoticed(
    implementation: str, datas: list[bytes], data: st.DataObject
) -> None:
    buffer, offsets = stream(datas)
    payloads = [(offset, len(d)) for offset, d in zip(offsets, datas, strict=False) if d]
    if not payloads:
        return
    record, length = data.draw(st.sampled_from(payloads))
    bit = data.draw(st.integers(0, 8 * length - 1))
    mutated = bytearray(buffer)
    mutated[record + 12 + bit // 8] ^= 1 << (bit % 8)
    parsed, good = check(bytes(mutated), implementation)
    assert parsed.corrupt == [(record, "data CRC mismatch")]
    assert len(good) == len(datas) - 1 and parsed.end == len(buffer)


@each_implementation
@SETTINGS
@given(events, st.lists(st.integers(1, 400), min_size=1, max_size=20), st.booleans())
def test_chunks_fed_with_their_remainder_add_up_to_the_whole(
    implementation: str, datas: list[bytes], sizes: list[int], knows_the_file_size: bool
) -> None:
    buffer, _ = stream(datas)
    whole = parse_records(buffer, implementation=implementation)
    start, read, position, steps_seen, others = 0, 0, 0, [], []
    while read < len(buffer):
        read = min(len(buffer), read + sizes[position % len(sizes)])
        position += 1
        available = len(buffer) - start if knows_the_file_size else None
        parsed = parse_records(buffer[start:read], available=available, implementation=implementation)
        assert not parsed.corrupt
        steps_seen.extend(in_record_order(parsed))
        others.extend((parsed.other_offsets + start).tolist())
        start += parsed.end
    assert start == len(buffer)
    assert steps_seen == in_record_order(whole) and others == whole.other_offsets.tolist()


@each_implementation
def test_a_bad_header_waits_for_where_the_records_resume_and_is_reported_once(implementation: str) -> None:
    first, second = records.frame(scalar_bytes("a", 1.0, 1, 2.0)), records.frame(scalar_bytes("b", 2.0, 2, 3.0))
    garbage = b"\x07" * 40
    file = first + garbage + second
    p = len(first)
    for cut in range(p + 12, p + len(garbage) + 12):  # the resume point's header is not whole yet
        parsed, _ = check(file[:cut], implementation)
        assert parsed.end == p and not parsed.corrupt and len(parsed.step) == 1
        again = parse_records(file[p:cut], implementation=implementation)  # the next pass: still waiting
        assert again.end == 0 and not again.corrupt
    parsed, _ = check(file[: p + len(garbage) + 12], implementation)  # resume point found, its record cut short
    assert parsed.corrupt == [(p, "length CRC mismatch")] and parsed.end == p + len(garbage)
    parsed, _ = check(file, implementation)
    assert parsed.corrupt == [(p, "length CRC mismatch")] and parsed.step.tolist() == [1, 2]
    # a pass that starts at the bad header reports it there, once
    follow = parse_records(file[p:], implementation=implementation)
    assert follow.corrupt == [(0, "length CRC mismatch")] and follow.step.tolist() == [2]


@each_implementation
def test_growing_file_with_a_corrupt_span_reports_it_once(implementation: str) -> None:
    datas = [scalar_bytes(f"t{i % 3}", float(i), i, 1.0 + i) for i in range(60)]
    buffer, offsets = stream(datas)
    broken = bytearray(buffer)
    broken[offsets[20] : offsets[20] + 5] = b"\xaa" * 5  # a bad header: record 20 goes
    broken[offsets[40] + 20] ^= 0x10  # a bad payload: record 40 goes
    whole, _ = check(bytes(broken), implementation)
    start, reported, steps_seen = 0, [], []
    for cut in range(0, len(broken) + 1, 37):
        parsed = parse_records(bytes(broken[start:cut]), implementation=implementation)
        reported.extend((start + offset, reason) for offset, reason in parsed.corrupt)
        steps_seen.extend(in_record_order(parsed))
        start += parsed.end
    parsed = parse_records(bytes(broken[start:]), implementation=implementation)
    reported.extend((start + offset, reason) for offset, reason in parsed.corrupt)
    steps_seen.extend(in_record_order(parsed))
    assert reported == whole.corrupt == [(offsets[20], "length CRC mismatch"), (offsets[40], "data CRC mismatch")]
    assert steps_seen == in_record_order(whole) == [i for i in range(60) if i not in (20, 40)]


@each_implementation
def test_many_records_periodic_and_irregular(implementation: str) -> None:
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
    parsed = parse_records(buffer, implementation=implementation)
    assert parsed.end == len(buffer) and not parsed.corrupt
    good = list(zip(offsets, datas, strict=False))
    check_against(parsed, good)
    assert len(parsed.step) == sum(1 for d in datas if simple_scalar(d) is not None)
    parsed_loose = parse_records(memoryview(bytearray(buffer)), check_crc=False, implementation=implementation)
    check_against(parsed_loose, good)
    # One bad payload in the middle of a long run of intact records: found, and only it.
    broken = bytearray(buffer)
    broken[offsets[5000] + 15] ^= 1
    parsed = parse_records(bytes(broken), implementation=implementation)
    assert parsed.corrupt == [(offsets[5000], "data CRC mismatch")]
    check_against(parsed, good[:5000] + good[5001:])


@each_implementation
def test_long_runs_of_guessed_records_and_big_ones(implementation: str) -> None:
    """Runs long enough for the guesses to grow, across step varints of 1, 2 and 3 bytes; records past 64 KiB."""
    datas = [scalar_bytes(tag, float(step), step, 1.7e9) for step in range(20_000) for tag in ("a", "bc", "def")]
    big = bytes(range(256)) * 280  # 71,680 bytes
    datas += [d for step in range(40) for d in (big, scalar_bytes("after/big", 1.0, step, 0.0))]
    buffer, offsets = stream(datas)
    good = list(zip(offsets, datas, strict=False))
    for check_crc in (True, False):
        parsed = parse_records(buffer, check_crc=check_crc, implementation=implementation)
        assert parsed.end == len(buffer) and not parsed.corrupt
        check_against(parsed, good)
        assert len(parsed.step) == 60_040 and parsed.other_lengths.tolist() == [len(big)] * 40
    # Any kind of bytes-like buffer.
    even = buffer[: len(buffer) // 2 * 2]
    parsed = parse_records(memoryview(np.frombuffer(even, dtype=np.uint16)), implementation=implementation)
    end, good, _ = reference(even, check_crc=True)
    assert parsed.end == end
    check_against(parsed, good)


@pytest.mark.parametrize("multiplier", [numpy_scalars._HASH_MULTIPLIER, np.uint64(0)])  # 0: all in one bucket
def test_tags_in_large_groups(monkeypatch: pytest.MonkeyPatch, multiplier: np.uint64) -> None:
    monkeypatch.setattr(numpy_scalars, "_HASH_MULTIPLIER", multiplier)
    tags = ["aaaaaaaaaaaa", "aaaaaaaaaaab", "baaaaaaaaaaa", "aaaaaaaaaa\u00e9", "aaaaaaaa\u4e2d"]
    datas = [scalar_bytes(tag, 1.0, 1, 1.0) for tag in tags * 60]
    datas += [summary_field(value_field(tag.encode())) for tag in tags] * 30  # no wall time, no step
    datas += [summary_field(value_field(b"aaaaaaaaaaa\xff"))] * 130  # invalid UTF-8
    datas += [summary_field(value_field(b"a" * n)) for n in range(1, 9)] * 130  # tags shorter than a word
    for implementation in fastpath.implementations():  # the core hashes tags its own way
        parsed, _ = check(stream(datas)[0], implementation)
        assert len(parsed.step) == 300 + 150 + 1040 and len(parsed.other_order) == 130
        assert sorted(parsed.tags) == sorted(tags + ["a" * n for n in range(1, 9)])


@settings(max_examples=30, deadline=None)
@given(st.lists(st.binary(max_size=300), min_size=1, max_size=40), st.data())
def test_vectorised_crcs_equal_crc32c(datas: list[bytes], data: st.DataObject) -> None:
    for length in {len(d) for d in datas}:
        same = [d for d in datas if len(d) == length]
        rows = np.frombuffer(b"".join(same), dtype=np.uint8).reshape(len(same), length)
        assert numpy_crc.crc32c_rows(rows).tolist() == [crc32c.crc32c(row.tobytes()) for row in rows]
    tables = numpy_crc.crc_tables()
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
    assert numpy_crc.bad_data_crcs(arr, hoff, dlen, [], len(buffer), tables).tolist() == sorted(broken)


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


HUGE_LENGTHS = [2**32, 2**62, 2**64 - 1]


def with_length(buffer: bytes, offset: int, length: int) -> bytes:
    """``buffer`` with the record at ``offset`` claiming ``length`` bytes, its length CRC rewritten to match."""
    head = struct.pack("<Q", length)
    return buffer[:offset] + head + struct.pack("<I", records.masked_crc32c(head)) + buffer[offset + 12 :]


@each_implementation
@pytest.mark.parametrize("length", HUGE_LENGTHS)
def test_a_length_past_the_end_of_the_file_is_skipped_when_intact_records_follow(
    implementation: str, length: int
) -> None:
    """Issue 13: such a header looked valid, and everything after it was lost without a word."""
    datas = [scalar_bytes(f"t{i % 3}", float(i), i, 1.0 + i) for i in range(60)]
    buffer, offsets = stream(datas)
    broken = with_length(buffer, offsets[20], length)
    for available in (None, len(broken) + 1000):  # the whole file, or the start of a longer one
        parsed, _ = check(broken, implementation, available=available)
        assert parsed.corrupt == [(offsets[20], "length past the end of the file")]
        assert in_record_order(parsed) == [i for i in range(60) if i != 20] and parsed.end == len(broken)
    # Read in chunks, each told how long the file is: the same records, the span reported once.
    start, steps, reported = 0, [], []
    while start < len(broken):
        parsed = parse_records(
            broken[start : start + 300], available=len(broken) - start, implementation=implementation
        )
        steps += in_record_order(parsed)
        reported += [(start + offset, reason) for offset, reason in parsed.corrupt]
        start += parsed.end
    assert steps == [i for i in range(60) if i != 20]
    assert reported == [(offsets[20], "length past the end of the file")]


@each_implementation
def test_a_record_still_being_written_stays_for_the_next_pass(implementation: str) -> None:
    datas = [scalar_bytes("a", float(i), i, 1.0) for i in range(5)] + [bytes(range(256)) * 40]
    buffer, offsets = stream(datas)
    growing = buffer[: offsets[5] + 5000]  # the last record's header and part of its data
    parsed, _ = check(growing, implementation)
    assert parsed.end == offsets[5] and not parsed.corrupt and in_record_order(parsed) == [0, 1, 2, 3, 4]
    # A huge length with nothing intact after it is no different: a partial tail until intact records follow.
    claimed = with_length(buffer[: offsets[5]] + records.frame(b"")[:12] + b"\x00" * 50, offsets[5], 2**62)
    parsed, _ = check(claimed, implementation)
    assert parsed.end == offsets[5] and not parsed.corrupt
    parsed, _ = check(claimed + records.frame(scalar_bytes("a", 9.0, 9, 1.0)), implementation)
    assert parsed.corrupt == [(offsets[5], "length past the end of the file")] and in_record_order(parsed)[-1] == 9
