"""The streaming cut of a trace into whole events, against json.load of the same bytes: every chunk size, strings
holding the characters that structure JSON, escaped quotes and backslashes, a bare-array Chrome trace."""

from __future__ import annotations

import io
import json

import pytest

from ridgeline.profile.split import EventStream, NotATrace

TRICKY = [
    {"ph": "X", "name": 'say "hi", {then} [leave]', "ts": 1, "dur": 2, "args": {"a": "\\", "b": '\\"', "c": ","}},
    {"ph": "X", "name": "ends in a backslash \\\\", "ts": 3, "dur": 1, "args": {"nested": [[1, 2], {"x": [3]}]}},
    {"ph": "i", "name": "ünïcødé ✓", "ts": 4, "args": {}},
    {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "]}"}},
]


def read(data: bytes, chunk: int) -> tuple[list[object], EventStream]:
    stream = EventStream(io.BytesIO(data), chunk)
    events: list[object] = []
    for batch in stream:
        events += batch.events
        for event, start, length in zip(batch.events, batch.starts, batch.lengths, strict=True):
            assert json.loads(data[start : start + length]) == event
    return events, stream


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 64, 1000, 1 << 20])
@pytest.mark.parametrize("indent", [None, 2])
def test_every_chunk_size_gives_what_json_load_gives(chunk: int, indent: int | None) -> None:
    trace = {"schemaVersion": 1, "deviceProperties": [{"id": 0}], "traceEvents": TRICKY * 5, "traceName": "t,]"}
    data = json.dumps(trace, indent=indent, ensure_ascii=False).encode()
    events, stream = read(data, chunk)
    assert events == trace["traceEvents"]
    assert stream.surroundings.complete and not stream.surroundings.notes
    assert stream.surroundings.header == {"schemaVersion": 1, "deviceProperties": [{"id": 0}], "traceName": "t,]"}


def test_a_bare_array_and_an_empty_list() -> None:
    assert read(json.dumps(TRICKY).encode(), 5)[0] == TRICKY
    assert read(b'{"traceEvents": [ ]}', 4)[0] == []


def test_a_cut_stream_keeps_every_whole_event() -> None:
    data = json.dumps({"traceEvents": TRICKY * 3}).encode()
    cut = data[: data.index(b"ends in", len(data) // 2)]
    events, stream = read(cut, 16)
    whole = json.loads(cut[: cut.rindex(b"}, {") + 1] + b"]}")["traceEvents"]
    assert events == whole
    assert any("cut short" in note for note in stream.surroundings.notes)


def test_a_malformed_event_is_skipped_and_counted() -> None:
    data = b'{"traceEvents": [{"ph": "X", "ts": 1}, {"ph": nope}, {"ph": "i", "ts": 2}]}'
    events, stream = read(data, 1 << 20)
    assert events == [{"ph": "X", "ts": 1}, {"ph": "i", "ts": 2}]
    assert any("not valid JSON" in note for note in stream.surroundings.notes)


@pytest.mark.parametrize("data", [b"", b"hello", b'{"other": [1, 2]}', b"   "])
def test_what_is_no_trace_says_so(data: bytes) -> None:
    with pytest.raises(NotATrace, match="not a Chrome trace"):
        read(data, 8)
