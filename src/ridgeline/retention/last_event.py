"""When an event file was last written to, from its own records: the wall time of its last complete event.

Reading the whole file to find its last record would cost a full read of every run (gigabytes, and on S3 a
download) just to delete it. Instead the tail of the file is read and searched for a record boundary: an
offset whose 12-byte header (length, masked CRC32C of the length) checks out, followed by records that chain
exactly to the end of the file (a last record cut short, still being appended, is allowed). A false start
would need a header CRC match, 1 in 2^32, and a chain ending at the file's last byte. A tail too short to hold
a whole record is doubled up to :data:`MAX_TAIL`; past that (one huge image), or for a file with no readable
record, the answer is None and the caller falls back to the file's modification time.

The writer's end record (``_ridgeline/run_end``, written at ``close()``) does not count: a run's age is that of
its last logged value, as the run listing's ``last_wall_time`` says (a run that logged its last value a month ago
and was closed now is a month old), unless the tail holds nothing else.
"""

from __future__ import annotations

from collections.abc import Callable

from google.protobuf.message import DecodeError

from ridgeline.format.proto import event_pb2
from ridgeline.format.records import HEADER_SIZE, record_size
from ridgeline.format.tags import RUN_END_TAG

__all__ = ["MAX_TAIL", "last_wall_time"]

FIRST_TAIL = 64 << 10
MAX_TAIL = 8 << 20
_HIGH_ZEROS = b"\x00\x00\x00\x00"  # the upper half of a record's uint64 length: records are under 4 GiB

ReadRange = Callable[[int, int], bytes]  # (start, end) -> the bytes in [start, end)


def last_wall_time(read: ReadRange, size: int) -> float | None:
    """The wall time of the last complete event in a file of ``size`` bytes, read through ``read``; None when no
    record could be found in its last :data:`MAX_TAIL` bytes."""
    tail = FIRST_TAIL
    while True:
        start = max(0, size - tail)
        data = read(start, size)
        found = _last_records(data, whole=start == 0)
        widen = start > 0 and tail < MAX_TAIL
        if found and not (widen and _only_end_records(found)):
            return _wall_time(found)
        if not widen:
            return _wall_time(found) if found else None
        tail *= 4


def _last_records(data: bytes, *, whole: bool) -> list[bytes] | None:
    """The data of the complete records of ``data`` from a record boundary to its end (the tail of a file;
    ``whole``: the file from byte 0), in file order."""
    if whole:
        return _chain_end(data, 0)
    position = data.find(_HIGH_ZEROS, 4)
    while position != -1:
        found = _chain_end(data, position - 4)
        if found is not None:
            return found
        position = data.find(_HIGH_ZEROS, position + 1)
    return None


def _chain_end(data: bytes, offset: int) -> list[bytes] | None:
    """Following records from ``offset``: the complete ones' data, if the chain reaches the end of ``data`` (or a
    record cut short there); None if it breaks or holds no complete record."""
    records: list[bytes] = []
    while len(data) - offset >= HEADER_SIZE:
        size = record_size(data, offset)
        if size is None:
            return None
        if offset + size > len(data):  # being appended: the chain still reached the end
            break
        records.append(data[offset + HEADER_SIZE : offset + size - 4])
        offset += size
    return records or None


def _is_end_record(event: event_pb2.Event) -> bool:
    return any(value.tag == RUN_END_TAG for value in event.summary.value)


def _only_end_records(records: list[bytes]) -> bool:
    """Whether the tail's chain holds the end record and nothing else (a big record before it, such as an image,
    started before the tail): then the tail is widened to find the last value."""
    event = event_pb2.Event()
    for record in records:
        try:
            event.ParseFromString(record)
        except DecodeError:
            return False
        if not _is_end_record(event):
            return False
    return True


def _wall_time(records: list[bytes]) -> float | None:
    """The wall time of the last record that is not the writer's end record (or of the end record alone)."""
    fallback: float | None = None
    for record in reversed(records):
        event = event_pb2.Event()
        try:
            event.ParseFromString(record)
        except DecodeError:
            return None
        wall = event.wall_time if event.wall_time > 0 else None
        if _is_end_record(event):
            fallback = fallback if fallback is not None else wall
            continue
        return wall
    return fallback
