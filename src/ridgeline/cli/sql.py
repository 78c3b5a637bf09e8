"""``ridgeline sql "SELECT ..." --logdir DIR``: ad-hoc SQL (DuckDB) over every run's scalars and hyperparameters.

The Parquet dataset behind the ``scalars`` view is kept beside the log directory's store (``--dataset`` to put
it elsewhere) and brought up to date before the query: only changed series are rewritten.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click
import orjson
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ridgeline.cli._support import json_option, logdir_option, open_logdir


@click.command()
@click.argument("query")
@logdir_option()
@click.option("--dataset", type=click.Path(file_okay=False, path_type=Path), help="Where the Parquet dataset is kept.")
@json_option("One JSON object per row instead of a table.")
def sql(query: str, logdir: str, dataset: Path | None, as_json: bool) -> None:
    """Run QUERY over the views scalars(run, tag, step, wall_time, value), runs(run, first_wall_time,
    last_wall_time, last_step, scalar_tags) and hparams(run, name, value).

    \b
    Examples:
        ridgeline sql 'SELECT run, count(*) AS points FROM scalars GROUP BY run' --logdir runs
        ridgeline sql "SELECT * FROM hparams WHERE name = 'lr'" --logdir runs --json
    """
    from ridgeline.export.sql import connect

    errors = Console(stderr=True)
    opened = open_logdir(logdir, errors)
    directory = getattr(opened.provider, "directory", None)
    if dataset is None:
        if directory is None:
            raise click.UsageError("the log directory's store is in use by another process: give --dataset DIR")
        dataset = directory / "parquet"
    try:
        connection = connect(opened, dataset)
    except ImportError as error:
        raise click.ClickException(str(error)) from None
    try:
        result = connection.execute(query)
    except Exception as error:  # duckdb.Error: a bad query is the user's, not a crash
        raise click.ClickException(f"query failed: {error}") from None
    names = [column[0] for column in result.description or []]
    rows = result.fetchall()
    if as_json:
        for row in rows:
            sys.stdout.write(orjson.dumps(dict(zip(names, row, strict=True)), default=str).decode() + "\n")
        return
    table = Table(title=f"{len(rows)} row{'s' if len(rows) != 1 else ''}", title_justify="left")
    for name in names:
        table.add_column(escape(name))
    for row in rows:
        table.add_row(*(escape("" if value is None else str(value)) for value in row))
    Console().print(table)
