"""The diagnosis evaluation of issue 17 (bench/diagnosis_eval.py): its two halves share nothing the rules could be
tuned to, a fixed slice of the held-out half meets the quality targets, and a real torch run on sklearn's digits
whose first layer is dead from the first step (a large negative bias) is diagnosed as dead units.

The slice is the first three held-out seeds with runs of at most 20,000 steps (``--quick``): 153 labelled runs,
a few seconds. The full figures (30 seeds) are in docs/insights.md. Nothing here is timed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.bench.runner import BENCH_DIR, run_bench

sys.path.append(str(BENCH_DIR))
from diagnosis_cases import GENERATORS, NAMINGS, SPLITS, cases  # bench/diagnosis_cases.py

# Kinds below the 0.9 target on the full held-out half: (false findings, misses) allowed on the slice.
SHORT_OF_TARGET = {"underfitting": (2, 1), "plateau": (1, 2), "lr_too_high": (1, 2)}


def test_the_halves_share_no_seed_noise_family_or_naming_convention() -> None:
    dev, held = SPLITS["dev"], SPLITS["heldout"]
    assert not set(dev.noises) & set(held.noises)
    assert not set(dev.namings) & set(held.namings)
    assert set(dev.namings) | set(held.namings) == set(NAMINGS)
    per_seed = sum(variants * (3 if kind == "healthy" else 1) for kind, (_, variants, _, _) in GENERATORS.items())
    names = {case.name for case in cases(dev, 2, quick=True)}
    held_names = {case.name for case in cases(held, 2, quick=True)}
    assert len(names) == len(held_names) == 2 * per_seed and not names & held_names
    assert {c.meta["naming"] for c in cases(held, 1, quick=True)} <= set(held.namings)


def test_a_fixed_held_out_slice_meets_the_targets(tmp_path: Path) -> None:
    output, results = run_bench("diagnosis_eval.py", "--quick", cwd=tmp_path, timeout=600)
    figures = results["synthetic"]
    assert figures["split"] == "heldout" and figures["cases"] == 153, output
    assert figures["overall_f1"] >= 0.95, output
    assert figures["healthy_without_finding"] >= 0.95, output
    for kind, q in figures["kinds"].items():
        # Per kind at least 0.9, or at most one mistake on a slice this small (9-18 labelled runs a kind); two
        # where the full held-out half falls short of the target (docs/insights.md says which and why).
        most_false, most_missed = SHORT_OF_TARGET.get(kind, (1, 1))
        assert q["precision"] >= 0.9 or q["fp"] <= most_false, (kind, q, output)
        assert q["recall"] >= 0.9 or q["fn"] <= most_missed, (kind, q, output)
    assert figures["precision_at_0.8"] >= 0.8, output  # findings this confident are right that often


def test_a_real_cnn_dead_from_the_first_step_is_dead_units(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("sklearn")
    from diagnosis_torch import RUNS, train

    import ridgeline
    from ridgeline.services.diagnosis import diagnose_logdir

    train(tmp_path, "dead", RUNS["digits_cnn_dead_relu"])
    logdir = ridgeline.open(tmp_path, cache=False)
    findings = {f.kind: f for f in diagnose_logdir(logdir)}
    assert "dead_units" in findings and set(findings) <= {"dead_units", "underfitting", "plateau"}
    dead = findings["dead_units"]
    # The first conv layer's ReLUs never fire: its activations are zero at every logged step (read here from the
    # file), and the finding says so from the first step on.
    first = logdir.histograms("dead", "activations/layer1")
    assert all(e.value.min == e.value.max == 0 for e in first)
    assert "activations/layer1" in dead.tags and "from the first step" in dead.message
    assert any(s.tag == "activations/layer1" and s.chart == "histograms" for s in dead.spots)
