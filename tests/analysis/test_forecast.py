"""Forecasts judged on held-out tails: the shipped model against the naive last value (mean absolute scaled
error, computed here from the held-out points), the band's coverage, and exact shapes recovered."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ridgeline
from ridgeline.analysis.forecast import ForecastError, forecast
from ridgeline.fixtures.curves import generated_curves, write_mlp_runs


def held_out(steps: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, ...]:
    """History = the first 1/1.2 of the steps; the tail = the next 20 % of the history's span."""
    cut = steps[0] + (steps[-1] - steps[0]) / 1.2
    history = steps <= cut
    return steps[history], values[history], steps[~history], values[~history]


def scaled_errors(steps: np.ndarray, values: np.ndarray) -> tuple[float, float, float]:
    """(MASE of the shipped forecast, MASE of the last value, share of tail points inside the band)."""
    hs, hv, fs, fv = held_out(steps, values)
    scale = np.mean(np.abs(np.diff(hv)))  # in-sample one-step naive error
    result = forecast(hs, hv, until=int(fs[-1]))
    predicted = np.interp(fs, result.step, result.value)
    inside = (fv >= np.interp(fs, result.step, result.low)) & (fv <= np.interp(fs, result.step, result.high))
    return (
        float(np.mean(np.abs(fv - predicted)) / scale),
        float(np.mean(np.abs(fv - hv[-1])) / scale),
        float(np.mean(inside)),
    )


@pytest.fixture(scope="module")
def generated() -> np.ndarray:
    # A seed the models were never tuned on.
    return np.array([scaled_errors(s, v) for s, v in generated_curves(120, seed=2026) if np.ptp(v) > 0])


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> np.ndarray:
    root: Path = tmp_path_factory.mktemp("mlp")
    write_mlp_runs(root, range(4), steps=300)
    logdir = ridgeline.open(root, cache=False)
    errors = []
    for run in logdir.runs():
        for tag in logdir.tags(run)["scalars"]:
            series = logdir.scalars(run, tag)
            errors.append(scaled_errors(series.step, series.value.astype(np.float64)))
    assert len(errors) == 12
    return np.array(errors)


def test_shipped_model_beats_naive_on_generated_curves(generated: np.ndarray) -> None:
    ours, naive = generated[:, 0], generated[:, 1]
    assert ours.mean() < 0.85 * naive.mean()
    assert np.median(ours) < np.median(naive)


def test_shipped_model_beats_naive_on_real_torch_runs(real: np.ndarray) -> None:
    ours, naive = real[:, 0], real[:, 1]
    assert ours.mean() < 0.85 * naive.mean()
    assert np.median(ours) < np.median(naive)


def test_band_is_roughly_calibrated(generated: np.ndarray, real: np.ndarray) -> None:
    # A 90 % band for the points: over many curves, between 75 % and 99 % of held-out points fall inside.
    for coverage in (generated[:, 2], real[:, 2]):
        assert 0.75 <= coverage.mean() <= 0.99


def test_exact_exponential_is_recovered() -> None:
    steps = np.arange(0, 1000, 5)
    values = 0.4 + 1.6 * np.exp(-steps / 250)
    result = forecast(steps, values)
    assert result.model in ("exponential", "power_law")
    final = result.as_dict()["final"]
    assert final["step"] == 995 + round(0.2 * 995)
    truth = 0.4 + 1.6 * np.exp(-final["step"] / 250)
    assert final["value"] == pytest.approx(truth, abs=0.01)
    assert final["low"] <= truth <= final["high"]


def test_forecast_reaches_until_and_ignores_non_finite_points() -> None:
    steps = np.arange(100)
    values = 1.0 / (steps + 1.0) + 0.1
    values[[10, 20]] = [np.nan, np.inf]
    result = forecast(steps, values, until=150, points=10)
    assert result.step[0] > 99 and result.step[-1] == 150 and len(result.step) == 10
    assert np.all(np.isfinite(result.value)) and np.all(result.low <= result.value)
    assert np.all(result.value <= result.high)


def test_too_few_points_or_bad_until_is_an_error() -> None:
    with pytest.raises(ForecastError, match="at least 10"):
        forecast(np.arange(9), np.ones(9))
    with pytest.raises(ForecastError, match="at least 10"):
        forecast(np.arange(30), np.full(30, np.nan))
    with pytest.raises(ForecastError, match="until"):
        forecast(np.arange(30), np.ones(30), until=10)


def test_an_accuracy_stays_within_0_and_1_and_a_loss_above_0() -> None:
    rng = np.random.default_rng(5)
    step = np.arange(1000)
    accuracy = np.clip(0.995 - 0.6 * np.exp(-step / 150) + rng.normal(0, 0.01, len(step)), 0, 1)
    ahead = forecast(step, accuracy)
    assert ahead.high.max() == 1.0, "the band would reach past 1: it is held at 1"
    assert np.all((ahead.low >= 0) & (ahead.value <= 1) & (ahead.value >= ahead.low))
    loss = np.abs(0.02 * np.exp(-step / 100) + rng.normal(0, 0.01, len(step)))  # noisy, close to 0
    below = forecast(step, loss)
    assert below.low.min() == 0.0, "the band would reach below 0: it is held at 0"
    assert np.all(below.value >= 0)
    # A curve that has been negative has no floor.
    assert forecast(step, loss - 0.5).low.min() < -0.5
