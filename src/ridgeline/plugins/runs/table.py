"""The Runs table's rows (``GET /api/runs/table``): per run its status and times (:mod:`ridgeline.store.status`),
last step, hyperparameters, the last value of each chosen scalar tag, its notes (Markdown, sent as written: the
page renders and sanitises them), the tags its notes declare (:mod:`ridgeline.plugins.runs.notes`), and the
traceback of a run that failed or crashed (from its end record, else from its captured console)."""

from __future__ import annotations

import math
from typing import Any

from ridgeline.format.tags import CONSOLE_TAG
from ridgeline.plugins.runs.notes import run_tags
from ridgeline.store.logdir import LogDir
from ridgeline.store.payloads import DecodeError
from ridgeline.store.trials import link_trials

MAX_METRICS = 20


def build_table(logdir: LogDir, metrics: list[str], crashed_after: float) -> dict[str, Any]:
    """Every run's row, and every scalar tag a run has (the metric columns one may choose)."""
    links = link_trials(logdir)
    rows = []
    scalar_tags: set[str] = set()
    for run in logdir.runs():
        try:
            row = _row(logdir, run, links.trial_of.get(run), metrics[:MAX_METRICS], crashed_after)
            scalar_tags.update(logdir.tags(run).get("scalars", []))
        except KeyError:  # vanished meanwhile
            continue
        row["attached_to"] = links.parent_of.get(run)
        rows.append(row)
    return {"runs": rows, "scalar_tags": sorted(scalar_tags), "metrics": metrics[:MAX_METRICS]}


def _row(logdir: LogDir, run: str, trial: str | None, metrics: list[str], crashed_after: float) -> dict[str, Any]:
    status = logdir.status(run, crashed_after=crashed_after)
    info = logdir.run_info(run)
    start, end = status.start_time, status.end_time
    last = end if end is not None else status.last_activity
    tags, notes = run_tags(logdir.notes(run))
    traceback = status.traceback
    if traceback is None and status.status in ("failed", "crashed"):
        traceback = logdir.traceback(run)
    return {
        "run": run,
        "status": status.status,
        "start_time": start,
        "end_time": end,
        "duration": last - start if start is not None and last is not None and last >= start else None,
        "last_activity": status.last_activity,
        "last_step": info.last_step,
        "hparams": _hparams(logdir, trial or run),
        "metrics": {tag: _last_value(logdir, run, tag) for tag in metrics},
        "notes": notes,
        "tags": tags,
        "error": status.error,
        "traceback": traceback,
        "has_logs": CONSOLE_TAG in info.tags.get("text", ()),
    }


def _hparams(logdir: LogDir, run: str) -> dict[str, Any]:
    try:
        record = logdir.hparams(run)
    except (DecodeError, KeyError):
        return {}
    if record is None:
        return {}
    return {name: _json(value) for name, value in record.hparams.items()}


def _last_value(logdir: LogDir, run: str, tag: str) -> float | None:
    try:
        series = logdir.scalars(run, tag)
    except KeyError:
        return None
    if not len(series):
        return None
    value = float(series.value[-1])
    return value if math.isfinite(value) else None


def _json(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)
