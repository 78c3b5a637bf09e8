"""Gradient rules: gradient norms that explode or vanish (over time, or across layers)."""

from __future__ import annotations

import math

import numpy as np

from ridgeline.analysis.diagnosis.curves import AGGREGATE, Curve, head, log10, rolling_median, shape_of, tail
from ridgeline.analysis.diagnosis.findings import Hit, Spot, confidence_of, num, pct, ramp, sig
from ridgeline.analysis.diagnosis.run import RunCurves

# log10 of the largest float: 10 ** x past it raises OverflowError (a gradient norm near float max is real input).
LOG10_FLOAT_MAX = 308.25


def unlog(x: float) -> float:
    """10 ** x, capped below the largest float."""
    return float(10.0 ** min(x, LOG10_FLOAT_MAX))


def exploding(run: RunCurves) -> Hit | None:
    """Gradient norms that grow by orders of magnitude (by one, when NaN/Inf follows)."""
    grads, loss = run.grads, run.train
    best: tuple[float, Curve, int, float, float] | None = None
    for g in grads:
        if len(g) < run.config.min_points and g.first_nonfinite is None:
            continue
        logs = log10(rolling_median(g.raw, 0.04, 9)) if len(g.raw) else np.zeros(0)
        base = head(logs, 0.2) if len(logs) >= 3 else math.nan
        if math.isnan(base):
            continue
        k = max(3, int(len(logs) * 0.2))
        growth = float(logs[k:].max() - base) if len(logs) > k else 0.0
        nonfinite = g.first_nonfinite is not None
        if growth >= 2 or (nonfinite and growth >= 1):
            above = np.nonzero(logs > base + 1)[0]
            start = int(g.step[above[0]]) if len(above) else int(g.step[-1])
            if g.first_nonfinite is not None and not len(above):
                start = g.first_nonfinite
            if best is None or growth > best[0]:
                best = (growth, g, start, base, float(logs.max()))
    if best is None:
        return None
    growth, g, start, base, peak = best
    nan_step = g.first_nonfinite
    if loss is not None and loss.first_nonfinite is not None:
        nan_step = loss.first_nonfinite if nan_step is None else min(nan_step, loss.first_nonfinite)
    evidence: dict[str, float | int | str] = {
        "grad_start": sig(unlog(base)),
        "grad_peak": sig(unlog(peak)),
        "orders_of_magnitude": round(growth, 2),
    }
    peak_step = int(g.step[int(np.argmax(g.raw))]) if len(g) else start
    spots = [Spot(g.name, start, "growth starts"), Spot(g.name, peak_step, f"peak ({num(unlog(peak))})")]
    tags = [g.name]
    nan_words = ""
    if nan_step is not None:
        evidence["first_nonfinite_step"] = nan_step
        nan_words = f"; NaN/Inf follows at step {nan_step}"
        if loss is not None:
            tags.append(loss.name)
            spots.append(Spot(loss.name, nan_step, "NaN/Inf"))
    confidence = confidence_of(ramp(growth, 2, 4), 1.0 if nan_step is not None else 0.3)
    message = (
        f"Exploding gradients from step {start}: the gradient norm ({g.name}) grew {growth:.1f} orders of magnitude "
        f"({num(unlog(base))} -> {num(unlog(peak))}){nan_words}. Clip gradients (e.g. clip_grad_norm_ 1.0), lower the "
        "learning rate, or add normalisation."
    )
    return Hit("exploding_gradients", confidence, start, tags, evidence, message, tuple(spots))


