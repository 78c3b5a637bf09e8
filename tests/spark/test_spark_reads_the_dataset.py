"""Spark reads ridgeline's Parquet dataset (``ridgeline index --parquet``) directly, as docs/store.md says.

Opt-in: ``make test-spark`` installs Java (openjdk-17-jre-headless) and pyspark and runs this file with
RIDGELINE_TEST_SPARK=1; ``make test`` skips it (a JVM start and pyspark's 400 MB are not for every run). The
expected counts and sums are computed here from the values written, not read back through ridgeline.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ridgeline import SummaryWriter

if os.environ.get("RIDGELINE_TEST_SPARK") != "1":
    pytest.skip("the Spark check runs with `make test-spark` (Java and pyspark)", allow_module_level=True)

pyspark_sql = pytest.importorskip("pyspark.sql")

RUNS = {"sweep/lr=0.1": 300, "sweep/lr=0.01": 120, "base run": 7}


def value(run: str, tag: str, step: int) -> float:
    return math.sin(step / 10) + len(run) + len(tag)


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("spark")
    for run, steps in RUNS.items():
        with SummaryWriter(root / "logs" / run, per_rank=False) as writer:
            for step in range(steps):
                writer.add_scalar("train/loss", value(run, "train/loss", step), step)
                if step % 2 == 0:
                    writer.add_scalar("val/acc", value(run, "val/acc", step), step)
    command = [sys.executable, "-m", "ridgeline.cli", "index", "--logdir", str(root / "logs")]
    command += ["--parquet", str(root / "out")]
    env = {**os.environ, "RIDGELINE_CACHE_DIR": str(root / "cache")}
    subprocess.run(command, check=True, capture_output=True, env=env)
    return root / "out"


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    session = (
        pyspark_sql.SparkSession.builder.master("local[1]")
        .appName("ridgeline-dataset")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    yield session
    session.stop()


def test_spark_counts_every_point_per_run_and_tag(spark: Any, dataset: Path) -> None:
    frame = spark.read.parquet(str(dataset))
    assert sorted(frame.columns) == ["run", "step", "tag", "value", "wall_time"]
    rows = frame.groupBy("run", "tag").count().collect()
    counts = {(row["run"], row["tag"]): row["count"] for row in rows}
    expected = {}
    for run, steps in RUNS.items():
        expected[(run, "train/loss")] = steps
        expected[(run, "val/acc")] = (steps + 1) // 2
    assert counts == expected


def test_spark_reads_the_values_as_written(spark: Any, dataset: Path) -> None:
    frame = spark.read.parquet(str(dataset))
    rows = frame.where("run = 'sweep/lr=0.01' AND tag = 'train/loss'").orderBy("step").collect()
    assert [row["step"] for row in rows] == list(range(RUNS["sweep/lr=0.01"]))
    # Scalars are float32 in the event file: compare at float32 precision.
    for row in rows:
        assert row["value"] == pytest.approx(value("sweep/lr=0.01", "train/loss", row["step"]), rel=1e-6)
