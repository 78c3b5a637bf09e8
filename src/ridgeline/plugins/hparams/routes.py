"""Thin routes of the hparams dashboard: ``GET /api/hparams/table`` (trials x hyperparameters x metrics).

``GET /api/hparams`` (each run's hyperparameters alone, which the scalars dashboard groups runs by) stays
with the server's own routes. The table is rebuilt only when the store's generation moved: a page polls it
at every reload, and reading every trial's metrics again for nothing would cost more than answering.
"""

from __future__ import annotations

import threading
from typing import Annotated, Any

from fastapi import APIRouter, Request

from ridgeline.plugins.hparams.table import build_table
from ridgeline.plugins.kit import OrjsonResponse, app_service, compile_regex, logdir_of, regex_query
from ridgeline.store.logdir import LogDir

router = APIRouter()

RunRegex = Annotated[str | None, regex_query("only the trials whose run name matches this regular expression")]


class TableCache:
    """The last table built, with the store generation it was built at."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._generation = -1
        self._table: dict[str, Any] = {}

    def current(self, logdir: LogDir) -> dict[str, Any]:
        with self._lock:
            generation = logdir.generation  # read first: a pass ending meanwhile forces a rebuild
            if generation != self._generation:
                self._table = build_table(logdir)
                self._generation = generation
            return self._table


def _cache(request: Request) -> TableCache:
    return app_service(request, "hparams_table", TableCache)


@router.get("/hparams/table")
def hparams_table(request: Request, run_regex: RunRegex = None) -> OrjsonResponse:
    """``{"hparams": [{"name", "display_name", "description", "type", "declared_type", "domain"}],
    "metrics": [{"id", "group", "tag", "display_name", "description", "dataset_type", "goal"}],
    "metrics_source": "experiment" | "shared_tags", "experiments": [name],
    "trials": [{"run", "trial", "hparams": {name: value}, "metrics": {id: {"final", "final_step", "best", "best_step",
    "points"} | null}, "status", "start_time", "end_time", "group_name", "related_runs"}],
    "problems": [{"path", "offset", "reason"}]}`` (``problems``: hparams records that could not be read, e.g. a
    corrupt session start, whose trials are missing from ``trials``).

    A trial is a run with an hparams session start; a torch ``add_hparams`` trial attached to the run it was
    written from is listed under that run's name, ``trial`` naming the sub-run that holds it
    (docs/hparams.md#torch-trials). ``run_regex`` matches either name. Values are as written (number, string,
    bool; torch's 1.0/0.0 become true/false where the experiment declares the hparam a bool or its domain
    {0, 1}); ``type`` is "mixed" when trials disagree. Metrics: those the experiment summaries declare, else
    the scalar tags every trial shares; ``best`` is the smallest value when ``goal`` is "min" (losses, errors),
    else the largest. A non-finite final value is the string "NaN", "Infinity" or "-Infinity"."""
    pattern = compile_regex(run_regex, "run_regex")
    logdir = logdir_of(request)
    table = _cache(request).current(logdir)
    if pattern is not None:
        kept = [row for row in table["trials"] if pattern.search(row["run"]) or pattern.search(row["trial"])]
        table = {**table, "trials": kept}
    return OrjsonResponse(table)
