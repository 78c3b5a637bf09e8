"""Shared test helpers: reading event files back with nothing but the format layer."""

from __future__ import annotations

from pathlib import Path

from ridgeline.format import records
from ridgeline.format.proto import event_pb2


def event_files(log_dir: Path) -> list[Path]:
    return sorted(p for p in Path(log_dir).iterdir() if "tfevents" in p.name)


def read_events(path: Path) -> list[event_pb2.Event]:
    """Every event of one file, checking both CRCs of every record; fails on a corrupt or partial record."""
    buffer = Path(path).read_bytes()
    events = []
    end = 0
    for record in records.iter_records(buffer):
        events.append(event_pb2.Event.FromString(record.data))
        end = record.end
    assert end == len(buffer), f"{path}: {len(buffer) - end} bytes after the last complete record"
    return events


def read_scalars(log_dir: Path, tag: str) -> list[tuple[int, float]]:
    """(step, simple_value) of every scalar event under ``tag`` in every file of ``log_dir``, in file order."""
    points = []
    for path in event_files(log_dir):
        for event in read_events(path):
            for value in event.summary.value:
                if value.tag == tag and value.HasField("simple_value"):
                    points.append((event.step, value.simple_value))
    return points
