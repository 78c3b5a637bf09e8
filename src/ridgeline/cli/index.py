"""``ridgeline index --logdir DIR [--store STORE] [--parquet OUT] [--watch SECONDS]``: build the log directory's
store (in the cache directory, or in STORE: where ``ridgeline serve --store STORE`` replicas read it), optionally
keep a Parquet dataset of its scalars current, and with ``--watch`` keep doing both until interrupted: the one
indexer of a store that many read-only servers serve."""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

import click
from rich.console import Console

from ridgeline.cli._support import logdir_option, open_logdir, setting_option
from ridgeline.settings import BY_NAME

if TYPE_CHECKING:
    from ridgeline.store.logdir import LogDir


@click.command()
@logdir_option()
@setting_option(BY_NAME["store"])
@click.option(
    "--parquet",
    "output",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The dataset directory: one Parquet file per series, partitioned by run (run=NAME/).",
)
@click.option("--watch", type=click.FloatRange(min=0.1), default=None, help="Update every SECONDS until Ctrl-C.")
def index(logdir: str, store: str | None, output: Path | None, watch: float | None) -> None:
    """Read LOGDIR into its store (--store STORE: that directory) and, with --parquet, write its scalars as a
    Parquet dataset that DuckDB, Polars, Spark and Trino read directly (see docs/store.md). With --watch, read
    what was appended every SECONDS and commit it, until Ctrl-C or SIGTERM.

    \b
    Examples:
        ridgeline index --logdir runs --parquet runs.parquet
        duckdb -c "SELECT run, count(*) FROM read_parquet('runs.parquet/*/*.parquet') GROUP BY run"
        ridgeline index --logdir runs --store /shared/store --watch 10   # replicas: serve --store /shared/store
    """
    from ridgeline.store.files import StoreError

    console = Console(stderr=True)
    try:
        opened = open_logdir(logdir, console, store=store)
    except StoreError as error:
        raise click.BadParameter(str(error), param_hint="--store") from None
    _report(opened, store, output, console)
    if watch is None:
        return
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        while not stop.wait(watch):
            try:
                opened.reload()  # each pass commits what it read: replicas see it on their next reload
            except OSError as error:  # a full disk: what was committed stays served; the next pass tries again
                console.print(f"[red]error:[/red] {error}", highlight=False)
                continue
            _report(opened, store, output, console)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        close = getattr(opened.provider, "close", None)
        if close is not None:
            close()  # the writer lock, at once: the next indexer may start


def _report(opened: LogDir, store: str | None, output: Path | None, console: Console) -> None:
    if output is not None:
        from ridgeline.export.dataset import update_dataset

        update = update_dataset(opened, output)
        console.print(
            f"{output}: {update.points} points; {update.written} series written, {update.kept} unchanged, "
            f"{update.removed} removed",
            highlight=False,
        )
    if store is not None or output is None:
        where = getattr(opened.provider, "directory", None)
        runs = opened.runs()
        console.print(f"store {where}: {len(runs)} run{'s' if len(runs) != 1 else ''} committed", highlight=False)
