"""Downsampling keeps what a chart must show: first, last, every bucket's extremes, NaN and infinities."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ridgeline.analysis.downsample import _bucket_numbers, _bucket_starts, minmax_indices, reduce_series

VALUES = hnp.arrays(
    np.float64,
    st.integers(1, 3000),
    elements=st.floats(allow_nan=True, allow_infinity=True, width=64) | st.floats(-10, 10),
)


@given(VALUES, st.integers(2, 500), st.integers(1, 5))
def test_budget_order_ends_and_extremes(values: np.ndarray, max_points: int, stride: int) -> None:
    steps = np.arange(len(values), dtype=np.int64) * stride
    kept = minmax_indices(steps, values, max_points)
    assert len(kept) <= max_points
    assert np.all(np.diff(kept) > 0)
    if len(values) <= max_points:
        assert kept.tolist() == list(range(len(values)))
        return
    assert kept[0] == 0 and kept[-1] == len(values) - 1
    finite = np.isfinite(values)
    if finite.any() and max_points >= 6:
        shown = values[kept]
        assert np.nanmax(np.where(np.isfinite(shown), shown, np.nan)) == values[finite].max()
        assert np.nanmin(np.where(np.isfinite(shown), shown, np.nan)) == values[finite].min()
    if np.isnan(values).any() and max_points >= 6 * 4:
        assert np.isnan(values[kept]).any(), "a NaN must stay visible"


def test_a_single_spike_survives_a_million_points() -> None:
    values = np.sin(np.linspace(0, 50, 1_000_000))
    values[654_321] = 25.0
    values[123_456] = -30.0
    kept = minmax_indices(np.arange(1_000_000, dtype=np.int64), values, 1000)
    assert len(kept) <= 1000
    assert 654_321 in kept and 123_456 in kept


def test_every_bucket_keeps_its_min_and_max() -> None:
    # 10,001 steps 0..10000 and a budget of 202: 100 buckets whose edges fall on multiples of 100.
    rng = np.random.default_rng(0)
    values = rng.normal(size=10_001)
    kept = set(minmax_indices(np.arange(10_001, dtype=np.int64), values, 202).tolist())
    for start in range(0, 10_000, 100):
        bucket = np.arange(start, start + 100 if start < 9_900 else 10_001)
        assert int(bucket[np.argmax(values[bucket])]) in kept
        assert int(bucket[np.argmin(values[bucket])]) in kept


def test_bad_budget() -> None:
    with pytest.raises(ValueError, match="max_points must be at least 2"):
        minmax_indices(np.arange(3), np.zeros(3), 1)


def test_infinities_are_kept() -> None:
    values = np.zeros(10_000)
    values[5000] = math.inf
    values[7000] = -math.inf
    kept = minmax_indices(np.arange(10_000, dtype=np.int64), values, 100)
    assert 5000 in kept and 7000 in kept


@given(VALUES, st.integers(2, 500))
def test_reduce_series_band_holds_each_kept_point(values: np.ndarray, max_points: int) -> None:
    steps = np.arange(len(values), dtype=np.int64)
    reduction = reduce_series(steps, values, max_points)
    if len(values) <= max_points:
        assert reduction is None
        return
    assert reduction is not None
    assert np.array_equal(reduction.indices, minmax_indices(steps, values, max_points))
    kept = values[reduction.indices]
    finite = np.isfinite(kept)
    assert np.all(reduction.band_low[finite] <= kept[finite])
    assert np.all(kept[finite] <= reduction.band_high[finite])
    finite_all = values[np.isfinite(values)]
    if len(finite_all):
        assert np.nanmin(reduction.band_low) == finite_all.min()
        assert np.nanmax(reduction.band_high) == finite_all.max()


def test_reduce_series_band_is_the_bucket_extent() -> None:
    steps = np.arange(12, dtype=np.int64)
    values = np.array([5.0, 1.0, 9.0, 2.0, 3.0, 4.0, math.nan, math.nan, 8.0, 0.0, 7.0, 6.0])
    reduction = reduce_series(steps, values, 8)  # NaN present: 4 points per bucket, so (8 - 2) // 4 = 1 bucket
    assert reduction is not None
    assert np.all(reduction.band_low == 0.0) and np.all(reduction.band_high == 9.0)
    only_nan = reduce_series(steps, np.full(12, math.nan), 4)
    assert only_nan is not None and np.isnan(only_nan.band_low).all() and np.isnan(only_nan.band_high).all()


@pytest.mark.parametrize("seed", range(20))
def test_bucket_starts_match_each_points_bucket_number(seed: int) -> None:
    """The buckets' starts found by binary search are where each point's bucket number changes."""
    rng = np.random.default_rng(seed)
    count = int(rng.integers(2, 5000))
    gaps = rng.integers(1, [2, 50, 10**6, 10**15][seed % 4], count)
    step = (np.cumsum(gaps) - gaps[0] - (10**9 if seed % 5 == 0 else 0)).astype(np.int64)
    buckets = int(rng.integers(1, 2000))
    number = _bucket_numbers(step, buckets)
    expected = np.flatnonzero(np.concatenate(([True], number[1:] != number[:-1])))
    assert np.array_equal(_bucket_starts(step, buckets), expected)
