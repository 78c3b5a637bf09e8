"""Hostile but valid records: every decoded size is bounded (docs/reliability.md). A value over a limit is refused
and listed as a problem naming its file, offset and the limit; every other point of the file is still read.

The records are real event files: a ridgeline run, then records with valid CRCs appended by hand. Memory is
checked by size (tracemalloc's peak, which numpy reports to), never by time.
"""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ridgeline
from ridgeline.analysis.histograms import rebin
from ridgeline.format import records
from ridgeline.format.proto import event_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2, types_pb2
from ridgeline.ingest.decode import EventDecoder
from ridgeline.ingest.payload_decode import decode_value
from ridgeline.store.payloads import (
    MAX_HISTOGRAM_BUCKETS,
    MAX_IMAGE_SIDE,
    MAX_JSON_NESTING,
    MAX_STRINGS,
    MAX_TENSOR_ELEMENTS,
    DecodeError,
    Graph,
    Histogram,
)
from tests.conftest import write_ridgeline_run

Value = summary_pb2.Summary.Value


def value_event(value: summary_pb2.Summary.Value, step: int = 50) -> bytes:
    return event_pb2.Event(wall_time=1.7e9, step=step, summary=summary_pb2.Summary(value=[value])).SerializeToString()


def tensor(dtype: int, shape: list[int], **fields: Any) -> tensor_pb2.TensorProto:
    dims = [tensor_shape_pb2.TensorShapeProto.Dim(size=size) for size in shape]
    return tensor_pb2.TensorProto(dtype=dtype, tensor_shape=tensor_shape_pb2.TensorShapeProto(dim=dims), **fields)


def plugin(name: str) -> summary_pb2.SummaryMetadata:
    return summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name=name))


HOSTILE: dict[str, summary_pb2.Summary.Value] = {
    "legacy histogram": Value(
        tag="h",
        histo=summary_pb2.HistogramProto(
            min=0, max=1, bucket=[1.0] * (MAX_HISTOGRAM_BUCKETS + 1), bucket_limit=[0.5] * (MAX_HISTOGRAM_BUCKETS + 1)
        ),
    ),
    "histogram tensor": Value(
        tag="ht",
        metadata=plugin("histograms"),
        tensor=tensor(types_pb2.DT_DOUBLE, [MAX_HISTOGRAM_BUCKETS + 1, 3]),
    ),
    "tensor elements": Value(tag="t", tensor=tensor(types_pb2.DT_FLOAT, [MAX_TENSOR_ELEMENTS + 1])),
    "shape that pads": Value(tag="p", tensor=tensor(types_pb2.DT_FLOAT, [1 << 40], float_val=[1.0])),
    "stored values": Value(
        tag="s", tensor=tensor(types_pb2.DT_FLOAT, [1], float_val=[0.0] * (MAX_TENSOR_ELEMENTS + 1))
    ),
    "strings": Value(
        tag="txt", metadata=plugin("text"), tensor=tensor(types_pb2.DT_STRING, [MAX_STRINGS + 1], string_val=[b"x"])
    ),
    "legacy image": Value(tag="img", image=summary_pb2.Summary.Image(width=MAX_IMAGE_SIDE + 1, height=1)),
    "image tensor": Value(
        tag="imgt",
        metadata=plugin("images"),
        tensor=tensor(types_pb2.DT_STRING, [3], string_val=[b"4", str(1 << 31).encode(), b"\x89PNG"]),
    ),
    "image tensor size text": Value(
        tag="imgs",
        metadata=plugin("images"),
        tensor=tensor(types_pb2.DT_STRING, [3], string_val=[b"9" * 1_000_000, b"1", b"\x89PNG"]),
    ),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_value_over_a_limit_is_a_problem_and_the_rest_of_the_file_is_read(tmp_path: Path, case: str) -> None:
    run = tmp_path / "run"
    write_ridgeline_run(run, {"loss": [(step, float(step)) for step in range(100)]})
    (path,) = run.iterdir()
    size_before = path.stat().st_size
    with path.open("ab") as file:
        file.write(records.frame(value_event(HOSTILE[case])))
        file.write(records.frame(value_event(Value(tag="loss", simple_value=7.0), step=100)))

    opened = ridgeline.open(tmp_path, cache=False)

    assert opened.scalars("run", "loss").step.tolist() == list(range(101))
    (problem,) = opened.problems()
    assert (problem.path, problem.offset) == (str(path), size_before + 12)  # where its data starts
    assert "limit" in problem.reason or "outside" in problem.reason or "12 characters" in problem.reason, problem


def test_limits_are_checked_again_when_a_value_is_decoded() -> None:
    """decode_value (what a route calls) refuses the same values, with a DecodeError and nothing else."""
    kinds = {"legacy histogram": "histograms", "histogram tensor": "histograms", "legacy image": "images"}
    kinds |= {"tensor elements": "tensors", "stored values": "tensors", "strings": "text", "image tensor": "images"}
    for case, kind in kinds.items():
        value = HOSTILE[case]
        with pytest.raises(DecodeError):
            decode_value(kind, value_event(value), 0, value.metadata if value.HasField("metadata") else None)  # type: ignore[call-overload]


def test_values_at_the_limits_are_read() -> None:
    histogram = Value(
        tag="h",
        histo=summary_pb2.HistogramProto(
            min=0, max=2, bucket=[1.0] * MAX_HISTOGRAM_BUCKETS, bucket_limit=[1.0] * MAX_HISTOGRAM_BUCKETS
        ),
    )
    decoded = EventDecoder().decode(value_event(histogram))
    assert decoded.problems == []
    read = decode_value("histograms", value_event(histogram), 0)
    assert isinstance(read, Histogram) and read.count.sum() == MAX_HISTOGRAM_BUCKETS
    image = Value(tag="img", image=summary_pb2.Summary.Image(width=MAX_IMAGE_SIDE, height=0, encoded_image_string=b""))
    assert decode_value("images", value_event(image), 0).width == MAX_IMAGE_SIDE


def test_deeply_nested_json_is_refused() -> None:
    for depth, refused in ((MAX_JSON_NESTING - 1, False), (MAX_JSON_NESTING + 1, True), (100_000, True)):
        config = '{"a": ' * depth + "1" + "}" * depth
        graph = Graph("keras_model", config.encode())
        if refused:
            with pytest.raises(DecodeError, match="nested deeper"):
                graph.keras_model()
        else:
            assert graph.keras_model()["a"]
    assert json.loads('{"a": [[1]]}') == Graph("keras_model", b'{"a": [[1]]}').keras_model()


class Buckets:
    def __init__(self, lower: np.ndarray, upper: np.ndarray, count: np.ndarray) -> None:
        self.lower, self.upper, self.count = lower, upper, count


def test_rebinning_a_huge_histogram_is_bounded_in_memory() -> None:
    """200,000 unit buckets [i, i+1) with one value each onto 1,000 equal bins: 200 in each (a sum one can check
    by hand). Edges x buckets arrays would need 1.6 GB each; the slices stay far under 100 MB."""
    n = 200_000
    lower = np.arange(n, dtype=np.float64)
    histogram = Buckets(lower, lower + 1.0, np.ones(n))
    edges = np.linspace(0.0, float(n), 1001)
    tracemalloc.start()
    try:
        counts = rebin(histogram, edges)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 100 << 20, f"rebin peaked at {peak >> 20} MiB"
    np.testing.assert_allclose(counts, np.full(1000, 200.0), rtol=1e-9)
