"""``ridgeline report``: a training analysis report of a log directory, as one HTML file or as Markdown."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console

from ridgeline.cli._support import LateProgress, logdir_option, open_logdir, run_option, setting_options

console = Console(stderr=True)


@click.command("report")
@logdir_option()
@run_option()
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="File to write: .html (self-contained) or .md (charts as SVG files in <name>_charts/ beside it).",
)
@click.option("--no-charts", is_flag=True, help="Markdown only: leave the charts out (no files beside it).")
@setting_options("report")
def report(logdir: str, run_pattern: str, output: Path, no_charts: bool, no_cache: bool) -> None:
    """Write a training analysis report: the runs' environment and hyperparameters, the loss and accuracy charts
    with forecasts and phases, the diagnosis and the alerts, in one file to attach to a pull request.

    \b
    Examples:
        ridgeline report --logdir runs -o report.html
        ridgeline report --logdir runs --run '^resnet' -o report.md
    """
    from ridgeline.report.collect import collect, steps_total
    from ridgeline.report.render import render_html, render_markdown

    suffix = output.suffix.lower()
    if suffix not in (".html", ".htm", ".md", ".markdown"):
        raise click.BadParameter(f"{str(output)!r} must end in .html or .md", param_hint="-o/--output")
    opened = open_logdir(logdir, console, cache=not no_cache)
    total = steps_total(opened, run_pattern)
    with LateProgress("analysing", console) as progress:
        done = 0

        def advance(what: str) -> None:
            nonlocal done
            done += 1
            progress.update(done, total or None)

        try:
            found = collect(opened, logdir, run_pattern, advance=advance)
        except ValueError as error:
            raise click.BadParameter(str(error), param_hint="--run") from error
    if not opened.runs():
        raise click.BadParameter(f"{logdir!r} holds no runs (no event files were found)", param_hint="--logdir")
    if not found.runs:
        raise click.BadParameter(f"no run matches {run_pattern!r}; runs: {opened.runs()[:20]}", param_hint="--run")
    output.parent.mkdir(parents=True, exist_ok=True)
    if suffix in (".html", ".htm"):
        output.write_text(render_html(found), encoding="utf-8")
        console.print(f"wrote {output} ({len(found.runs)} runs, {len(found.charts)} charts)")
    else:
        text, charts = render_markdown(found, output, charts=not no_charts)
        output.write_text(text, encoding="utf-8")
        extra = f" and {len(charts)} charts in {charts[0].parent}" if charts else ""
        console.print(f"wrote {output}{extra} ({len(found.runs)} runs)")
