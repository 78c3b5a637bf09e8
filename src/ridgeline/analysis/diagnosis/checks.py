"""What the diagnosis looked at in a run, in plain words: the series it recognised and the numbers each family of
rules judged, so that a run with no finding says what was checked (and one with findings, what else was)."""

from __future__ import annotations

import numpy as np

from ridgeline.analysis.diagnosis.curves import log10, rolling_median
from ridgeline.analysis.diagnosis.findings import num, pct
from ridgeline.analysis.diagnosis.roles import primary
from ridgeline.analysis.diagnosis.run import RunCurves


def checked(run: RunCurves) -> list[str]:
    """One sentence per thing looked at (losses, validation, learning rate, gradients, layers)."""
    out: list[str] = []
    c, shape = run.train, run.train_shape
    if c is None:
        out.append("No training loss long enough to judge (looked for names like loss, nll, cross_entropy, mse).")
    elif shape is None:
        out.append(f"Training loss {c.name}: {len(c)} points, too few to judge its shape.")
    else:
        nan = f"; NaN/Inf from step {c.first_nonfinite}" if c.first_nonfinite is not None else "; no NaN/Inf"
        out.append(
            f"Training loss {c.name}: {len(c)} points, {num(shape.start)} -> {num(shape.end)} "
            f"({pct(shape.improvement)} better), noise {pct(shape.noise)} of its level{nan}."
        )
    if run.val is not None and run.val_shape is not None:
        v = run.val
        i = int(np.argmin(v.smooth))
        rise = (float(v.raw[-1]) - float(v.smooth[i])) / max(abs(float(v.smooth[i])), 1e-12)
        where = f"{pct(rise)} above it at the end" if rise > 0.005 else "still there at the end"
        out.append(
            f"Validation loss {v.name}: best {num(float(v.smooth[i]))} at step {int(v.step[i])}, {where} "
            "(overfitting needs a clear rise while training keeps falling)."
        )
    elif c is not None:
        out.append("No validation loss: overfitting was not checked.")
    lr = primary(run.roles.learning_rates)
    if lr is not None and len(run.scalars[lr].value):
        values = np.asarray(run.scalars[lr].value, dtype=np.float64)
        values = values[np.isfinite(values)]
        if len(values):
            out.append(f"Learning rate {lr}: {num(float(values.min()))} to {num(float(values.max()))}.")
    if run.grads:
        spans = []
        for g in run.grads:
            if len(g) >= 3:
                logs = log10(rolling_median(np.abs(g.raw), 0.04, 9))
                spans.append(float(logs.max() - logs.min()))
        widest = max(spans) if spans else 0.0
        out.append(
            f"Gradients: {len(run.grads)} series; the widest moved {widest:.1f} orders of magnitude (vanishing or "
            "exploding needs 2 or more)."
        )
    else:
        out.append("No gradient norms or histograms: vanishing and exploding gradients were not checked.")
    layers = len(run.roles.weight_hists) + len(run.roles.activation_hists) + len(run.grads)
    if layers:
        out.append(
            f"Layers: {len(run.roles.weight_hists)} weight and {len(run.roles.activation_hists)} activation "
            f"histograms and {len(run.grads)} gradient series checked for frozen, zero or constant values."
        )
    else:
        out.append("No weight, activation or gradient histograms: dead units were not checked.")
    return out
