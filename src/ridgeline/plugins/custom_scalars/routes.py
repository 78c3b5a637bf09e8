"""Thin route of the custom scalars plugin: ``GET /api/custom_scalars`` -> the merged layout (``layout.py``).

The series themselves come from the scalars routes (``POST /api/scalars/batch``): a chart here only says which
tags to draw.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request

from ridgeline.plugins.custom_scalars.layout import merge_layouts, resolve_tags, run_tags
from ridgeline.plugins.kit import ApiError, OrjsonResponse, compile_regex, logdir_of, regex_query
from ridgeline.store.payloads import CustomScalarsLayout

router = APIRouter()

Runs = Annotated[
    list[str] | None,
    Query(description="only these runs (repeat the parameter for several); an unknown run is a 404"),
]
RunRegex = Annotated[str | None, regex_query("only runs whose name matches this regular expression")]


@router.get("/custom_scalars")
def custom_scalars(request: Request, run: Runs = None, run_regex: RunRegex = None) -> OrjsonResponse:
    """The layouts written by ``add_custom_scalars``, merged over the runs (by category title, like TensorBoard):

    ``{"runs": [runs that have a layout], "categories": [{"title", "closed", "runs", "charts": [chart]}],
    "problems": [{"run", "error"}]}`` where a chart is ``{"title", "kind": "multiline", "tags": [regex],
    "matched": [tag], "errors": [message]}`` (``matched``: the scalar tags of the runs that one of the regexes
    matches from the tag's start, as Python's ``re.match``; ``errors``: regexes that do not compile),
    ``{"title", "kind": "margin", "series": [{"value", "lower", "upper"}]}`` (three tag names per series), or
    ``{"title", "kind": "empty"}``. A layout that cannot be decoded is listed in ``problems`` and left out.
    No run has a layout: ``runs`` and ``categories`` are empty (not an error).
    """
    logdir = logdir_of(request)
    pattern = compile_regex(run_regex, "run_regex")
    known = logdir.runs()
    if run:
        missing = [name for name in run if name not in known]
        if missing:
            raise ApiError(404, f"no run {missing[0]!r}; runs: {known}")
        chosen = [name for name in known if name in set(run)]
    else:
        chosen = known
    if pattern is not None:
        chosen = [name for name in chosen if pattern.search(name)]
    layouts = []
    problems: list[dict[str, Any]] = []
    tags: dict[str, dict[str, list[str]]] = {}
    for name in chosen:
        try:
            tags[name] = logdir.tags(name)
            value = logdir.custom_scalars(name)
        except KeyError:  # the run vanished while we read
            continue
        except ValueError as error:  # DecodeError: a corrupt layout
            problems.append({"run": name, "error": str(error)})
            continue
        if isinstance(value, CustomScalarsLayout):
            layouts.append((name, value.layout))
    categories = merge_layouts(layouts)
    resolve_tags(categories, run_tags(tags))
    return OrjsonResponse({"runs": [name for name, _ in layouts], "categories": categories, "problems": problems})
