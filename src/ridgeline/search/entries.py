"""How a run's searchable facts are written as entry texts: hyperparameters as one ``lr=0.001 batch_size=64``
line, run metadata lines, dates in two spellings, the lines of a text summary."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np


def format_value(value: Any) -> str:
    """A hyperparameter value as a user wrote it: 64 not 64.0, 0.001, true/false, strings as they are."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer() and abs(value) < 1e16:
            return str(int(value))
        return repr(value)
    if value is None:
        return "null"
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    return json.dumps(value, sort_keys=True, default=str)


def hparams_line(hparams: dict[str, Any], order: Sequence[str] = ()) -> str:
    """``lr=0.001 batch_size=64 dropout=0.2``: the run's hyperparameters in ``order`` (the order they were written
    in, as the run's hparams experiment lists them: torch's ``add_hparams`` and TF2's ``hp.hparams_config`` write
    one), then any others by name in alphabetical order. The session's own map does not keep the written order
    (protobuf writes map entries in hash order), so alphabetical is the only stable order without an experiment."""
    known = [key for key in dict.fromkeys(order) if key in hparams]
    rest = sorted(key for key in hparams if key not in set(known))
    return " ".join(f"{key}={format_value(hparams[key])}" for key in known + rest)


def metadata_lines(info: dict[str, Any] | None) -> list[str]:
    """``host=...``, ``command=...``, ``git=<commit>``... from what the writer recorded about the run."""
    if not info:
        return []
    lines = []
    for key in ("host", "command", "cwd", "python", "platform"):
        value = info.get(key)
        if isinstance(value, list):
            value = " ".join(str(part) for part in value)
        if value not in (None, ""):
            lines.append(f"{key}={value}")
    git = info.get("git")
    if isinstance(git, dict) and git.get("commit"):
        lines.append(f"git={git['commit']}" + (" dirty" if git.get("dirty") else ""))
    versions = info.get("versions")
    if isinstance(versions, dict) and versions:
        lines.append("versions=" + " ".join(f"{name}={version}" for name, version in sorted(versions.items())))
    return lines


def date_texts(when: float) -> tuple[str, ...]:
    """``20241105143000`` and ``2024-11-05T14:30:00``: a wall time in this machine's local time zone; none for a
    wall time that is no date (NaN, ±Inf, or past what time_t or datetime holds: a flipped bit), which the routes
    still show as a number."""
    try:
        moment = datetime.fromtimestamp(when)
    except (ValueError, OverflowError, OSError):
        return ()
    return moment.strftime("%Y%m%d%H%M%S"), moment.strftime("%Y-%m-%dT%H:%M:%S")


def lines_of(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def text_lines(value: Any) -> list[str]:
    """The non-empty lines of a decoded text value (a string, or a numpy array of strings: a table's cells)."""
    cells = np.asarray(getattr(value, "text", value)).reshape(-1)
    lines: list[str] = []
    for cell in cells.tolist():
        text = cell.decode("utf-8", "replace") if isinstance(cell, bytes) else str(cell)
        lines.extend(lines_of(text))
    return lines
