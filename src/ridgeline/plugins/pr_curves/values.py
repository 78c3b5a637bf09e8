"""PR curves as the dashboard draws them: per step, the thresholds and the six rows of TensorBoard's
``[6, num_thresholds]`` tensor (TP, FP, TN, FN, precision, recall).

A tensor of the wrong shape or type, or a record that cannot be read, becomes an entry with an ``error`` (the
card says what is wrong) instead of failing the request. NaN and ±Inf travel as JSON ``null``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ridgeline.store.logdir import Entry
from ridgeline.store.payloads import DecodeError, PrCurve

ROWS = ("tp", "fp", "tn", "fn", "precision", "recall")


def pr_entries(entries: Iterable[Entry], since_step: int | None = None) -> list[dict[str, Any]]:
    """The API's ``steps`` list for ``entries`` (those with a step greater than ``since_step`` when given)."""
    return [pr_entry(entry) for entry in entries if since_step is None or entry.step > since_step]


def pr_entry(entry: Entry) -> dict[str, Any]:
    """``{"step", "wall_time", "thresholds", "tp", "fp", "tn", "fn", "precision", "recall"}`` or ``error``."""
    head: dict[str, Any] = {"step": entry.step, "wall_time": entry.wall_time}
    try:
        curve = entry.value
    except (DecodeError, OSError) as error:
        return {**head, "error": f"this PR curve cannot be read: {error}"}
    if not isinstance(curve, PrCurve):
        return {**head, "error": f"this PR curve cannot be read: it decoded to {type(curve).__name__}"}
    return {**head, "thresholds": curve.thresholds, **{row: getattr(curve, row) for row in ROWS}}
