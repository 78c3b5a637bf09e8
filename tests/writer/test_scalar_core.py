"""The compiled framing of queued scalars (``ridgeline.writer._scalar_core``) against protobuf and against the
Python framing it replaces: the same bytes, so files written with or without the compiled core are identical."""

from __future__ import annotations

import math
import struct
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ridgeline.format import records
from ridgeline.format.proto import event_pb2
from ridgeline.writer import event_file
from ridgeline.writer.event_file import EventFileWriter
from tests.conftest import event_files

core = pytest.importorskip("ridgeline.writer._scalar_core", reason="the compiled core is built by make test")

INT64 = st.integers(min_value=-(2**63), max_value=2**63 - 1)
ITEM = st.tuples(
    st.sampled_from(["loss", "train/acc", "ü/日本", "x" * 300]),
    st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([3.4028235e38, 3.40282357e38, 3.5e38, -0.0]),
    INT64,
    st.floats(allow_nan=True, allow_infinity=True) | st.just(-0.0),
)


def python_frame(items: list[tuple[str, float, int, float]]) -> bytes:
    out = []
    for tag, value, step, wall_time in items:
        data = event_file.encode_scalar_event(event_file._scalar_head(tag), value, step, wall_time)
        length = records.LENGTH.pack(len(data))
        out.append(length + records.CRC.pack(records.masked_crc32c(length)) + data)
        out.append(records.CRC.pack(records.masked_crc32c(data)))
    return b"".join(out)


@given(st.lists(ITEM, max_size=50))
def test_the_compiled_framing_is_the_python_framing_byte_for_byte(items: list[tuple[str, float, int, float]]) -> None:
    heads: dict[str, bytes] = {}
    assert core.frame(items, heads, event_file._scalar_head) == python_frame(items)
    assert set(heads) == {tag for tag, _, _, _ in items}  # each tag's head made once, kept for the next call


def test_every_record_decodes_to_the_scalar_that_was_queued() -> None:
    items = [("loss", 0.25, 7, 1.7e9), ("loss", 1e39, -3, 0.0), ("acc", float("nan"), 0, -0.0), ("acc", 5, 2**40, 1)]
    framed = core.frame(items, {}, event_file._scalar_head)
    found = list(records.iter_records(framed))  # both CRCs of every record checked
    assert sum(len(r.data) + records.HEADER_SIZE + records.FOOTER_SIZE for r in found) == len(framed)
    for record, (tag, value, step, wall_time) in zip(found, items, strict=True):
        event = event_pb2.Event.FromString(record.data)
        assert (event.step, event.wall_time, event.summary.value[0].tag) == (step, wall_time, tag)
        got = event.summary.value[0].simple_value
        if math.isnan(value):
            assert math.isnan(got)
        elif abs(value) > 3.5e38:
            assert got == math.copysign(math.inf, value)
        else:
            assert got == struct.unpack("<f", struct.pack("<f", value))[0]


def test_bad_items_are_a_clear_error() -> None:
    with pytest.raises(TypeError, match="tuple"):
        core.frame([("loss", 1.0, 2)], {}, event_file._scalar_head)
    with pytest.raises(TypeError):
        core.frame([("loss", "one", 2, 3.0)], {}, event_file._scalar_head)


def test_files_written_with_and_without_the_compiled_core_are_identical(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    written = {}
    for name, compiled in (("compiled", core), ("python", None)):
        monkeypatch.setattr(event_file, "SCALAR_CORE", compiled)
        writer = EventFileWriter(str(tmp_path / name), max_queue=10_000, flush_secs=3600)
        for step in range(20_000):  # more than one write batch, interleaved with other records
            writer.add_scalar("loss" if step % 3 else "lr", 1 / (step + 1), step, 1.7e9 + step)
            if step % 5000 == 0:
                writer.add_serialized(event_pb2.Event(step=step, wall_time=1.0).SerializeToString())
        writer.close()
        (path,) = event_files(tmp_path / name)
        written[name] = list(records.iter_records(path.read_bytes()))[1:]  # after the file_version record
    assert [r.data for r in written["compiled"]] == [r.data for r in written["python"]]
    assert len(written["compiled"]) == 20_004
