"""A report's content as plain tables of text, shared by the HTML and Markdown renderers (each escapes for its own
format): the runs and their environment, hyperparameters, forecasts, phases, diagnosis and alerts."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from ridgeline.report.collect import Report, SeriesInfo
from ridgeline.report.svg import label

MAX_HPARAM_COLUMNS = 40


@dataclass
class Table:
    headers: list[str]
    rows: list[list[str]]


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return label(value)
    return str(value)


def _when(seconds: Any) -> str:
    if not isinstance(seconds, int | float) or seconds <= 0:
        return ""
    try:
        return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(seconds))
    except (ValueError, OverflowError, OSError):  # NaN, ±Inf, past time_t: no date, the number itself
        return str(seconds)


def runs_table(report: Report) -> Table:
    rows = []
    for run in report.runs:
        meta = run.metadata or {}
        git = meta.get("git") or {}
        commit = str(git.get("commit", ""))[:10] + (" (dirty)" if git.get("dirty") else "") if git else ""
        versions = meta.get("versions") or {}
        rows.append(
            [
                run.name,
                _text(run.last_step),
                _text(meta.get("host")),
                _when(meta.get("start_time") or run.first_wall_time),
                commit,
                _text(meta.get("python")),
                _text(versions.get("torch")),
            ]
        )
    return Table(["run", "last step", "host", "started", "git commit", "python", "torch"], rows)


def environment_rows(report: Report) -> list[tuple[str, list[tuple[str, str]]]]:
    """Per run with metadata: (run, [(field, text)]) with the command line, directory, platform and versions."""
    out = []
    for run in report.runs:
        meta = run.metadata
        if not meta:
            continue
        command = meta.get("command")
        fields = [
            ("command", " ".join(map(str, command)) if isinstance(command, list) else _text(command)),
            ("working directory", _text(meta.get("cwd"))),
            ("host", _text(meta.get("host"))),
            ("pid", _text(meta.get("pid"))),
            ("platform", _text(meta.get("platform"))),
            ("python", _text(meta.get("python"))),
        ]
        git = meta.get("git") or {}
        if git:
            fields.append(("git", f"{git.get('commit', '')}{' (uncommitted changes)' if git.get('dirty') else ''}"))
        for module, version in sorted((meta.get("versions") or {}).items()):
            fields.append((module, _text(version)))
        out.append((run.name, [(name, text) for name, text in fields if text]))
    return out


def hparams_table(report: Report) -> Table | None:
    names: dict[str, None] = {}
    for run in report.runs:
        for name in run.hparams:
            names.setdefault(name)
    if not names:
        return None
    columns = list(names)[:MAX_HPARAM_COLUMNS]
    rows = [[run.name, *(_text(run.hparams.get(name)) for name in columns)] for run in report.runs if run.hparams]
    return Table(["run", *columns], rows)


def _all_series(report: Report) -> list[SeriesInfo]:
    return [s for series in report.charts.values() for s in series]


def forecasts_table(report: Report) -> Table:
    rows = []
    for s in _all_series(report):
        if s.forecast is None:
            rows.append([s.run, s.tag, _text(s.last_step), _text(s.last_value), "too few points", "", "", ""])
            continue
        final = s.forecast.as_dict()["final"]
        assert isinstance(final, dict)
        rows.append(
            [
                s.run,
                s.tag,
                _text(s.last_step),
                _text(s.last_value),
                s.forecast.model.replace("_", " "),
                _text(final["step"]),
                _text(final["value"]),
                f"{label(final['low'])} … {label(final['high'])}",
            ]
        )
    headers = ["run", "tag", "last step", "last value", "model", "at step", "expected", "90% band"]
    return Table(headers, rows)


def phases_table(report: Report) -> Table:
    rows = []
    for s in _all_series(report):
        found = {seg.phase: f"{seg.start_step}–{seg.end_step}" for seg in s.phases}
        if not s.phases:
            found = {"descent": "too few points"}
        rows.append([s.run, s.tag, found.get("warmup", "—"), found.get("descent", "—"), found.get("convergence", "—")])
    return Table(["run", "tag", "warm-up", "fast descent", "convergence"], rows)


def findings_table(report: Report) -> Table | None:
    if report.findings is None:
        return None
    rows = [
        [
            str(f["run"]),
            str(f["kind"]).replace("_", " "),
            f"{float(f['confidence']):.0%}",
            _text(f.get("step")),
            ", ".join(map(str, f.get("tags", []))),
            str(f.get("message", "")),
        ]
        for f in report.findings
    ]
    return Table(["run", "finding", "confidence", "from step", "tags", "what it means"], rows)


def alerts_table(report: Report) -> Table | None:
    if report.alerts is None:
        return None
    rows = []
    for a in report.alerts:
        low, high = a.get("expected_low"), a.get("expected_high")
        expected = f"{label(low)} … {label(high)}" if low is not None and high is not None else ""
        value = a.get("value")
        rows.append(
            [
                str(a["run"]),
                str(a["tag"]),
                _text(a["step"]),
                str(a["kind"]),
                label(value) if isinstance(value, int | float) else str(a["kind"]),
                expected,
            ]
        )
    return Table(["run", "tag", "step", "kind", "value", "expected range"], rows)


__all__ = [
    "Table",
    "alerts_table",
    "environment_rows",
    "findings_table",
    "forecasts_table",
    "hparams_table",
    "phases_table",
    "runs_table",
]
