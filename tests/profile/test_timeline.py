"""Timeline frames (ridgeline.profile.timeline) of a generated trace with rows too full to send span by span, and
their binary form (ridgeline.profile.frame_bytes) against the JSON one."""

from __future__ import annotations

import io
import json

import numpy as np
import orjson
import pytest

from ridgeline.profile import frame_bytes, timeline
from ridgeline.profile.columns import Trace
from ridgeline.profile.parse import parse_stream


def crowded_trace(spans: int = 3000) -> Trace:
    """One thread with ``spans`` short back-to-back ops under one long one, and a few long ops beside them."""
    events = [{"ph": "X", "name": "step", "cat": "cpu_op", "pid": 1, "tid": 1, "ts": 0, "dur": spans * 10}]
    events += [
        {"ph": "X", "name": f"op{i % 7}", "cat": "cpu_op", "pid": 1, "tid": 1, "ts": i * 10, "dur": 3 + i % 5}
        for i in range(spans)
    ]
    events += [{"ph": "X", "name": "long", "cat": "cpu_op", "pid": 1, "tid": 1, "ts": t, "dur": 9.5} for t in (5, 5005)]
    return parse_stream(io.BytesIO(json.dumps({"traceEvents": events}).encode()))


def json_answer(frame: dict) -> dict:
    """What the route's JSON answer reads back as."""
    answer: dict = orjson.loads(orjson.dumps(frame, option=orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS))
    return answer


def test_a_crowded_row_sends_blocks_and_the_binary_form_is_the_json_one() -> None:
    trace = crowded_trace()
    index = timeline.rows(trace)
    first, last = timeline.extent(trace)
    frame = timeline.window(trace, index, first, last, 300, limit=100)
    rows = {row["depth"]: row for row in frame["rows"]}
    crowded = rows[1]
    assert crowded["blocks"].shape[1] == 3 and len(crowded["blocks"]) > 0
    assert len(crowded["ids"]) <= 100
    blocks = crowded["blocks"]
    assert (blocks[:, 0] < blocks[:, 1]).all() and ((blocks[:, 2] > 0) & (blocks[:, 2] <= 1)).all()
    assert (np.diff(blocks[:, 0]) > 0).all()
    assert not len(rows[0]["blocks"])  # the step alone: one span
    answer = json_answer(frame)
    assert frame_bytes.decode(frame_bytes.encode(frame)) == answer
    zoomed = timeline.window(trace, index, 1000, 1100, 300, limit=100)
    assert all(not len(row["blocks"]) for row in zoomed["rows"])
    assert frame_bytes.decode(frame_bytes.encode(zoomed)) == json_answer(zoomed)


def test_the_busy_fraction_of_a_block_is_the_time_its_spans_cover() -> None:
    trace = crowded_trace(2000)
    index = timeline.rows(trace)
    frame = timeline.window(trace, index, 0, 20000, 100, limit=10)
    row = next(r for r in frame["rows"] if r["depth"] == 1)
    busy = sum((to - start) * fraction for start, to, fraction in row["blocks"].tolist())
    dur = np.asarray(trace.spans["dur"])[np.asarray(trace.spans["depth"]) == 1]
    # the spans drawn one by one (at least a pixel wide) are not in the blocks
    assert busy + float(np.sum(row["dur"])) == pytest.approx(float(np.sum(dur)), rel=1e-12)
