"""Phases of generated curves whose boundaries are known by construction (kinks between flat and straight
pieces), with noise and spikes; curves with no warm-up start in descent, curves still falling have no
convergence; a curve that worsens after its best point (overfitting) has its phases end there."""

from __future__ import annotations

import numpy as np
import pytest

from ridgeline.analysis.phases import Progress, progress_of, segment

STEPS = np.arange(0, 2000, 2)  # 1000 points over 2000 steps
SPAN = 1998


def piecewise(warm_end: float, descent_end: float, rng: np.random.Generator, noise: float) -> np.ndarray:
    """Flat at 2.0 until ``warm_end``, straight down to 0.3 at ``descent_end``, then 0.3 -> 0.29 to the end."""
    y = np.interp(STEPS, [0, warm_end, descent_end, STEPS[-1]], [2.0, 2.0, 0.3, 0.29])
    return y + rng.normal(0, noise * 1.7, len(STEPS))


def phases_of(
    values: np.ndarray, steps: np.ndarray = STEPS, progress: Progress | None = None
) -> dict[str, tuple[int, int]]:
    return {s.phase: (s.start_step, s.end_step) for s in segment(steps, values, progress)}


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


OVERFIT_STEPS = np.arange(0, 496)
BEST = 170


def overfitting(rng: np.random.Generator, rise: float) -> np.ndarray:
    """A validation loss that falls from 1.0 to 0.4 until step 170 (exponentially) and then rises by ``rise``
    until step 495 (overfitting), with noise."""
    t = OVERFIT_STEPS.astype(np.float64)
    fall = 1.0 - 0.6 * (1 - np.exp(-t / 50)) / (1 - np.exp(-BEST / 50))
    after = 0.4 + rise * (np.clip(t - BEST, 0, None) / (495 - BEST)) ** 1.5
    return np.where(t <= BEST, fall, after) + rng.normal(0, 0.02, len(t))


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("rise", [0.3, 0.8])  # ends below, or above, where it started
def test_overfitting_loss_descends_over_its_fall_and_is_unsegmented_over_its_rise(seed: int, rise: float) -> None:
    values = overfitting(np.random.default_rng(seed), rise)
    found = segment(OVERFIT_STEPS, values, "down")
    assert found and found[0].phase == "descent" and found[0].start_step == 0
    descent = next(s for s in found if s.phase == "descent")
    assert descent.end_step >= 100  # the fall is descent...
    assert abs(found[-1].end_step - BEST) <= 0.05 * 495  # ...and the phases end at the best point
    assert all(s.end_step <= BEST + 0.05 * 495 for s in found)  # nothing of the rise is descent


@pytest.mark.parametrize("seed", range(3))
def test_overfitting_loss_ending_below_its_start_is_read_as_a_loss_unnamed(seed: int) -> None:
    found = segment(OVERFIT_STEPS, overfitting(np.random.default_rng(seed), 0.3))
    assert found[0].phase == "descent" and abs(found[-1].end_step - BEST) <= 0.05 * 495


@pytest.mark.parametrize("progress", ["up", None])
def test_accuracy_still_reads_upside_down(progress: Progress | None) -> None:
    values = 1.0 - piecewise(400, 1000, np.random.default_rng(0), 0.01) / 2.0
    found = phases_of(values, progress=progress)
    assert list(found) == ["warmup", "descent", "convergence"]
    assert abs(found["warmup"][1] - 400) <= 0.05 * SPAN and abs(found["convergence"][0] - 1000) <= 0.05 * SPAN
    assert found["convergence"][1] == STEPS[-1]


def test_overfitting_accuracy_ends_at_its_best_point() -> None:
    values = 1.0 - overfitting(np.random.default_rng(4), 0.4)
    found = segment(OVERFIT_STEPS, values, "up")
    assert found[0].phase == "descent" and found[0].start_step == 0
    assert abs(found[-1].end_step - BEST) <= 0.05 * 495


def test_converged_loss_with_noise_is_not_cut_at_its_noisy_minimum() -> None:
    values = piecewise(400, 1000, np.random.default_rng(5), 0.05)
    assert phases_of(values, progress="down")["convergence"][1] == STEPS[-1]


def test_diverging_loss_has_no_phases() -> None:
    values = 1.0 + STEPS / SPAN + np.random.default_rng(0).normal(0, 0.01, len(STEPS))
    assert segment(STEPS, values, "down") == []


@pytest.mark.parametrize(
    ("tag", "progress"),
    [
        ("val/loss", "down"),
        ("train_loss", "down"),
        ("eval/top1_error", "down"),
        ("perplexity", "down"),
        ("val/accuracy", "up"),
        ("eval/f1", "up"),
        ("learning_rate", None),
        ("throughput", None),
    ],
)
def test_progress_of_a_tag_name(tag: str, progress: Progress | None) -> None:
    assert progress_of(tag) == progress
