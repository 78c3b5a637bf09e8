"""ScalarSeries: appends, read-only snapshots that outlive growth, memory, and a writer racing readers."""

from __future__ import annotations

import os
import sys
import threading
import time
import tracemalloc
from collections.abc import Iterator

import numpy as np
import pytest

from ridgeline.store import pages
from ridgeline.store.restarts import visible
from ridgeline.store.series import MIN_CAPACITY, RISING_CHECK_POINTS, ScalarSeries, ScalarSnapshot, restarts_within
from tests.conftest import WAIT_S


def columns(snapshot: ScalarSnapshot) -> tuple[list[int], list[float], list[float]]:
    return snapshot.step.tolist(), snapshot.wall_time.tolist(), snapshot.value.tolist()


def test_append_and_append_one_in_file_order() -> None:
    series = ScalarSeries()
    assert len(series) == 0
    assert len(series.snapshot()) == 0
    series.append(np.array([0, 1]), np.array([10.0, 11.0]), np.array([0.5, 0.25]))
    series.append_one(7, 12.0, -1.0)
    series.append([3], [13.0], [2.0])  # sequences are accepted too
    series.append(np.array([], dtype=np.int64), np.array([]), np.array([]))
    assert len(series) == 4
    snapshot = series.snapshot()
    assert columns(snapshot) == ([0, 1, 7, 3], [10.0, 11.0, 12.0, 13.0], [0.5, 0.25, -1.0, 2.0])
    assert (snapshot.step.dtype, snapshot.wall_time.dtype, snapshot.value.dtype) == (np.int64, np.float64, np.float64)
    assert snapshot.visible().tolist() == [True, True, False, True]


def test_snapshots_are_read_only_views() -> None:
    series = ScalarSeries()
    series.append(np.arange(5), np.zeros(5), np.ones(5))
    snapshot = series.snapshot()
    for column in (snapshot.step, snapshot.wall_time, snapshot.value):
        assert not column.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            column[0] = 1
    with pytest.raises(AttributeError):
        snapshot.step = np.arange(2)  # type: ignore[misc]


def test_mismatched_columns_are_refused() -> None:
    series = ScalarSeries()
    with pytest.raises(ValueError, match="equally long"):
        series.append(np.arange(3), np.zeros(2), np.zeros(3))
    with pytest.raises(ValueError, match="equally long"):
        series.append(np.zeros((2, 2), dtype=np.int64), np.zeros(4), np.zeros(4))
    assert len(series) == 0


def test_old_snapshots_survive_growth_and_compaction() -> None:
    series = ScalarSeries(capacity=4)
    series.append(np.arange(4), np.arange(4) * 0.5, np.arange(4) * 2.0)
    before = series.snapshot()
    series.append(np.arange(4, 100), np.arange(4, 100) * 0.5, np.arange(4, 100) * 2.0)  # new arrays
    series.compact()
    after_compact = series.snapshot()
    series.append_one(100, 50.0, 200.0)  # grows again
    assert columns(before) == ([0, 1, 2, 3], [0.0, 0.5, 1.0, 1.5], [0.0, 2.0, 4.0, 6.0])
    assert after_compact.step.tolist() == list(range(100))
    assert series.snapshot().step.tolist() == list(range(101))


def test_capacity_grows_by_half_and_compact_trims() -> None:
    series = ScalarSeries()
    assert series.capacity == MIN_CAPACITY
    for chunk in range(100):
        start = chunk * 1000
        series.append(np.arange(start, start + 1000), np.zeros(1000), np.zeros(1000))
        assert len(series) <= series.capacity <= max(int(1.5 * len(series)), MIN_CAPACITY) + 1000
    series.compact()
    assert series.capacity == len(series) == 100_000
    assert series.nbytes == 24 * 100_000
    series.compact()  # nothing left to trim
    assert series.capacity == 100_000


def test_a_million_points_in_chunks_fit_well_under_64_mb() -> None:
    n, chunk = 1_000_000, 10_000
    step = np.arange(n, dtype=np.int64)
    wall_time = np.linspace(0.0, 1.0, n)
    value = np.sin(wall_time)
    tracemalloc.start()
    try:
        series = ScalarSeries()
        for i in range(0, n, chunk):
            series.append(step[i : i + chunk], wall_time[i : i + chunk], value[i : i + chunk])
        held, peak = tracemalloc.get_traced_memory()
        series.compact()
        compacted, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(series) == n
    assert series.nbytes == 24 * n
    assert held < 40e6  # 24 MB of points and under 50% slack
    assert peak < 48e6  # growing copies one column at a time
    assert compacted < 25e6
    np.testing.assert_array_equal(series.snapshot().value, value)


