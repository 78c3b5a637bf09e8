"""The lines of a console record (``CONSOLE_TAG``, written by ``SummaryWriter(capture_console=True)``):
``<ISO time> <stream> <step or -> <text>``, e.g. ``2026-12-02T01:02:03.456Z stderr 120 Traceback ...``, readable as
they are in TensorBoard's text dashboard. The writer lays them out, the reader parses them back.
"""

from __future__ import annotations

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
    stamp = datetime.fromtimestamp(line.wall_time, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    return f"{stamp} {line.stream} {'-' if line.step is None else line.step} {line.text}"


_LINE = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})Z (stdout|stderr) (-|-?\d+) (.*)$", re.DOTALL)


def parse_line(text: str) -> ConsoleLine | None:
    """A line of a console record back (None when it is not one)."""
    match = _LINE.match(text)
    if match is None:
        return None
    when = datetime.strptime(match[1], "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=UTC).timestamp()
    step = None if match[3] == "-" else int(match[3])
    return ConsoleLine(when, match[2], step, match[4])
