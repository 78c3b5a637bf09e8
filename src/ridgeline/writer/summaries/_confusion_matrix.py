"""Confusion matrices: the counts of (true class, predicted class) pairs, stored as themselves.

The value is an int64 tensor of shape [n, n] (row: true class, column: predicted class) whose plugin is
``ridgeline_confusion_matrix``; the plugin content is the JSON ``{"version": 1, "class_names": [...]}``. TensorBoard
knows no such plugin and keeps the value as a plain tensor (its data class says so, for TensorBoard's data
provider); ridgeline's confusion matrix dashboard draws it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from ridgeline.format.proto import summary_pb2, types_pb2
from ridgeline.format.tags import CONFUSION_MATRIX_PLUGIN
from ridgeline.writer.summaries._common import Summary, TensorProto, _metadata, _shape
from ridgeline.writer.values import check_tag, is_torch_tensor, to_numpy

CONTENT_VERSION = 1
# n * n counts must stay under the reader's limit on a tensor's elements (ridgeline.store.payloads).
MAX_CLASSES = 4096


def confusion_matrix_content(class_names: Sequence[str]) -> bytes:
    """The plugin content naming the classes (what the reader parses back)."""
    return json.dumps({"version": CONTENT_VERSION, "class_names": list(class_names)}, ensure_ascii=False).encode()


def confusion_matrix(
    tag: str,
    y_true: Any,
    y_pred: Any,
    class_names: Any,
    *,
    method: str = "add_confusion_matrix",
) -> Summary:
    """Counts ``counts[i, j]`` of samples of true class i predicted as class j, for classes ``class_names``.

    ``y_true`` and ``y_pred`` are 1-D sequences of equal length (lists, numpy arrays, torch tensors) of class
    indices in ``[0, len(class_names))`` or of class names."""
    check_tag(tag, method=method)
    names = _class_names(class_names, method=method)
    truth = _labels(y_true, names, method=method, argument="y_true")
    predicted = _labels(y_pred, names, method=method, argument="y_pred")
    if truth.size != predicted.size:
        raise ValueError(
            f"{method}: y_true and y_pred must have the same length, got {truth.size} and {predicted.size}"
        )
    n = len(names)
    counts = np.bincount(truth * n + predicted, minlength=n * n).astype("<i8").reshape(n, n)
    proto = TensorProto(dtype=types_pb2.DT_INT64, tensor_shape=_shape(counts.shape), tensor_content=counts.tobytes())
    metadata = _metadata(CONFUSION_MATRIX_PLUGIN, confusion_matrix_content(names))
    # TensorBoard's data provider lists only values of a known data class; a plugin it has never heard of gets
    # none unless the writer says so, and its tensor would stay invisible.
    metadata.data_class = summary_pb2.DATA_CLASS_TENSOR
    return Summary(value=[Summary.Value(tag=tag, metadata=metadata, tensor=proto)])


def _class_names(value: Any, *, method: str) -> list[str]:
    if isinstance(value, str) or not isinstance(value, Sequence | np.ndarray):
        raise TypeError(f"{method}: class_names must be a list of strings, got {type(value).__name__}")
    names = list(value)
    if not names:
        raise ValueError(f"{method}: class_names must name at least one class, got an empty list")
    if len(names) > MAX_CLASSES:
        raise ValueError(f"{method}: class_names may name at most {MAX_CLASSES} classes, got {len(names)}")
    for index, name in enumerate(names):
        if not isinstance(name, str):
            raise TypeError(f"{method}: class_names[{index}] must be a string, got {type(name).__name__}")
        if not name:
            raise ValueError(f"{method}: class_names[{index}] must be a non-empty string, got ''")
    seen: dict[str, int] = {}
    for index, name in enumerate(names):
        if name in seen:
            raise ValueError(f"{method}: class_names must be distinct, got {name!r} at {seen[name]} and {index}")
        seen[name] = index
    return names


def _labels(value: Any, names: list[str], *, method: str, argument: str) -> np.ndarray:
    """``value`` as a 1-D int64 array of class indices, checked against the classes."""
    if isinstance(value, list | tuple) and value and all(isinstance(item, str) for item in value):
        index = {name: i for i, name in enumerate(names)}
        unknown = [item for item in value if item not in index]
        if unknown:
            raise ValueError(
                f"{method}: {argument} holds {len(unknown)} labels that are not in class_names "
                f"(the first is {unknown[0]!r})"
            )
        return np.fromiter((index[item] for item in value), dtype=np.int64, count=len(value))
    if isinstance(value, str) or not (isinstance(value, list | tuple | np.ndarray) or is_torch_tensor(value)):
        raise TypeError(
            f"{method}: {argument} must be a list, numpy array or torch tensor of class indices, "
            f"got {type(value).__name__}"
        )
    array = to_numpy(value, method=method, argument=argument)
    if array.ndim != 1:
        raise ValueError(f"{method}: {argument} must be 1-D (one label per sample), got shape {array.shape}")
    if array.dtype.kind == "b":
        raise TypeError(f"{method}: {argument} must hold integer class indices, got booleans")
    if array.dtype.kind == "f":
        whole = np.isfinite(array) & (array == np.round(array))
        if not whole.all():
            raise TypeError(f"{method}: {argument} must hold integer class indices, got {array[~whole][0].item()!r}")
    elif array.dtype.kind not in "iu":
        raise TypeError(f"{method}: {argument} must hold integer class indices, got dtype {array.dtype}")
    outside = (array < 0) | (array >= len(names))
    if outside.any():
        raise ValueError(
            f"{method}: {argument} holds {np.count_nonzero(outside)} labels outside 0..{len(names) - 1} "
            f"(class_names names {len(names)} classes; the first is {array[outside][0].item()!r})"
        )
    return array.astype(np.int64)
