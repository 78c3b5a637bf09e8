"""Confusion matrices as the dashboard draws them: per step, the class names and the [n, n] counts (rows: true
class, columns: predicted class).

A tensor of the wrong shape or type, or a record that cannot be read, becomes an entry with an ``error`` (the card
says what is wrong) instead of failing the request.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ridgeline.store.logdir import Entry
from ridgeline.store.payloads import ConfusionMatrix, DecodeError


def matrix_entries(entries: Iterable[Entry], since_step: int | None = None) -> list[dict[str, Any]]:
    """The API's ``steps`` list for ``entries`` (those with a step greater than ``since_step`` when given)."""
    return [matrix_entry(entry) for entry in entries if since_step is None or entry.step > since_step]


def matrix_entry(entry: Entry) -> dict[str, Any]:
    """``{"step", "wall_time", "class_names", "counts"}`` or ``{"step", "wall_time", "error"}``."""
    head: dict[str, Any] = {"step": entry.step, "wall_time": entry.wall_time}
    try:
        matrix = entry.value
    except (DecodeError, OSError) as error:
        return {**head, "error": f"this confusion matrix cannot be read: {error}"}
    if not isinstance(matrix, ConfusionMatrix):
        return {**head, "error": f"this confusion matrix cannot be read: it decoded to {type(matrix).__name__}"}
    return {**head, "class_names": list(matrix.class_names), "counts": matrix.counts.tolist()}
