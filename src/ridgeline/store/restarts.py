"""Which points of a series a TensorBoard user would see after a job restarted and its steps went back.

Every point stays in the store, in file order; this module only decides visibility, as a pure function of one
series' steps and the restarts (``SessionLog.START`` events) seen in its run.

Our rule
--------
For ONE series in file order, with ``restarts`` listing ``(count, start_step)`` — ``count`` being how many points
of this series preceded the START event — a point is **visible** iff

1. no LATER point of the same series has a step ``<=`` its step (a step going back, or the same step written
   again, hides the earlier points from that step on: last write wins), and
2. no LATER START event has a step ``<=`` its step.

The visible points are then strictly increasing in step, and each is the last one written at its step.

How this relates to TensorBoard
-------------------------------
TensorBoard has three loaders, and none of them applies both halves of the rule to the same file:

* **RustBoard** (``tensorboard-data-server``, the default loader since TensorBoard 2.5): applies rule 1 exactly,
  per time series (its reservoir "preempts any records with steps not smaller than" a new record's step), and
  ignores ``SessionLog`` events altogether — rule 2 is not applied.

* **The Python ``event_accumulator.EventAccumulator``** (the loader scripts import to read event files, and the
  oracle of our tests) picks ONE mechanism per run from the ``file_version`` event:

  - ``file_version >= 2`` (``"brain.Event:2"``, written by every current writer: ours, torch's, tensorboardX's,
    TF2's): it purges only on a START event at step ``s`` — every earlier point of every tag with step ``>= s``
    (rule 2). A step going back without a START purges nothing, so TensorBoard shows the old and the new points
    side by side (steps ``1, 5, 2`` are all shown; we show ``1, 2``).
  - no ``file_version`` (or ``< 2``): it purges only on an out-of-order summary event — if
    ``event.step < most_recent_step``, earlier points *of that event's tags* with step ``>= event.step`` (rule 1).
    START events purge nothing. ``most_recent_step`` is run-wide: it is set to ``event.step`` by every event that
    did not purge — summaries of any tag, and also non-summary events (graphs, session logs, run metadata), which
    set it even when their step is lower. For one series whose events are the only events of the run, it is the
    running maximum of the series' steps.

  **The corner case.** The out-of-order test is a strict ``<``: an event whose step *equals* the run's
  ``most_recent_step`` purges nothing. For one series alone in its run this happens exactly when a point repeats
  the step of the point just before it while that step is the running maximum (steps ``5, 5``: TensorBoard shows
  both points, we show the last; ``5, 3, 3`` purges normally in TensorBoard, because ``3 < 5``). Every other
  sequence of steps without START events gives identical visible points. Other tags and non-summary events move
  the run-wide ``most_recent_step`` too: e.g. a START at step 0 between steps ``5`` and ``3`` sets it to 0, so the
  ``3`` purges nothing and TensorBoard shows ``5, 3``.

  So this loader shows exactly what we show: for current files (``file_version >= 2``), whenever every point
  hidden by a later point (rule 1) is also hidden by a later START (rule 2) — true when the steps increase and,
  after each START at step ``s``, resume at steps ``>= s``: the pattern of a restart with ``purge_step``; for
  legacy files, whenever there is no START event and no step is immediately repeated at the running maximum.

* **The Python ``plugin_event_accumulator.EventAccumulator``** (behind the dashboards with ``--load_fast=false``):
  the same choice by ``file_version``, with two differences: the FIRST START event of a run is not treated as a
  restart (so a torch ``purge_step`` in a run that never wrote START before purges nothing), and
  ``most_recent_step`` is the step of the last *summary* event of any tag, so in the legacy mode every immediately
  repeated step is the corner case (``5, 3, 3`` shows both 3s).

Our rule is the union of the two mechanisms: what RustBoard shows, plus the START purge that the Python loaders
apply to current files.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

_NO_LIMIT = np.iinfo(np.int64).max


def visible(step: np.ndarray, restarts: Sequence[tuple[int, int]] = ()) -> np.ndarray:
    """Boolean mask of the points of one series (in file order) that a user sees; see the module docstring.

    ``restarts`` lists ``(count, start_step)``, in any order: the START event came after the first ``count``
    points of this series. ``count == 0`` hides nothing; ``count > len(step)`` is a START that came after points
    not given here (recorded after the snapshot ``step`` was taken, say) and is ignored, so the result is the
    view of that earlier state. O(n + len(restarts)).
    """
    steps = np.asarray(step, dtype=np.int64)
    if steps.ndim != 1:
        raise ValueError(f"step must be one-dimensional, got shape {steps.shape}")
    n = steps.shape[0]
    if n == 0:
        return np.zeros(0, dtype=bool)

    # limit[i]: the smallest step that hides point i — of the next point, or of a START right after point i.
    limit = np.empty(n, dtype=np.int64)
    limit[:-1] = steps[1:]
    limit[-1] = _NO_LIMIT
    shown_last = True  # whether a START after the last point hides it
    if len(restarts):
        marks = np.asarray(restarts, dtype=np.int64).reshape(-1, 2)
        counts, start_steps = marks[:, 0], marks[:, 1]
        if (counts < 0).any():
            raise ValueError(f"restart counts must be >= 0, got {counts.tolist()}")
        effective = (counts > 0) & (counts <= n)
        np.minimum.at(limit, counts[effective] - 1, start_steps[effective])
        after_all = counts == n
        if after_all.any():
            shown_last = int(steps[-1]) < int(start_steps[after_all].min())
    # Every later point and every later START: a reversed cumulative minimum.
    later = np.minimum.accumulate(limit[::-1])[::-1]
    shown = steps < later
    # _NO_LIMIT doubles as "nothing later"; only the last point can have nothing later, so decide it exactly
    # (a step of 2**63 - 1 would otherwise compare equal to the sentinel).
    shown[-1] = shown_last
    return shown


class RestartLog:
    """The steps of one run's START events in file order: append-only, shared by every series of the run.

    A START is recorded once here, not once per series: with T tags and S restarts that is S appends, where a
    mark in every series was T x S (and copying each series' marks at each START, T x S x S). Same threading
    contract as the series: one writer thread, the data written before the length is published.
    """

    __slots__ = ("_length", "_steps")

    def __init__(self) -> None:
        self._steps = np.empty(16, dtype=np.int64)
        self._length = 0

    def __len__(self) -> int:
        return self._length

    def append(self, step: int) -> None:
        n = self._length
        if n == self._steps.shape[0]:
            grown = np.empty(2 * n, dtype=np.int64)  # a new array: readers keep their views of the old one
            grown[:n] = self._steps[:n]
            self._steps = grown
        self._steps[n] = step
        self._length = n + 1

    def steps(self, start: int, end: int) -> np.ndarray:
        return self._steps[start:end]


class SeriesRestarts:
    """One series' view of its run's :class:`RestartLog`: how many of its points preceded each START.

    The series calls :meth:`fold` before each append; the STARTs logged since its previous append all came
    after the same number of points, so they are kept as one span ``(count, first, end)`` of the log. Work and
    memory are per append that follows a START, never per START per series. STARTs logged before the series
    existed do not concern it.
    """

    __slots__ = ("_first", "_log", "_seen", "_spans")

    def __init__(self, log: RestartLog | None = None) -> None:
        self._log = RestartLog() if log is None else log
        self._first = self._seen = len(self._log)
        self._spans: list[tuple[int, int, int]] = []  # (points before, log start, log end), contiguous in the log

    @property
    def log(self) -> RestartLog:
        return self._log

    def state(self) -> list[Any]:
        """What :meth:`restored` takes to rebuild this view over the same log (the on-disk store keeps it)."""
        return [self._first, self._seen, *[list(span) for span in self._spans]]

    @classmethod
    def restored(cls, log: RestartLog, state: Sequence[Any]) -> SeriesRestarts:
        """The view :meth:`state` described, over ``log`` (ValueError when it does not fit the log)."""
        view = cls.__new__(cls)
        view._log = log
        view._first, view._seen = int(state[0]), int(state[1])
        if len(state) == 2:  # no START after any of its points (the usual case: checked without a list)
            view._spans = []
            if not 0 <= view._first <= view._seen <= len(log):
                raise ValueError("restart spans do not fit the run's restart log")
            return view
        view._spans = [(int(span[0]), int(span[1]), int(span[2])) for span in state[2:]]
        ends = [view._first, view._seen, *(end for _, _, end in view._spans)]
        if min(ends) < 0 or max(ends) > len(log) or view._seen < view._first:
            raise ValueError("restart spans do not fit the run's restart log")
        return view

    def truncated(self, log: RestartLog, logged: int) -> SeriesRestarts:
        """This view as it was when the log held ``logged`` STARTs, over ``log`` (that log's first entries)."""
        first, seen = min(self._first, logged), min(self._seen, logged)
        spans = [[count, start, min(end, logged)] for count, start, end in self._spans if start < logged]
        return SeriesRestarts.restored(log, [first, seen, *spans])

    def fold(self, length: int) -> None:
        """Writer thread, before points are appended to a series of ``length`` points."""
        logged = len(self._log)
        if logged > self._seen:
            self._spans.append((length, self._seen, logged))
            self._seen = logged

    def within(self, length: int) -> tuple[tuple[int, int], ...]:
        """``(count, start_step)`` of each START seen so far after at most ``length`` points (a snapshot's)."""
        spans = self._spans[:]
        folded = spans[-1][2] if spans else self._first
        logged = len(self._log)
        if logged > folded:  # STARTs since the last append: after all the points there are
            spans.append((length, folded, logged))
        marks: list[tuple[int, int]] = []
        for count, first, end in spans:
            if count <= length:
                marks.extend((count, step) for step in self._log.steps(first, end).tolist())
        return tuple(marks)
