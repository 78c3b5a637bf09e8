"""Level of detail for long series: per block of points, what a chart of the block needs without its points.

A block's :data:`BLOCK` record holds the lowest and highest *finite* value (+inf and -inf when it has none), its
first and last value, and how many of its values are NaN, +inf and -inf. Level 0 has one record per
:data:`BLOCK_POINTS` points and is kept on disk beside the series (appended as full blocks fill, checked like
every column); the levels above group :data:`FANOUT` blocks of the level below (4,096, 65,536 and 1,048,576
points a block) and are derived from level 0 when a series is read (1/16 of its records, in one numpy pass).

A reduced answer over any step range (``ridgeline.analysis.downsample.reduce_indexed``) reads, per pixel bucket,
at most ``FANOUT - 1`` blocks of each level at each end, and at most ``BLOCK_POINTS - 1`` points at each end:
O(pixels x levels), whatever the length of the series.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

BLOCK_POINTS = 256
FANOUT = 16
LEVELS = 4  # blocks of 256, 4k, 64k and 1M points

BLOCK = np.dtype(
    [
        ("min", "<f8"),
        ("max", "<f8"),
        ("first", "<f8"),
        ("last", "<f8"),
        ("nan", "<i4"),
        ("posinf", "<i4"),
        ("neginf", "<i4"),
        ("spare", "<i4"),
    ]
)


def block_stats(values: np.ndarray) -> np.ndarray:
    """Level-0 records of ``values`` (a whole number of blocks: ``len(values) % BLOCK_POINTS == 0``)."""
    v = np.asarray(values, dtype=np.float64).reshape(-1, BLOCK_POINTS)
    out = np.zeros(len(v), dtype=BLOCK)
    finite = np.isfinite(v)
    out["min"] = np.where(finite, v, np.inf).min(axis=1)
    out["max"] = np.where(finite, v, -np.inf).max(axis=1)
    out["first"] = v[:, 0]
    out["last"] = v[:, -1]
    if not finite.all():
        out["nan"] = np.isnan(v).sum(axis=1)
        out["posinf"] = np.isposinf(v).sum(axis=1)
        out["neginf"] = np.isneginf(v).sum(axis=1)
    return out


def combined(blocks: np.ndarray) -> np.ndarray:
    """The records one level up: each of :data:`FANOUT` consecutive whole blocks combined (a partial group left
    out: it is read at the level below)."""
    groups = blocks[: len(blocks) // FANOUT * FANOUT].reshape(-1, FANOUT)
    out = np.zeros(len(groups), dtype=BLOCK)
    out["min"] = groups["min"].min(axis=1)
    out["max"] = groups["max"].max(axis=1)
    out["first"] = groups["first"][:, 0]
    out["last"] = groups["last"][:, -1]
    for name in ("nan", "posinf", "neginf"):
        out[name] = groups[name].sum(axis=1)
    return out


@dataclass(frozen=True, slots=True, eq=False)
class Pyramid:
    """The levels of one series' first ``len(levels[0]) * BLOCK_POINTS`` points: ``levels[k]`` has one record per
    ``BLOCK_POINTS * FANOUT ** k`` points (whole blocks only)."""

    levels: tuple[np.ndarray, ...]

    @classmethod
    def over(cls, level0: np.ndarray) -> Pyramid:
        levels = [level0]
        for _ in range(1, LEVELS):
            levels.append(combined(levels[-1]))
        return cls(tuple(levels))

    def within(self, length: int) -> Pyramid:
        """The levels of the first ``length`` points only."""
        return Pyramid(tuple(level[: length // self.block_points(k)] for k, level in enumerate(self.levels)))

    def block_points(self, level: int) -> int:
        return BLOCK_POINTS * FANOUT**level


@dataclass(frozen=True, slots=True, eq=False)
class IndexedScalars:
    """One long series as its index offers it, for reading a few points of it without reading it all.

    Every point is visible (steps strictly increase and no restart hides any), so the series is what
    ``Provider.scalars`` answers. ``value`` is the column itself (a read-only mapping, float32 or float64, as
    stored); ``pyramid`` covers its whole blocks. ``steps``/``wall_times`` read the points at some indices;
    ``search`` is ``numpy.searchsorted`` over the steps.
    """

    value: np.ndarray
    pyramid: Pyramid
    _steps: Any
    _wall_times: Any

    def __len__(self) -> int:
        return int(self.value.shape[0])

    @property
    def levels(self) -> tuple[np.ndarray, ...]:
        return self.pyramid.levels

    @property
    def block_sizes(self) -> tuple[int, ...]:
        return tuple(self.pyramid.block_points(k) for k in range(len(self.pyramid.levels)))

    def steps(self, indices: np.ndarray) -> np.ndarray:
        return np.asarray(self._steps.gather(indices), dtype=np.int64)

    def wall_times(self, indices: np.ndarray) -> np.ndarray:
        return np.asarray(self._wall_times.gather(indices), dtype=np.int64).view(np.float64)

    def search(self, steps: np.ndarray, side: str = "left") -> np.ndarray:
        found: np.ndarray = np.minimum(self._steps.searchsorted(steps, side), len(self))
        return found
