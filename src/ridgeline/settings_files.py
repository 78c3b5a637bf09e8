"""Settings files (``.toml``, or ``.json`` with the same shape) read into a table, with errors that name the file."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any


def read_table(path: str | Path, what: str) -> dict[str, Any]:
    """The table of settings in ``path`` (``what`` names it in errors, e.g. "alert config"); ValueError says why
    it cannot be read, does not parse, or holds something other than a table."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ValueError(f"cannot read {what} {str(path)!r}: {error.strerror or error}") from None
    try:
        data = json.loads(text) if path.suffix.lower() == ".json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as error:
        raise ValueError(f"{what} {str(path)!r} does not parse: {error}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{what} {str(path)!r} must hold a table of settings")
    return data