def vanishing(run: RunCurves) -> Hit | None:
    """Gradient norms that collapse by orders of magnitude while the loss stalls (not while it keeps improving:
    gradients shrink as a model converges)."""
    grads, loss = run.grads, run.train
    best: tuple[float, Curve, int, float, float, int] | None = None
    for g in grads:
        if len(g) < run.config.min_points or g.name in run.dead_gradients:
            continue
        logs = log10(rolling_median(np.abs(g.raw), 0.04, 9))
        base = float(logs[: max(3, len(logs) // 5)].max())  # the early level, before a fast collapse pulls medians
        final = tail(logs, 0.2)
        drop = base - final
        if drop >= 2 or (final < -7 and drop >= 1):
            below = np.nonzero(logs < base - 1)[0]
            start = int(g.step[below[0]]) if len(below) else int(g.step[0])
            low = np.nonzero(logs < final + 0.5)[0]
            collapsed = int(g.step[low[0]]) if len(low) else start
            if best is None or drop > best[0]:
                best = (drop, g, start, base, final, collapsed)
    if best is None:
        return None
    drop, g, start, base, final, collapsed = best
    evidence: dict[str, float | int | str] = {
        "grad_start": sig(unlog(base)),
        "grad_end": sig(unlog(final)),
        "orders_of_magnitude": round(drop, 2),
    }
    spots = [Spot(g.name, start, "the decay starts"), Spot(g.name, collapsed, f"collapsed ({num(unlog(final))})")]
    tags = [g.name]
    stall = 0.5
    if loss is not None:
        after = loss.smooth[loss.step >= collapsed]
        if len(after) >= 3:
            change = (head(after, 0.1) - tail(after, 0.1)) / max(abs(head(after, 0.1)), 1e-12)
            evidence["loss_change_after"] = sig(change)
            if change > 0.1:
                return None  # the loss keeps improving: gradients shrink because the model converges
            stall = 1.0
            tags.append(loss.name)
            spots.append(Spot(loss.name, collapsed, "the loss stalls"))
    confidence = confidence_of(ramp(drop, 2, 4), stall)
    message = (
        f"Vanishing gradients from step {start}: the gradient norm ({g.name}) collapsed {drop:.1f} orders of "
        f"magnitude ({num(unlog(base))} -> {num(unlog(final))})"
        + (" while the loss stalled" if stall == 1.0 else "")
        + ". Try residual connections, normalisation, ReLU-like activations or a better initialisation."
    )
    return Hit("vanishing_gradients", confidence, start, tags, evidence, message, tuple(spots))


def vanishing_by_depth(run: RunCurves) -> Hit | None:
    """Per-layer gradient norms that differ by three or more orders of magnitude (the layers far from the loss
    get almost nothing, as in a deep sigmoid network) while the loss does not improve."""
    grads, loss = run.grads, run.train
    levels: dict[str, float] = {}
    for g in grads:
        if AGGREGATE.search(g.name):  # a total norm is no layer
            continue
        if len(g) >= run.config.min_points and g.name not in run.dead_gradients:
            positive = np.abs(g.raw[g.raw != 0])
            if len(positive):
                levels[g.name] = float(np.median(log10(positive)))
    if len(levels) < 3 or loss is None or len(loss) < run.config.min_points:
        return None
    weakest = min(levels, key=levels.__getitem__)
    strongest = max(levels, key=levels.__getitem__)
    spread = levels[strongest] - levels[weakest]
    shape = shape_of(loss)
    if spread < 3 or shape.improvement > 0.25:
        return None
    evidence: dict[str, float | int | str] = {
        "weakest": weakest,
        "weakest_norm": sig(10 ** levels[weakest]),
        "strongest": strongest,
        "strongest_norm": sig(10 ** levels[strongest]),
        "orders_of_magnitude": round(spread, 2),
        "loss_improvement": sig(shape.improvement),
    }
    last = int(loss.step[-1])
    spots = (
        Spot(weakest, last, f"weakest gradient ({num(10 ** levels[weakest])})"),
        Spot(strongest, last, f"strongest gradient ({num(10 ** levels[strongest])})"),
        Spot(loss.name, last, f"the loss improved only {pct(max(shape.improvement, 0))}"),
    )
    message = (
        f"Vanishing gradients: the gradients of {weakest} are {spread:.1f} orders of magnitude smaller than those "
        f"of {strongest} ({num(10 ** levels[weakest])} vs {num(10 ** levels[strongest])}), and the loss "
        f"({loss.name}) improved only {pct(max(shape.improvement, 0))}. Try residual connections, normalisation, "
        "ReLU-like activations or a better initialisation."
    )
    confidence = confidence_of(ramp(spread, 3, 6), ramp(0.25 - shape.improvement, 0, 0.2))
    tags = [weakest, strongest, loss.name]
    return Hit("vanishing_gradients", confidence, int(loss.step[0]), tags, evidence, message, spots)
