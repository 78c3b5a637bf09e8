"""TFRecord framing: round trips, CRC checks, records cut short, and agreement with TensorBoard's CRC."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ridgeline.format import records


@given(st.lists(st.binary(max_size=300), max_size=20))
def test_framed_records_read_back_in_order(payloads: list[bytes]) -> None:
    buffer = b"".join(records.frame(p) for p in payloads)
    read = list(records.iter_records(buffer))
    assert [r.data for r in read] == payloads
    assert read[-1].end == len(buffer) if payloads else buffer == b""


@given(st.binary(max_size=200))
def test_masked_crc_matches_tensorboard(data: bytes) -> None:
    from tensorboard.compat.tensorflow_stub.pywrap_tensorflow import masked_crc32c

    assert records.masked_crc32c(data) == masked_crc32c(data)


@given(st.lists(st.binary(min_size=1, max_size=100), min_size=1, max_size=5), st.data())
def test_a_record_cut_short_is_left_for_later(payloads: list[bytes], data: st.DataObject) -> None:
    buffer = b"".join(records.frame(p) for p in payloads)
    cut = data.draw(st.integers(min_value=0, max_value=len(buffer) - 1))
    read = list(records.iter_records(buffer[:cut]))
    assert [r.data for r in read] == payloads[: len(read)]
    assert len(read) < len(payloads)


@given(st.binary(min_size=1, max_size=100), st.data())
def test_any_flipped_bit_is_detected(payload: bytes, data: st.DataObject) -> None:
    framed = bytearray(records.frame(payload))
    position = data.draw(st.integers(min_value=0, max_value=len(framed) - 1))
    framed[position] ^= 1 << data.draw(st.integers(min_value=0, max_value=7))
    with pytest.raises(records.CorruptRecordError):
        # A flipped length bit may also make the record look longer than the buffer; pad so it is "complete".
        list(records.iter_records(bytes(framed) + bytes(1 << 16)))


def test_corrupt_record_names_its_offset() -> None:
    first, second = records.frame(b"first"), bytearray(records.frame(b"second"))
    second[-1] ^= 0xFF
    with pytest.raises(records.CorruptRecordError, match=f"byte {len(first)}: data CRC mismatch") as caught:
        list(records.iter_records(first + bytes(second)))
    assert caught.value.offset == len(first)


def test_data_crc_can_be_skipped_but_never_the_length_crc() -> None:
    framed = bytearray(records.frame(b"payload"))
    framed[-1] ^= 0xFF
    assert records.read_record(bytes(framed), check_crc=False) == records.Record(0, b"payload")
    framed[0] ^= 0x01
    with pytest.raises(records.CorruptRecordError, match="length CRC"):
        records.read_record(bytes(framed), check_crc=False)


def test_empty_buffer_has_no_records() -> None:
    assert list(records.iter_records(b"")) == []


def test_record_size_reads_an_intact_header_only() -> None:
    framed = records.frame(b"payload")
    assert records.record_size(framed) == len(framed)
    assert records.record_size(framed[:11]) is None  # header incomplete
    assert records.record_size(b"x" + framed, offset=1) == len(framed)
    damaged = bytearray(framed)
    damaged[0] ^= 1
    assert records.record_size(bytes(damaged)) is None


def test_the_crc32c_module_loaded_alone_is_the_packages_function() -> None:
    """The compiled module is loaded without its package (whose import looks up its own version), and must be
    the very function the package exports: same CRCs, same continuation from a previous value."""
    from crc32c import crc32c as package

    alone = records._compiled_crc32c()
    for data in (b"", b"a", b"123456789", bytes(range(256)) * 33):
        assert alone(data) == package(data)
    assert alone(b"def", value=alone(b"abc")) == package(b"abcdef")
    assert records.crc32c(b"123456789") == 0xE3069283
