"""Sliding-window statistics: they match numpy's, and the same windows computed from an array that starts later
(a later chunk of a stream) give identical bits."""

from __future__ import annotations

import numpy as np
import pytest

from ridgeline.analysis.window_stats import window_mean_std


@pytest.mark.parametrize(
    "values",
    [
        np.random.default_rng(20).normal(0, 1, 5000),
        1e6 + np.random.default_rng(21).normal(0, 1e-3, 5000),  # far from zero: no E[x²]-E[x]² cancellation
        np.r_[np.full(500, 0.1), np.full(500, 7.0), np.full(500, -3.0)],  # constant windows after level shifts
        np.r_[1e12, np.random.default_rng(22).normal(0, 1, 2999)],  # a block whose first value is huge
        np.cumsum(np.random.default_rng(23).normal(0, 1, 5000)),
        2.0 * np.exp(-np.arange(5000) / 500) + 0.3,  # smooth, noiseless
    ],
)
@pytest.mark.parametrize("window", [2, 7, 50])
def test_window_statistics_match_numpy_wherever_the_array_starts(values: np.ndarray, window: int) -> None:
    windows = np.lib.stride_tricks.sliding_window_view(values[:-1], window)
    expected_mean, expected_std = windows.mean(axis=1), windows.std(axis=1)
    mean, std = window_mean_std(values, window, window, len(values))
    scale = expected_std + 1e-9 * np.abs(expected_mean) + 1e-300  # error: 1e-6 sigma or 1e-15 of the level
    assert np.max(np.abs(mean - expected_mean) / scale) < 1e-6
    assert np.max(np.abs(std - expected_std) / scale) < 1e-6
    cut = 3 * window + 5  # the same windows from an array that starts later (a later chunk): identical bits
    later_mean, later_std = window_mean_std(values[cut:], window, 2 * window + 1, len(values) - cut, cut)
    assert np.array_equal(later_mean, mean[cut + window + 1 :])
    assert np.array_equal(later_std, std[cut + window + 1 :])
