"""``ridgeline compare``: two runs side by side — each chosen tag's last and best value, the difference and relative
change, the hyperparameters that differ, and the runs' durations — as a table, Markdown, JSON or an HTML page with
small charts."""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
import orjson
from rich.console import Console
from rich.table import Table

from ridgeline.cli._support import logdir_option, open_logdir, regex, setting_options, tag_option

if TYPE_CHECKING:
    from ridgeline.cli._comparison import Comparison, Summary
    from ridgeline.store.logdir import LogDir


def number(value: float | None) -> str:
    return "—" if value is None else f"{value:.4g}"


def percent(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:+.2f}%"


def seconds(value: float | None) -> str:
    if value is None:
        return "—"
    minutes, secs = divmod(round(value), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m{secs:02d}s" if hours else f"{minutes}m{secs:02d}s"


def _best(summary: Summary | None) -> str:
    if summary is None or summary.best is None:
        return "—"
    return f"{summary.best:.4g} @{summary.best_step}"


def rows(comparison: Comparison) -> list[list[str]]:
    return [
        [
            t.tag,
            number(t.a.last if t.a else None),
            number(t.b.last if t.b else None),
            number(t.difference),
            percent(t.relative),
            _best(t.a),
            _best(t.b),
            t.goal,
        ]
        for t in comparison.tags
    ]


HEADER = ["tag", "last A", "last B", "B − A", "change", "best A", "best B", "best is"]


def markdown(comparison: Comparison) -> str:
    """The comparison as GitHub-flavoured Markdown (a PR comment)."""
    c = comparison
    lines = [
        f"**A** `{c.run_a}` ({seconds(c.duration_a)}) vs **B** `{c.run_b}` ({seconds(c.duration_b)})",
        "",
        "| " + " | ".join(HEADER) + " |",
        "|" + "|".join(["---"] + ["---:"] * 6 + ["---"]) + "|",
    ]
    lines += ["| " + " | ".join(_md(cell) for cell in row) + " |" for row in rows(c)]
    if c.hparams:
        lines += ["", "Hyperparameters that differ:", "", "| hparam | A | B |", "|---|---|---|"]
        lines += [f"| {_md(name)} | {_md(_value(a))} | {_md(_value(b))} |" for name, a, b in c.hparams]
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _value(value: Any) -> str:
    return "—" if value is None else str(value)


def table(comparison: Comparison) -> list[Table]:
    c = comparison
    title = f"A {c.run_a} ({seconds(c.duration_a)})  vs  B {c.run_b} ({seconds(c.duration_b)})"
    out = Table(title=title, title_justify="left")
    for index, name in enumerate(HEADER):
        out.add_column(name, justify="left" if index in (0, 7) else "right", overflow="fold")
    for row in rows(c):
        out.add_row(*row)
    tables = [out]
    if c.hparams:
        differ = Table(title="hparams that differ", title_justify="left")
        for name in ("hparam", "A", "B"):
            differ.add_column(name, overflow="fold")
        for name, a, b in c.hparams:
            differ.add_row(name, _value(a), _value(b))
        tables.append(differ)
    return tables


def html_page(logdir: LogDir, comparison: Comparison) -> str:
    """A page with the table and one small chart per tag (both runs), self-contained (inline SVG, no script)."""
    from ridgeline.analysis.downsample import minmax_indices
    from ridgeline.report.collect import SeriesInfo
    from ridgeline.report.svg import line_chart

    c = comparison
    runs = [c.run_a, c.run_b]
    charts = []
    for index, tag in enumerate(t.tag for t in c.tags):
        series = []
        for run in runs:
            if tag not in logdir.tags(run).get("scalars", []):
                continue
            s = logdir.scalars(run, tag)
            keep = minmax_indices(s.step, s.value, 400)
            if len(s):
                last_step, last = int(s.step[-1]), float(s.value[-1])
                series.append(SeriesInfo(run, tag, s.step[keep], s.value[keep], last_step, last, len(s), [], None))
        charts.append(f"<figure>{line_chart(tag, series, runs, chart_id=f'c{index}')}</figure>")
    head = "".join(f"<th>{html.escape(name)}</th>" for name in HEADER)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row) + "</tr>" for row in rows(c))
    hparams = ""
    if c.hparams:
        hparams = (
            "<h2>Hyperparameters that differ</h2><table><tr><th>hparam</th><th>A</th><th>B</th></tr>"
            + "".join(
                f"<tr><td>{html.escape(n)}</td><td>{html.escape(_value(a))}</td><td>{html.escape(_value(b))}</td></tr>"
                for n, a, b in c.hparams
            )
            + "</table>"
        )
    title = f"{c.run_a} vs {c.run_b}"
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title>"
        "<style>body{font-family:system-ui,sans-serif;margin:2em}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}td:first-child{text-align:left}"
        "figure{display:inline-block;margin:0 1em 1em 0}</style></head><body>"
        f"<h1>{html.escape(title)}</h1>"
        f"<p>A <code>{html.escape(c.run_a)}</code> ran {seconds(c.duration_a)}; "
        f"B <code>{html.escape(c.run_b)}</code> ran {seconds(c.duration_b)}.</p>"
        f"<table><tr>{head}</tr>{body}</table>{hparams}<h2>Charts</h2>{''.join(charts)}</body></html>\n"
    )


