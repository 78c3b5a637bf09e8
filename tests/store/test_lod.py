"""The level-of-detail pyramid: the reduced answer it gives is the full scan's, point for point, for any range.

The expected answers are the full-scan reduction (``reduce_series``, which reads every point) over the same
numbers; the pyramid's answers are read from the store's files or from pyramids built over random series.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ridgeline
from ridgeline.analysis.downsample import reduce_indexed, reduce_series
from ridgeline.plugins.scalars.series import Window, indexed_payload, series_payload
from ridgeline.store.encoding import Column, encode
from ridgeline.store.lod import BLOCK_POINTS, IndexedScalars, Pyramid, block_stats
from tests.store.test_disk import WALL, open_disk


def indexed(step: np.ndarray, value: np.ndarray) -> IndexedScalars:
    """An indexed series over these numbers, built the way the store builds one (encoded steps, level 0)."""
    whole = len(value) // BLOCK_POINTS * BLOCK_POINTS
    steps = Column(np.frombuffer(encode(step, 0), np.uint8))
    walls = Column(np.frombuffer(encode((WALL + step.astype(np.float64)).view(np.int64), 0), np.uint8))
    return IndexedScalars(value, Pyramid.over(block_stats(value[:whole])), steps, walls)


@st.composite
def series(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.sampled_from([2, 300, 4_000, 70_000, 300_000, 2_500_000]))
    n = draw(st.integers(max(2, n // 2), n))
    gaps = draw(st.sampled_from(["stride", "small", "wide"]))
    if gaps == "stride":
        step = np.int64(draw(st.integers(-1000, 1000))) + np.arange(n, dtype=np.int64) * draw(st.integers(1, 9))
    else:
        step = np.cumsum(rng.integers(1, 4 if gaps == "small" else 10**9, n)).astype(np.int64)
    value = np.cumsum(rng.standard_normal(n)).astype(np.float32)
    value[rng.integers(0, n, draw(st.integers(0, 20)))] = draw(st.sampled_from([1e30, -1e30, 0.0]))  # spikes
    if draw(st.booleans()):  # plateaus: many equal minima and maxima in a bucket, the first must be kept
        value = np.round(value / 4).astype(np.float32)
    for odd in (np.nan, np.inf, -np.inf):
        density = draw(st.sampled_from([0.0, 0.0, 1e-5, 1e-2, 0.5]))
        value[rng.random(n) < density] = odd
    if draw(st.booleans()) and n > 10:
        value[: rng.integers(1, n)] = np.nan  # a stretch with no finite value at all
    return step, value


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=series(), max_points=st.integers(2, 5000), cut=st.tuples(st.floats(0, 1), st.floats(0, 1)))
def test_the_pyramid_reduction_is_the_full_scan_reduction(
    data: tuple[np.ndarray, np.ndarray], max_points: int, cut: tuple[float, float]
) -> None:
    step, value = data
    start, end = sorted(int(c * len(step)) for c in cut)
    if end - start < 1:
        end = min(len(step), start + 1)
    expected = reduce_series(step[start:end], value[start:end].astype(np.float64), max_points)
    found = reduce_indexed(indexed(step, value), start, end, max_points)
    if expected is None:
        assert found is None
        return
    assert found is not None
    assert np.array_equal(found.indices, expected.indices)
    assert np.array_equal(found.band_low, expected.band_low, equal_nan=True)
    assert np.array_equal(found.band_high, expected.band_high, equal_nan=True)


def test_the_reduced_route_answer_from_the_store_equals_the_full_scan(tmp_path: Path) -> None:
    """A 300k-point series in the store, with a NaN, infinities and a spike: the route's answer from the pyramid
    is the one computed from every point, for the full range, zooms and live polling."""
    rng = np.random.default_rng(3)
    n = 300_000
    values = np.cumsum(rng.standard_normal(n)).astype(np.float32)
    values[[1_000, 150_001]] = np.nan
    values[200_000] = np.inf
    values[250_000] = -np.inf
    values[123_457] = 1e6  # a spike
    with ridgeline.SummaryWriter(str(tmp_path / "logs" / "run")) as writer:
        for step, value in enumerate(values.tolist()):
            writer.add_scalar("loss", value, step * 2, walltime=WALL + step * 0.25)
    provider = open_disk(tmp_path / "logs", tmp_path / "cache")
    series = provider.indexed_scalars("run", "loss")
    assert series is not None and len(series.pyramid.levels[2]) == n // 65_536
    windows = [
        Window(2000),
        Window(2000, min_step=2 * 100_000, max_step=2 * 103_000),  # a 1% zoom
        Window(500, min_step=-10, max_step=10**12),
        Window(7, since_step=2 * 299_990),  # live polling: fits, not reduced
        Window(100, min_step=2 * 123_000 + 1, max_step=2 * 124_000 - 1),
    ]
    for window in windows:
        from_pyramid = indexed_payload(series, window)
        scanned = series_payload(provider.scalars("run", "loss"), window)
        assert from_pyramid.keys() == scanned.keys()
        for key, value in scanned.items():
            if isinstance(value, np.ndarray):
                assert np.array_equal(from_pyramid[key], value, equal_nan=True), (window, key)
            else:
                assert from_pyramid[key] == value, (window, key)
    full = indexed_payload(series, windows[0])
    assert 1e6 in full["value"].tolist(), "the spike stays visible"


def test_a_series_with_hidden_points_has_no_index(tmp_path: Path) -> None:
    """Steps going back hide points: the pyramid, over every stored point, does not say what is visible, so the
    route reads the series (the answer stays the full scan's)."""
    with ridgeline.SummaryWriter(str(tmp_path / "logs" / "run")) as writer:
        for step in [*range(70_000), *range(100, 200)]:
            writer.add_scalar("loss", step, step, walltime=WALL + step)
        for step in range(70_000):
            writer.add_scalar("acc", step, step, walltime=WALL + step)
    provider = open_disk(tmp_path / "logs", tmp_path / "cache")
    assert provider.indexed_scalars("run", "loss") is None
    assert provider.indexed_scalars("run", "acc") is not None


def test_the_scalars_route_answers_from_the_pyramid_as_the_in_memory_backend_does(tmp_path: Path) -> None:
    """``/api/scalars`` and the batch route over the store (a long series: answered from the pyramid) and over
    ``cache=False`` (every point in memory, the full scan) give the same JSON, also after the series grew."""
    from fastapi.testclient import TestClient

    from ridgeline.server import create_app

    logs = tmp_path / "logs"
    rng = np.random.default_rng(5)
    values = np.cumsum(rng.standard_normal(140_000)).astype(np.float32)
    values[[500, 99_999]] = [np.nan, np.inf]
    writer = ridgeline.SummaryWriter(str(logs / "run"))
    for step, value in enumerate(values[:100_000].tolist()):
        writer.add_scalar("loss", value, step, walltime=WALL + step / 3)
    writer.flush()
    queries: list[dict[str, str | int]] = [
        {"max_points": 2000},
        {"max_points": 300, "min_step": 40_000, "max_step": 41_000},
        {"max_points": 50, "since_step": 99_000},
    ]
    store = ridgeline.open(logs, cache_dir=tmp_path / "cache")
    with TestClient(create_app(store, logdir_label=str(logs))) as on_disk:
        for grown in (False, True):
            if grown:
                for step, value in enumerate(values[100_000:].tolist(), start=100_000):
                    writer.add_scalar("loss", value, step, walltime=WALL + step / 3)
                writer.flush()
                store.reload()
            assert store.indexed_scalars("run", "loss") is not None, "the route's path is the pyramid's"
            memory = ridgeline.open(logs, cache=False)
            with TestClient(create_app(memory, logdir_label=str(logs))) as in_memory:
                for query in queries:
                    params: dict[str, str | int] = {"run": "run", "tag": "loss", **query}
                    assert on_disk.get("/api/scalars", params=params).json() == (
                        in_memory.get("/api/scalars", params=params).json()
                    ), query
                body = {"series": [{"run": "run", "tag": "loss"}], "max_points": 1000}
                assert on_disk.post("/api/scalars/batch", json=body).json() == (
                    in_memory.post("/api/scalars/batch", json=body).json()
                )
    writer.close()
    store.provider.close()  # type: ignore[attr-defined]
