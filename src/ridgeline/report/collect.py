"""What a training report holds, gathered from a log directory: each run's environment and hyperparameters, the
key scalar series (losses, accuracies) with their phases and forecasts, the alerts and the diagnosis.

The alerts (``ridgeline.services.alerts``) and the diagnosis (``...insights.diagnosis_reader``) are
read when those modules are installed; a report without them says so instead of failing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ridgeline.analysis.downsample import minmax_indices
from ridgeline.analysis.forecast import Forecast, ForecastError, forecast
from ridgeline.analysis.phases import Segment, progress_of, segment
from ridgeline.report.colours import run_sort_key
from ridgeline.store.logdir import LogDir
from ridgeline.store.selection import PatternError, compile_pattern
from ridgeline.store.trials import TrialLinks, link_trials

KEY_TAG = re.compile(r"loss|acc|error|perplexity|ppl|f1|auc|top.?1|top.?5|bleu|reward", re.IGNORECASE)
MAX_KEY_TAGS = 8  # charts in a report: a pull request page, not a dashboard
MIN_CHART_POINTS = 10
CHART_POINTS = 400  # points drawn per series (min/max kept per bucket)
MAX_ALERTS = 200


@dataclass
class SeriesInfo:
    """One run's series of a key tag, reduced for drawing, with its phases and forecast (None when too short)."""

    run: str
    tag: str
    step: np.ndarray
    value: np.ndarray
    last_step: int
    last_value: float | None
    points: int
    phases: list[Segment]
    forecast: Forecast | None


@dataclass
class RunInfo:
    name: str
    metadata: dict[str, Any] | None
    hparams: dict[str, Any]
    scalar_tags: list[str]
    last_step: int | None
    # The wall time of the run's first scalar point: when it started, for runs without ridgeline's metadata.
    first_wall_time: float | None = None


@dataclass
class Report:
    logdir: str
    runs: list[RunInfo]
    charts: dict[str, list[SeriesInfo]]  # key tag -> the runs' series
    alerts: list[dict[str, Any]] | None  # None: the alert detector is not available
    alert_total: int
    findings: list[dict[str, Any]] | None  # None: the diagnosis is not available
    notes: list[str] = field(default_factory=list)


def key_tags(logdir: LogDir, runs: list[str]) -> list[str]:
    """The tags worth a chart: losses, accuracies and the like (by name), in first-seen order, at most
    ``MAX_KEY_TAGS``; when no tag looks like one, the first scalar tags. A tag needs a run with at least
    ``MIN_CHART_POINTS`` points (a final metric logged once is no curve)."""
    seen: dict[str, None] = {}
    for run in runs:
        for tag in logdir.tags(run).get("scalars", []):
            if len(logdir.scalars(run, tag)) >= MIN_CHART_POINTS:
                seen.setdefault(tag)
    tags = list(seen)
    key = [tag for tag in tags if KEY_TAG.search(tag)]
    return (key or tags)[:MAX_KEY_TAGS]


def _series(logdir: LogDir, run: str, tag: str) -> SeriesInfo:
    data = logdir.scalars(run, tag)
    step = np.asarray(data.step, dtype=np.int64)
    value = np.asarray(data.value, dtype=np.float64)
    finite = np.isfinite(value)
    keep = minmax_indices(step[finite], value[finite], CHART_POINTS) if finite.any() else np.array([], np.int64)
    try:
        predicted: Forecast | None = forecast(step, value)
    except ForecastError:
        predicted = None
    last = value[finite][-1] if finite.any() else None
    return SeriesInfo(
        run=run,
        tag=tag,
        step=step[finite][keep],
        value=value[finite][keep],
        last_step=int(step[-1]) if len(step) else 0,
        last_value=None if last is None else float(last),
        points=len(step),
        phases=segment(step, value, progress_of(tag)),
        forecast=predicted,
    )


