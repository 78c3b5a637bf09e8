"""``ridgeline index --logdir DIR --parquet OUT``: build the log directory's store and keep a Parquet dataset of
its scalars current (``--watch SECONDS`` to keep doing so until interrupted)."""

from __future__ import annotations

import threading
from pathlib import Path

import click
from rich.console import Console

from ridgeline.cli._support import logdir_option, open_logdir


@click.command()
@logdir_option()
@click.option(
    "--parquet",
    "output",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="The dataset directory: one Parquet file per series, partitioned by run (run=NAME/).",
)
@click.option("--watch", type=click.FloatRange(min=0.1), default=None, help="Update every SECONDS until Ctrl-C.")
def index(logdir: str, output: Path, watch: float | None) -> None:
    """Read LOGDIR into its store and write its scalars as a Parquet dataset that DuckDB, Polars, Spark and
    Trino read directly (see docs/store.md).

    \b
    Example:
        ridgeline index --logdir runs --parquet runs.parquet
        duckdb -c "SELECT run, count(*) FROM read_parquet('runs.parquet/*/*.parquet') GROUP BY run"
    """
    from ridgeline.export.dataset import update_dataset

    console = Console(stderr=True)
    opened = open_logdir(logdir, console)
    stop = threading.Event()
    while True:
        update = update_dataset(opened, output)
        console.print(
            f"{output}: {update.points} points; {update.written} series written, {update.kept} unchanged, "
            f"{update.removed} removed",
            highlight=False,
        )
        if watch is None:
            return
        try:
            stop.wait(watch)
        except KeyboardInterrupt:
            return
        opened.reload()
