"""The diagnosis' pure functions on numpy curves: tag naming conventions, overriding them, robustness to noise,
degenerate input, histogram summaries, and how the log-directory adapter groups train/validation runs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ridgeline.analysis.diagnosis import (
    DiagnosisConfig,
    HistogramSeries,
    Series,
    diagnose,
    rolling_median,
    summarise_histogram,
)
from ridgeline.services.diagnosis import Group, groups

STEPS = np.arange(0, 3000, 10)
T = STEPS / STEPS[-1]


def noisy(clean: np.ndarray, sigma: float, seed: int) -> np.ndarray:
    return clean * np.exp(np.random.default_rng(seed).normal(0, sigma, len(clean)))


def overfit_pair(seed: int = 0) -> tuple[Series, Series]:
    train = 2.0 * (1 + T / 0.04) ** -1.2
    val = np.where(T < 0.3, 0.6 + 1.4 * np.exp(-T / 0.06), 0.6 * (1 + (T - 0.3)))
    return Series(STEPS, noisy(train, 0.05, seed)), Series(STEPS, noisy(val, 0.02, seed + 1))


def healthy(sigma: float, seed: int) -> dict[str, Series]:
    clean = 0.1 + 2.0 * (1 + T / 0.05) ** -0.7
    return {
        "train/loss": Series(STEPS, noisy(clean, sigma, seed)),
        "val/loss": Series(STEPS[::10], noisy(clean[::10] * 1.05, 0.02, seed + 1)),
        "train/acc": Series(STEPS, np.clip(1 - clean / 2.2, 0, 1)),
        "grad_norm/total": Series(STEPS, noisy(0.5 + (1 + T / 0.05) ** -0.5, 0.3, seed + 2)),
    }


@pytest.mark.parametrize(
    ("train_tag", "val_tag"),
    [
        ("train/loss", "val/loss"),
        ("loss/train", "loss/validation"),
        ("train_loss", "valid_loss"),
        ("Loss/Train", "Loss/Test"),
        ("training/loss", "eval/loss"),
        ("trn-loss", "dev-loss"),
    ],
)
def test_train_and_validation_losses_pair_by_name(train_tag: str, val_tag: str) -> None:
    train, val = overfit_pair()
    findings = diagnose("run", {train_tag: train, val_tag: val, "lr": Series(STEPS, np.full(len(STEPS), 0.1))})
    assert [(f.kind, f.tags) for f in findings] == [("overfitting", [train_tag, val_tag])]
    assert findings[0].step is not None and 800 <= findings[0].step <= 1000  # validation's best is at 30%


def test_the_pairs_key_picks_the_matching_validation_series() -> None:
    train, val = overfit_pair()
    flat = Series(STEPS, noisy(np.full(len(STEPS), 0.5), 0.01, 3))
    found = diagnose("run", {"train/loss": train, "val/loss": val, "train/kl": flat, "val/kl": flat})
    assert [f.tags for f in found if f.kind == "overfitting"] == [["train/loss", "val/loss"]]


def test_naming_conventions_can_be_overridden() -> None:
    train, val = overfit_pair()
    scalars = {"fit/objective": train, "holdout_check/objective": val}
    assert diagnose("run", scalars) == []  # "objective" is no loss name by default
    config = DiagnosisConfig(loss=r"objective", train=r"^fit", validation=r"^holdout_check")
    assert [f.kind for f in diagnose("run", scalars, config=config)] == ["overfitting"]


@pytest.mark.parametrize("sigma", [0.0, 0.02, 0.1, 0.2, 0.3])
def test_noise_alone_raises_nothing(sigma: float) -> None:
    for seed in range(8):
        assert diagnose("run", healthy(sigma, seed)) == [], (sigma, seed)


def test_too_little_data_raises_nothing() -> None:
    assert diagnose("run", {}) == []
    short = np.arange(5)
    assert diagnose("run", {"loss": Series(short, np.array([2.0, 1.0, 3.0, 0.5, 4.0]))}) == []
    empty = np.zeros(0)
    assert diagnose("run", {"loss": Series(empty, empty), "grad/x": Series(empty, empty)}) == []


def test_a_loss_that_turns_nan_is_too_high_a_learning_rate() -> None:
    values = 2.0 * (1 + T / 0.05) ** -0.3
    values[T > 0.5] = np.nan
    (finding,) = diagnose("run", {"loss": Series(STEPS, values)})
    assert finding.kind == "lr_too_high"
    assert finding.step == int(STEPS[T > 0.5][0]) == finding.evidence["first_nonfinite_step"]


@pytest.mark.parametrize("name", ["grad/fc1", "fc1/grad", "grad_norm/fc1", "fc1_grad", "gradient_norm"])
def test_gradient_norms_are_recognised_by_name(name: str) -> None:
    grows = 10 ** (4 * np.clip((T - 0.4) / 0.4, 0, 1))
    grows[T > 0.85] = np.nan
    scalars = {"loss": Series(STEPS, 2.0 * (1 + T / 0.05) ** -0.5), name: Series(STEPS, noisy(grows, 0.1, 0))}
    (finding,) = diagnose("run", scalars)
    assert finding.kind == "exploding_gradients" and finding.tags == [name, "loss"]
    assert 3.5 <= float(finding.evidence["orders_of_magnitude"]) <= 4.5
    assert finding.evidence["first_nonfinite_step"] == int(STEPS[T > 0.85][0])


def hist_series(stds: np.ndarray) -> HistogramSeries:
    steps = np.arange(len(stds)) * 100
    edges = np.linspace(-1, 1, 31)
    rows = []
    for s in stds:
        count = np.exp(-0.5 * ((edges[:-1] + edges[1:]) / 2 / s) ** 2) * 1000
        rows.append(summarise_histogram(edges[:-1], edges[1:], np.round(count)))
    table = np.array(rows)
    return HistogramSeries(steps, *(table[:, i] for i in range(5)))


def test_a_layer_whose_weights_stop_changing_is_dead() -> None:
    moving = np.linspace(0.2, 0.3, 30)
    stops = moving.copy()
    stops[12:] = stops[11]
    loss = Series(np.arange(300) * 10, 2.0 * (1 + np.arange(300) / 20) ** -0.5)
    hists = {"fc1.weight": hist_series(moving), "fc2.weight": hist_series(stops)}
    (finding,) = diagnose("run", {"loss": loss}, hists)
    assert finding.kind == "dead_units" and finding.tags == ["fc2.weight"] and finding.step == 1100
    # A layer frozen from the first step on (a frozen backbone) is a choice, not a problem.
    frozen = {"fc1.weight": hist_series(moving), "backbone.weight": hist_series(np.full(30, 0.2))}
    assert diagnose("run", {"loss": loss}, frozen) == []


def test_histogram_summary_matches_hand_computed_values() -> None:
    # Two values at 0.5 (bucket [0, 1]) and two at 1.5 (bucket [1, 2]); an empty bucket [2, 3] is ignored.
    mean, std, rms, low, high = summarise_histogram(np.array([0.0, 1, 2]), np.array([1.0, 2, 3]), np.array([2, 2, 0]))
    assert (mean, std, low, high) == (1.0, 0.5, 0.0, 2.0)
    assert rms == pytest.approx(np.sqrt((0.25 + 2.25) / 2))
    assert np.isnan(summarise_histogram(np.zeros(1), np.ones(1), np.zeros(1))).all()


def test_rolling_median_removes_isolated_spikes_and_keeps_steps() -> None:
    values = np.ones(100)
    values[50] = 100.0
    values[70:] = 2.0
    smooth = rolling_median(values)
    assert smooth.max() == 2.0 and smooth[40] == 1.0 and smooth[90] == 2.0


def test_train_and_validation_runs_are_grouped_under_their_parent() -> None:
    runs = ["a/train", "a/validation", "b", "b/loss_train", "b/loss_val", "c", "train", "eval"]
    assert groups(runs) == [
        Group("a/train", {"a/train": "train", "a/validation": "validation"}),
        Group("b", {"b/loss_train": "loss_train", "b/loss_val": "loss_val", "b": ""}),
        Group("c", {"c": ""}),
        Group("train", {"train": "train", "eval": "eval"}),
    ]


def test_findings_serialise_to_the_api_shape() -> None:
    train, val = overfit_pair()
    (finding,) = diagnose("exp", {"train/loss": train, "val/loss": val})
    data = finding.to_dict()
    assert list(data) == ["run", "kind", "confidence", "step", "tags", "evidence", "message", "spots"]
    assert data["run"] == "exp" and isinstance(data["confidence"], float)
    # Each spot names a chart position the evidence comes from: validation's best step is the first.
    spots = data["spots"]
    assert isinstance(spots, list) and spots[0]["tag"] == "val/loss" and spots[0]["step"] == finding.step
    assert all(set(s) == {"run", "tag", "step", "what", "chart"} and s["run"] == "exp" for s in spots)


values_strategy = st.lists(
    st.one_of(
        st.floats(allow_nan=True, allow_infinity=True, width=64),
        st.sampled_from([0.0, 1.0, -1.0, 1e-300, 1e300]),
    ),
    max_size=40,
)


@settings(max_examples=150, deadline=None)
@given(
    st.dictionaries(st.sampled_from(["train/loss", "val/loss", "acc", "grad_norm/a", "fc.grad"]), values_strategy),
    st.lists(st.sampled_from([0.0, 1.0, 1e-300, float("nan"), float("inf")]), max_size=12),
    st.booleans(),
)
def test_any_input_gives_findings_or_nothing_never_an_error(
    series: dict[str, list[float]], stats: list[float], repeated_steps: bool
) -> None:
    """Whatever the values (NaN, ±Inf, 1e300, constant, repeated steps), no exception and no warning (pytest
    turns warnings into errors): the server answers every run."""
    scalars = {
        tag: Series(np.zeros(len(v), np.int64) if repeated_steps else np.arange(len(v)), np.array(v, dtype=float))
        for tag, v in series.items()
    }
    column = np.array(stats, dtype=float)
    hists = {"fc.weight": HistogramSeries(np.arange(len(column)), column, column, column, column, column)}
    for finding in diagnose("run", scalars, hists):
        assert 0.5 <= finding.confidence <= 1 and finding.message


def test_gradients_orders_of_magnitude_apart_across_layers_while_the_loss_is_flat_vanish() -> None:
    flat = Series(STEPS, noisy(np.full(len(STEPS), 1.386), 0.01, 0))
    layers = {
        f"grad_norm/layer{i}.weight": Series(STEPS, noisy(np.full(len(STEPS), 10.0**-e), 0.2, i))
        for i, e in enumerate((8, 4, 0))
    }
    total = {"grad_norm/total": Series(STEPS, np.full(len(STEPS), 5.0))}
    (finding,) = diagnose("run", {"train/loss": flat, **layers, **total})
    assert finding.kind == "vanishing_gradients"
    assert finding.tags == ["grad_norm/layer0.weight", "grad_norm/layer2.weight", "train/loss"]
    assert 7.5 < float(finding.evidence["orders_of_magnitude"]) < 8.5
    # Layers within an order of magnitude of each other: the flat loss is only underfitting; a loss that improves
    # raises nothing.
    close = {
        f"grad_norm/layer{i}.weight": Series(STEPS, np.full(len(STEPS), 10.0**-e)) for i, e in enumerate((1.0, 0.5, 0))
    }
    assert [f.kind for f in diagnose("run", {"train/loss": flat, **close})] == ["underfitting"]
    assert diagnose("run", {**healthy(0.05, 0), **layers}) == []


@pytest.mark.parametrize(
    ("settings", "named"),
    [({"max_points": 0}, "max_points"), ({"min_points": -3}, "min_points"), ({"min_confidence": 7}, "min_confidence")],
)
def test_config_values_out_of_range_are_errors_that_name_them(settings: dict[str, object], named: str) -> None:
    with pytest.raises(ValueError, match=named):
        DiagnosisConfig.from_mapping(settings)
    with pytest.raises(ValueError, match=named):
        DiagnosisConfig(**settings)  # type: ignore[arg-type]


def test_a_flat_curve_has_no_trend_and_a_nan_at_step_0_counts() -> None:
    from ridgeline.analysis.diagnosis.curves import rank_correlation

    assert rank_correlation(np.arange(10.0), np.ones(10)) == 0.0  # ties share their rank: no +1 for a flat line
    values = 2.0 * (1 + T / 0.05) ** -0.3
    values[0] = np.nan
    (finding,) = diagnose("run", {"loss": Series(STEPS, values)})
    assert finding.kind == "lr_too_high" and finding.step == 0 == finding.evidence["first_nonfinite_step"]


def test_a_layer_dead_from_the_first_step_is_dead_and_a_smooth_decay_is_vanishing() -> None:
    loss = Series(STEPS, noisy(0.1 + 2.0 * (1 + T / 0.05) ** -0.7, 0.05, 0))
    alive = {f"grad_norm/fc{i}": Series(STEPS, noisy(np.full(len(STEPS), 0.5), 0.2, i)) for i in (2, 3)}
    never = {"grad_norm/fc1": Series(STEPS, np.zeros(len(STEPS)))}
    (finding,) = diagnose("run", {"train/loss": loss, **alive, **never})
    assert finding.kind == "dead_units" and finding.tags == ["grad_norm/fc1"] and finding.step == 0
    assert "from the first step" in finding.message
    stalled = Series(STEPS, noisy(np.full(len(STEPS), 1.5), 0.02, 1))
    decays = {f"grad_norm/fc{i}": Series(STEPS, noisy(10 ** (-8 * T), 0.1, i)) for i in (1, 2, 3)}
    kinds = [f.kind for f in diagnose("run", {"train/loss": stalled, **decays})]
    assert kinds == ["vanishing_gradients"]  # down to 1e-8, smoothly: not dead


def test_a_run_without_findings_says_what_was_checked() -> None:
    from ridgeline.analysis.diagnosis import diagnose_run

    report = diagnose_run("run", healthy(0.05, 0))
    assert report.findings == []
    assert report.checked[0].startswith("Training loss train/loss: 300 points")
    assert any(line.startswith("Validation loss val/loss") for line in report.checked)
    assert any("weight" in line and "dead units were not checked" not in line for line in report.checked)
