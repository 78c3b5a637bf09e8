"""The lines of a console record (``CONSOLE_TAG``, written by ``SummaryWriter(capture_console=True)``):
``<ISO time> <stream> <step or -> <text>``, e.g. ``2026-12-02T01:02:03.456Z stderr 120 Traceback ...``, readable as
they are in TensorBoard's text dashboard. The writer lays them out, the reader parses them back.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import UTC, datetime


@dataclass(frozen=True, slots=True)
class ConsoleLine:
    wall_time: float
    stream: str  # "stdout" or "stderr"
    step: int | None
    text: str


def format_line(line: ConsoleLine) -> str:
    seconds = int(line.wall_time)
    millis = min(999, int((line.wall_time - seconds) * 1000))
    return f"{_second(seconds)}.{millis:03d}Z {line.stream} {'-' if line.step is None else line.step} {line.text}"


@functools.lru_cache(maxsize=4)
def _second(seconds: int) -> str:
    """``YYYY-MM-DDTHH:MM:SS`` of a Unix second (lines come many to a second: strftime once per second)."""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S")


_LINE = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})Z (stdout|stderr) (-|-?\d+) (.*)$", re.DOTALL)


def parse_line(text: str) -> ConsoleLine | None:
    """A line of a console record back (None when it is not one)."""
    match = _LINE.match(text)
    if match is None:
        return None
    when = datetime.strptime(match[1], "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=UTC).timestamp()
    step = None if match[3] == "-" else int(match[3])
    return ConsoleLine(when, match[2], step, match[4])
