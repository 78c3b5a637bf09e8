"""histogram and histogram_raw against torch's, and the fast DEFAULT_BINS count against numpy."""

from __future__ import annotations

import tempfile
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from torch.utils.tensorboard import summary as torch_summary

from ridgeline.writer import summaries
from ridgeline.writer.summaries import DEFAULT_BINS, _histograms
from tests.writer.summaries.helpers import assert_same

RNG = np.random.default_rng(1234)


def torch_default_bins() -> list[float]:
    from torch.utils.tensorboard import SummaryWriter

    with tempfile.TemporaryDirectory() as log_dir:
        writer = SummaryWriter(log_dir)
        bins = writer.default_bins
        writer.close()
    return bins


TORCH_BINS = torch_default_bins()


def test_default_bins_are_torchs() -> None:
    assert DEFAULT_BINS.dtype == np.float64
    assert DEFAULT_BINS.tolist() == TORCH_BINS
    assert not DEFAULT_BINS.flags.writeable


HISTOGRAM_INPUTS = {
    "normal32": RNG.standard_normal(5000).astype(np.float32),
    "wide64": RNG.standard_normal(3000) * 10.0 ** RNG.uniform(-25, 25, 3000),
    "ints": RNG.integers(-50, 50, (20, 30)),
    "bools": RNG.random(100) > 0.3,
    "one": np.array([3.0]),
    "constant": np.full(17, -2.5),
    "zeros": np.array([0.0, -0.0, 0.0]),
    "on_edges": np.concatenate([DEFAULT_BINS[700:720], -DEFAULT_BINS[700:720], DEFAULT_BINS[[0, -1]]]),
    "with_nan_inf": np.array([1.0, np.nan, 2.0, np.inf, -np.inf, -1e25, 1e25, 0.5]),
    "float16": RNG.standard_normal(300).astype(np.float16),
}


@pytest.mark.parametrize("name", list(HISTOGRAM_INPUTS))
@pytest.mark.parametrize("max_bins", [None, 1, 3, 64, 5000])
def test_histogram_default_bins_match_torch(name: str, max_bins: int | None) -> None:
    values = HISTOGRAM_INPUTS[name]
    theirs = torch_summary.histogram("h", values, TORCH_BINS, max_bins=max_bins)
    assert_same(summaries.histogram("h", values, max_bins=max_bins), theirs)
    assert_same(summaries.histogram("h", values, DEFAULT_BINS, max_bins=max_bins), theirs)
    assert_same(summaries.histogram("h", values, list(TORCH_BINS), max_bins=max_bins), theirs)


@pytest.mark.parametrize(
    "bins", [1, 10, np.int64(30), "auto", "fd", "doane", "scott", "stone", "rice", "sturges", "sqrt"]
)
def test_histogram_numpy_bin_rules_match_torch(bins: Any) -> None:
    values = RNG.standard_normal(2000) * 3 + 1
    assert_same(summaries.histogram("h", values, bins), torch_summary.histogram("h", values, bins))
    assert_same(
        summaries.histogram("h", values, bins, max_bins=4), torch_summary.histogram("h", values, bins, max_bins=4)
    )


@pytest.mark.parametrize(
    "bins",
    [[0, 1], [-3.0, -1.0, 0.0, 0.5, 2.0], np.linspace(-2, 2, 41), np.array([-1, 0, 0, 1], np.float32), [0, 1, 2, 2]],
)
def test_histogram_explicit_edges_match_torch(bins: Any) -> None:
    values = np.concatenate([RNG.standard_normal(1000), [-1.0, 0.0, 1.0, 2.0, np.nan, 5.0, -5.0]])
    assert_same(summaries.histogram("h", values, bins), torch_summary.histogram("h", values, bins))


@pytest.mark.parametrize(
    "values",
    [
        torch.randn(4, 50),
        torch.randn(100, dtype=torch.float64),
        torch.randn(64).half(),
        torch.randn(64).bfloat16(),  # values within float16's range: torch's bfloat16 → float16 hop is exact
        torch.arange(10),
    ],
)
def test_histogram_takes_tensors(values: torch.Tensor) -> None:
    theirs = torch_summary.histogram("h", values, TORCH_BINS)
    assert_same(summaries.histogram("h", values), theirs)


finite_or_not = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, width=64),
    st.sampled_from([*DEFAULT_BINS[::37].tolist(), DEFAULT_BINS[0], DEFAULT_BINS[-1], 0.0, -0.0]),
    st.sampled_from(DEFAULT_BINS.tolist()).map(lambda e: float(np.nextafter(e, np.inf))),
    st.sampled_from(DEFAULT_BINS.tolist()).map(lambda e: float(np.nextafter(e, -np.inf))),
)


