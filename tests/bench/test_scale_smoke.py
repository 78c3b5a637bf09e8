"""bench/scale.py's event files are what ridgeline's writer writes: its vectorised encoder (records of one layout
as one array, CRC32C from its linearity) against the writer's record-by-record encoding, byte for byte, and read
back with every checksum checked. The benchmark's figures are never asserted on: timings are not tests."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import ridgeline
from ridgeline.format.proto import event_pb2
from ridgeline.format.records import frame
from ridgeline.writer.event_file import FILE_VERSION, _scalar_head, encode_scalar_event

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="module")
def scale() -> Iterator[ModuleType]:
    sys.path.insert(0, str(BENCH))
    try:
        yield importlib.import_module("scale")
    finally:
        sys.path.remove(str(BENCH))


def test_generated_event_files_are_the_writers_bytes(scale: ModuleType, tmp_path: Path) -> None:
    tags = ["train/loss", "a", "eval/a-much-longer-tag-name/with/parts"]
    steps = 20_000  # step varints of 0, 1, 2 and 3 bytes
    scale.write_run(tmp_path / "run", 7, tags, steps)
    (path,) = (tmp_path / "run").iterdir()
    heads = [_scalar_head(tag) for tag in tags]
    values = [scale.series_values(7, j, 0, steps, steps).tolist() for j in range(len(tags))]
    wall = scale.ingest_bench.WALL0 + 1000.0 * 7 + 0.05 * np.arange(steps)
    version = event_pb2.Event(wall_time=scale.ingest_bench.WALL0, file_version=FILE_VERSION)
    records = [frame(version.SerializeToString())]
    for step in range(steps):
        for head, series in zip(heads, values, strict=True):
            records.append(frame(encode_scalar_event(head, series[step], step, float(wall[step]))))
    assert path.read_bytes() == b"".join(records)


def test_generated_log_directory_reads_back_exactly(scale: ModuleType, tmp_path: Path) -> None:
    dataset = scale.Dataset("tiny", 3, 2, 300)
    path = scale.ensure_dataset(tmp_path, dataset)
    logdir = ridgeline.open(path, cache=False)
    assert logdir.runs() == dataset.run_names()
    for i, run in enumerate(dataset.run_names()):
        for j, tag in enumerate(dataset.tag_names()):
            series = logdir.scalars(run, tag)
            assert series.step.tolist() == list(range(300))
            assert series.value.tolist() == scale.series_values(i, j, 0, 300, 300).astype(np.float64).tolist()
    assert logdir.problems() == []
