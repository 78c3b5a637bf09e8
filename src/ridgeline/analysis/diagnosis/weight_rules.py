"""Weight rules: layers whose weights stop changing, or whose gradients drop to exactly zero, while training goes
on (dead units)."""

from __future__ import annotations

import numpy as np

from ridgeline.analysis.diagnosis.curves import mad, zero_from
from ridgeline.analysis.diagnosis.findings import Hit, confidence_of, ramp
from ridgeline.analysis.diagnosis.inputs import HistogramSeries
from ridgeline.analysis.diagnosis.run import RunCurves


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


def dead_units(run: RunCurves) -> Hit | None:
    """Layers whose weight histograms stop changing while other layers or the loss still move, and gradient
    magnitudes that drop to exactly zero and stay there."""
    histograms, roles, grads, loss = run.histograms, run.roles, run.grads, run.train
    dead: list[tuple[str, int, str]] = []  # (tag, step, how)
    frozen: dict[str, int] = {}
    for name in roles.weight_hists:
        h = histograms[name]
        found = _frozen_from(h)
        if found is not None:
            frozen[name] = int(h.step[np.isfinite(h.vectors()).all(axis=1)][found[0]])
    moving_weights = [n for n in roles.weight_hists if n not in frozen and _frozen_from(histograms[n]) is None]
    for name, step in frozen.items():
        still = [n for n in moving_weights if histograms[n].step.max() > step]
        loss_moves = loss is not None and len(loss.raw[loss.step > step]) >= 3 and mad(loss.raw[loss.step > step]) > 0
        if still or loss_moves:
            dead.append((name, step, "weights stopped changing"))
    for g in grads:
        i = zero_from(g)
        if i is not None:
            dead.append((g.name, int(g.step[i]), "gradients dropped to zero"))
    if not dead:
        return None
    dead.sort(key=lambda d: d[1])
    total_layers = max(len(roles.weight_hists) + len(grads), 1)
    evidence: dict[str, float | int | str] = {
        "layers": len(dead),
        "of_layers": total_layers,
        "first": dead[0][0],
        "first_step": dead[0][1],
    }
    names = ", ".join(f"{tag} ({how} at step {step})" for tag, step, how in dead[:4])
    more = f" and {len(dead) - 4} more" if len(dead) > 4 else ""
    message = (
        f"Dead units: {names}{more} while training went on. Check for dying ReLUs (try LeakyReLU/GELU, a lower "
        "learning rate), parameters left out of the optimiser, or a frozen layer."
    )
    confidence = confidence_of(0.8, ramp(len(dead) / total_layers, 0, 0.5))
    return Hit("dead_units", confidence, dead[0][1], [d[0] for d in dead], evidence, message)
