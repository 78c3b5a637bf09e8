"""The vectorised percentile bands are TensorBoard's compress_histogram, number for number."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ridgeline.analysis.percentiles import BASIS_POINTS, compress_histograms, pad_buckets

compressor = pytest.importorskip("tensorboard.plugins.distribution.compressor")


def theirs(lower: np.ndarray, upper: np.ndarray, count: np.ndarray) -> list[float]:
    return [v for _, v in compressor.compress_histogram(list(zip(lower, upper, count, strict=True)))]


def random_histograms(seed: int, n: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        k = int(rng.integers(0, 40))
        edges = np.sort(rng.normal(scale=10.0 ** rng.integers(-3, 4), size=k + 1))
        count = rng.integers(0, 6, size=k).astype(np.float64) * (rng.random(k) < 0.7)
        if i % 13 == 0:
            count[:] = 0.0
        out.append((edges[:-1], edges[1:], count))
    return out


def test_basis_points_are_tensorboards() -> None:
    assert BASIS_POINTS == compressor.NORMAL_HISTOGRAM_BPS


def test_equal_to_tensorboard_on_many_histograms() -> None:
    histograms = random_histograms(0, 500)
    histograms += [
        (np.array([2.0]), np.array([2.0]), np.array([5.0])),  # one bucket of width 0
        (np.array([-1.0]), np.array([3.0]), np.array([4.0])),  # one bucket
        (np.array([1.0, 2.0]), np.array([2.0, 3.0]), np.array([0.0, 5.0])),  # leading empty bucket
        (np.zeros(0), np.zeros(0), np.zeros(0)),  # no bucket at all
    ]
    ours = compress_histograms(*pad_buckets(histograms))
    for row, (lower, upper, count) in enumerate(histograms):
        assert ours[row].tolist() == theirs(lower, upper, count), row


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(-1e6, 1e6), st.floats(0, 1e3), st.integers(0, 1000)),
        min_size=1,
        max_size=30,
    )
)
def test_equal_to_tensorboard_on_generated_buckets(spec: list[tuple[float, float, int]]) -> None:
    start = spec[0][0]
    widths = np.array([w for _, w, _ in spec])
    upper = start + np.cumsum(widths)
    lower = np.concatenate(([start], upper[:-1]))
    count = np.array([c for _, _, c in spec], dtype=np.float64)
    ours = compress_histograms(*pad_buckets([(lower, upper, count)]))
    assert ours[0].tolist() == theirs(lower, upper, count)


def test_no_histograms() -> None:
    assert compress_histograms(*pad_buckets([])).shape == (0, len(BASIS_POINTS))
