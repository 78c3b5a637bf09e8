"""Run colours and run order in the report, the same as the page's (web/src/app/palette.ts, runOrder.ts): runs in
natural order (numbers in names read as numbers, decimals included, path segment by path segment) take the
palette in that order, so the report and the page give the same runs the same colours."""

from __future__ import annotations

import re

# web/src/app/palette.ts's PALETTE, in its order (tests/report/test_colours.py checks that they agree).
PALETTE = (
    "#e50a7a", "#1bab49", "#1a54f0", "#958fb8", "#9a5505", "#a231d7", "#027972", "#fd5b0b",
    "#b4902e", "#825686", "#dd62dc", "#1d8ef5", "#c66876", "#cd1819", "#6c7e1e", "#9172ee",
    "#41a199", "#396cb0", "#b847a2", "#7142ee", "#9a795a", "#fe4f75", "#ae3d62", "#c86906",
)  # fmt: skip

_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")

SegmentKey = tuple[tuple[tuple[int, float | str], ...], str]


def colour(index: int) -> str:
    """The colour of the ``index``-th run in natural order."""
    return PALETTE[index % len(PALETTE)]


def run_sort_key(run: str) -> tuple[SegmentKey, ...]:
    """The natural order of run names (runOrder.ts' compareRuns): ``lr0.001`` < ``lr0.01`` < ``lr0.1``, a run's
    sub-runs right after it."""
    return tuple(_segment_key(segment) for segment in run.split("/"))


def _segment_key(segment: str) -> SegmentKey:
    parts: list[tuple[int, float | str]] = []
    last = 0
    for match in _NUMBER.finditer(segment):
        if match.start() > last:
            parts.append((1, segment[last : match.start()].lower()))
        parts.append((0, float(match.group())))
        last = match.end()
    if last < len(segment):
        parts.append((1, segment[last:].lower()))
    return tuple(parts), segment
