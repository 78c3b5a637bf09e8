"""``GET /api/search``: one Searcher per app, created at the first search and refreshed (incrementally) whenever
ingest's generation moved, so a page searching as the user types costs a query, not a re-index."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request

from ridgeline.plugins.kit import OrjsonResponse, app_service, logdir_of
from ridgeline.search import Searcher, SearchError
from ridgeline.search.engine import MAX_QUERY

router = APIRouter()

_EXAMPLE = {
    "query": "tag:^train_",
    "mode": "pattern",
    "hits": [{"kind": "tag", "run": "resnet-a", "tag": "train_loss", "text": "train_loss", "step": None}],
    "runs": ["resnet-a"],
    "total": 1,
    "truncated": False,
    "took_ms": 0.4,
}
_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"description": "The hits", "content": {"application/json": {"example": _EXAMPLE}}},
    400: {
        "description": "A pattern RE2 rejects, a query that does not parse, or a question that cannot be "
        "translated; ``position`` is the 0-based offset in ``q`` the error points at (null when none)",
        "content": {
            "application/json": {"example": {"error": "invalid pattern '(abc': missing ): (abc", "position": 4}}
        },
    },
}


def searcher_for(request: Request) -> Searcher:
    """The app's one Searcher (built at the first search)."""
    return app_service(request, "searcher", lambda: Searcher(logdir_of(request)))


@router.get("/search", responses=_RESPONSES)
def search(
    request: Request,
    q: Annotated[
        str,
        Query(
            max_length=MAX_QUERY,
            description="a pattern (tag:^train_ AND hparam:lr=0\\.001), a run query, or a question (docs/search.md);"
            " one that does not parse is a 400 whose `position` points at the fault",
        ),
    ],
    limit: Annotated[int, Query(ge=0, le=100_000, description="at most this many hits (total counts them all)")] = 200,
    ignore_case: Annotated[bool, Query(description="match patterns without regard to case (like (?i))")] = False,
) -> OrjsonResponse:
    """``{"query", "mode": "pattern"|"query"|"question", "hits": [{"kind", "run", "tag", "text", "step"}],
    "runs": [run], "total", "truncated", "took_ms"}``. ``kind`` is run, tag, hparam, metadata, date, text or
    annotation; hits are listed by kind (in that order), then in run order; ``runs`` are the distinct runs
    selected, in run order. The pattern language: docs/search.md."""
    try:
        result = searcher_for(request).search(q, limit=limit, ignore_case=ignore_case)
    except SearchError as error:
        return OrjsonResponse({"error": error.message, "position": error.position}, status_code=400)
    return OrjsonResponse(result.to_json())
