"""A run's last event time read from the tail of its event file, without reading the whole file."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ridgeline import SummaryWriter
from ridgeline.retention.last_event import FIRST_TAIL, last_wall_time

WALL = 1_700_000_000.0


class Reader:
    """Reads byte ranges of a file, counting how many bytes were asked for."""

    def __init__(self, path: Path) -> None:
        self.data = path.read_bytes()
        self.read = 0

    def __call__(self, start: int, end: int) -> bytes:
        self.read += end - start
        return self.data[start:end]


def event_file(directory: Path) -> Path:
    return next(directory.glob("*tfevents*"))


def test_the_last_event_of_a_long_file_is_found_in_its_tail(tmp_path: Path) -> None:
    with SummaryWriter(tmp_path) as writer:
        for step in range(20_000):
            writer.add_scalar("loss", 1.0 / (step + 1), step, walltime=WALL + step)
    reader = Reader(event_file(tmp_path))
    assert len(reader.data) > 10 * FIRST_TAIL
    assert last_wall_time(reader, len(reader.data)) == WALL + 19_999
    assert reader.read <= FIRST_TAIL


def test_a_last_record_larger_than_the_first_tail_is_found(tmp_path: Path) -> None:
    noise = np.random.default_rng(0).integers(0, 256, (3, 300, 300), dtype=np.uint8)  # a PNG too big for 64 KiB
    with SummaryWriter(tmp_path) as writer:
        writer.add_scalar("loss", 1.0, 0, walltime=WALL)
        writer.add_image("noise", noise, 1, walltime=WALL + 60)
    reader = Reader(event_file(tmp_path))
    assert last_wall_time(reader, len(reader.data)) == WALL + 60


def test_a_record_still_being_appended_leaves_the_one_before(tmp_path: Path) -> None:
    with SummaryWriter(tmp_path) as writer:
        for step in range(100):
            writer.add_scalar("loss", 1.0, step, walltime=WALL + step)
        writer.flush()  # read while the run is open: its last record is step 99's, not the end record
        reader = Reader(event_file(tmp_path))
    reader.data = reader.data[:-7]  # the last record cut short
    assert last_wall_time(reader, len(reader.data)) == WALL + 98


def test_the_end_record_written_at_close_does_not_make_an_old_run_new(tmp_path: Path) -> None:
    with SummaryWriter(tmp_path) as writer:  # its end record carries the time of close(), long after WALL + 9
        for step in range(10):
            writer.add_scalar("loss", 1.0, step, walltime=WALL + step)
    reader = Reader(event_file(tmp_path))
    assert b"_ridgeline/run_end" in reader.data[-200:]
    assert last_wall_time(reader, len(reader.data)) == WALL + 9


def test_a_file_with_no_record_has_no_last_event(tmp_path: Path) -> None:
    garbage = tmp_path / "events.out.tfevents.garbage"
    garbage.write_bytes(bytes(range(256)) * 1000)
    reader = Reader(garbage)
    assert last_wall_time(reader, len(reader.data)) is None
    assert last_wall_time(Reader(tmp_path / "events.out.tfevents.garbage"), 0) is None
