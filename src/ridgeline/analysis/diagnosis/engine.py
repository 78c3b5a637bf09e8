"""The whole run: :func:`diagnose` prepares a run's curves once, applies the rules in their order of precedence
and turns what they found into findings; :func:`diagnose_run` also says what was checked."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ridgeline.analysis.diagnosis import checks, gradient_rules, instability, loss_rules, weight_rules
from ridgeline.analysis.diagnosis.config import DiagnosisConfig
from ridgeline.analysis.diagnosis.findings import KINDS, Finding, Hit
from ridgeline.analysis.diagnosis.inputs import HistogramSeries, Series
from ridgeline.analysis.diagnosis.run import Rule, RunCurves

# When the loss is already explained by one of these, a slow, stuck or flat loss says nothing more.
EXPLAINED = frozenset({"lr_too_high", "vanishing_gradients", "exploding_gradients", "overfitting"})
# Of a loss that is not explained otherwise, the first of these that fires.
FLAT_LOSS_RULES: tuple[Rule, ...] = (loss_rules.lr_too_low, loss_rules.plateau, loss_rules.underfitting)


@dataclass(frozen=True)
class Diagnosis:
    """A run's findings (most confident first) and, in plain words, what was checked (see :mod:`.checks`)."""

    findings: list[Finding]
    checked: list[str]


def diagnose(
    run: str,
    scalars: Mapping[str, Series],
    histograms: Mapping[str, HistogramSeries] | None = None,
    config: DiagnosisConfig | None = None,
    *,
    runs: Sequence[str] = (),
) -> list[Finding]:
    """The findings of one run (at most one per kind, most confident first).

    ``scalars`` and ``histograms`` are keyed by name: a tag, or ``<run part>/<tag>`` when a training and a
    validation run are diagnosed together (``train/epoch_loss`` + ``validation/epoch_loss``). ``runs`` lists the
    runs involved (default: ``run``).
    """
    return diagnose_run(run, scalars, histograms, config, runs=runs, explain=False).findings


def diagnose_run(
    run: str,
    scalars: Mapping[str, Series],
    histograms: Mapping[str, HistogramSeries] | None = None,
    config: DiagnosisConfig | None = None,
    *,
    runs: Sequence[str] = (),
    explain: bool = True,
) -> Diagnosis:
    """:func:`diagnose`, and (``explain``) what was checked."""
    config = config or DiagnosisConfig()
    # Overflow and 0/0 on extreme values become inf/NaN, which no rule accepts (errstate is thread-local).
    with np.errstate(all="ignore"):
        curves = RunCurves(scalars, histograms or {}, config)
        hits = _hits(curves)
        checked = checks.checked(curves) if explain else []
    involved = tuple(runs) or (run,)
    findings = [
        Finding(run, h.kind, h.confidence, h.step, h.tags, h.evidence, h.message, involved, h.spots)
        for h in hits
        if h.confidence >= config.min_confidence
    ]
    return Diagnosis(sorted(findings, key=lambda f: (-f.confidence, KINDS.index(f.kind))), checked)


def _hits(run: RunCurves) -> list[Hit]:
    """Every rule's hit, in the order of precedence: exploding gradients rule out vanishing ones and a too-high
    learning rate (they explain the loss); a too-high learning rate rules out overfitting (a wild training loss
    says nothing about it); a loss explained by either, or by vanishing gradients or overfitting, gets no
    :data:`FLAT_LOSS_RULES` verdict."""
    hits: list[Hit] = []
    exploding = gradient_rules.exploding(run)
    vanishing = None
    if exploding is None:
        vanishing = gradient_rules.vanishing(run) or gradient_rules.vanishing_by_depth(run)
    hits += [h for h in (exploding, vanishing, weight_rules.dead_units(run)) if h is not None]
    if run.train_shape is not None:  # a training loss long enough to judge its shape
        high = instability.lr_too_high(run) if exploding is None else None
        found = high if high is not None else loss_rules.overfitting(run)
        if found is not None:
            hits.append(found)
        if not {h.kind for h in hits} & EXPLAINED:
            for rule in FLAT_LOSS_RULES:
                found = rule(run)
                if found is not None:
                    hits.append(found)
                    break
    elif exploding is None:
        nan = instability.nan_only(run)  # too few finite points for a shape, but a NaN says enough
        if nan is not None:
            hits.append(nan)
    return hits
