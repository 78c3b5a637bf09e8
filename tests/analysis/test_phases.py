"""Phases of generated curves whose boundaries are known by construction (kinks between flat and straight
pieces), with noise and spikes; curves with no warm-up start in descent, curves still falling have no
convergence."""

from __future__ import annotations

import numpy as np
import pytest

from ridgeline.analysis.phases import segment

STEPS = np.arange(0, 2000, 2)  # 1000 points over 2000 steps
SPAN = 1998


def piecewise(warm_end: float, descent_end: float, rng: np.random.Generator, noise: float) -> np.ndarray:
    """Flat at 2.0 until ``warm_end``, straight down to 0.3 at ``descent_end``, then 0.3 -> 0.29 to the end."""
    y = np.interp(STEPS, [0, warm_end, descent_end, STEPS[-1]], [2.0, 2.0, 0.3, 0.29])
    return y + rng.normal(0, noise * 1.7, len(STEPS))


def phases_of(values: np.ndarray, steps: np.ndarray = STEPS) -> dict[str, tuple[int, int]]:
    return {s.phase: (s.start_step, s.end_step) for s in segment(steps, values)}


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("noise", [0.0, 0.02, 0.05])
@pytest.mark.parametrize(("warm_end", "descent_end"), [(400, 1000), (200, 600), (600, 1400)])
def test_known_boundaries(seed: int, noise: float, warm_end: int, descent_end: int) -> None:
    found = phases_of(piecewise(warm_end, descent_end, np.random.default_rng(seed), noise))
    assert list(found) == ["warmup", "descent", "convergence"]
    tolerance = 0.05 * SPAN
    assert found["warmup"][0] == 0 and abs(found["warmup"][1] - warm_end) <= tolerance
    assert found["descent"][0] == found["warmup"][1]
    assert abs(found["convergence"][0] - descent_end) <= tolerance
    assert found["descent"][1] == found["convergence"][0] and found["convergence"][1] == STEPS[-1]


def test_spikes_do_not_move_the_boundaries() -> None:
    rng = np.random.default_rng(3)
    values = piecewise(400, 1000, rng, 0.02)
    values[rng.choice(len(values), 15, replace=False)] *= 4.0
    found = phases_of(values)
    assert abs(found["warmup"][1] - 400) <= 0.05 * SPAN and abs(found["convergence"][0] - 1000) <= 0.05 * SPAN


@pytest.mark.parametrize("rate", [5.0, 8.0])
def test_exponential_decay_has_no_warmup_and_converges(rate: float) -> None:
    t = (STEPS - STEPS[0]) / SPAN
    values = np.exp(-rate * t) + np.random.default_rng(0).normal(0, 0.01, len(t))
    found = phases_of(values)
    assert list(found) == ["descent", "convergence"]
    assert found["descent"][0] == 0
    # The definition, solved on the noise-free formula: the first x from which e^-rx - e^-r <= 0.1·(1 - e^-r)·(1 - x).
    x = np.linspace(0, 1, 100_001)
    left = np.exp(-rate * x) - np.exp(-rate) > 0.1 * (1 - np.exp(-rate)) * (1 - x)
    expected = x[np.nonzero(left)[0][-1] + 1] * SPAN
    assert abs(found["convergence"][0] - expected) <= 0.05 * SPAN


@pytest.mark.parametrize(
    "values",
    [
        2.0 - STEPS / SPAN,  # a straight line down: still falling at the end
        np.exp(-1.0 * STEPS / SPAN),  # a slow exponential, far from its floor
        np.exp(-3.0 * STEPS / SPAN),
    ],
    ids=["linear", "slow-exp", "exp3"],
)
def test_never_converging_curve_has_no_convergence(values: np.ndarray) -> None:
    noisy = values + np.random.default_rng(1).normal(0, 0.01, len(values))
    assert [s.phase for s in segment(STEPS, noisy)] == ["descent"]


def test_rising_metric_is_read_upside_down() -> None:
    values = 1.0 - piecewise(400, 1000, np.random.default_rng(0), 0.01) / 2.0
    assert list(phases_of(values)) == ["warmup", "descent", "convergence"]


def test_warmup_that_rises_first() -> None:
    values = np.interp(STEPS, [0, 300, 1100, STEPS[-1]], [2.0, 2.6, 0.4, 0.38])
    found = phases_of(values + np.random.default_rng(2).normal(0, 0.03, len(STEPS)))
    assert abs(found["warmup"][1] - 300) <= 0.05 * SPAN and abs(found["convergence"][0] - 1100) <= 0.05 * SPAN


def test_flat_curve_is_one_convergence_segment_and_short_curves_none() -> None:
    assert [s.phase for s in segment(STEPS, 1.0 + np.random.default_rng(0).normal(0, 0.05, len(STEPS)))] == [
        "convergence"
    ]
    assert segment(np.arange(5), np.arange(5.0)) == []
    assert segment(np.arange(20), np.full(20, np.nan)) == []


def test_non_finite_points_and_unsorted_steps_are_handled() -> None:
    values = piecewise(400, 1000, np.random.default_rng(0), 0.01)
    values[::50] = np.nan
    order = np.random.default_rng(1).permutation(len(STEPS))
    found = phases_of(values[order], STEPS[order])
    assert abs(found["warmup"][1] - 400) <= 0.05 * SPAN


def test_long_series_is_segmented_from_a_sample() -> None:
    steps = np.arange(1_000_000)
    values = np.interp(steps, [0, 200_000, 500_000, 999_999], [2.0, 2.0, 0.3, 0.29])
    found = phases_of(values + np.random.default_rng(0).normal(0, 0.02, len(steps)), steps)
    assert abs(found["warmup"][1] - 200_000) <= 50_000 and abs(found["convergence"][0] - 500_000) <= 50_000
