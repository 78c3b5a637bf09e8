"""Decoding values of the ridgeline_confusion_matrix plugin: what another writer (or a damaged file) may hold is
refused with a DecodeError naming what is wrong, never a crash; whole float counts read as integers."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ridgeline.format.proto import event_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2, types_pb2
from ridgeline.format.tags import CONFUSION_MATRIX_PLUGIN
from ridgeline.ingest.decode import EventDecoder
from ridgeline.ingest.payload_decode import decode_value
from ridgeline.store.payloads import DecodeError


def event(values: np.ndarray, content: bytes | None, dtype: int = types_pb2.DT_INT64) -> bytes:
    metadata = summary_pb2.SummaryMetadata()
    metadata.plugin_data.plugin_name = CONFUSION_MATRIX_PLUGIN
    if content is not None:
        metadata.plugin_data.content = content
    shape = tensor_shape_pb2.TensorShapeProto(dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=s) for s in values.shape])
    tensor = tensor_pb2.TensorProto(dtype=dtype, tensor_shape=shape)
    if dtype == types_pb2.DT_INT64:
        tensor.int64_val.extend(values.reshape(-1).astype(np.int64).tolist())
    else:
        tensor.double_val.extend(values.reshape(-1).astype(np.float64).tolist())
    value = summary_pb2.Summary.Value(tag="cm", metadata=metadata, tensor=tensor)
    return event_pb2.Event(step=3, summary=summary_pb2.Summary(value=[value])).SerializeToString()


def names(*classes: str) -> bytes:
    return json.dumps({"version": 1, "class_names": list(classes)}).encode()


def test_classified_as_confusion_matrices() -> None:
    decoded = EventDecoder().decode(event(np.eye(2), names("a", "b")))
    assert [(v.kind, v.tag) for v in decoded.values] == [("confusion_matrices", "cm")] and not decoded.problems


def test_whole_float_counts_read_as_integers_fractions_as_floats() -> None:
    whole = decode_value("confusion_matrices", event(np.eye(2) * 3, names("a", "b"), types_pb2.DT_DOUBLE), 0)
    assert whole.counts.dtype == np.int64 and whole.counts.tolist() == [[3, 0], [0, 3]]
    shares = decode_value("confusion_matrices", event(np.eye(2) / 2, names("a", "b"), types_pb2.DT_DOUBLE), 0)
    assert shares.counts.dtype == np.float64 and shares.counts.tolist() == [[0.5, 0], [0, 0.5]]


@pytest.mark.parametrize(
    ("values", "content", "message"),
    [
        (np.zeros((2, 3)), names("a", "b"), r"shape \[n, n\] with n >= 1, got \[2, 3\]"),
        (np.zeros((0, 0)), names(), r"shape \[n, n\] with n >= 1, got \[0, 0\]"),
        (np.eye(2), None, "needs its class names"),
        (np.eye(2), names("a"), "a 2x2 confusion matrix needs 2 class names, its plugin content has 1"),
        (np.eye(2), b"{not json", "plugin content"),
        (np.eye(2), json.dumps({"class_names": [1, 2]}).encode(), "class_names, a list of strings"),
        (-np.eye(2), names("a", "b"), "finite and not negative"),
    ],
)
def test_bad_values_are_decode_errors(values: np.ndarray, content: bytes | None, message: str) -> None:
    with pytest.raises(DecodeError, match=message):
        decode_value("confusion_matrices", event(values, content), 0)


def test_a_wrong_shape_stays_listed_at_its_step_and_is_a_problem() -> None:
    decoded = EventDecoder().decode(event(np.zeros((2, 3)), names("a", "b")))
    assert [(v.kind, v.tag) for v in decoded.values] == [("confusion_matrices", "cm")]
    assert len(decoded.problems) == 1 and "[2, 3]" in decoded.problems[0]
