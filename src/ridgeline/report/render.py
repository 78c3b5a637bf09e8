"""A report as one self-contained HTML file (inline CSS and SVG; nothing fetched, so it opens offline and can be
attached to a pull request) or as Markdown with its charts as SVG files beside it.

Every text that comes from the logs (run and tag names, hyperparameters, commands, messages) is escaped: a run
named ``<script>`` shows as those characters."""

from __future__ import annotations

import re
import time
from html import escape
from pathlib import Path

from ridgeline._version import __version__
from ridgeline.report.collect import Report
from ridgeline.report.svg import PHASE_COLOURS, line_chart
from ridgeline.report.tables import (
    Table,
    alerts_table,
    environment_rows,
    findings_table,
    forecasts_table,
    hparams_table,
    phases_table,
    runs_table,
)

CSS = """
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d1d1f; margin: 0 auto;
       max-width: 1100px; padding: 24px; background: #fff; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #ddd;
       padding-bottom: 4px; } h3 { font-size: 14px; margin: 14px 0 6px; }
.meta, .note, figcaption { color: #666; font-size: 12px; }
table { border-collapse: collapse; margin: 6px 0 12px; font-size: 12.5px; display: block; overflow-x: auto; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f5f5f7; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: 10px 0 18px; } svg { max-width: 100%; height: auto; }
code { font: 12px ui-monospace, monospace; word-break: break-all; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin: 0 4px 0 10px; }
details { margin: 4px 0; }
"""
CHART_CAPTION = (
    "Dashed: the forecast over the next 20% of the steps, inside its 90% band. "
    "Shading (single run) or strips under the axis (one per run): phases."
)
_NUMBER = re.compile(r"^-?[\d.,]+(e-?\d+)?$")


def _html_table(table: Table) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in table.headers)
    body = "".join(
        "<tr>"
        + "".join(f"<td{' class=num' if _NUMBER.match(cell) else ''}>{escape(cell)}</td>" for cell in row)
        + "</tr>"
        for row in table.rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _legend() -> str:
    names = {"warmup": "warm-up", "descent": "fast descent", "convergence": "convergence"}
    return "".join(
        f'<span class="swatch" style="background:{colour}"></span>{names[phase]}'
        for phase, colour in PHASE_COLOURS.items()
    )


def _generated() -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())