def test_restart_marks_count_the_points_before_them() -> None:
    series = ScalarSeries()
    series.mark_restart(0)
    series.append(np.array([0, 1, 2, 3]), np.zeros(4), np.zeros(4))
    before = series.snapshot()
    series.mark_restart(2)
    series.append_one(2, 0.0, 0.0)
    assert series.restart_marks == ((0, 0), (4, 2))
    assert before.restarts == ((0, 0),)
    snapshot = series.snapshot()
    assert snapshot.restarts == ((0, 0), (4, 2))
    assert snapshot.step[snapshot.visible()].tolist() == [0, 1, 2]
    # A mark made after the points a snapshot holds belongs to a later state of the run.
    assert restarts_within(((0, 0), (4, 2), (6, 1)), 5) == ((0, 0), (4, 2))
    assert restarts_within(((0, 0), (4, 2)), 4) == ((0, 0), (4, 2))


@pytest.fixture
def fast_switching() -> Iterator[None]:
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # many more thread switches, inside appends as well
    try:
        yield
    finally:
        sys.setswitchinterval(interval)


@pytest.mark.usefixtures("fast_switching")
def test_readers_see_consistent_prefixes_while_the_writer_appends() -> None:
    """Point i is (i, i / 2, 3i); every snapshot must be a prefix of that, and stay unchanged for ever."""
    total = 300_000
    series = ScalarSeries(capacity=1)
    done = threading.Event()
    failures: list[str] = []
    kept: list[ScalarSnapshot] = []

    def writer() -> None:
        rng = np.random.default_rng(1)
        n = 0
        try:
            while n < total:
                size = int(rng.integers(1, 3000))
                if rng.random() < 0.3:
                    for _ in range(min(size, 50, total - n)):
                        series.append_one(n, n / 2, 3.0 * n)
                        n += 1
                else:
                    index = np.arange(n, min(n + size, total))
                    series.append(index, index / 2, 3.0 * index)
                    n += len(index)
                if rng.random() < 0.05:
                    series.mark_restart(n)
                if rng.random() < 0.02:
                    series.compact()
                time.sleep(0)  # let the readers in between batches too
        finally:
            done.set()

    def reader() -> None:
        last = 0
        checks = 0
        while not done.is_set() or checks < 5:
            snapshot = series.snapshot()
            n = len(snapshot)
            if not (n >= last and len(snapshot.wall_time) == len(snapshot.value) == n):
                failures.append(f"length went from {last} to {n}, or columns disagree")
            index = np.arange(n)
            if not (
                np.array_equal(snapshot.step, index)
                and np.array_equal(snapshot.wall_time, index / 2)
                and np.array_equal(snapshot.value, 3.0 * index)
            ):
                failures.append(f"snapshot of {n} points is not a prefix of the data")
            if any(count > n for count, _ in snapshot.restarts):
                failures.append(f"snapshot of {n} points holds a later restart: {snapshot.restarts}")
            if n != last and len(kept) < 300:
                kept.append(snapshot)
            last = n
            checks += 1

    threads = [threading.Thread(target=writer)] + [threading.Thread(target=reader) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not failures, failures[:5]
    assert len(series) == total
    final = series.snapshot()
    assert all(count <= total and step == count for count, step in final.restarts)
    assert len({len(snapshot) for snapshot in kept}) > 3  # the readers did see the series grow
    for snapshot in kept:  # snapshots taken mid-way are still intact prefixes
        n = len(snapshot)
        assert np.array_equal(snapshot.step, final.step[:n])
        assert np.array_equal(snapshot.value, final.value[:n])


def test_a_snapshot_knows_when_every_point_is_visible_without_a_pass() -> None:
    """Issue 15: strictly rising steps and no START after any point: every point is visible, known from a flag the
    writer keeps (the reader's mask then needs no pass over the steps); anything else falls back to the mask."""
    n = RISING_CHECK_POINTS  # appends at least this long are checked (a pass is cheap beside their copy)
    rising = ScalarSeries()
    rising.append(np.arange(0, n), np.zeros(n), np.ones(n))
    rising.append_one(n, 0.0, 1.0)
    rising.append(np.arange(n + 1, 2 * n + 1), np.zeros(n), np.ones(n))
    early = rising.snapshot()
    assert early.increasing and early.all_visible() and early.visible().all() and len(early) == 2 * n + 1

    rising.append_one(2 * n, 0.0, 2.0)  # the same step again: the earlier point is hidden
    later = rising.snapshot()
    assert not later.increasing and later.visible().tolist() == [True] * (2 * n) + [False, True]
    assert early.all_visible() and len(early) == 2 * n + 1  # a snapshot taken before keeps what it knew

    for steps in ([0, 2, 1], [3, 3], [5, 6, 7, 7]):  # a fall or a repeat within one append
        series = ScalarSeries()
        series.append(np.array(steps * n), np.zeros(len(steps) * n), np.ones(len(steps) * n))
        assert not series.snapshot().increasing

    short = ScalarSeries()  # a short append is not checked: unknown, and the mask is computed
    short.append(np.arange(10), np.zeros(10), np.ones(10))
    assert not short.snapshot().increasing and short.snapshot().visible().all()

    restarted = ScalarSeries()
    restarted.append(np.arange(n), np.zeros(n), np.ones(n))
    restarted.mark_restart(4)
    restarted.append(np.arange(4, 6), np.zeros(2), np.ones(2))
    snapshot = restarted.snapshot()
    assert snapshot.increasing is False  # 4 after n - 1
    assert not snapshot.all_visible()
    assert snapshot.visible().tolist() == [True] * 4 + [False] * (n - 4) + [True] * 2

    started = ScalarSeries()
    started.mark_restart(0)  # a START before any point hides nothing
    started.append(np.arange(n), np.zeros(n), np.ones(n))
    assert started.snapshot().all_visible()


def test_the_flag_agrees_with_the_mask_on_random_appends() -> None:
    rng = np.random.default_rng(15)
    for _ in range(200):
        series = ScalarSeries()
        last = 0
        for _ in range(int(rng.integers(1, 6))):
            count = int(rng.integers(1, 6))
            steps = last + np.cumsum(rng.integers(0 if rng.random() < 0.2 else 1, 3, count))
            last = int(steps[-1])
            series.append(steps, np.zeros(count), np.ones(count))
            if rng.random() < 0.1:
                series.mark_restart(int(rng.integers(0, last + 1)))
        snapshot = series.snapshot()
        exact = visible(snapshot.step, snapshot.restarts)
        assert snapshot.visible().tolist() == exact.tolist()
        if snapshot.all_visible():
            assert exact.all()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="MADV_POPULATE_WRITE is Linux's")
