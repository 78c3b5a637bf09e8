"""Visibility after restarts: the vectorised rule, a plain reference loop of it, and TensorBoard's own loaders."""

from __future__ import annotations

import random
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tensorboard.backend.event_processing import event_accumulator, plugin_event_accumulator
from tensorboard.util import tensor_util

from ridgeline.format import records
from ridgeline.format.proto import event_pb2, summary_pb2
from ridgeline.store.restarts import visible

TAG = "loss"
START = "START"  # marks a SessionLog START event in a list of steps
Stream = Sequence[int | tuple[str, int]]  # a step (one point of TAG), or (START, step)
Point = tuple[int, float]

ORACLE_SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

steps_lists = st.lists(st.integers(0, 12), max_size=30)


def reference(step: Sequence[int], restarts: Sequence[tuple[int, int]] = ()) -> list[bool]:
    """The rule, literally: hidden by any later point at a step <= its own, or by any later START at such a step."""
    shown = []
    for i, s in enumerate(step):
        by_point = any(later <= s for later in step[i + 1 :])
        by_start = any(i < count <= len(step) and start <= s for count, start in restarts)
        shown.append(not (by_point or by_start))
    return shown


@st.composite
def series_with_restarts(draw: st.DrawFn) -> tuple[list[int], list[tuple[int, int]]]:
    step = draw(steps_lists)
    counts = sorted(draw(st.lists(st.integers(0, len(step) + 1), max_size=4)))  # len + 1: after a snapshot
    return step, [(count, draw(st.integers(0, 12))) for count in counts]


# --- the rule itself -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("step", "restarts", "expected"),
    [
        ([], [], []),
        ([3], [], [True]),
        ([0, 1, 2, 3], [], [True] * 4),
        ([1, 5, 2], [], [True, False, True]),  # a step going back hides what it overwrites
        ([5, 5], [], [False, True]),  # the same step again: last write wins
        ([5, 3, 3], [], [False, False, True]),
        ([1, 5, 3, 4], [(2, 3)], [True, False, True, True]),
        ([1, 5], [(2, 3)], [True, False]),  # a START after every point still hides
        ([1, 5, 7], [(2, 3)], [True, False, True]),  # resumed above purge_step: old steps 3..6 hidden anyway
        ([1, 5], [(0, 0)], [True, True]),  # a START before every point hides nothing
        ([1, 5, 9], [(1, 0)], [False, True, True]),
        ([2**63 - 1], [], [True]),  # the largest step is not mistaken for "nothing later"
        ([2**63 - 1], [(1, 2**63 - 1)], [False]),
        ([-3, -1, -2], [], [True, False, True]),
    ],
)
def test_examples(step: list[int], restarts: list[tuple[int, int]], expected: list[bool]) -> None:
    assert visible(np.array(step, dtype=np.int64), restarts).tolist() == expected


@given(series_with_restarts())
def test_matches_the_reference_loop_and_leaves_steps_strictly_increasing(
    case: tuple[list[int], list[tuple[int, int]]],
) -> None:
    step, restarts = case
    shown = visible(np.array(step, dtype=np.int64), restarts)
    assert shown.dtype == np.bool_
    assert shown.tolist() == reference(step, restarts)
    kept = np.array(step, dtype=np.int64)[shown]
    assert (np.diff(kept) > 0).all()
    if step and not any(count == len(step) for count, _ in restarts):
        assert shown[-1]  # the latest point is always shown unless a START follows it


@given(series_with_restarts(), st.randoms())
def test_the_order_of_restarts_does_not_matter(
    case: tuple[list[int], list[tuple[int, int]]], rng: random.Random
) -> None:
    step, restarts = case
    shuffled = list(restarts)
    rng.shuffle(shuffled)
    steps = np.array(step, dtype=np.int64)
    assert visible(steps, shuffled).tolist() == visible(steps, restarts).tolist()


def test_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="one-dimensional"):
        visible(np.zeros((2, 2), dtype=np.int64))
    with pytest.raises(ValueError, match="restart counts"):
        visible(np.arange(3), [(-1, 0)])


def test_restarts_after_the_given_points_are_ignored() -> None:
    # A reader's snapshot may be older than the run's restart marks: it sees the state before those STARTs.
    assert visible(np.array([1, 5, 9]), [(3, 4), (5, 0)]).tolist() == [True, False, False]
    assert visible(np.array([1, 5, 9]), [(4, 0)]).tolist() == [True, True, True]


def test_a_million_points_take_milliseconds() -> None:
    rng = np.random.default_rng(0)
    step = np.cumsum(rng.integers(-1, 3, 1_000_000))
    shown = visible(step, [(500_000, 10)])
    assert (np.diff(step[shown]) > 0).all()


# --- TensorBoard as the oracle ---------------------------------------------------------------------------------
def write_stream(path: Path, stream: Stream, *, file_version: bool) -> None:
    """One tfevents file: point i of TAG has value float(i) and wall time 1000 + its position in the stream."""
    events = [event_pb2.Event(wall_time=1000.0, file_version="brain.Event:2")] if file_version else []
    index = 0
    for position, item in enumerate(stream, 1):
        wall_time = 1000.0 + position
        if isinstance(item, tuple):
            status = event_pb2.SessionLog.START
            events.append(event_pb2.Event(wall_time=wall_time, step=item[1], session_log={"status": status}))
        else:
            value = summary_pb2.Summary.Value(tag=TAG, simple_value=float(index))
            events.append(event_pb2.Event(wall_time=wall_time, step=item, summary=summary_pb2.Summary(value=[value])))
            index += 1
    path.write_bytes(b"".join(records.frame(event.SerializeToString()) for event in events))


