"""The routes that are not a dashboard's: the run listing, annotations, hyperparameters, the plugin list, the
settings, the retention status.

``/api/runs`` is what a page polls at every reload interval, so its listing is rebuilt only when the store's
``generation`` moved (ingest added points, or a run appeared or vanished); the regex filters apply on top.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from ridgeline.plugins.kit import ApiError, OrjsonResponse, RunRegex, TagRegex, compile_regex, logdir_of, setting
from ridgeline.services.runs import RunIndex
from ridgeline.settings import describe
from ridgeline.store.selection import Matcher
from ridgeline.store.trials import link_trials

router = APIRouter()


@router.get("/runs")
async def runs(request: Request, run_regex: RunRegex = None, tag_regex: TagRegex = None) -> OrjsonResponse:
    """``{"runs": [{"run", "tags": {kind: [tag]}, "last_step", "last_wall_time", "annotations", "hparams_trial",
    "attached_to"}], "generation", "reload_interval", "logdir", "loading"}`` (``annotations``: how many the run
    has; ``hparams_trial``: the torch ``add_hparams`` sub-run whose hyperparameters the run has, ``attached_to``:
    for that sub-run, the run it is attached to; both null otherwise, see docs/hparams.md#torch-trials).
    ``tags`` has two kinds that are no event-file tags: ``projector`` (the run's embedding tags) and ``profile``
    (its profiler trace files). ``generation`` increases whenever ingest added data: a client compares it to skip
    refetching. With ``tag_regex``, each run lists only the matching tags (runs stay listed, possibly with no
    tags). ``loading`` is ``{"files_read", "files", "runs"}`` while the server's first pass over the log directory
    still runs (runs are listed as it reaches them; ``files`` is null until the log directory was listed), null
    once everything was read."""
    run_pattern = compile_regex(run_regex, "run_regex")
    tag_pattern = compile_regex(tag_regex, "tag_regex")
    index: RunIndex = request.app.state.services["run_index"]
    loading = request.app.state.loading()  # before the listing: once it says done, the listing has everything
    generation, listing = index.current()
    if run_pattern is not None:
        listing = [item for item in listing if run_pattern.search(item["run"])]
    if tag_pattern is not None:
        listing = [{**item, "tags": _filter_tags(item["tags"], tag_pattern)} for item in listing]
    return OrjsonResponse(
        {
            "runs": listing,
            "generation": generation,
            "reload_interval": request.app.state.reload_interval,
            "logdir": request.app.state.logdir_label,
            "loading": loading,
        }
    )


def _filter_tags(tags: dict[str, list[str]], pattern: Matcher) -> dict[str, list[str]]:
    kept = {kind: [tag for tag in names if pattern.search(tag)] for kind, names in tags.items()}
    return {kind: names for kind, names in kept.items() if names}


@router.get("/annotations")
def run_annotations(request: Request, run: str) -> OrjsonResponse:
    """``{"annotations": [{"step", "wall_time", "text"}]}``: what ``SummaryWriter.add_annotation`` recorded."""
    logdir = logdir_of(request)
    try:
        found = logdir.annotations_with_time(run)
    except KeyError as missing:
        raise ApiError(404, str(missing.args[0])) from None
    return OrjsonResponse(
        {"annotations": [{"step": step, "wall_time": wall, "text": text} for step, wall, text in found]}
    )


@router.get("/hparams")
def hparams(request: Request) -> OrjsonResponse:
    """``{"runs": {run: {name: value}}}``: each run's hyperparameters as written (number, string or bool); runs
    without any are left out. A run a torch ``add_hparams`` trial is attached to has the trial's
    (docs/hparams.md#torch-trials)."""
    logdir = logdir_of(request)
    links = link_trials(logdir)
    found: dict[str, Any] = {}
    for run in logdir.runs():
        try:
            recorded = logdir.hparams(links.hparams_run(run))
        except KeyError:  # the run vanished meanwhile
            continue
        if recorded is not None:
            found[run] = recorded.hparams
    return OrjsonResponse({"runs": found})


@router.get("/plugins")
async def plugins(request: Request) -> OrjsonResponse:
    """The names of the registered plugins, in registration order."""
    return OrjsonResponse({"plugins": request.app.state.plugins.names()})


@router.get("/settings")
async def settings(request: Request) -> OrjsonResponse:
    """``{"settings": {name: {"value", "is_set", "default", "env_var", "option", "commands", "secret", "help"}}}``:
    the settings this server runs with, one per entry of the settings table (docs/cli.md#settings). A secret's
    ``value`` is always null (``is_set`` says whether it is set); ``option`` is null for a setting only its
    environment variable sets."""
    return OrjsonResponse({"settings": describe(request.app.state.setting_values)})


@router.get("/retention")
async def retention(request: Request) -> OrjsonResponse:
    """``{"enabled": false}``, unless ``ridgeline serve --retention`` runs a policy; then ``{"enabled": true,
    "spec", "policy", "mode" ("dry-run", "delete" or "trash"), "trash", "every", "sweeps", "next",
    "removed_runs", "removed_bytes", "last", "error"}``, where ``last`` is what the latest sweep did (or, in a dry
    run, would do) as ``ridgeline clean --json`` prints it (docs/retention.md). Read-only: no request starts or
    changes a sweep."""
    status = setting(request, "retention")
    return OrjsonResponse(status.snapshot() if status is not None else {"enabled": False})
