"""An append-only columnar scalar series: one ingest thread appends, any number of reader threads take snapshots.

Columns ``step`` (int64), ``wall_time`` (float64) and ``value`` (float64), in file order: 24 bytes a point.

How readers go without locks (CPython with the GIL; one writer thread per series):

* the points below the published length are never written again — appending writes past it, and growing or
  compacting copies them into NEW arrays, so a snapshot's views stay valid and unchanged forever;
* the writer writes a point's data before it publishes the new length (a plain attribute store);
* a reader reads the length first and each column afterwards: any column it then finds holds at least that many
  valid points, whichever generation of arrays it is;
* whether the steps strictly increase (a snapshot's ``increasing``: then only a START can hide a point) is set
  before the length it covers is published, and only ever turns False: read after the length, it is true of
  at least the points the snapshot holds.

Capacity grows by half (factor 1.5) and one column at a time, so the slack stays under half the points and
growing needs at most one extra column's worth of memory at once; :meth:`ScalarSeries.compact` trims the slack.
:meth:`ScalarSeries.reserve` (ingest sizes a series from the file it reads) also has the kernel map the new
columns' pages in a background thread (:mod:`ridgeline.store.pages`), so that filling them neither copies nor
waits for page faults.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ridgeline.store import pages
from ridgeline.store.restarts import RestartLog, SeriesRestarts, visible

MIN_CAPACITY = 16
RISING_CHECK_POINTS = 4096  # shorter appends leave a series' rising steps unknown (see append)
GROWTH = 1.5

Restarts = tuple[tuple[int, int], ...]


def grown(column: np.ndarray, length: int, needed: int) -> np.ndarray:
    """A new array holding ``column[:length]``, with room for at least ``needed`` elements (1.5x growth)."""
    capacity = max(needed, int(column.shape[0] * GROWTH), MIN_CAPACITY)
    new = np.empty(capacity, dtype=column.dtype)
    new[:length] = column[:length]
    return new


def read_only(column: np.ndarray, length: int) -> np.ndarray:
    view = column[:length]
    view.flags.writeable = False
    return view


def restarts_within(restarts: Restarts, length: int) -> Restarts:
    """The restarts seen after at most ``length`` points: those a snapshot of ``length`` points includes."""
    if not restarts or restarts[-1][0] <= length:
        return restarts
    return tuple(mark for mark in restarts if mark[0] <= length)


@dataclass(frozen=True, slots=True, eq=False)
class ScalarSnapshot:
    """The first ``len(self)`` points of a series, as read-only views that never change.

    ``restarts`` are the run's START events seen after at most that many points, as ``(count, start_step)``
    (see :mod:`ridgeline.store.restarts`).
    """

    step: np.ndarray
    wall_time: np.ndarray
    value: np.ndarray
    restarts: Restarts = ()
    increasing: bool = False  # True: the steps are known to increase strictly, point after point

    def __len__(self) -> int:
        return int(self.step.shape[0])

    def visible(self) -> np.ndarray:
        """Boolean mask of the points a TensorBoard user would see (the last write of each step, after restarts)."""
        if self.all_visible():
            return np.ones(len(self), dtype=bool)
        return visible(self.step, self.restarts)

    def all_visible(self) -> bool:
        """Whether every point is visible, known without a pass over the points: steps that strictly increase
        and no START after any of them (False when unknown: ask :meth:`visible`)."""
        return self.increasing and not any(count for count, _ in self.restarts)


class ScalarSeries:
    """Append-only (step, wall_time, value) columns; see the module docstring for the threading contract."""

    __slots__ = ("_length", "_restarts", "_rising", "_step", "_value", "_wall_time")

    def __init__(self, capacity: int = MIN_CAPACITY, restart_log: RestartLog | None = None) -> None:
        """``restart_log``: the run's START events (shared by its series); a series of its own by default."""
        capacity = max(int(capacity), 1)
        self._step = np.empty(capacity, dtype=np.int64)
        self._wall_time = np.empty(capacity, dtype=np.float64)
        self._value = np.empty(capacity, dtype=np.float64)
        self._restarts = SeriesRestarts(restart_log)
        self._length = 0
        self._rising = True  # whether the steps appended so far strictly increase (then no point hides another)

    def __len__(self) -> int:
        return self._length

    @property
    def capacity(self) -> int:
        return int(self._step.shape[0])

    @property
    def nbytes(self) -> int:
        """Bytes held by the columns, slack included (not counting arrays kept alive only by old snapshots)."""
        return self._step.nbytes + self._wall_time.nbytes + self._value.nbytes

    @property
    def restart_marks(self) -> Restarts:
        """``(count, start_step)`` of each START event of the run seen so far: ``count`` points preceded it."""
        return self._restarts.within(self._length)

    # --- writer thread ------------------------------------------------------------------------------------------
    def append(self, step: np.ndarray, wall_time: np.ndarray, value: np.ndarray) -> None:
        """Append points given as three equally long one-dimensional arrays (or sequences)."""
        steps = np.asarray(step, dtype=np.int64)
        wall_times = np.asarray(wall_time, dtype=np.float64)
        values = np.asarray(value, dtype=np.float64)
        count = steps.shape[0] if steps.ndim == 1 else -1
        if count < 0 or wall_times.shape != (count,) or values.shape != (count,):
            raise ValueError(
                f"step, wall_time and value must be 1-D and equally long; got shapes "
                f"{steps.shape}, {wall_times.shape}, {values.shape}"
            )
        if count == 0:
            return
        start = self._length
        self._restarts.fold(start)
        end = start + count
        if self._rising:
            # Checked only where a pass is cheap beside the append: the 10,000 series of a wide directory, appended
            # ~200 points at a time, spent 5% of a 100M-point read on it. Unchecked is unknown, for good: readers
            # compute the visibility mask, as without the flag.
            self._rising = (
                count >= RISING_CHECK_POINTS
                and (start == 0 or int(steps[0]) > int(self._step[start - 1]))
                and bool((steps[1:] > steps[:-1]).all())
            )
        self._reserve(end)
        self._step[start:end] = steps
        self._wall_time[start:end] = wall_times
        self._value[start:end] = values
        self._length = end  # publish only once the data is in place

    def append_one(self, step: int, wall_time: float, value: float) -> None:
        """Append a single point (the slow decode path's way in)."""
        n = self._length
        self._restarts.fold(n)
        if self._rising and n:
            self._rising = step > int(self._step[n - 1])
        if n == self._step.shape[0]:
            self._reserve(n + 1)
        self._step[n] = step
        self._wall_time[n] = wall_time
        self._value[n] = value
        self._length = n + 1

    def reserve(self, capacity: int) -> None:
        """Make room for ``capacity`` points in all, so that appending up to there copies nothing (ingest sizes a
        series from the length of the file it reads); large new columns are mapped ahead in the background."""
        before = self._step.shape[0]
        self._reserve(int(capacity))
        if self._step.shape[0] != before:
            n = self._length
            pages.populate(self._step[n:], self._wall_time[n:], self._value[n:])

    def mark_restart(self, step: int) -> None:
        """Record a START event of the run at ``step``, after the points appended so far (in the run's log: every
        series sharing it sees the START)."""
        self._restarts.log.append(int(step))

    def compact(self) -> None:
        """Drop the spare capacity (into new arrays: snapshots already taken keep theirs)."""
        n = self._length
        if self._step.shape[0] == max(n, 1):
            return
        self._step = _exact(self._step, n)
        self._wall_time = _exact(self._wall_time, n)
        self._value = _exact(self._value, n)

    def _reserve(self, needed: int) -> None:
        if needed <= self._step.shape[0]:
            return
        n = self._length
        # One column at a time: the old one can be freed before the next is copied.
        self._step = grown(self._step, n, needed)
        self._wall_time = grown(self._wall_time, n, needed)
        self._value = grown(self._value, n, needed)

    # --- any thread ---------------------------------------------------------------------------------------------
    def snapshot(self) -> ScalarSnapshot:
        """The points published so far, as read-only views (O(1): no copy)."""
        n = self._length  # read the length before the columns
        rising = self._rising  # after the length: it only goes from True to False, before the length it covers
        return ScalarSnapshot(
            read_only(self._step, n),
            read_only(self._wall_time, n),
            read_only(self._value, n),
            self._restarts.within(n),
            rising,
        )


def _exact(column: np.ndarray, length: int) -> np.ndarray:
    new = np.empty(max(length, 1), dtype=column.dtype)
    new[:length] = column[:length]
    return new
