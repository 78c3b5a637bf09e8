"""The Parquet dataset: the same long table read by pyarrow and DuckDB, kept current series by series."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import ridgeline
from ridgeline.export.dataset import partition_name, update_dataset
from tests.store.test_disk import WALL, expected, write_run


def write_logs(logs: Path) -> None:
    write_run(logs / "sweep" / "lr=0.1", ["loss", "acc"], range(100))
    write_run(logs / "sweep" / "lr=0.01", ["loss"], range(50))
    write_run(logs / "base", ["loss"], range(10))


def test_pyarrow_reads_the_long_table_partitioned_by_run(tmp_path: Path) -> None:
    import pyarrow.dataset as ds

    write_logs(tmp_path / "logs")
    update = update_dataset(ridgeline.open(tmp_path / "logs", cache=False), tmp_path / "out")
    assert (update.written, update.kept, update.removed, update.points) == (4, 0, 0, 260)
    assert (tmp_path / "out" / "run=sweep%2Flr%3D0.1").is_dir()
    table = ds.dataset(tmp_path / "out", format="parquet", partitioning="hive").to_table()
    assert sorted(table.column_names) == ["run", "step", "tag", "value", "wall_time"]
    rows = sorted(zip(*(table.column(name).to_pylist() for name in ("run", "tag", "step", "value")), strict=True))
    assert [row for row in rows if row[:2] == ("sweep/lr=0.1", "acc")] == [
        ("sweep/lr=0.1", "acc", step, value) for step, value in zip(range(100), expected(1, range(100)), strict=True)
    ]
    assert len(rows) == 260


def test_duckdb_reads_the_files_directly(tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    write_logs(tmp_path / "logs")
    update_dataset(ridgeline.open(tmp_path / "logs", cache=False), tmp_path / "out")
    rows = duckdb.sql(
        f"SELECT run, tag, count(*), min(step), max(step), max(wall_time) "
        f"FROM read_parquet('{tmp_path / 'out'}/*/*.parquet', hive_partitioning = true) "
        "GROUP BY run, tag ORDER BY run, tag"
    ).fetchall()
    assert rows == [
        ("base", "loss", 10, 0, 9, WALL + 9),
        ("sweep/lr=0.01", "loss", 50, 0, 49, WALL + 49),
        ("sweep/lr=0.1", "acc", 100, 0, 99, WALL + 99),
        ("sweep/lr=0.1", "loss", 100, 0, 99, WALL + 99),
    ]


def test_an_update_rewrites_only_what_changed(tmp_path: Path) -> None:
    import pyarrow.dataset as ds

    logs, out = tmp_path / "logs", tmp_path / "out"
    write_logs(logs)
    update_dataset(ridgeline.open(logs, cache=False), out)
    untouched = out / partition_name("sweep/lr=0.01")
    (kept_file,) = untouched.iterdir()
    before = kept_file.stat().st_mtime_ns
    write_run(logs / "base", ["loss"], range(10, 15))  # base grows
    shutil.rmtree(logs / "sweep" / "lr=0.1")  # a run is deleted
    update = update_dataset(ridgeline.open(logs, cache=False), out)
    assert (update.written, update.kept, update.removed, update.points) == (1, 1, 2, 65)
    assert kept_file.stat().st_mtime_ns == before
    assert not (out / partition_name("sweep/lr=0.1")).exists()
    table = ds.dataset(out, format="parquet", partitioning="hive").to_table()
    assert sorted(table.column("step").to_pylist()) == sorted([*range(15), *range(50)])


def test_ridgeline_sql_answers_over_scalars_runs_and_hparams(tmp_path: Path) -> None:
    pytest.importorskip("duckdb")
    write_logs(tmp_path / "logs")
    writer = ridgeline.SummaryWriter(str(tmp_path / "logs" / "tuned"), hparams={"lr": 0.5})
    writer.add_scalar("loss", 2.0, 0, walltime=WALL)
    writer.close()
    query = (
        "SELECT s.run, h.value AS lr, max(s.step) AS last FROM scalars s JOIN hparams h USING (run) "
        "WHERE h.name = 'lr' GROUP BY s.run, h.value"
    )
    out = run_cli("sql", query, "--logdir", str(tmp_path / "logs"), "--json", cache=tmp_path / "cache")
    assert [json.loads(line) for line in out.splitlines()] == [{"run": "tuned", "lr": "0.5", "last": 0}]
    out = run_cli(
        "sql",
        "SELECT run, last_step FROM runs ORDER BY run",
        "--logdir",
        str(tmp_path / "logs"),
        "--json",
        cache=tmp_path / "cache",
    )
    assert [json.loads(line)["last_step"] for line in out.splitlines()] == [9, 49, 99, 0]
    failed = subprocess.run(
        [sys.executable, "-m", "ridgeline.cli", "sql", "SELEKT", "--logdir", str(tmp_path / "logs")],
        capture_output=True,
        text=True,
        env={**os.environ, "RIDGELINE_CACHE_DIR": str(tmp_path / "cache")},
        check=False,
    )
    assert failed.returncode == 1 and "query failed" in failed.stderr and "Traceback" not in failed.stderr


def test_ridgeline_index_writes_the_dataset(tmp_path: Path) -> None:
    import pyarrow.dataset as ds

    write_logs(tmp_path / "logs")
    run_cli("index", "--logdir", str(tmp_path / "logs"), "--parquet", str(tmp_path / "out"), cache=tmp_path / "c")
    assert ds.dataset(tmp_path / "out", format="parquet", partitioning="hive").count_rows() == 260


def run_cli(*args: str, cache: Path) -> str:
    result = subprocess.run(
        [sys.executable, "-m", "ridgeline.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "RIDGELINE_CACHE_DIR": str(cache)},
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout
