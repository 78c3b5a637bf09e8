"""The ``ridgeline`` command."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ridgeline._version import __version__

console = Console(stderr=True)


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, "-V", "--version", prog_name="ridgeline")
def main() -> None:
    """ridgeline: a fast, TensorBoard-compatible training monitor.

    \b
    Write logs from training code with the drop-in writer:
        from ridgeline import SummaryWriter      # instead of torch.utils.tensorboard
        writer = SummaryWriter("runs/exp1")
        writer.add_scalar("train/loss", loss, step)
    \b
    Then look at them:
        ridgeline serve --logdir runs
    \b
    Try it without a training job:
        ridgeline demo --logdir demo_runs && ridgeline serve --logdir demo_runs
    """


@main.command()
@click.option(
    "--logdir",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Directory to write the demo runs into (created if missing).",
)
@click.option("--steps", default=2000, show_default=True, type=click.IntRange(min=10), help="Training steps per run.")
@click.option("--seed", default=0, show_default=True, type=int, help="Seed for the simulated curves.")
def demo(logdir: Path, steps: int, seed: int) -> None:
    """Write a realistic demo log directory: several runs with different learning rates, one that overfits,
    one with a loss spike, histograms, images, text, audio, PR curves, hparams and an embedding."""
    from ridgeline import fixtures

    if logdir.exists() and any(logdir.iterdir()):
        raise click.UsageError(f"--logdir {str(logdir)!r} is not empty; choose a new or empty directory")
    with Progress(
        TextColumn("writing demo runs"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
    ) as progress:
        task = progress.add_task("demo", total=None)

        def advance(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        runs = fixtures.write_demo(logdir, steps=steps, seed=seed, progress=advance)
    console.print(f"wrote {len(runs)} runs to {logdir}")
    console.print(f"next: [bold]ridgeline serve --logdir {logdir}[/bold]")


@main.command()
@click.argument("logdir")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["csv", "json", "parquet"]),
    default="csv",
    show_default=True,
    help="csv: one row per point; json: one JSON object per series and line; parquet: one table (needs pyarrow).",
)
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, path_type=Path), help="File to write.")
@click.option("--run", "run_pattern", default="", help="Only runs whose name matches this regular expression.")
@click.option("--tag", "tag_pattern", default="", help="Only tags that match this regular expression.")
@click.option("--all-points", is_flag=True, help="Also the points a restarted run superseded (see docs/restarts.md).")
@click.option("--no-cache", is_flag=True, help="Do not read or write the persistent cache.")
@click.option(
    "--no-checksum", is_flag=True, help="Skip the records' data checksums (faster; a flipped bit may go unnoticed)."
)
def export(
    logdir: str,
    output_format: str,
    output: Path,
    run_pattern: str,
    tag_pattern: str,
    all_points: bool,
    no_cache: bool,
    no_checksum: bool,
) -> None:
    """Write every scalar of LOGDIR (runs and tags filtered by regular expressions) to a CSV, JSON or Parquet file.

    \b
    Example:
        ridgeline export runs --format csv -o scalars.csv --run '^resnet' --tag 'loss'
    """
    import ridgeline
    from ridgeline.export.scalars import write_scalars

    with console.status(f"reading {logdir}"):
        try:
            opened = ridgeline.open(logdir, cache=not no_cache, check_crc=not no_checksum)
        except ValueError as error:
            raise click.BadParameter(str(error), param_hint="LOGDIR") from error
    try:
        series = opened.select_scalars(run_pattern, tag_pattern)
    except ValueError as error:
        raise click.UsageError(str(error)) from error
    with Progress(
        TextColumn(f"writing {output}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
    ) as progress:
        task = progress.add_task("export", total=len(series))
        points = write_scalars(
            opened, series, output, output_format, all_points=all_points, advance=lambda: progress.advance(task)
        )
    for problem in opened.problems():
        console.print(f"[yellow]skipped[/yellow] {problem.path} at byte {problem.offset}: {problem.reason}")
    console.print(f"wrote {points} points of {len(series)} series to {output}")


@main.command()
@click.option("--logdir", default=None, help="Log directory, or several: a,b or name1:path1,name2:path2.")
@click.option("--port", default=6006, show_default=True, type=int, help="Port to listen on (0 picks a free one).")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind; 0.0.0.0 exposes the server.")
def serve(logdir: str | None, port: int, host: str) -> None:
    """Serve the dashboards for a log directory (the web server arrives in the next release)."""
    console.print(
        "[yellow]The ridgeline web server is not part of this release yet.[/yellow] "
        "Event files written by ridgeline.SummaryWriter load in TensorBoard today:\n"
        f"    tensorboard --logdir {logdir or 'runs'} --port {port} --host {host}"
    )
    sys.exit(0)


if __name__ == "__main__":
    main()
