"""Custom scalars layouts as the dashboard draws them: every run's layout (what ``add_custom_scalars`` wrote)
merged into one, and each multiline chart's tag regexes resolved to the scalar tags they match.

Merging follows TensorBoard: layouts are read run after run (in name order); a category whose title was seen
before gets the new charts appended (a chart equal to one it has is skipped), a new title adds a category.
Tag regexes match as TensorBoard's custom scalars plugin matches them, anchored at the start of the tag only
(``loss`` matches ``loss/train``), but compiled by RE2, not Python's ``re``: the layout is read from an event
file, and a backtracking pattern there must not freeze the server. RE2 takes Python's named groups and ``\\A``,
and Python's ``\\Z`` is read as RE2's ``\\z``; a lookaround or backreference is reported as the chart's
error. They are resolved here, on the server, so the page never runs a log file's pattern in JavaScript.

Pure: no I/O, tested alone. The route feeds it the LogDir's layouts and scalar tags.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from ridgeline.format.proto import custom_scalars_pb2
from ridgeline.store.selection import PatternError, compile_pattern


def chart_dict(chart: custom_scalars_pb2.Chart) -> dict[str, Any]:
    """One chart as JSON: ``{"title", "kind": "multiline", "tags": [regex]}``, ``{"title", "kind": "margin",
    "series": [{"value", "lower", "upper"}]}``, or ``{"title", "kind": "empty"}`` for a chart with neither."""
    content = chart.WhichOneof("content")
    if content == "multiline":
        return {"title": chart.title, "kind": "multiline", "tags": list(chart.multiline.tag)}
    if content == "margin":
        series = [{"value": s.value, "lower": s.lower, "upper": s.upper} for s in chart.margin.series]
        return {"title": chart.title, "kind": "margin", "series": series}
    return {"title": chart.title, "kind": "empty"}


def merge_layouts(layouts: Iterable[tuple[str, custom_scalars_pb2.Layout]]) -> list[dict[str, Any]]:
    """The categories of every ``(run, layout)`` merged by title, in first-seen order: ``[{"title", "closed",
    "runs", "charts"}]`` (``runs``: the runs whose layout has the category; ``closed``: as the first one says)."""
    categories: dict[str, dict[str, Any]] = {}
    for run, layout in layouts:
        for category in layout.category:
            merged = categories.get(category.title)
            if merged is None:
                merged = {"title": category.title, "closed": bool(category.closed), "runs": [], "charts": []}
                categories[category.title] = merged
            if run not in merged["runs"]:
                merged["runs"].append(run)
            for chart in category.chart:
                shaped = chart_dict(chart)
                if shaped not in merged["charts"]:
                    merged["charts"].append(shaped)
    return list(categories.values())


def resolve_tags(categories: list[dict[str, Any]], scalar_tags: Iterable[str]) -> None:
    """Adds to each multiline chart ``matched`` (the scalar tags, of any run, that one of its regexes matches,
    in sorted order) and ``errors`` (a message per regex that does not compile). Each distinct regex is compiled
    once and tried once per distinct tag."""
    tags = sorted(set(scalar_tags))
    found: dict[str, list[str] | str] = {}
    for category in categories:
        for chart in category["charts"]:
            if chart["kind"] != "multiline":
                continue
            matched: set[str] = set()
            errors: list[str] = []
            for pattern in chart["tags"]:
                if not pattern:
                    continue  # TensorBoard ignores an empty regex too
                result = found.get(pattern)
                if result is None:
                    result = found[pattern] = _match(pattern, tags)
                if isinstance(result, str):
                    errors.append(result)
                else:
                    matched.update(result)
            chart["matched"] = sorted(matched)
            chart["errors"] = errors


# Python's \Z (end of text) is RE2's \z; a \Z after an even number of backslashes is that escape.
_PYTHON_END = re.compile(r"(?<!\\)((?:\\\\)*)\\Z")


def _match(pattern: str, tags: list[str]) -> list[str] | str:
    # The layout comes from an event file, which anyone who can write into the log directory controls: RE2, so a
    # pattern cannot freeze the route (issue 13). Anchored at the start, as TensorBoard's re.match.
    try:
        regex = compile_pattern(_PYTHON_END.sub(r"\1\\z", pattern))
    except PatternError as error:
        shown = pattern if len(pattern) <= 200 else pattern[:200] + "..."
        return f"{shown!r} is not a valid regular expression: {error}"
    return [tag for tag in tags if regex.match(tag)]


def run_tags(tags_by_run: Mapping[str, Mapping[str, list[str]]]) -> set[str]:
    """Every scalar tag of the given runs (``{run: {kind: [tag]}}``, as ``LogDir.tags`` gives per run)."""
    return {tag for kinds in tags_by_run.values() for tag in kinds.get("scalars", [])}