def _hparams(logdir: LogDir, run: str, links: TrialLinks) -> dict[str, Any]:
    """The run's hyperparameters: a torch trial's are its parent run's (docs/hparams.md#torch-trials)."""
    if run in links.parent_of:
        return {}  # the run it is attached to lists them
    record = logdir.hparams(links.hparams_run(run))
    return dict(record.hparams) if record is not None else {}


def _alerts(logdir: LogDir, runs: list[str]) -> tuple[list[dict[str, Any]] | None, int]:
    try:
        from ridgeline.services.alerts import AlertMonitor
    except ImportError:
        return None, 0
    monitor = AlertMonitor(logdir)
    monitor.advance()
    wanted = set(runs)
    found = [alert.to_json() for alert in monitor.alerts()[0] if alert.run in wanted]
    return found[:MAX_ALERTS], len(found)


def _findings(logdir: LogDir, runs: list[str]) -> list[dict[str, Any]] | None:
    try:
        from ridgeline.services.diagnosis import diagnose_logdir
    except ImportError:
        return None
    wanted = set(runs)
    return [f.to_dict() for f in diagnose_logdir(logdir, runs) if f.run in wanted or set(f.runs) & wanted]


def collect(
    logdir: LogDir,
    label: str,
    run_pattern: str = "",
    *,
    advance: Callable[[str], None] = lambda what: None,
) -> Report:
    """Everything a report shows for the runs matching ``run_pattern`` (a regular expression, ``search``).
    ``advance(what)`` is called as each step finishes (progress bars). Raises ValueError for a bad pattern."""
    try:
        pattern = compile_pattern(run_pattern)
    except PatternError as error:
        raise ValueError(f"--run {run_pattern!r} is not a valid regular expression: {error}") from error
    # In the page's order (natural: lr0.001 before lr0.01), which also gives the runs the page's colours.
    runs = sorted((run for run in logdir.runs() if pattern.search(run)), key=run_sort_key)
    infos = []
    links = link_trials(logdir)
    for run in runs:
        tags = logdir.tags(run).get("scalars", [])
        curves = [logdir.scalars(run, tag) for tag in tags]
        last = max((int(c.step[-1]) for c in curves if len(c)), default=None)
        first = min((float(c.wall_time.min()) for c in curves if len(c)), default=None)
        infos.append(RunInfo(run, logdir.run_metadata(run), _hparams(logdir, run, links), tags, last, first))
    charts: dict[str, list[SeriesInfo]] = {}
    unchartable = []
    for tag in key_tags(logdir, runs):
        series = [_series(logdir, run, tag) for run in runs if tag in logdir.tags(run).get("scalars", [])]
        if any(len(info.value) for info in series):
            charts[tag] = series
        else:  # NaN/Inf only: an empty chart would say less than a line
            unchartable.append(tag)
        advance(f"charted {tag}")
    alerts, total = _alerts(logdir, runs)
    advance("alerts")
    findings = _findings(logdir, runs)
    advance("diagnosis")
    notes = [f"{tag}: no finite value to chart (NaN or infinite only)." for tag in unchartable]
    if alerts is None:
        notes.append("Alerts are not available in this installation (ridgeline.analysis.anomaly is missing).")
    if findings is None:
        notes.append("The diagnosis is not available in this installation (ridgeline.analysis.diagnosis is missing).")
    return Report(label, infos, charts, alerts, total, findings, notes)


def steps_total(logdir: LogDir, run_pattern: str) -> int:
    """How many ``advance`` calls :func:`collect` makes (the progress bar's total; 0 for a bad pattern)."""
    try:
        pattern = compile_pattern(run_pattern)
    except PatternError:
        return 0
    # In the page's order (natural: lr0.001 before lr0.01), which also gives the runs the page's colours.
    runs = sorted((run for run in logdir.runs() if pattern.search(run)), key=run_sort_key)
    return len(key_tags(logdir, runs)) + 2


__all__ = ["Report", "RunInfo", "SeriesInfo", "collect", "key_tags", "steps_total"]