def render_html(report: Report) -> str:
    run_order = [run.name for run in report.runs]
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>Training report: {escape(report.logdir)}</title>",
        f"<style>{CSS}</style></head><body>",
        f"<h1>Training report: {escape(report.logdir)}</h1>",
        f'<p class="meta">{len(report.runs)} run{"s" if len(report.runs) != 1 else ""}; generated {_generated()} '
        f"by ridgeline {escape(__version__)}.</p>",
    ]
    parts += [f'<p class="note">{escape(note)}</p>' for note in report.notes]
    parts += ["<h2>Runs</h2>", _html_table(runs_table(report))]
    hparams = hparams_table(report)
    parts.append("<h2>Hyperparameters</h2>")
    parts.append(_html_table(hparams) if hparams else '<p class="note">No run recorded hyperparameters.</p>')
    parts.append("<h2>Charts</h2>")
    if report.charts:
        parts.append(f'<p class="meta">Phases: {_legend()}</p>')
    else:
        parts.append('<p class="note">No scalar series.</p>')
    for number, (tag, series) in enumerate(report.charts.items()):
        parts.append(f"<figure>{line_chart(tag, series, run_order, f'c{number}')}")
        parts.append(f"<figcaption>{escape(CHART_CAPTION)}</figcaption></figure>")
    findings = findings_table(report)
    parts.append("<h2>Diagnosis</h2>")
    if findings is None:
        parts.append('<p class="note">Not available.</p>')
    else:
        parts.append(_html_table(findings) if findings.rows else "<p>No problems found.</p>")
    alerts = alerts_table(report)
    parts.append("<h2>Alerts</h2>")
    if alerts is None:
        parts.append('<p class="note">Not available.</p>')
    elif not alerts.rows:
        parts.append("<p>No alerts.</p>")
    else:
        if report.alert_total > len(alerts.rows):
            parts.append(f'<p class="note">The first {len(alerts.rows)} of {report.alert_total} alerts.</p>')
        parts.append(_html_table(alerts))
    if report.charts:
        parts += ["<h2>Forecasts</h2>", _html_table(forecasts_table(report))]
        parts += ["<h2>Phases</h2>", _html_table(phases_table(report))]
    environment = environment_rows(report)
    if environment:
        parts.append("<h2>Environment</h2>")
        for run, fields in environment:
            rows = "".join(f"<tr><th>{escape(k)}</th><td><code>{escape(v)}</code></td></tr>" for k, v in fields)
            parts.append(f"<details><summary>{escape(run)}</summary><table>{rows}</table></details>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _md_cell(text: str) -> str:
    """Markdown table cell text: HTML-escaped (Markdown renders raw HTML), pipes and newlines neutralised."""
    return escape(text, quote=False).replace("|", "\\|").replace("\n", " ").replace("`", "\\`")


def _md_table(table: Table) -> str:
    lines = ["| " + " | ".join(_md_cell(h) for h in table.headers) + " |"]
    lines.append("|" + "|".join(" --- " for _ in table.headers) + "|")
    lines += ["| " + " | ".join(_md_cell(cell) for cell in row) + " |" for row in table.rows]
    return "\n".join(lines)


def _file_name(number: int, tag: str) -> str:
    return f"{number:02d}-{re.sub(r'[^A-Za-z0-9_.-]+', '_', tag).strip('_')[:60] or 'chart'}.svg"


def render_markdown(report: Report, output: Path, *, charts: bool = True) -> tuple[str, list[Path]]:
    """The Markdown text for ``output`` and the chart files written into ``<output stem>_charts/`` beside it
    (none with ``charts=False``), replacing the charts an earlier report left there."""
    run_order = [run.name for run in report.runs]
    lines = [
        f"# Training report: {_md_cell(report.logdir)}",
        "",
        f"{len(report.runs)} run{'s' if len(report.runs) != 1 else ''}; generated {_generated()} by ridgeline "
        f"{__version__}.",
        "",
    ]
    for note in report.notes:
        lines += [f"> {_md_cell(note)}", ""]
    lines += ["## Runs", "", _md_table(runs_table(report)), ""]
    hparams = hparams_table(report)
    lines += ["## Hyperparameters", "", _md_table(hparams) if hparams else "No run recorded hyperparameters.", ""]
    written: list[Path] = []
    if charts and report.charts:
        folder = output.parent / f"{output.stem}_charts"
        folder.mkdir(parents=True, exist_ok=True)
        for stale in folder.glob("[0-9][0-9]-*.svg"):  # an earlier report's charts (maybe more of them)
            stale.unlink()
        lines += ["## Charts", "", CHART_CAPTION + " Warm-up red, fast descent amber, convergence green.", ""]
        for number, (tag, series) in enumerate(report.charts.items()):
            path = folder / _file_name(number, tag)
            path.write_text(line_chart(tag, series, run_order, f"c{number}") + "\n", encoding="utf-8")
            written.append(path)
            lines += [f"![{_md_cell(tag)}]({folder.name}/{path.name})", ""]
    findings = findings_table(report)
    lines += ["## Diagnosis", ""]
    if findings is None:
        lines += ["Not available.", ""]
    else:
        lines += [_md_table(findings) if findings.rows else "No problems found.", ""]
    alerts = alerts_table(report)
    lines += ["## Alerts", ""]
    if alerts is None:
        lines += ["Not available.", ""]
    elif not alerts.rows:
        lines += ["No alerts.", ""]
    else:
        if report.alert_total > len(alerts.rows):
            lines += [f"The first {len(alerts.rows)} of {report.alert_total} alerts.", ""]
        lines += [_md_table(alerts), ""]
    if report.charts:
        lines += ["## Forecasts", "", _md_table(forecasts_table(report)), ""]
        lines += ["## Phases", "", _md_table(phases_table(report)), ""]
    environment = environment_rows(report)
    if environment:
        lines += ["## Environment", ""]
        for run, fields in environment:
            lines += [f"### {_md_cell(run)}", "", _md_table(Table(["", ""], [[k, v] for k, v in fields])), ""]
    return "\n".join(lines), written


__all__ = ["render_html", "render_markdown"]
