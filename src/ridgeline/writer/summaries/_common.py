"""What every builder shares: the proto aliases, plugin metadata, tensor shapes and argument checks."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from ridgeline.format.proto import summary_pb2, tensor_pb2, tensor_shape_pb2
from ridgeline.writer.values import to_numpy

Summary = summary_pb2.Summary
SummaryMetadata = summary_pb2.SummaryMetadata
TensorProto = tensor_pb2.TensorProto
TensorShapeProto = tensor_shape_pb2.TensorShapeProto


def _metadata(plugin_name: str, content: bytes = b"") -> summary_pb2.SummaryMetadata:
    metadata = SummaryMetadata()
    metadata.plugin_data.plugin_name = plugin_name
    if content:
        metadata.plugin_data.content = content
    return metadata


def _shape(dims: Sequence[int]) -> tensor_shape_pb2.TensorShapeProto:
    return TensorShapeProto(dim=[TensorShapeProto.Dim(size=int(size)) for size in dims])


def _real_array(value: Any, *, method: str, argument: str) -> np.ndarray:
    """``value`` as a numpy array of real numbers (bool, integer or float)."""
    array = to_numpy(value, method=method, argument=argument)
    if array.dtype.kind == "c":
        raise TypeError(f"{method}: {argument} must hold real numbers, got an array of dtype {array.dtype}")
    return array


def _positive_int(value: Any, *, method: str, argument: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{method}: {argument} must be an integer, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{method}: {argument} must be at least {minimum}, got {value}")
    return int(value)


def _finite_positive(value: Any, *, method: str, argument: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{method}: {argument} must be a positive number, got {type(value).__name__}")
    number = float(value)
    if not math.isfinite(number) or number <= 0:
        raise ValueError(f"{method}: {argument} must be a positive finite number, got {value!r}")
    return number


def _check_str(value: Any, *, method: str, argument: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{method}: {argument} must be a string, got {type(value).__name__}")
    return value
