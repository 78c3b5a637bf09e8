"""``ridgeline demo --logdir DIR``: write a realistic demo log directory (ridgeline.fixtures.demo)."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

console = Console(stderr=True)


@click.command("demo")
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
    one with a loss spike, histograms, images, text, audio, PR curves, hparams and an embedding.

    \b
    Example:
        ridgeline demo --logdir demo_runs && ridgeline serve --logdir demo_runs
    """
    from ridgeline.fixtures.demo import write_demo

    if logdir.exists() and any(logdir.iterdir()):
        raise click.UsageError(f"--logdir {str(logdir)!r} is not empty; choose a new or empty directory")
    with Progress(
        TextColumn("writing demo runs"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
    ) as progress:
        task = progress.add_task("demo", total=None)

        def advance(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        runs = write_demo(logdir, steps=steps, seed=seed, progress=advance)
    console.print(f"wrote {len(runs)} runs to {logdir}")
    console.print(f"next: [bold]ridgeline serve --logdir {logdir}[/bold]")
