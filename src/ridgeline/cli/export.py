"""``ridgeline export --logdir DIR -o FILE``: every scalar (runs and tags filtered) to CSV, JSON lines or Parquet.

The log directory was once positional (``ridgeline export DIR``); that form still works, with a deprecation
warning. Without ``--format`` the output's extension names the format (``.csv``, ``.json``/``.jsonl``,
``.parquet``; any other extension: CSV); a ``--format`` that contradicts the extension is refused, as is Parquet
when pyarrow is not installed (one line naming the extra to install, before anything is read).
"""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ridgeline.cli._support import logdir_option, open_logdir, run_option, setting_options, tag_option

console = Console(stderr=True)

FORMATS = ("csv", "json", "parquet")
EXTENSIONS = {".csv": "csv", ".json": "json", ".jsonl": "json", ".ndjson": "json", ".parquet": "parquet"}


class ExportError(click.ClickException):
    """A one-line ``Error: ...`` and exit status 2, as for a usage error, without the usage text."""

    exit_code = 2


def output_format_for(output: Path, given: str | None) -> str:
    """The format to write: ``given``, or the one the output's extension names (CSV for any other extension);
    a ``given`` format the extension contradicts is an error."""
    implied = EXTENSIONS.get(output.suffix.lower())
    if given is None:
        return implied or "csv"
    if implied is not None and implied != given:
        raise ExportError(
            f"--format {given} but the output {output.name} has the extension of {implied}: "
            f"drop --format, or name the file *.{_extension(given)}"
        )
    return given


def _extension(output_format: str) -> str:
    return {"csv": "csv", "json": "jsonl", "parquet": "parquet"}[output_format]


def require_pyarrow() -> None:
    try:
        import pyarrow
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        raise ExportError("writing Parquet needs pyarrow: pip install 'ridgeline[parquet]'") from None


@click.command("export")
@click.argument("positional_logdir", metavar="[LOGDIR]", required=False)
@logdir_option(required=False)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(FORMATS),
    default=None,
    help="csv: one row per point; json: one JSON object per series and line; parquet: one table (needs pyarrow). "
    "Default: the one the output's extension names (.csv, .json/.jsonl, .parquet), else csv.",
)
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, path_type=Path), help="File to write.")
@run_option()
@tag_option()
@click.option("--all-points", is_flag=True, help="Also the points a restarted run superseded (see docs/restarts.md).")
@setting_options("export")
@click.pass_context
def export(
    ctx: click.Context,
    positional_logdir: str | None,
    logdir: str | None,
    output_format: str | None,
    output: Path,
    run_pattern: str,
    tag_pattern: str,
    all_points: bool,
    no_cache: bool,
    no_checksum: bool,
) -> None:
    """Write every scalar of the log directory (runs and tags filtered by regular expressions) to a CSV, JSON or
    Parquet file. (LOGDIR as a positional argument still works but is deprecated: use --logdir.)

    \b
    Example:
        ridgeline export --logdir runs -o scalars.csv --run '^resnet' --tag 'loss'
    """
    from ridgeline.export.scalars import write_scalars

    chosen = output_format_for(output, output_format)
    if chosen == "parquet":
        require_pyarrow()
    option = "--logdir"
    if positional_logdir is not None:
        if logdir is not None:
            raise click.UsageError(
                "give the log directory once, as --logdir LOGDIR (the positional LOGDIR is deprecated)"
            )
        console.print(
            "[yellow]warning:[/yellow] the positional LOGDIR of ridgeline export is deprecated: "
            "use ridgeline export --logdir LOGDIR"
        )
        logdir, option = positional_logdir, "LOGDIR"
    if logdir is None:
        param = next(param for param in ctx.command.params if param.name == "logdir")
        raise click.MissingParameter(ctx=ctx, param=param)
    opened = open_logdir(logdir, console, cache=not no_cache, check_crc=not no_checksum, option=option)
    series = opened.select_scalars(run_pattern, tag_pattern)
    with Progress(
        TextColumn(f"writing {output}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
    ) as progress:
        task = progress.add_task("export", total=len(series))
        points = write_scalars(
            opened, series, output, chosen, all_points=all_points, advance=lambda: progress.advance(task)
        )
    for problem in opened.problems():
        console.print(f"[yellow]skipped[/yellow] {problem.path} at byte {problem.offset}: {problem.reason}")
    console.print(f"wrote {points} points of {len(series)} series to {output}")
