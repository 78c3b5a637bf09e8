"""The hand-written wire format against protobuf's own encoder and parser."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ridgeline.format import wire
from ridgeline.format.proto import event_pb2, summary_pb2

INT64 = st.integers(min_value=-(1 << 63), max_value=(1 << 63) - 1)


@given(INT64)
def test_varints_are_what_protobuf_writes_for_an_int64(value: int) -> None:
    # Event.step is field 2, an int64: key 0x10, then the varint (10 bytes for a negative value).
    expected = event_pb2.Event(step=value).SerializeToString()  # step 0, the default, is not written
    assert (b"\x10" + wire.encode_varint(value) if value else b"") == expected


@given(INT64, st.binary(max_size=8))
def test_a_varint_decodes_back_and_reports_where_it_ends(value: int, after: bytes) -> None:
    encoded = wire.encode_varint(value)
    assert wire.decode_varint(b"\x07" + encoded + after, 1, "x") == (value % (1 << 64), 1 + len(encoded))


@pytest.mark.parametrize("data", [b"", b"\x80", b"\xff" * 9, b"\xff" * 10 + b"\x01"])
def test_a_varint_cut_short_or_too_long_is_an_error_naming_the_message(data: bytes) -> None:
    with pytest.raises(wire.WireError, match="malformed Thing: truncated varint"):
        wire.decode_varint(data, 0, "Thing")


@given(st.lists(st.text(max_size=30), max_size=6), st.integers(min_value=-5, max_value=1 << 40))
def test_fields_walk_finds_every_value_of_a_summary_as_protobuf_parses_it(tags: list[str], step: int) -> None:
    summary = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, simple_value=1.5) for tag in tags])
    event = event_pb2.Event(wall_time=2.5, step=step, summary=summary).SerializeToString()
    (inner,) = wire.fields(event, 5, "Event") or [b""]  # Event.summary; an empty one is not written at all
    assert wire.fields(inner, 1, "Summary") == [value.SerializeToString() for value in summary.value]
    assert wire.last_field(inner, 1, "Summary") == (summary.value[-1].SerializeToString() if tags else None)
    assert wire.fields(event, 7, "Event") == []  # a field the message does not have


@pytest.mark.parametrize(
    ("data", "reason"),
    [(b"\x0a\x05abc", "truncated field"), (b"\x0b", "wire type 3"), (b"\x0a", "truncated varint")],
)
def test_a_malformed_message_is_an_error_naming_it(data: bytes, reason: str) -> None:
    with pytest.raises(wire.WireError, match=f"malformed RunMetadata: {reason}"):
        wire.fields(data, 1, "RunMetadata")
