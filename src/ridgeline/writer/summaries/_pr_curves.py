"""Precision-recall curves, computed from labels and predictions or given as counts."""

from __future__ import annotations

from typing import Any

import numpy as np

from ridgeline.format.proto import plugins_pb2, types_pb2
from ridgeline.format.tags import PR_CURVES_PLUGIN
from ridgeline.writer.summaries._common import Summary, TensorProto, _metadata, _positive_int, _real_array, _shape
from ridgeline.writer.values import check_tag

_MAX_THRESHOLDS = 127  # torch clamps num_thresholds to 127
_MINIMUM_COUNT = 1e-7


def _pr_curve_value(tag: str, data: np.ndarray, num_thresholds: int) -> Summary:
    content = plugins_pb2.PrCurvePluginData(version=0, num_thresholds=num_thresholds).SerializeToString()
    proto = TensorProto(dtype=types_pb2.DT_FLOAT, float_val=data.reshape(-1).tolist(), tensor_shape=_shape(data.shape))
    return Summary(value=[Summary.Value(tag=tag, metadata=_metadata(PR_CURVES_PLUGIN, content), tensor=proto)])


def pr_curve(
    tag: str,
    labels: Any,
    predictions: Any,
    num_thresholds: int = 127,
    weights: Any = None,
    *,
    method: str = "add_pr_curve",
) -> Summary:
    """A precision-recall curve: rows TP, FP, TN, FN, precision, recall at ``min(num_thresholds, 127)`` thresholds."""
    check_tag(tag, method=method)
    thresholds = min(_positive_int(num_thresholds, method=method, argument="num_thresholds"), _MAX_THRESHOLDS)
    truth = _real_array(labels, method=method, argument="labels")
    scores = _real_array(predictions, method=method, argument="predictions")
    if truth.shape != scores.shape:
        raise ValueError(
            f"{method}: labels and predictions must have the same shape, got {truth.shape} and {scores.shape}"
        )
    outside = ~((scores >= 0) & (scores <= 1))  # NaN included
    if outside.any():
        raise ValueError(
            f"{method}: predictions must be probabilities in [0, 1], got {np.count_nonzero(outside)} outside it "
            f"(the first is {scores[outside][0].item()!r})"
        )
    if weights is None:
        weight: Any = 1.0
    else:
        weight = _real_array(weights, method=method, argument="weights")
        if weight.ndim and weight.shape != truth.shape:
            raise ValueError(
                f"{method}: weights must be a number or have the shape of labels {truth.shape}, got {weight.shape}"
            )
    # Same arithmetic, in the same dtypes, as TensorBoard's and torch's compute_curve.
    buckets = np.floor(scores * (thresholds - 1)).astype(np.int32)
    positive = truth.astype(np.float64)
    bucket_range = (0, thresholds - 1)
    tp_buckets = np.histogram(buckets, bins=thresholds, range=bucket_range, weights=positive * weight)[0]
    fp_buckets = np.histogram(buckets, bins=thresholds, range=bucket_range, weights=(1.0 - positive) * weight)[0]
    tp = np.cumsum(tp_buckets[::-1])[::-1]  # predicted positive at threshold i: bucket >= i
    fp = np.cumsum(fp_buckets[::-1])[::-1]
    tn = fp[0] - fp
    fn = tp[0] - tp
    precision = tp / np.maximum(_MINIMUM_COUNT, tp + fp)
    recall = tp / np.maximum(_MINIMUM_COUNT, tp + fn)
    return _pr_curve_value(tag, np.stack((tp, fp, tn, fn, precision, recall)), thresholds)


def pr_curve_raw(
    tag: str,
    true_positive_counts: Any,
    false_positive_counts: Any,
    true_negative_counts: Any,
    false_negative_counts: Any,
    precision: Any,
    recall: Any,
    num_thresholds: int = 127,
    weights: Any = None,
    *,
    method: str = "add_pr_curve_raw",
) -> Summary:
    """A precision-recall curve from six equally long 1-D arrays computed elsewhere (``weights`` is unused, as in
    torch)."""
    check_tag(tag, method=method)
    thresholds = min(_positive_int(num_thresholds, method=method, argument="num_thresholds"), _MAX_THRESHOLDS)
    named = {
        "true_positive_counts": true_positive_counts,
        "false_positive_counts": false_positive_counts,
        "true_negative_counts": true_negative_counts,
        "false_negative_counts": false_negative_counts,
        "precision": precision,
        "recall": recall,
    }
    rows = []
    for argument, value in named.items():
        row = _real_array(value, method=method, argument=argument)
        if row.ndim != 1:
            raise ValueError(f"{method}: {argument} must be 1-D (one value per threshold), got shape {row.shape}")
        rows.append(row.astype(np.float64))
    lengths = {row.size for row in rows}
    if len(lengths) > 1:
        listed = ", ".join(f"{argument}={row.size}" for argument, row in zip(named, rows, strict=True))
        raise ValueError(f"{method}: the six arrays must have the same length, got {listed}")
    return _pr_curve_value(tag, np.stack(rows), thresholds)
