"""Text summaries as the text dashboard shows them: one entry per step, plain text or a table of cells.

Like TensorBoard: a tensor of one string (rank 0, or the ``[1]`` that torch's ``add_text`` writes) is one
markdown text; rank 1 is a one-column table, rank 2 a table; above rank 2 the first 2-D slice is shown with a
warning. Markdown is rendered and sanitised by the browser (marked + DOMPurify), never here. Bytes that were
not valid UTF-8 arrive as U+FFFD (the decoder replaces them); the entry then says so, so the page can explain
the � characters. A value that cannot be decoded becomes an entry with an ``error`` instead of failing the
request.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ridgeline.store.logdir import Entry
from ridgeline.store.payloads import DecodeError

REPLACEMENT = "\ufffd"


def text_entries(entries: Iterable[Entry], since_step: int | None = None) -> list[dict[str, Any]]:
    """The API's ``steps`` list for ``entries`` (those with a step greater than ``since_step`` when given)."""
    return [text_entry(entry) for entry in entries if since_step is None or entry.step > since_step]


def text_entry(entry: Entry) -> dict[str, Any]:
    """``{"step", "wall_time", "shape"}`` plus ``text`` (one string) or ``table`` (rows of strings), with
    ``warning`` for a tensor above rank 2 and ``invalid_utf8`` when some bytes were not UTF-8; or ``error``."""
    head: dict[str, Any] = {"step": entry.step, "wall_time": entry.wall_time}
    try:
        array = np.asarray(entry.value.text, dtype=object)
    except (DecodeError, OSError) as error:
        return {**head, "error": f"this text cannot be read: {error}"}
    return {**head, **shape_text(array)}


def shape_text(array: np.ndarray) -> dict[str, Any]:
    """How one decoded text tensor (an object array of str) is shown; see the module docstring."""
    shape = list(array.shape)
    result: dict[str, Any] = {"shape": shape}
    if array.size == 0:
        result["text"] = ""
        result["warning"] = f"the text tensor is empty (shape {shape})"
        return result
    if array.ndim == 0 or (array.ndim == 1 and array.size == 1):
        result["text"] = str(array.reshape(-1)[0])
        cells = [result["text"]]
    else:
        if array.ndim > 2:
            result["warning"] = f"a rank-{array.ndim} text tensor (shape {shape}): showing its first 2-D slice"
            array = array[(0,) * (array.ndim - 2)]
        table = array.reshape(-1, 1) if array.ndim == 1 else array
        result["table"] = [[str(cell) for cell in row] for row in table.tolist()]
        cells = [cell for row in result["table"] for cell in row]
    if any(REPLACEMENT in cell for cell in cells):
        result["invalid_utf8"] = True
    return result