def legacy_loader(path: Path) -> list[Point]:
    accumulator = event_accumulator.EventAccumulator(str(path), size_guidance={event_accumulator.SCALARS: 0})
    accumulator.Reload()
    try:
        return [(e.step, e.value) for e in accumulator.Scalars(TAG)]
    except KeyError:
        return []


def plugin_loader(path: Path) -> list[Point]:
    accumulator = plugin_event_accumulator.EventAccumulator(
        str(path), size_guidance={plugin_event_accumulator.TENSORS: 0}
    )
    accumulator.Reload()
    try:
        events = accumulator.Tensors(TAG)
    except KeyError:
        return []
    return [(e.step, float(tensor_util.make_ndarray(e.tensor_proto).item())) for e in events]


Loader = Callable[[Path], list[Point]]


def tensorboard_shows(stream: Stream, loader: Loader, *, file_version: bool) -> list[Point]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "events.out.tfevents.1000.test"
        write_stream(path, stream, file_version=file_version)
        return loader(path)


def we_show(stream: Stream) -> list[Point]:
    step: list[int] = []
    restarts: list[tuple[int, int]] = []
    for item in stream:
        if isinstance(item, tuple):
            restarts.append((len(step), item[1]))
        else:
            step.append(item)
    shown = visible(np.array(step, dtype=np.int64), restarts)
    return [(s, float(i)) for i, s in enumerate(step) if shown[i]]


@st.composite
def restarted_runs(draw: st.DrawFn) -> list[int | tuple[str, int]]:
    """Increasing steps; after each START at step s, the resumed steps are increasing and >= s (purge_step)."""
    stream: list[int | tuple[str, int]] = sorted(set(draw(st.lists(st.integers(0, 12), max_size=12))))
    for _ in range(draw(st.integers(0, 3))):
        start = draw(st.integers(0, 12))
        stream.append((START, start))
        stream.extend(sorted(set(draw(st.lists(st.integers(start, start + 8), max_size=10)))))
    return stream


def without_repeats(step: list[int], *, at_running_max_only: bool) -> list[int]:
    """Drop each point that repeats the step just before it (only where that step is the maximum so far)."""
    kept: list[int] = []
    for s in step:
        if kept and s == kept[-1] and (not at_running_max_only or s == max(kept)):
            continue
        kept.append(s)
    return kept


@ORACLE_SETTINGS
@given(restarted_runs())
def test_legacy_accumulator_current_files(stream: list[int | tuple[str, int]]) -> None:
    assert we_show(stream) == tensorboard_shows(stream, legacy_loader, file_version=True)


@ORACLE_SETTINGS
@given(steps_lists)
def test_legacy_accumulator_files_without_version(step: list[int]) -> None:
    stream = without_repeats(step, at_running_max_only=True)
    assert we_show(stream) == tensorboard_shows(stream, legacy_loader, file_version=False)


@ORACLE_SETTINGS
@given(restarted_runs())
def test_plugin_accumulator_current_files(stream: list[int | tuple[str, int]]) -> None:
    # This loader ignores a run's first START: a START at step 0 before any point (which hides nothing) goes first.
    stream = [(START, 0), *stream]
    assert we_show(stream) == tensorboard_shows(stream, plugin_loader, file_version=True)


@ORACLE_SETTINGS
@given(steps_lists)
def test_plugin_accumulator_files_without_version(step: list[int]) -> None:
    stream = without_repeats(step, at_running_max_only=False)
    assert we_show(stream) == tensorboard_shows(stream, plugin_loader, file_version=False)


# The differences the module docstring documents, pinned against the real loaders.
@pytest.mark.parametrize(
    ("loader", "file_version", "stream", "tensorboard", "ours"),
    [
        # The corner case: a step repeated at the run's most recent step purges nothing.
        (legacy_loader, False, [5, 5], [(5, 0.0), (5, 1.0)], [(5, 1.0)]),
        (legacy_loader, False, [5, 3, 3], [(3, 2.0)], [(3, 2.0)]),  # below the most recent step: purged
        (plugin_loader, False, [5, 3, 3], [(3, 1.0), (3, 2.0)], [(3, 2.0)]),
        # Current files: only START events purge, steps going back do not.
        (legacy_loader, True, [1, 5, 2], [(1, 0.0), (5, 1.0), (2, 2.0)], [(1, 0.0), (2, 2.0)]),
        # Files without a version: START events do not purge, and they move the run's most recent step.
        (legacy_loader, False, [5, (START, 0), 3], [(5, 0.0), (3, 1.0)], [(3, 1.0)]),
        # The plugin accumulator ignores the first START of a run.
        (
            plugin_loader,
            True,
            [1, 5, (START, 3), 3, 4],
            [(1, 0.0), (5, 1.0), (3, 2.0), (4, 3.0)],
            [(1, 0.0), (3, 2.0), (4, 3.0)],
        ),
    ],
)
def test_documented_differences(
    loader: Loader, file_version: bool, stream: Stream, tensorboard: list[Point], ours: list[Point]
) -> None:
    assert tensorboard_shows(stream, loader, file_version=file_version) == tensorboard
    assert we_show(stream) == ours
