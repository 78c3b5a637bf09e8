"""Forecast where a training curve is going: the next 20 % of its steps, with an uncertainty band.

Candidate models, each fitted to the curve after its warm-up (see :mod:`ridgeline.analysis.phases`):

- ``last_value``: the curve stays where its trend is now (the naive forecast, on the smoothed level);
- ``exponential``: ``a + b·exp(-k·t)``;
- ``power_law``: ``a + b·(t + c)^(-alpha)``, the scaling-law shape of many loss curves.

The two curve models are fitted in numpy alone: a log-spaced grid over the non-linear parameter (k; alpha and
c) with ordinary least squares for the linear ones (a, b) at each grid point, all grid points in one batched
solve. ``auto`` picks, per curve, the candidate with the least error on the curve's own held-out tail: the
forecast made from the first 1/1.2 (and 1/1.44) of its history, compared with what followed. That backtest also
sizes the band: its errors beyond the noise grow the band linearly with the horizon, on top of the noise of the
points around the fit (a 90 % band for the points, calibrated in tests/analysis/test_forecast.py).

Why these models: bench/forecast.py compares them, a small LSTM trained on generated curves, and the last raw
value on held-out tails of generated curves and real torch training runs (mean absolute scaled error; figures
in docs/benchmarks.md). Pure numpy; no I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from ridgeline.analysis.phases import finite_points, segment, smooth, window

Model = Literal["last_value", "exponential", "power_law"]
MODELS: tuple[Model, ...] = ("last_value", "exponential", "power_law")
HORIZON = 0.2
MIN_POINTS = 10
Z90 = 1.645
RECENT = (0.3, 0.7)  # fit the curve models to the last 70 % or 30 % of the history (auto picks by backtest)

_K_GRID = np.geomspace(0.05, 60.0, 64)  # decay rates per span
_ALPHA_GRID = np.geomspace(0.05, 4.0, 32)
_OFFSET_GRID = np.array([0.003, 0.01, 0.03, 0.1, 0.3])  # c, in spans


class ForecastError(ValueError):
    """The curve cannot be forecast (too few finite points, or one step only)."""


@dataclass(frozen=True, slots=True)
class Forecast:
    """``value[i]`` is the expected value at ``step[i]``, ``[low[i], high[i]]`` its 90 % band; the last entry
    is the value at the end of the horizon (the last planned step)."""

    model: str
    step: np.ndarray
    value: np.ndarray
    low: np.ndarray
    high: np.ndarray

    def as_dict(self) -> dict[str, object]:
        return {
            "model": self.model,
            "step": self.step.tolist(),
            "value": self.value.tolist(),
            "low": self.low.tolist(),
            "high": self.high.tolist(),
            "final": {
                "step": int(self.step[-1]),
                "value": float(self.value[-1]),
                "low": float(self.low[-1]),
                "high": float(self.high[-1]),
            },
        }


Predictor = Callable[[np.ndarray], np.ndarray]


def _fit_family(t: np.ndarray, y: np.ndarray, basis: np.ndarray) -> tuple[int, float, float]:
    """Least squares of ``y ≈ a + b·basis[g]`` for every grid row g at once: (best row, a, b)."""
    bm = basis.mean(axis=1, keepdims=True)
    ym = y.mean()
    centred = basis - bm
    var = np.einsum("gi,gi->g", centred, centred)
    cov = centred @ (y - ym)
    with np.errstate(divide="ignore", invalid="ignore"):
        b = np.where(var > 0, cov / var, 0.0)
    a = ym - b * bm[:, 0]
    sse = np.einsum("gi,gi->g", centred * b[:, None] - (y - ym)[None, :], centred * b[:, None] - (y - ym)[None, :])
    best = int(np.argmin(sse))
    return best, float(a[best]), float(b[best])


def fit(model: Model, step: np.ndarray, value: np.ndarray) -> Predictor:
    """``model`` fitted to the points; returns the function from steps to expected values."""
    steps = step.astype(np.float64)
    origin = steps[0]
    span = max(float(steps[-1] - origin), 1.0)
    t = (steps - origin) / span
    if model == "last_value":
        level = float(smooth(value)[-1])
        return lambda s: np.full(len(s), level)
    if model == "exponential":
        best, a, b = _fit_family(t, value, np.exp(-_K_GRID[:, None] * t[None, :]))
        k = float(_K_GRID[best])
        return lambda s: a + b * np.exp(-k * (np.asarray(s, np.float64) - origin) / span)
    if model == "power_law":
        alpha, c = np.meshgrid(_ALPHA_GRID, _OFFSET_GRID, indexing="ij")
        alpha, c = alpha.reshape(-1), c.reshape(-1)
        best, a, b = _fit_family(t, value, (t[None, :] + c[:, None]) ** -alpha[:, None])
        al, cc = float(alpha[best]), float(c[best])
        return lambda s: a + b * ((np.asarray(s, np.float64) - origin) / span + cc) ** -al
    raise ValueError(f"model must be one of {', '.join(MODELS)} or auto, not {model!r}")


def _fit_start(step: np.ndarray, value: np.ndarray) -> int:
    """Index where the curve's warm-up ends (0 without one): the models describe the descent, not the warm-up."""
    phases = segment(step, value)
    if phases and phases[0].phase == "warmup":
        return int(np.searchsorted(step, phases[0].end_step))
    return 0


