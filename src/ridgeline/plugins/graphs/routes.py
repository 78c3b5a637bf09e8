"""Thin route of the graphs plugin: ``GET /api/graphs`` (one graph record of a run, ready to draw). Shaping lives
in :mod:`ridgeline.plugins.graphs.model`; a built graph is kept for the next request (the page asks again on
every reload, and a GraphDef of thousands of nodes takes a while to turn into JSON)."""

from __future__ import annotations

from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from ridgeline.format.tags import GRAPH_TAG
from ridgeline.plugins.graphs.model import build
from ridgeline.plugins.kit import ApiError, logdir_of, missing_as_404
from ridgeline.services.recent import RecentAnswers
from ridgeline.store.payloads import DecodeError

router = APIRouter()

_CACHE_SIZE = 8
_cache: RecentAnswers[tuple[int, str, str, int, float], bytes] = RecentAnswers(_CACHE_SIZE)

GraphTag = Annotated[
    str | None,
    Query(description=f"the graph record's tag (default {GRAPH_TAG!r}, else the run's first graph tag)"),
]

_EXAMPLE = {
    "run": "cnn",
    "tag": GRAPH_TAG,
    "tags": [GRAPH_TAG],
    "format": "graph_def",
    "step": 0,
    "nodes": [
        {
            "name": "Net/Conv2d[conv1]/input.1",
            "op": "aten::_convolution",
            "device": "",
            "attrs": {"attr": "{}"},
            "shapes": ["1×8×32×32"],
            "dtype": None,
        }
    ],
    "edges": [
        {
            "source": "input/x",
            "target": "Net/Conv2d[conv1]/input.1",
            "output": 0,
            "control": False,
            "shape": "1×3×32×32",
        }
    ],
    "scopes": [{"name": "Net", "parent": None, "nodes": 1}, {"name": "Net/Conv2d[conv1]", "parent": "Net", "nodes": 1}],
    "missing_inputs": 0,
}


@router.get(
    "/graphs",
    responses={
        200: {"description": "the graph, ready to draw", "content": {"application/json": {"example": _EXAMPLE}}},
        400: {"description": "a missing or malformed parameter"},
        404: {"description": "unknown run, or the run has no graph (with that tag)"},
        422: {"description": "the graph record cannot be read (corrupt, or step statistics only)"},
    },
)
def graphs(request: Request, run: str, tag: GraphTag = None) -> Response:
    """One graph record of a run: ``{"run", "tag", "tags" (every graph tag of the run), "format", "step",
    "nodes": [{"name" (full, never shortened), "op", "device", "attrs": {name: readable text}, "shapes" (one per
    output, e.g. "1×3×32×32"; "?" unknown), "dtype"}], "edges": [{"source", "target", "output" (the source's
    output index), "control", "shape" (the shape of that output, else its dtype, else null)}], "scopes":
    [{"name", "parent", "nodes" (how many nodes at any depth)}] (parents first), "missing_inputs"}``.

    ``format`` is graph_def, meta_graph_def, run_metadata(_graph) (its function graphs, merged) or keras_model.
    A record that cannot be read answers 422 with the reason.
    """
    logdir = logdir_of(request)
    with missing_as_404(f"no run {run!r}"):
        tags = logdir.graph_tags(run)
    if not tags:
        raise ApiError(404, f"run {run!r} has no graph (write one with SummaryWriter.add_graph)")
    chosen = tag if tag else (GRAPH_TAG if GRAPH_TAG in tags else tags[0])
    if chosen not in tags:
        raise ApiError(404, f"run {run!r} has no graph tag {chosen!r}; it has: {tags}")
    with missing_as_404(f"no graph {run!r} / {chosen!r}"):
        entries = logdir.graphs(run, chosen)
    if not entries:
        raise ApiError(404, f"run {run!r} has no graph tag {chosen!r}; it has: {tags}")
    entry = entries[-1]
    key = (id(logdir), run, chosen, entry.step, entry.wall_time)

    def shaped_graph() -> bytes:
        try:
            value = entry.value
            shaped: dict[str, Any] = build(value)
        except DecodeError as problem:
            raise ApiError(422, f"the graph of run {run!r} ({chosen!r}) cannot be read: {problem}") from None
        head = {"run": run, "tag": chosen, "tags": tags, "format": value.format, "step": entry.step}
        return orjson.dumps({**head, **shaped})

    return Response(_cache.get(key, shaped_graph), media_type="application/json")
