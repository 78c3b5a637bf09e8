"""A run's Logs view (``GET /api/runs/logs``): the console lines it captured (``SummaryWriter(capture_console=True)``,
read by ``LogDir.console``), each with its position in the run's lines, so a page following a growing run asks
only for the lines after the last it has (``since``), optionally only those a pattern matches (RE2, linear time)."""

from __future__ import annotations

from typing import Any

from ridgeline.store.logdir import LogDir
from ridgeline.store.selection import Matcher

MAX_LINES = 5000


def log_lines(
    logdir: LogDir, run: str, pattern: Matcher | None, since: int, stream: str | None, limit: int = MAX_LINES
) -> dict[str, Any]:
    """Lines ``since`` on (by position) that match; ``next`` is where the following poll starts. At most ``limit``
    lines are sent, the last ones (``truncated`` says so): a follower wants the end of the log."""
    lines = logdir.console(run)
    found = []
    for index in range(max(0, since), len(lines)):
        line = lines[index]
        if stream is not None and line.stream != stream:
            continue
        if pattern is not None and pattern.search(line.text) is None:
            continue
        found.append(
            {"index": index, "wall_time": line.wall_time, "stream": line.stream, "step": line.step, "text": line.text}
        )
    truncated = len(found) > limit
    return {"run": run, "lines": found[-limit:], "next": len(lines), "total": len(lines), "truncated": truncated}
