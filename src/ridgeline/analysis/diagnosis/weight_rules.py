"""Weight rules: dead units. A layer is dead when its weights stop changing, its gradients drop to exactly zero
(or, as a histogram, never change again), or its activations are all zero (or the same for every unit), while
training goes on; whether it
died on the way (dying ReLUs after a too-large step) or was dead from the first step (a large negative bias, a
saturated sigmoid). Weights frozen from the first step are a choice (a frozen backbone), not a problem."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ridgeline.analysis.diagnosis.curves import mad
from ridgeline.analysis.diagnosis.findings import Hit, Spot, confidence_of, ramp
from ridgeline.analysis.diagnosis.inputs import HistogramSeries
from ridgeline.analysis.diagnosis.run import RunCurves


@dataclass(frozen=True, slots=True)
class Dead:
    tag: str
    step: int
    how: str
    chart: str  # "scalars" or "histograms"


def _frozen_from(h: HistogramSeries) -> tuple[int, float] | None:
    """Index from which a histogram never changes again (it changed before), and its earlier typical change."""
    v = h.vectors()
    ok = np.isfinite(v).all(axis=1)
    v = v[ok]
    n = len(v)
    if n < 6:
        return None
    scale = np.maximum(np.abs(v).max(axis=0), 1e-12)
    change = (np.abs(np.diff(v, axis=0)) / scale).max(axis=1)
    moving = change > 1e-7
    if not moving.any() or moving[-1]:
        return None
    last = int(np.nonzero(moving)[0][-1]) + 1  # the first index of the frozen stretch
    if n - last < max(3, 0.25 * n):
        return None
    return last, float(np.median(change[:last]))


def _dead_weights(run: RunCurves) -> list[Dead]:
    """Weight histograms that stop changing while other layers or the loss still move."""
    histograms, roles = run.histograms, run.roles
    frozen: dict[str, int] = {}
    for name in roles.weight_hists:
        h = histograms[name]
        found = _frozen_from(h)
        if found is not None:
            frozen[name] = int(h.step[np.isfinite(h.vectors()).all(axis=1)][found[0]])
    moving = [n for n in roles.weight_hists if n not in frozen and _frozen_from(histograms[n]) is None]
    out = []
    for name, step in frozen.items():
        still = [n for n in moving if histograms[n].step.max() > step]
        if still or _loss_moves_after(run, step):
            out.append(Dead(name, step, f"weights stopped changing at step {step}", "histograms"))
    return out


def _dead_gradients(run: RunCurves) -> list[Dead]:
    """Gradient norms exactly zero, or gradient histograms that never change, from the first step or from an
    abrupt drop on."""
    out = []
    for g in run.grads:
        i = run.dead_gradients.get(g.name)
        if i is None:
            continue
        step = int(g.step[i])
        chart = "histograms" if g.name in run.histograms else "scalars"
        what = "exactly zero" if chart == "scalars" or float(np.abs(g.raw[-1])) == 0 else "frozen (the same every step)"
        how = f"gradients {what} from the first step" if i == 0 else f"gradients dropped to {what} at step {step}"
        out.append(Dead(g.name, step, how, chart))
    return out


def _dead_activations(run: RunCurves) -> list[Dead]:
    """Activation histograms all zero, or with every unit at the same value (no spread: saturated), from the
    first step or from some step to the end. (Not histograms that merely repeat from step to step: a layer that
    barely learns gives the same activations on a fixed probe batch.)"""
    out = []
    for name in run.roles.activation_hists:
        h = run.histograms[name]
        ok = np.isfinite(h.vectors()).all(axis=1)
        steps, rms, std = h.step[ok], h.rms[ok], h.std[ok]
        n = len(steps)
        if n < 3:
            continue
        dead = (rms == 0) | (std <= 1e-9 * np.abs(rms))
        if not dead[-1]:
            continue
        alive = np.nonzero(~dead)[0]
        start = int(alive[-1]) + 1 if len(alive) else 0
        if n - start < max(3, 0.2 * n):
            continue
        step = int(steps[start])
        what = "all zero" if float(rms[-1]) == 0 else "the same for every unit"
        how = f"activations {what} from the first step" if start == 0 else f"activations {what} from step {step}"
        out.append(Dead(name, step, how, "histograms"))
    return out


def _loss_moves_after(run: RunCurves, step: int) -> bool:
    loss = run.train
    if loss is None:
        return False
    after = loss.raw[loss.step > step]
    return len(after) >= 3 and mad(after) > 0


def dead_units(run: RunCurves) -> Hit | None:
    """Dead layers (weights, gradients, activations) while training goes on: other layers still live, or the
    loss still moves."""
    found = _dead_weights(run)
    for dead in _dead_gradients(run) + _dead_activations(run):
        alive_elsewhere = len(run.grads) + len(run.roles.activation_hists) > 1
        if alive_elsewhere or _loss_moves_after(run, dead.step):
            found.append(dead)
    if not found:
        return None
    found.sort(key=lambda d: d.step)
    total = max(len(run.roles.weight_hists) + len(run.grads) + len(run.roles.activation_hists), 1)
    layers = len({d.tag for d in found})
    evidence: dict[str, float | int | str] = {
        "layers": layers,
        "of_series": total,
        "first": found[0].tag,
        "first_step": found[0].step,
        "how": found[0].how,
    }
    names = ", ".join(f"{d.tag} ({d.how})" for d in found[:4])
    more = f" and {len(found) - 4} more" if len(found) > 4 else ""
    message = (
        f"Dead units: {names}{more} while training went on. Check for dying ReLUs (try LeakyReLU/GELU, a lower "
        "learning rate, a smaller negative bias), saturated activations, parameters left out of the optimiser, "
        "or a frozen layer."
    )
    spots = tuple(Spot(d.tag, d.step, d.how, "histograms" if d.chart == "histograms" else "scalars") for d in found)
    confidence = confidence_of(0.8, ramp(layers / total, 0, 0.5))
    tags = list(dict.fromkeys(d.tag for d in found))
    return Hit("dead_units", confidence, found[0].step, tags, evidence, message, spots)