# The two counts of the default bins: numpy's, and the compiled one where it is built (the default then).
COUNTS = [
    pytest.param(_histograms._default_bin_counts_numpy, id="numpy"),
    pytest.param(
        _histograms._default_bin_counts_core,
        id="compiled",
        marks=pytest.mark.skipif(_histograms._core is None, reason="the compiled count is not built"),
    ),
]


@pytest.mark.parametrize("count", COUNTS)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values=st.lists(finite_or_not, min_size=1, max_size=300))
def test_default_bin_counts_equal_numpy(count: Any, values: list[float]) -> None:
    array = np.array(values, dtype=np.float64)
    expected = np.histogram(array, bins=DEFAULT_BINS)[0]
    np.testing.assert_array_equal(count(array), expected)


@pytest.mark.parametrize("count", COUNTS)
def test_default_bin_counts_across_chunks(count: Any) -> None:
    array = np.concatenate(
        [RNG.standard_normal(70_000) * 10.0 ** RNG.uniform(-14, 22, 70_000), DEFAULT_BINS, -DEFAULT_BINS]
    )
    RNG.shuffle(array)
    np.testing.assert_array_equal(count(array), np.histogram(array, bins=DEFAULT_BINS)[0])


def test_the_compiled_count_is_exact_with_any_lookup_table() -> None:
    """The table only says where to start looking: a wrong one costs time, never a wrong count."""
    core = pytest.importorskip("ridgeline.writer.summaries._histogram_core")
    values = np.concatenate([RNG.standard_normal(3000) * 10.0 ** RNG.uniform(-14, 22, 3000), DEFAULT_BINS, [0.0, -0.0]])
    expected = np.histogram(values, bins=DEFAULT_BINS)[0]
    for table in (np.zeros(1 << 16, np.uint16), np.full(1 << 16, 65535, np.uint16), RNG.integers(0, 1549, 1 << 16)):
        counts = core.count(values, DEFAULT_BINS, table.astype(np.uint16))
        np.testing.assert_array_equal(np.frombuffer(counts, np.int64), expected)
    edges = np.array([-1.0, 0.0, 0.5, 3.0])  # edges of any kind, with a table of zeros
    counts = core.count(values, edges, np.zeros(1 << 16, np.uint16))
    np.testing.assert_array_equal(np.frombuffer(counts, np.int64), np.histogram(values, bins=edges)[0])
    with pytest.raises(ValueError, match="table must hold 65536 uint16 ranks"):
        core.count(values, DEFAULT_BINS, np.zeros(10, np.uint16))


@settings(max_examples=60, deadline=None)
@given(
    values=hnp.arrays(np.float64, st.integers(1, 200), elements=st.floats(-10, 10) | st.just(np.nan) | st.just(1.0)),
    edges=st.lists(st.integers(-12, 12), min_size=2, max_size=12, unique=True).map(
        lambda ints: sorted(i * 0.75 for i in ints)
    ),
    max_bins=st.none() | st.integers(1, 12),
)
def test_histogram_random_edges_match_torch(values: np.ndarray, edges: list[float], max_bins: int | None) -> None:
    try:
        theirs = torch_summary.histogram("h", values, edges, max_bins=max_bins)
    except ValueError:  # nothing inside the edges: torch fails too (with "please file a bug report")
        with pytest.raises(ValueError, match="add_histogram: no value of values lies within the bins"):
            summaries.histogram("h", values, edges, max_bins=max_bins)
        return
    assert_same(summaries.histogram("h", values, edges, max_bins=max_bins), theirs)


def test_histogram_raw_matches_torch() -> None:
    limits, counts = [0.5, 1.0, 2.0], [3, 0, 7]
    theirs = torch_summary.histogram_raw("r", -1, 2.0, 10, 5.5, 20.25, limits, counts)
    assert_same(summaries.histogram_raw("r", -1, 2.0, 10, 5.5, 20.25, limits, counts), theirs)
    assert_same(summaries.histogram_raw("r", -1, 2.0, 10, 5.5, 20.25, np.array(limits), torch.tensor(counts)), theirs)


def test_histogram_one_empty_bin_matches_torch() -> None:
    values = np.array([5.0, np.nan])
    assert_same(summaries.histogram("h", values, [0, 1]), torch_summary.histogram("h", values, [0, 1]))
