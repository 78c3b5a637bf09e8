"""Thin routes of the Runs dashboard; the rows are built in :mod:`ridgeline.plugins.runs.table`, the log lines in
:mod:`ridgeline.plugins.runs.logs`."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request

from ridgeline.plugins.kit import OrjsonResponse, compile_regex, logdir_of, missing_as_404, regex_query, setting
from ridgeline.plugins.runs.logs import MAX_LINES, log_lines
from ridgeline.plugins.runs.table import build_table

router = APIRouter()

Metrics = Annotated[
    str | None, Query(max_length=20_000, description="scalar tags whose last value each row shows, one per line")
]
LineRegex = Annotated[str | None, regex_query("only the lines whose text matches this regular expression")]


@router.get("/runs/table")
def runs_table(request: Request, metrics: Metrics = None) -> OrjsonResponse:
    """``{"runs": [{"run", "status", "start_time", "end_time", "duration", "last_activity", "last_step", "hparams",
    "metrics": {tag: last value}, "notes": [markdown], "tags", "error", "traceback", "has_logs", "attached_to"}],
    "scalar_tags", "metrics", "crashed_after"}``. ``status`` is running, finished, failed, crashed or stopped
    (docs/runs.md); ``notes`` are sent as written, without their tags declaration (the page sanitises them)."""
    crashed_after = float(setting(request, "crashed_after"))
    chosen = [tag for tag in (metrics or "").split("\n") if tag]
    table = build_table(logdir_of(request), chosen, crashed_after)
    return OrjsonResponse({**table, "crashed_after": crashed_after})


@router.get("/runs/logs")
def runs_logs(
    request: Request,
    run: str,
    regex: LineRegex = None,
    since: Annotated[int, Query(ge=0, description="only lines from this position on (the last answer's next)")] = 0,
    stream: Annotated[Literal["stdout", "stderr"] | None, Query(description="only this stream's lines")] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LINES, description="at most this many lines (the last ones)")] = MAX_LINES,
) -> OrjsonResponse:
    """``{"run", "lines": [{"index", "wall_time", "stream", "step", "text"}], "next", "total", "truncated"}``: the
    console lines the run captured, from ``since`` on, those ``regex`` matches (an invalid pattern is a 400 that
    says why). A run without captured lines answers no lines; an unknown run is a 404."""
    pattern = compile_regex(regex, "regex")
    logdir = logdir_of(request)
    with missing_as_404(f"no run {run!r}"):
        logdir.run_info(run)
        return OrjsonResponse(log_lines(logdir, run, pattern, since, stream, limit))