def check_runs(logdir: LogDir, *runs: str) -> None:
    known = logdir.runs()
    for run in runs:
        if run not in known:
            raise click.BadParameter(f"no run {run!r} in the log directory; it has: {', '.join(known)}")


def output_file_option(option: str, dest: str, help: str) -> Any:
    """``option FILE`` as ``dest``: a file the command writes (None when not given)."""
    return click.option(option, dest, type=click.Path(dir_okay=False, path_type=Path), default=None, help=help)


@click.command("compare")
@logdir_option()
@click.argument("run_a", metavar="RUN_A")
@click.argument("run_b", metavar="RUN_B")
@tag_option()
@click.option("--markdown", "as_markdown", is_flag=True, help="GitHub-flavoured Markdown (for a pull request).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object.")
@output_file_option("--html", "html_path", "Also write an HTML page with a small chart per tag to this file.")
@setting_options("compare")
def compare(
    logdir: str,
    run_a: str,
    run_b: str,
    tag_pattern: str,
    as_markdown: bool,
    as_json: bool,
    html_path: Path | None,
    no_cache: bool,
) -> None:
    """Compare two runs: each scalar tag's last and best value in both, the difference and relative change,
    the hyperparameters that differ and how long each ran.

    \b
    Examples:
        ridgeline compare --logdir runs baseline candidate
        ridgeline compare --logdir runs baseline candidate --tag '^val/' --markdown
        ridgeline compare --logdir runs baseline candidate --html compare.html
    """
    from ridgeline.cli._comparison import compare as compare_runs

    if as_markdown and as_json:
        raise click.UsageError("--markdown and --json: choose one")
    pattern = regex(tag_pattern, "--tag")
    opened = open_logdir(logdir, Console(stderr=True), cache=not no_cache)
    check_runs(opened, run_a, run_b)
    comparison = compare_runs(opened, run_a, run_b, pattern)
    if html_path is not None:
        try:
            html_path.write_text(html_page(opened, comparison), encoding="utf-8")
        except OSError as error:
            raise click.BadParameter(f"cannot write {html_path}: {error.strerror}", param_hint="--html") from None
    if as_json:
        click.echo(orjson.dumps(comparison.to_dict(), option=orjson.OPT_SERIALIZE_NUMPY).decode())
    elif as_markdown:
        click.echo(markdown(comparison), nl=False)
    else:
        console = Console()
        for out in table(comparison):
            console.print(out)
