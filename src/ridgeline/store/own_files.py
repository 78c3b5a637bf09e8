"""A long scalar series' own column files, and the mappings of them its readers share.

Once a series reaches :data:`ridgeline.store.disk_series.FLUSH_POINTS` points it moves to files of its own:
``.step`` and ``.wall_time`` (encoded chunks, :mod:`ridgeline.store.encoding`), ``.value4`` or ``.value8`` (raw
little-endian float32/float64, mapped read-only: a snapshot's values are a view of the mapping, zero-copy) and
``.lod`` (its level-of-detail blocks, :mod:`ridgeline.store.lod`). Each mapping keeps file descriptors open, so
only the :data:`MAPPED_SERIES` most recently read series keep theirs (:data:`MAPPINGS`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ridgeline.store.encoding import Column, encode
from ridgeline.store.files import ColumnFile, private_directory
from ridgeline.store.lod import BLOCK, BLOCK_POINTS, Pyramid, block_stats
from ridgeline.store.packs import BYTES, FLOAT64, Points, wall_bits

MAPPED_SERIES = 128


@dataclass
class OwnFiles:
    """A long series' own files: encoded steps and wall times (bytes), values (float32 or float64), blocks."""

    step: ColumnFile
    wall_time: ColumnFile
    value: ColumnFile
    lod: ColumnFile

    @classmethod
    def create(cls, base: Path, dtype: np.dtype[Any]) -> OwnFiles:
        private_directory(base.parent)  # the run's directory: made when its first series grows long
        own = cls(
            ColumnFile(base.with_suffix(".step"), BYTES),
            ColumnFile(base.with_suffix(".wall_time"), BYTES),
            ColumnFile(base.with_suffix(f".value{dtype.itemsize}"), dtype),
            ColumnFile(base.with_suffix(".lod"), BLOCK),
        )
        for column in own.files():
            column.path.unlink(missing_ok=True)
        return own

    def files(self) -> tuple[ColumnFile, ColumnFile, ColumnFile, ColumnFile]:
        return (self.step, self.wall_time, self.value, self.lod)

    def describe(self) -> dict[str, Any]:
        return {
            "step": self.step.describe(),
            "wall_time": self.wall_time.describe(),
            "value": self.value.describe(),
            "value_dtype": self.value.dtype.str,
            "lod": self.lod.describe(),
        }

    def append(self, points: Points, first: int) -> None:
        """Append points ``first`` onwards: all four files, or (OSError) none of them counts the write."""
        step, wall_time, value = points
        saved = [(column.length, column.crc) for column in self.files()]
        try:
            blocks = self._blocks(value, first)
            self.step.append(np.frombuffer(encode(np.asarray(step, np.int64), first), BYTES))
            self.wall_time.append(np.frombuffer(encode(wall_bits(wall_time), first), BYTES))
            self.value.append(np.asarray(value))
            if len(blocks):
                self.lod.append(blocks)
        except OSError:
            for column, (length, crc) in zip(self.files(), saved, strict=True):
                column.length, column.crc = length, crc
            raise

    def _blocks(self, value: np.ndarray, first: int) -> np.ndarray:
        """The level-0 blocks these values complete (the block they start in read back from the file)."""
        done = self.lod.length * BLOCK_POINTS
        end = first + len(value)
        whole = end // BLOCK_POINTS * BLOCK_POINTS
        if whole <= done:
            return np.zeros(0, dtype=BLOCK)
        before = self.value.read(done, first - done) if first > done else np.zeros(0, self.value.dtype)
        values = np.concatenate([before.astype(FLOAT64), np.asarray(value, FLOAT64)])
        return block_stats(values[: whole - done])

    def widened(self) -> OwnFiles:
        """The same series with its values in a new float64 file (the float32 one is removed once unused)."""
        wide = ColumnFile(self.value.path.with_suffix(".value8"), FLOAT64)
        wide.path.unlink(missing_ok=True)
        for start in range(0, self.value.length, 1 << 20):
            wide.append(self.value.read(start, min(1 << 20, self.value.length - start)).astype(FLOAT64))
        return OwnFiles(self.step, self.wall_time, wide, self.lod)


@dataclass(frozen=True, slots=True, eq=False)
class Mapped:
    """One series' own files as read at ``length`` points: the value mapping, the parsed encoded columns."""

    length: int
    value: np.ndarray
    step: Column
    wall_time: Column
    pyramid: Pyramid


class Mappable(Protocol):
    """What :class:`_Mappings` holds: a series whose mapping it drops (``_mapped = None``) when it is the oldest."""

    _mapped: Mapped | None


class _Mappings:
    """The mappings of the most recently read series (least recently used dropped first)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._held: OrderedDict[int, Mappable] = OrderedDict()
        self._lock = threading.Lock()

    def touched(self, series: Mappable) -> None:
        with self._lock:
            self._held[id(series)] = series
            self._held.move_to_end(id(series))
            while len(self._held) > self.limit:
                _, oldest = self._held.popitem(last=False)
                oldest._mapped = None

    def forget(self, series: Mappable) -> None:
        with self._lock:
            self._held.pop(id(series), None)

    def __len__(self) -> int:
        return len(self._held)


MAPPINGS = _Mappings(MAPPED_SERIES)
MAP_LOCK = threading.Lock()  # held while a series' mapping is made (rare: one lock for all is cheaper to create)
