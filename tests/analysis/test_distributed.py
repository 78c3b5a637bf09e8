"""The pure distributed analysis: grouping, per-step aggregation, clock offsets, stragglers and load balance, on
arrays whose answers are known by construction."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ridgeline.analysis.distributed import (
    aggregate,
    analyse_step_rates,
    analyse_sync,
    estimate_offsets,
    group_ranks,
    input_bound_ranks,
    reduce_aggregate,
    reference_rank,
    utilisation_spread,
)

# --- grouping ----------------------------------------------------------------------------------------------------


def test_rank_directories_form_one_run_per_parent() -> None:
    groups = group_ranks(["exp/rank1", "exp/rank0", "other/rank0", "lonely", "rank0", "rank2"])
    assert [(g.name, g.ranks) for g in groups] == [
        ("exp", {0: "exp/rank0", 1: "exp/rank1"}),
        ("other", {0: "other/rank0"}),
        (".", {0: "rank0", 2: "rank2"}),
    ]


def test_a_user_pattern_groups_by_its_capture_and_takes_the_rank_from_the_last_number() -> None:
    groups = group_ranks(["a/worker-3", "a/worker-10", "b/worker-1", "c/notes"], re.compile(r"^(\w+)/worker-"))
    assert [(g.name, g.ranks) for g in groups] == [
        ("a", {3: "a/worker-3", 10: "a/worker-10"}),
        ("b", {1: "b/worker-1"}),
    ]


def test_named_groups_win_and_a_rank_claimed_twice_keeps_the_first_run() -> None:
    pattern = re.compile(r"^(?P<job>[^/]+)/.*gpu(?P<rank>\d+)")
    groups = group_ranks(["j/node1_gpu0", "j/node1_gpu1", "j/node2_gpu1"], pattern)
    assert groups[0].ranks == {0: "j/node1_gpu0", 1: "j/node1_gpu1"}


# --- aggregation -------------------------------------------------------------------------------------------------


def test_aggregate_by_step_with_the_ranks_of_min_and_max() -> None:
    result = aggregate(
        [0, 1, 2],
        [np.array([0, 1, 2]), np.array([0, 1]), np.array([1, 2])],
        [np.array([1.0, 5.0, 3.0]), np.array([2.0, 4.0]), np.array([6.0, np.nan])],
    )
    assert result.step.tolist() == [0, 1, 2]
    assert result.count.tolist() == [2, 3, 1]  # the NaN at step 2 is left out
    assert result.mean.tolist() == [1.5, 5.0, 3.0]
    assert result.median.tolist() == [1.5, 5.0, 3.0]
    assert result.min.tolist() == [1.0, 4.0, 3.0] and result.min_rank.tolist() == [0, 1, 0]
    assert result.max.tolist() == [2.0, 6.0, 3.0] and result.max_rank.tolist() == [1, 2, 0]
    assert result.std[1] == pytest.approx(np.std([5.0, 4.0, 6.0]))
    with pytest.raises(ValueError, match="statistic must be one of mean, median, min, max, got 'p99'"):
        result.statistic("p99")


def test_a_step_where_every_rank_logged_nan_has_nan_statistics_and_no_rank() -> None:
    result = aggregate([0, 1], [np.array([5]), np.array([5])], [np.array([np.nan]), np.array([np.nan])])
    assert result.count.tolist() == [0] and np.isnan(result.mean[0]) and result.min_rank.tolist() == [-1]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=6), min_size=1, max_size=6))
def test_aggregate_matches_numpy_per_step(columns: list[list[float]]) -> None:
    """Rank i logs columns[i][j] at step j: every step's statistics are numpy's over the ranks that logged it."""
    steps = [np.arange(len(c)) for c in columns]
    result = aggregate(list(range(len(columns))), steps, [np.array(c) for c in columns])
    for row, step in enumerate(result.step):
        values = np.array([c[step] for c in columns if step < len(c)])
        assert result.mean[row] == pytest.approx(values.mean(), rel=1e-9, abs=1e-6)
        assert result.median[row] == pytest.approx(np.median(values), rel=1e-12, abs=1e-9)
        assert result.min[row] == values.min() and result.max[row] == values.max()
        assert columns[result.min_rank[row]][step] == values.min()
        assert columns[result.max_rank[row]][step] == values.max()


def test_a_reduced_aggregate_keeps_the_mean_line_and_a_band_over_every_ranks_extremes() -> None:
    rng = np.random.default_rng(7)
    steps = np.arange(0, 20_000, 2)
    values = [np.sin(steps / 900.0) + rng.normal(0, 0.3, len(steps)) for _ in range(8)]
    values[3][4321] = 40.0  # one rank's spike at one step
    full = aggregate(list(range(8)), [steps] * 8, values)
    small = reduce_aggregate(full, 400)
    assert small is not None and len(small.step) <= 400
    assert small.step[0] == steps[0] and small.step[-1] == steps[-1] and np.all(np.diff(small.step) > 0)
    kept = np.searchsorted(full.step, small.step)
    # every column but the band's edges is the full aggregate's own row
    for name in ("mean", "median", "std", "count", "min_rank", "max_rank"):
        assert np.array_equal(getattr(small, name), getattr(full, name)[kept]), name
    assert small.mean.min() == full.mean.min() and small.mean.max() == full.mean.max()
    # the band covers its rows' own min and max, and every extreme survives (the spike included)
    assert np.all(small.min <= full.min[kept]) and np.all(small.max >= full.max[kept])
    assert small.min.min() == full.min.min() and small.max.max() == full.max.max() == 40.0
    assert reduce_aggregate(full, len(steps)) is None


# --- clocks ------------------------------------------------------------------------------------------------------


def test_offsets_are_recovered_from_simultaneous_instants_despite_outliers() -> None:
    rng = np.random.default_rng(0)
    true = np.arange(200) * 0.1 + 1.7e9
    keys = np.arange(200, dtype=np.int64)
    channel = {}
    for rank, shift in ((0, 0.0), (1, 2.5), (2, -0.04)):
        times = true + shift + rng.normal(0, 0.001, 200)
        times[::17] += 0.5  # a late print now and then
        channel[rank] = (keys, times)
    offsets = estimate_offsets([channel])
    assert offsets[0].offset == 0 and offsets[0].uncertainty == 0
    assert offsets[1].offset == pytest.approx(2.5, abs=0.002)
    assert offsets[2].offset == pytest.approx(-0.04, abs=0.002)
    assert 0 < offsets[1].uncertainty < 0.001 and offsets[1].samples == 200


def test_only_instants_of_the_same_channel_and_key_are_compared() -> None:
    first = {0: (np.array([1, 2, 3]), np.array([10.0, 20.0, 30.0])), 1: (np.array([2, 3]), np.array([21.0, 31.0]))}
    second = {0: (np.array([1]), np.array([100.0])), 2: (np.array([1]), np.array([0.0]))}
    offsets = estimate_offsets([first, second])
    assert offsets[1].offset == 1.0 and offsets[1].samples == 2
    assert offsets[2].offset == -100.0


def test_a_rank_sharing_nothing_with_the_reference_has_no_offset() -> None:
    offsets = estimate_offsets([{1: (np.array([1]), np.array([1.0])), 2: (np.array([2]), np.array([5.0]))}])
    assert reference_rank([1, 2]) == 1
    assert np.isnan(offsets[2].offset) and offsets[2].samples == 0


# --- stragglers --------------------------------------------------------------------------------------------------


def _sync_job(compute: dict[int, float], shifts: dict[int, float], steps: int = 50) -> dict[int, tuple]:
    """Sync records of a simulated synchronous job: each rank computes for ``compute[rank]`` seconds, then waits at
    the barrier until the slowest arrives; its clock reads true time + ``shifts[rank]``."""
    records: dict[int, tuple[list[int], list[float], list[float]]] = {r: ([], [], []) for r in compute}
    now = 1000.0
    for step in range(steps):
        arrivals = {r: now + c for r, c in compute.items()}
        leave = max(arrivals.values())
        for r in compute:
            records[r][0].append(step)
            records[r][1].append(leave + shifts.get(r, 0.0))
            records[r][2].append(leave - arrivals[r])
        now = leave
    return {r: (np.array(s), np.array(d), np.array(w)) for r, (s, d, w) in records.items()}


def test_the_rank_that_arrives_last_is_named_with_its_cost_and_score() -> None:
    records = _sync_job({0: 0.10, 1: 0.10, 2: 0.16, 3: 0.11}, {1: 3.0})
    offsets = estimate_offsets([{r: (s, d) for r, (s, d, _) in records.items()}])
    assert offsets[1].offset == pytest.approx(3.0)
    report = analyse_sync(records, {r: o.offset for r, o in offsets.items()})
    assert report.straggler == 2
    # The others waited 0.06 + 0.06 + 0.05 s at each of 50 steps.
    assert report.straggler_cost == pytest.approx(50 * 0.17)
    assert report.scores[2].score == pytest.approx(0.10 / 0.16) and report.scores[2].flagged
    assert report.scores[3].score == pytest.approx(0.10 / 0.11) and not report.scores[3].flagged
    assert report.scores[2].last_count == 50
    assert report.delay_percentiles() == pytest.approx((0.06, 0.06))


def test_a_balanced_job_names_no_straggler() -> None:
    rng = np.random.default_rng(1)
    compute = {r: 0.1 for r in range(8)}
    records = _sync_job(compute, {})
    jittered = {r: (s, d, w + rng.uniform(0, 1e-4, len(w))) for r, (s, d, w) in records.items()}
    report = analyse_sync(jittered, {})
    assert report.straggler is None
    assert not any(score.flagged for score in report.scores.values())


def test_without_sync_records_a_rank_stepping_slower_is_flagged_by_its_step_rate() -> None:
    steps = np.arange(100)
    series = {0: (steps, steps * 0.1), 1: (steps, steps * 0.1 + 5), 2: (steps, steps * 0.2)}
    report = analyse_step_rates(series)
    assert report.method == "step_rate"
    assert report.scores[2].score == pytest.approx(0.5) and report.scores[2].flagged
    assert report.straggler == 2 and report.delay_percentiles() is None


# --- load balance ------------------------------------------------------------------------------------------------


def test_gpu_utilisation_spread_is_flagged_above_five_points() -> None:
    time = np.arange(0, 100, 10.0)
    even = utilisation_spread({0: (time, np.full(10, 90.0)), 1: (time + 0.5, np.full(10, 92.0))}, 10.0)
    assert even is not None and even.median == pytest.approx(1.0) and not even.flagged
    uneven = utilisation_spread({0: (time, np.full(10, 95.0)), 1: (time, np.full(10, 60.0))}, 10.0)
    assert uneven is not None and uneven.median == pytest.approx(17.5) and uneven.flagged
    assert utilisation_spread({0: (time, np.full(10, 95.0))}, 10.0) is None


def test_a_rank_whose_queue_is_empty_while_the_others_are_full_is_input_bound() -> None:
    steps = np.arange(20)
    starved = np.where(steps % 2 == 0, 0.0, 3.0)
    queues = {0: (steps, np.full(20, 4.0)), 1: (steps, starved), 2: (steps, np.full(20, 4.0))}
    assert input_bound_ranks(queues) == [1]
    assert input_bound_ranks({0: (steps, np.zeros(20)), 1: (steps, np.zeros(20))}) == []
