"""Sizes (``50GB``, ``500MiB``) and durations (``30d``, ``12h``, ``90m``, ``1d12h``) as users type them, and back.

Sizes take decimal units (kB, MB, GB, TB: powers of 1000, as disks are sold) and binary ones (KiB, MiB, GiB,
TiB: powers of 1024), in any case, with an optional ``B`` and space; a plain number is bytes. Durations take
``w``, ``d``, ``h``, ``m`` and ``s``, one or several (``1d12h``); a plain number is refused, since minutes and
days are both likely meanings. Every error is a :class:`UnitError` whose message says what was expected.
"""

from __future__ import annotations

import math
import re

__all__ = ["UnitError", "format_duration", "format_size", "parse_duration", "parse_size"]


class UnitError(ValueError):
    """A size or a duration that cannot be read; the message says what would be."""


_SIZE = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([a-zA-Z]*)\s*")
_SIZE_UNITS = {
    "": 1,
    "b": 1,
    "k": 10**3,
    "kb": 10**3,
    "m": 10**6,
    "mb": 10**6,
    "g": 10**9,
    "gb": 10**9,
    "t": 10**12,
    "tb": 10**12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
}
SIZE_HELP = "a number and a unit, e.g. 50GB, 500MiB or 1.5TB (kB/MB/GB/TB are powers of 1000, KiB/MiB/GiB/TiB of 1024)"

_NUMBER = r"(\d+(?:\.\d*)?|\.\d+)"
_DURATION_PART = re.compile(_NUMBER + r"\s*(w|d|h|min|m|s)\s*", re.IGNORECASE)
_DURATION = re.compile(r"\s*(?:" + _NUMBER + r"\s*(?:w|d|h|min|m|s)\s*)+", re.IGNORECASE)
_DURATION_UNITS = {"w": 7 * 86400, "d": 86400, "h": 3600, "min": 60, "m": 60, "s": 1}
DURATION_HELP = "a number and a unit, e.g. 30d, 12h, 90m or 1d12h (w, d, h, m, s)"


def parse_size(text: str) -> int:
    """``text`` as a number of bytes: ``50GB`` is 50,000,000,000, ``500MiB`` 524,288,000, ``1024`` 1,024."""
    found = _SIZE.fullmatch(text)
    unit = found.group(2).lower() if found else ""
    if found is None or unit not in _SIZE_UNITS:
        raise UnitError(f"{text!r} is not a size: use {SIZE_HELP}")
    return int(float(found.group(1)) * _SIZE_UNITS[unit])


def parse_duration(text: str) -> float:
    """``text`` in seconds: ``30d`` is 2,592,000, ``90m`` 5,400, ``1d12h`` 129,600."""
    if _DURATION.fullmatch(text) is None:
        raise UnitError(f"{text!r} is not a duration: use {DURATION_HELP}")
    return sum(float(part.group(1)) * _DURATION_UNITS[part.group(2).lower()] for part in _DURATION_PART.finditer(text))


def format_size(size: float) -> str:
    """``size`` bytes for people, in decimal units: ``1.2 GB``, ``512 kB``, ``17 B``."""
    for unit, scale in (("TB", 10**12), ("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if size >= scale:
            value = size / scale
            return f"{value:.1f} {unit}" if value < 100 else f"{value:.0f} {unit}"
    return f"{int(size)} B"


def format_duration(seconds: float) -> str:
    """A length of time for people, to the largest whole unit: ``45 days``, ``3 hours``, ``12 minutes``."""
    seconds = max(0.0, seconds)
    for unit, scale in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= scale:
            count = math.floor(seconds / scale)
            return f"{count} {unit}{'s' if count != 1 else ''}"
    count = math.floor(seconds)
    return f"{count} second{'s' if count != 1 else ''}"
