"""The streaming anomaly detectors on generated series with labelled, injected anomalies (and healthy noisy
curves that must raise nothing), the built-in rules at work, and chunking invariance (hypothesis)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ridgeline.analysis.alert_config import AlertConfig, DetectorParams
from ridgeline.analysis.anomaly import SeriesDetector, detect, stalled_alerts

N = 3000
STEPS = np.arange(N) * 10
WALLS = 1_700_000_000.0 + np.arange(N) * 2.0


def loss_curve(seed: int, noise: str = "gauss", scale: float = 0.02) -> np.ndarray:
    """A healthy training loss: exponential decay to a floor plus noise proportional to the level."""
    rng = np.random.default_rng(seed)
    level = 2.0 * np.exp(-np.arange(N) / 600) + 0.3
    draw = rng.normal(size=N) if noise == "gauss" else rng.laplace(size=N) / math.sqrt(2)
    return level * (1 + scale * draw)


def healthy_curves() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(7)
    x = np.arange(N)
    accuracy = 0.1 + 0.8 / (1 + np.exp(-(x - 800) / 150)) + rng.normal(0, 0.01, N)
    return {
        "loss/gauss": loss_curve(1),
        "loss/noisy": loss_curve(3, scale=0.1),
        "accuracy": accuracy,
        "accuracy/quantised": np.round(np.clip(accuracy, 0, 1) * 200) / 200,  # 200 eval examples
        "constant": np.full(N, 0.1),
        "linear": 5.0 - x * 1e-3 + rng.normal(0, 1e-4, N),
        "large_offset": 1e6 + rng.normal(0, 1e-3, N),
    }


@pytest.mark.parametrize("tag", sorted(healthy_curves()))
def test_healthy_noisy_curves_raise_nothing(tag: str) -> None:
    values = healthy_curves()[tag]
    assert detect(STEPS, WALLS, values, tag=tag) == []


def test_laplace_noise_rarely_alerts() -> None:
    """Heavier tails than Gaussian: an extreme point now and then is real, but alerts stay rare (measured:
    2 in 120,000 points, both outliers)."""
    count = sum(len(detect(STEPS, WALLS, loss_curve(seed, "laplace"))) for seed in range(40))
    assert count <= 2 * 40 * N / 10_000


def test_stepped_learning_rate_is_exempt_by_default() -> None:
    lr = np.where(np.arange(N) < 1000, 0.1, np.where(np.arange(N) < 2000, 0.01, 0.001))
    config = AlertConfig()
    assert detect(STEPS, WALLS, lr, config.params_for("train/lr")) == []
    assert detect(STEPS, WALLS, lr, config.params_for("optim/learning_rate")) == []
    # The same curve under a name with no rule is a level shift: the detectors do see it.
    kinds = {alert.kind for alert in detect(STEPS, WALLS, lr, config.params_for("train/temperature"))}
    assert kinds == {"spike", "outlier"}


def test_a_loss_dropping_after_a_learning_rate_decay_is_no_alert_but_a_rise_is() -> None:
    rng = np.random.default_rng(12)
    level = np.where(np.arange(N) < 1000, 1.0, 0.3)  # a step decay of the learning rate at 1000
    loss = level + rng.normal(0, 0.01, N)
    params = AlertConfig().params_for("train/loss")
    assert detect(STEPS, WALLS, loss, params) == []
    loss[2000:2010] += 1.0  # a burst upwards is still caught
    assert {alert.kind for alert in detect(STEPS, WALLS, loss, params)} == {"spike", "outlier"}
    # An accuracy falls when things go wrong; its rise after a decay is good news.
    accuracy = 1.0 - loss
    assert {alert.kind for alert in detect(STEPS, WALLS, accuracy, AlertConfig().params_for("val/acc"))} == {
        "spike",
        "outlier",
    }


def test_single_spike_is_a_spike_not_an_outlier() -> None:
    values = loss_curve(11)
    values[1500] *= 3
    alerts = detect(STEPS, WALLS, values, run="r", tag="loss")
    assert [(a.kind, a.step) for a in alerts] == [("spike", STEPS[1500])]
    spike = alerts[0]
    assert (spike.run, spike.tag, spike.wall_time) == ("r", "loss", WALLS[1500])
    assert spike.value == values[1500]
    assert spike.expected_low is not None and spike.expected_high is not None
    previous = values[1450:1500]
    assert spike.expected_low < float(np.median(previous)) < spike.expected_high < spike.value


def test_sustained_excursion_is_one_outlier_at_the_third_point() -> None:
    rng = np.random.default_rng(5)
    values = 1.0 + rng.normal(0, 0.01, N)
    values[2000:2006] += 0.07  # 7 sigma for six points: beyond 3 sigma (even with the first ones in the
    # window, inflating it), within the spike limit
    alerts = detect(STEPS, WALLS, values)
    assert [(a.kind, a.step) for a in alerts] == [("outlier", STEPS[2002])]
    outlier = alerts[0]
    assert outlier.value == values[2002]
    window = values[1950:2000]  # the 50 points before the run's first point
    mean, std = float(np.mean(window)), float(np.std(window))
    assert outlier.expected_low == pytest.approx(mean - 3 * std, rel=1e-12)
    assert outlier.expected_high == pytest.approx(mean + 3 * std, rel=1e-12)


def test_two_out_of_band_points_are_not_enough_and_n_is_configurable() -> None:
    rng = np.random.default_rng(6)
    values = 1.0 + rng.normal(0, 0.01, N)
    values[1000:1002] += 0.05
    values[2000:2004] += 0.05
    assert [a.step for a in detect(STEPS, WALLS, values)] == [STEPS[2002]]
    assert detect(STEPS, WALLS, values, DetectorParams(consecutive=5)) == []
    assert [a.step for a in detect(STEPS, WALLS, values, DetectorParams(consecutive=2))] == [STEPS[1001], STEPS[2001]]
    # A wider band (k=8) lets the 5-sigma excursions through.
    assert detect(STEPS, WALLS, values, DetectorParams(k=8)) == []


def test_direction_keeps_one_side() -> None:
    rng = np.random.default_rng(13)
    values = 1.0 + rng.normal(0, 0.01, N)
    values[1000:1006] -= 0.07  # a drop (a loss after a learning-rate decay)
    values[2000] += 1.0  # a jump up
    both = {(a.kind, a.step) for a in detect(STEPS, WALLS, values)}
    assert both == {("outlier", STEPS[1002]), ("spike", STEPS[2000])}
    up = {(a.kind, a.step) for a in detect(STEPS, WALLS, values, DetectorParams(direction="up"))}
    assert up == {("spike", STEPS[2000])}
    down = {(a.kind, a.step) for a in detect(STEPS, WALLS, values, DetectorParams(direction="down"))}
    assert down == {("outlier", STEPS[1002])}
    config = AlertConfig.from_mapping({"rules": [{"tag": "loss", "direction": "up"}]})
    assert config.params_for("train/loss").direction == "up"


def test_nan_and_inf_once_per_streak() -> None:
    values = 1.0 + np.random.default_rng(12).normal(0, 0.01, N)
    values[100] = math.nan
    values[200:260] = math.nan  # a diverged run logs NaN from here on: one alert, not sixty
    values[300] = math.inf
    values[301] = -math.inf
    values[302] = math.nan
    alerts = detect(STEPS, WALLS, values)
    assert [(a.kind, a.step) for a in alerts] == [
        ("nan", STEPS[100]),
        ("nan", STEPS[200]),
        ("inf", STEPS[300]),
        ("nan", STEPS[302]),
    ]
    assert math.isnan(alerts[0].value) and alerts[2].value == math.inf
    assert alerts[0].to_json()["value"] is None and alerts[2].to_json()["value"] is None


def test_nonfinite_points_stay_out_of_the_windows() -> None:
    rng = np.random.default_rng(8)
    values = 1.0 + rng.normal(0, 0.01, N)
    values[1000:1040:2] = math.inf  # every other point: were they in the windows, nothing would be finite
    kinds = [a.kind for a in detect(STEPS, WALLS, values)]
    assert set(kinds) == {"inf"} and len(kinds) == 20


def test_short_series_raise_only_nonfinite_alerts() -> None:
    values = np.array([1.0, 100.0, -50.0, math.nan, 1e9])
    assert [a.kind for a in detect(np.arange(5), np.arange(5.0), values)] == ["nan"]


def test_stalled_series_while_the_run_goes_on() -> None:
    steps = np.arange(0, 2000, 10)
    walls = 1000.0 + steps / 10
    values = loss_curve(3)[: len(steps)]
    train = SeriesDetector(run="r", tag="train/loss")
    grad = SeriesDetector(run="r", tag="grad_norm")
    val = SeriesDetector(run="r", tag="val/loss")  # per epoch, with the epoch as its step: other units
    train.update(steps[:100], walls[:100], values[:100])
    grad.update(steps[:100], walls[:100], values[:100])
    val.update(np.arange(10), walls[:100:10], values[:10])
    assert stalled_alerts([train, grad, val]) == []
    # grad_norm stops at step 990; train goes on 200 more points, val keeps its epoch pace.
    train.update(steps[100:], walls[100:], values[100:])
    val.update(np.arange(10, 20), walls[100::10], values[10:20])
    alerts = stalled_alerts([train, grad, val])
    assert [(a.tag, a.kind, a.step, a.wall_time, a.value) for a in alerts] == [
        ("grad_norm", "stalled", 990, walls[99], values[99])
    ]
    assert stalled_alerts([train, grad, val]) == []  # once per stall
    grad.update(steps[100:], walls[100:], values[100:])  # it resumes, then stops again
    train.update(steps + 2000, walls + 200, values)
    assert [a.tag for a in stalled_alerts([train, grad, val])] == ["grad_norm", "val/loss"]


def test_stall_needs_a_known_interval_and_can_be_disabled() -> None:
    train = SeriesDetector(tag="train")
    once = SeriesDetector(tag="final_accuracy")  # logged once at the start: no interval to compare with
    off = SeriesDetector(DetectorParams(stalled=False), tag="warmup")
    train.update(np.arange(1000), np.arange(1000.0), np.ones(1000))
    once.update([0], [0.0], [0.5])
    off.update(np.arange(10), np.arange(10.0), np.ones(10))
    assert stalled_alerts([train, once, off]) == []


def test_a_long_series_in_chunks_equals_one_chunk() -> None:
    rng = np.random.default_rng(9)
    count = 200_000
    values = 1.0 + rng.normal(0, 0.01, count)
    values[rng.integers(0, count, 40)] += 1.0
    values[rng.integers(0, count, 10)] = math.nan
    steps, walls = np.arange(count), np.arange(count, dtype=float)
    whole = detect(steps, walls, values)
    detector = SeriesDetector()
    chunked = []
    for start in range(0, count, 1000):
        chunked += detector.update(
            steps[start : start + 1000], walls[start : start + 1000], values[start : start + 1000]
        )
    assert _key(chunked) == _key(whole)
    assert {alert.kind for alert in whole} >= {"spike", "nan"}


VALUES = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, width=32),
    st.sampled_from([0.0, 1.0, 0.1, -1.0, 1e-300, 1e300]),
    st.integers(-3, 3).map(float),
)


@settings(max_examples=300, deadline=None)
@given(
    values=st.lists(VALUES, min_size=0, max_size=120),
    cuts=st.lists(st.integers(0, 120), max_size=8),
    window=st.integers(2, 12),
    consecutive=st.integers(1, 4),
    k=st.sampled_from([0.5, 1.0, 3.0]),
    spike_window=st.integers(3, 12),
    spike_k=st.sampled_from([1.0, 3.0, 10.0]),
)
def test_chunking_does_not_change_the_alerts(
    values: list[float],
    cuts: list[int],
    window: int,
    consecutive: int,
    k: float,
    spike_window: int,
    spike_k: float,
) -> None:
    params = DetectorParams(window=window, consecutive=consecutive, k=k, spike_window=spike_window, spike_k=spike_k)
    steps = np.arange(len(values))
    walls = steps * 0.5
    array = np.array(values, dtype=float)
    whole = detect(steps, walls, array, params)
    detector = SeriesDetector(params)
    chunked = []
    bounds = sorted({0, len(values), *(cut for cut in cuts if cut <= len(values))})
    for start, end in itertools.pairwise(bounds):
        chunked += detector.update(steps[start:end], walls[start:end], array[start:end])
    assert _key(chunked) == _key(whole)


def _key(alerts: list) -> list[tuple[object, ...]]:  # type: ignore[type-arg]
    """Alerts compared with NaN equal to NaN (Alert equality would say NaN != NaN)."""
    return [
        tuple(repr(getattr(a, name)) for name in ("step", "kind", "value", "expected_low", "expected_high"))
        for a in alerts
    ]
