"""Ad-hoc SQL over a log directory: DuckDB (embedded, optional) over the Parquet dataset of its scalars.

Views: ``scalars (run, tag, step, wall_time, value)`` — every visible point, read from the dataset's files;
``runs (run, first_wall_time, last_wall_time, last_step, scalar_tags)``; ``hparams (run, name, value)`` — each
hyperparameter's value as text.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ridgeline.export.dataset import update_dataset

if TYPE_CHECKING:
    from ridgeline.store.logdir import LogDir

VIEWS = ("scalars", "runs", "hparams")


def connect(logdir: LogDir, dataset: str | os.PathLike[str]) -> Any:
    """A DuckDB connection with the views above, after bringing the dataset at ``dataset`` up to date."""
    try:
        import duckdb
    except ImportError as error:
        raise ImportError("ridgeline sql needs DuckDB: pip install 'ridgeline[sql]'") from error
    root = Path(dataset)
    update_dataset(logdir, root)
    connection = duckdb.connect()
    files = [str(path) for path in sorted(root.glob("run=*/*.parquet"))]
    if files:
        listed = ", ".join(_literal(path) for path in files)  # a view's definition takes no parameters
        connection.execute(
            "CREATE VIEW scalars AS SELECT run, tag, step, wall_time, value "
            f"FROM read_parquet([{listed}], hive_partitioning = true)"
        )
    else:
        connection.execute(
            "CREATE VIEW scalars AS SELECT ''::VARCHAR AS run, ''::VARCHAR AS tag, 0::BIGINT AS step, "
            "0::DOUBLE AS wall_time, 0::DOUBLE AS value WHERE false"
        )
    connection.execute(
        "CREATE TABLE runs (run VARCHAR, first_wall_time DOUBLE, last_wall_time DOUBLE, last_step BIGINT, "
        "scalar_tags INTEGER)"
    )
    connection.execute("CREATE TABLE hparams (run VARCHAR, name VARCHAR, value VARCHAR)")
    runs: list[tuple[Any, ...]] = []
    hparams: list[tuple[str, str, str]] = []
    for run in logdir.runs():
        info = logdir.run_info(run)
        runs.append((run, info.first_wall_time, info.last_wall_time, info.last_step, len(info.tags.get("scalars", ()))))
        found = logdir.hparams(run)
        if found is not None:
            hparams.extend((run, str(name), str(value)) for name, value in found.hparams.items())
    if runs:
        connection.executemany("INSERT INTO runs VALUES (?, ?, ?, ?, ?)", runs)
    if hparams:
        connection.executemany("INSERT INTO hparams VALUES (?, ?, ?)", hparams)
    return connection


def _literal(text: str) -> str:
    """``text`` as an SQL string literal."""
    return "'" + text.replace("'", "''") + "'"
