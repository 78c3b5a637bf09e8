"""Thin routes of the text plugin: ``GET /api/text`` (every step of one run's tag) and ``GET /api/text/runinfo``
(what ridgeline's writer recorded about each run). Shaping lives in :mod:`ridgeline.plugins.text.values`."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request

from ridgeline.plugins.kit import OrjsonResponse, logdir_of, missing_as_404
from ridgeline.plugins.text.values import text_entries

router = APIRouter()

SinceStep = Annotated[int | None, Query(description="only the steps greater than this (live polling)")]


@router.get("/text")
def text(request: Request, run: str, tag: str, since_step: SinceStep = None) -> OrjsonResponse:
    """Every step of a text tag: ``{"run", "tag", "steps": [{"step", "wall_time", "shape", ...}]}``.

    Each step has ``text`` (one markdown string) or ``table`` (rows of markdown cells, for a rank-1 or rank-2
    tensor), optionally ``warning`` (a rank above 2: the first 2-D slice is shown) and ``invalid_utf8: true``
    (bytes that were not UTF-8 are shown as U+FFFD); a step that cannot be decoded has ``error`` instead.
    Markdown is sent as written: the page renders and sanitises it.
    """
    logdir = logdir_of(request)
    with missing_as_404(f"no text {run!r} / {tag!r}"):
        entries = logdir.text(run, tag)
    return OrjsonResponse({"run": run, "tag": tag, "steps": text_entries(entries, since_step)})


@router.get("/text/runinfo")
def run_info(request: Request) -> OrjsonResponse:
    """``{"runs": {run: metadata}}``: what ridgeline's writer recorded about each run that has it (host, command,
    git commit, versions; see ``ridgeline.writer.run_metadata``), shown as a line under the runs' texts."""
    logdir = logdir_of(request)
    found = {}
    for run in logdir.runs():
        try:
            metadata = logdir.run_metadata(run)
        except (KeyError, ValueError, OSError):
            continue
        if metadata:
            found[run] = metadata
    return OrjsonResponse({"runs": found})