def test_reserve_has_the_pages_mapped_ahead_without_changing_a_byte() -> None:
    """Issue 15: the columns ingest reserves for a large file are mapped by a background thread while it parses
    (ridgeline.store.pages): the appending thread then takes no page faults there, and what it appends before,
    meanwhile and after is kept exactly."""

    import resource

    def faults() -> int:  # this thread's minor page faults
        return resource.getrusage(resource.RUSAGE_THREAD).ru_minflt

    points = 2_000_000  # 48 MB of columns
    steps = np.arange(points)
    series = ScalarSeries()
    series.append(steps[:1000], steps[:1000] * 0.5, steps[:1000] * 0.25)
    series.reserve(points)
    series.append(steps[1000:3000], steps[1000:3000] * 0.5, steps[1000:3000] * 0.25)
    pages.wait()
    wall_times, values = steps[3000:] * 0.5, steps[3000:] * 0.25
    before = faults()
    series.append(steps[3000:], wall_times, values)
    taken = faults() - before
    if pages.populate(np.empty(pages.MIN_BYTES // 8)):  # a kernel that can populate: nothing left to fault
        assert taken < points * 24 // pages.PAGE // 4, taken  # 11,719 pages; the append's own temporaries fault
    snapshot = series.snapshot()
    assert (snapshot.step == steps).all()
    assert (snapshot.wall_time == steps * 0.5).all() and (snapshot.value == steps * 0.25).all()

    pattern = np.arange(pages.MIN_BYTES // 8 * 3, dtype=np.float64)
    assert pages.populate(pattern[1:]) == pages.populate(np.empty(pages.MIN_BYTES // 8))
    pages.wait()
    assert (pattern == np.arange(len(pattern), dtype=np.float64)).all()
    assert not pages.populate(np.empty(16))  # too small to be worth a hand-over


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_forked_child_maps_pages_of_its_own() -> None:
    """The mapping thread does not survive a fork (and its lock may have been held): the child starts afresh."""
    held = [np.empty(pages.MIN_BYTES // 8 * 4) for _ in range(4)]
    pages.populate(*held)
    pid = os.fork()
    if pid == 0:  # the child: hand over a column and wait for it, then leave without running pytest's exit
        code = 1
        try:
            pages.populate(np.empty(pages.MIN_BYTES // 8 * 2))
            waiting = threading.Thread(target=pages.wait, daemon=True)
            waiting.start()
            waiting.join(WAIT_S)  # a guard against hanging: a child that inherited a dead thread's state waits forever
            code = 0 if not waiting.is_alive() else 2
        finally:
            os._exit(code)
    pages.wait()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