def _backtests(step: np.ndarray, value: np.ndarray) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """(history steps, history values, future steps, future values) for forecasts made from the first 1/1.2 and
    1/1.44 of the steps, each over the next 20 % of its own steps (the horizon the real forecast uses)."""
    out = []
    end = float(step[-1])
    for _ in range(2):
        cut = step[0] + (end - step[0]) / (1 + HORIZON)
        history = step <= cut
        future = (step > cut) & (step <= end)
        if history.sum() < MIN_POINTS or future.sum() < 2:
            break
        out.append((step[history], value[history], step[future], value[future]))
        end = cut
    return out


def _predict_from(model: Model, step: np.ndarray, value: np.ndarray, recent: float = 0.0) -> Predictor:
    """``model`` fitted after the warm-up, and to the last ``1 - recent`` of the points only."""
    start = max(_fit_start(step, value), int(len(step) * recent))
    if len(step) - start < MIN_POINTS:
        start = max(0, len(step) - MIN_POINTS)
    return fit(model, step[start:], value[start:])


def _candidates() -> list[tuple[Model, float]]:
    fitted: list[tuple[Model, float]] = [(m, r) for m in MODELS[1:] for r in RECENT]
    return [("last_value", 0.0), *fitted]


def select(step: np.ndarray, value: np.ndarray) -> tuple[tuple[Model, float], dict[str, float]]:
    """The candidate (model, fitted fraction) with the least mean absolute error on the curve's own held-out
    tails, and every candidate's error (``last_value`` when there is too little history to hold any out)."""
    tests = _backtests(step, value)
    errors: dict[tuple[Model, float], float] = {}
    for model, recent in _candidates():
        errs = [np.mean(np.abs(_predict_from(model, hs, hv, recent)(fs) - fv)) for hs, hv, fs, fv in tests]
        errors[model, recent] = float(np.mean(errs)) if errs else float("nan")
    finite = {c: e for c, e in errors.items() if np.isfinite(e)}
    best = min(finite, key=lambda c: finite[c]) if finite else ("last_value", 0.0)
    return best, {f"{m}@{r}": e for (m, r), e in errors.items()}


def forecast(
    step: np.ndarray,
    value: np.ndarray,
    *,
    model: Model | Literal["auto"] = "auto",
    horizon: float = HORIZON,
    until: int | None = None,
    points: int = 50,
) -> Forecast:
    """The forecast of a curve from its last step to ``until`` (default: ``horizon`` of its step span later),
    at up to ``points`` evenly spaced steps. Non-finite points are ignored. Raises ForecastError with fewer than
    ``MIN_POINTS`` finite points."""
    steps, values = finite_points(step, value)
    if len(steps) < MIN_POINTS or steps[-1] == steps[0]:
        raise ForecastError(f"a forecast needs at least {MIN_POINTS} finite points at distinct steps; got {len(steps)}")
    last = int(steps[-1])
    span = int(steps[-1] - steps[0])
    end = until if until is not None else last + max(1, round(horizon * span))
    if end <= last:
        raise ForecastError(f"until must be after the last step {last}; got {end}")
    chosen, recent = select(steps, values)[0] if model == "auto" else (model, RECENT[0])
    predict = _predict_from(chosen, steps, values, recent)
    future = np.unique(np.linspace(last, end, points + 1)[1:].round().astype(np.int64))
    expected = predict(future)

    # Band: the noise of the points around the trend, plus the model error the backtests measured beyond that
    # noise, growing linearly with the horizon (and with a longer horizon than the backtests', proportionally).
    tail = -max(4 * window(len(values)), MIN_POINTS)
    noise = float(np.std((values - smooth(values))[tail:]))
    drift = 0.0
    for hs, hv, fs, fv in _backtests(steps, values):
        err = _predict_from(chosen, hs, hv, recent)(fs) - fv
        u = (fs - hs[-1]) / max(float(fs[-1] - hs[-1]), 1.0)
        excess = np.maximum(err**2 - noise**2, 0.0)
        drift = max(drift, float(np.sqrt(np.sum(excess * u**2) / max(np.sum(u**4), 1e-12))))
    reach = (future - last) / max(horizon * span, 1.0)
    half = Z90 * np.sqrt(noise**2 + (drift * reach) ** 2)
    low, high = _within_bounds(values, expected - half, expected + half)
    expected = np.clip(expected, low, high)
    return Forecast(chosen, future, expected, low, high)


def _within_bounds(values: np.ndarray, low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The band kept to the range the curve has lived in when that range looks like a natural bound: a curve
    that never left [0, 1] (an accuracy, a rate) stays in it, one that never went below 0 (a loss) stays at or
    above 0. A curve model extrapolated past such a bound (accuracy 1.02) would only mislead."""
    floor = 0.0 if values.min() >= 0 else -np.inf
    ceiling = 1.0 if floor == 0.0 and values.max() <= 1 else np.inf
    return np.clip(low, floor, ceiling), np.clip(high, floor, ceiling)


__all__ = ["MODELS", "Forecast", "ForecastError", "Model", "fit", "forecast", "select"]
