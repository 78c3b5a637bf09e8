"""Loss rules: what the shape of the training (and validation) loss says — overfitting, underfitting, plateau,
learning rate too high or too low."""

from __future__ import annotations

import numpy as np

from ridgeline.analysis.diagnosis.curves import Curve, Shape, clean_curve, head, mad, rank_correlation, tail
from ridgeline.analysis.diagnosis.findings import Hit, confidence_of, num, pct, ramp
from ridgeline.analysis.diagnosis.roles import primary
from ridgeline.analysis.diagnosis.run import RunCurves


def overfitting(run: RunCurves) -> Hit | None:
    """The validation loss rises from its best while the training loss keeps falling, or the gap between them
    keeps widening while validation stays flat."""
    train, val = run.train, run.val
    if train is None or val is None or len(val) < 5:
        return None
    vs = val.smooth
    i_best = int(np.argmin(vs))
    best_step = float(val.step[i_best])
    val_best = float(vs[i_best])
    val_end = tail(val.raw, 0.15)
    level = max(abs(val_best), 1e-12)
    rise = (val_end - val_best) / level
    val_noise = mad(val.raw - vs) / level
    train_at = train.at(best_step)
    train_end = tail(train.raw, 0.1)
    train_drop = (train_at - train_end) / max(abs(train_at), 1e-12)
    position = i_best / max(len(val) - 1, 1)
    later = train.step >= best_step
    train_trend = rank_correlation(train.step[later], train.smooth[later]) if later.sum() >= 5 else 0.0
    evidence: dict[str, float | int | str] = {
        "val_best": round(val_best, 6),
        "val_end": round(val_end, 6),
        "val_rise": round(rise, 4),
        "train_at_val_best": round(train_at, 6),
        "train_end": round(train_end, 6),
        "train_drop_after": round(train_drop, 4),
    }
    if train_trend > -0.6:
        return None  # training loss not falling steadily: oscillation or divergence, not overfitting
    if position < 0.85 and rise > max(0.05, 2 * val_noise) and train_drop > 0.1:
        confidence = confidence_of(ramp(rise, 0.05, 0.4), ramp(train_drop, 0.1, 0.6), ramp(0.85 - position, 0, 0.4))
        message = (
            f"Overfitting from step {int(best_step)}: the validation loss ({val.name}) rose {pct(rise)} above its "
            f"best ({num(val_best)} -> {num(val_end)}) while the training loss ({train.name}) kept falling "
            f"{pct(train_drop)}. Stop earlier (keep the checkpoint from step {int(best_step)}), add regularisation "
            "or more data."
        )
        return Hit("overfitting", confidence, int(best_step), [train.name, val.name], evidence, message)
    # The gap keeps widening while validation no longer improves.
    common = np.intersect1d(train.step, val.step)
    if len(common) < 8:
        common = val.step
    gaps = np.array([val.at(s) - train.at(s) for s in common])
    k = max(2, len(gaps) // 5)
    gap_early, gap_late = float(np.median(gaps[:k])), float(np.median(gaps[-k:]))
    val_late = (val.at(float(common[len(common) // 2])) - val_end) / level
    train_late = (train.at(float(common[len(common) // 2])) - train_end) / max(abs(train_end), 1e-12)
    widened = (gap_late - max(gap_early, 0.0)) / max(abs(val_end), 1e-12)
    evidence.update({"gap_early": round(gap_early, 6), "gap_end": round(gap_late, 6)})
    material = gap_late > 0.05 * abs(head(train.raw, 0.02))  # not a gap of 0.003 between two losses near 0
    if widened > 0.3 and material and val_late < 0.02 and train_late > 0.3 and gap_late > 3 * max(gap_early, 1e-12):
        start = int(common[int(np.argmax(gaps > (gap_early + gap_late) / 2))])
        confidence = confidence_of(ramp(widened, 0.3, 1.0), ramp(train_late, 0.3, 1.0), floor=0.5)
        message = (
            f"Overfitting from about step {start}: the gap between validation loss ({val.name}) and training loss "
            f"({train.name}) widened from {num(gap_early)} to {num(gap_late)} while validation stopped improving. "
            "Stop earlier, add regularisation or more data."
        )
        return Hit("overfitting", confidence, start, [train.name, val.name], evidence, message)
    return None


def lr_too_high(run: RunCurves) -> Hit | None:
    """The training loss turns NaN/Inf, diverges, blows up and stays stuck, or oscillates wildly."""
    c, shape = run.train, run.train_shape
    if c is None or shape is None:
        return None
    evidence: dict[str, float | int | str] = {
        "start": round(shape.start, 6),
        "best": round(shape.best, 6),
        "end": round(shape.end, 6),
        "noise": round(shape.noise, 4),
    }
    if c.first_nonfinite is not None:
        evidence["first_nonfinite_step"] = c.first_nonfinite
        message = (
            f"The training loss ({c.name}) became NaN/Inf at step {c.first_nonfinite}: the learning rate is "
            "probably too high (lower it, add warm-up or gradient clipping)."
        )
        return Hit("lr_too_high", 0.9, c.first_nonfinite, [c.name], evidence, message)
    diverged = shape.rise > 0.5 and (shape.end - shape.best) / max(abs(shape.best), 1e-12) > 0.3
    if diverged and shape.end > shape.start * 0.8:
        i = int(np.argmin(c.smooth))
        step = int(c.step[i])
        confidence = confidence_of(ramp(shape.rise, 0.5, 1.5))
        message = (
            f"The training loss ({c.name}) diverged: it fell to {num(shape.best)} by step {step}, then climbed "
            f"back to {num(shape.end)}. Lower the learning rate or add gradient clipping."
        )
        evidence["rise"] = round(shape.rise, 4)
        return Hit("lr_too_high", confidence, step, [c.name], evidence, message)
    peak_at = int(np.argmax(c.raw))
    peak = float(c.raw[peak_at])
    if peak > 10 * max(abs(shape.start), abs(shape.end)) and shape.improvement < 0.25:
        step = int(c.step[peak_at])
        evidence["peak"] = float(f"{peak:.4g}")
        message = (
            f"The training loss ({c.name}) blew up to {num(peak)} at step {step}, then got stuck near "
            f"{num(shape.end)} and did not learn after that: the learning rate is probably too high (units may "
            "have died in the blow-up)."
        )
        return Hit(
            "lr_too_high",
            confidence_of(ramp(peak / max(abs(shape.end), 1e-12), 10, 100)),
            step,
            [c.name],
            evidence,
            message,
        )
    half = len(c) // 2
    swing = float(np.percentile(c.raw[half:], 90) - np.percentile(c.raw[half:], 10)) / max(
        abs(float(np.median(c.raw[half:]))), 1e-12
    )
    evidence["swing"] = round(swing, 4)
    # Minibatch noise can be large too (label noise, small batches); a loss that still trends down is learning.
    if shape.noise > 0.25 and swing > 0.5 and shape.improvement < 0.45 and shape.trend > -0.5:
        confidence = confidence_of(ramp(shape.noise, 0.2, 0.5), ramp(0.6 - shape.improvement, 0, 0.6))
        message = (
            f"The training loss ({c.name}) oscillates wildly (it swings {pct(swing)} of its level) and improved "
            f"only {pct(max(shape.improvement, 0))}: the learning rate is probably too high."
        )
        return Hit("lr_too_high", confidence, int(c.step[0]), [c.name], evidence, message)
    return None


def lr_too_low(run: RunCurves) -> Hit | None:
    """The loss falls steadily but slowly: the training loss, else the validation loss (a noisy training loss can
    hide what validation shows)."""
    if run.train is None or run.train_shape is None:
        return None
    found = _slow(run.train, run.train_shape)
    if found is None and run.val is not None and run.val_shape is not None:
        found = _slow(run.val, run.val_shape)
    return found


def _slow(c: Curve, shape: Shape) -> Hit | None:
    # Falling all the way (rank correlation), still as fast at the end as at the start, by more than noise.
    noise_floor = 2 * (shape.tolerance - 0.02)
    if not (max(0.01, noise_floor) < shape.improvement < 0.5 and shape.late_improvement > 0.3 * shape.improvement):
        return None
    if shape.trend > -0.9 or shape.slope_ratio < 0.25 or shape.noise > 0.2:
        return None
    confidence = confidence_of(ramp(shape.slope_ratio, 0.25, 0.7), ramp(-shape.trend, 0.9, 0.98))
    evidence: dict[str, float | int | str] = {
        "start": round(shape.start, 6),
        "end": round(shape.end, 6),
        "improvement": round(shape.improvement, 4),
        "slope_ratio": round(shape.slope_ratio, 4),
    }
    message = (
        f"The loss ({c.name}) falls steadily but slowly: only {pct(shape.improvement)} over the whole run "
        f"({num(shape.start)} -> {num(shape.end)}), still at the pace it started with. The learning rate is "
        "probably too low (try 3-10x higher)."
    )
    return Hit("lr_too_low", confidence, int(c.step[0]), [c.name], evidence, message)


def plateau(run: RunCurves) -> Hit | None:
    """The loss fell, then stopped improving early and stayed flat for most of the run."""
    c, shape = run.train, run.train_shape
    if c is None or shape is None:
        return None
    if shape.improvement < 0.25 or shape.stop_fraction > 0.4 or shape.noise > 0.25:
        return None
    if shape.tail_log_drop > shape.tolerance + 0.01 or shape.late_improvement > shape.tolerance or shape.rise > 0.3:
        return None
    if shape.end < 0.02 * shape.level:  # it reached (near) zero: converged, not stuck
        return None
    i = round(shape.stop_fraction * (len(c) - 1))
    step = int(c.step[i])
    confidence = confidence_of(
        ramp(0.4 - shape.stop_fraction, 0, 0.3), ramp(shape.tolerance - shape.late_improvement, 0, 0.03)
    )
    evidence: dict[str, float | int | str] = {
        "plateau_value": round(shape.end, 6),
        "start": round(shape.start, 6),
        "stopped_at_fraction": round(shape.stop_fraction, 3),
        "improvement_after": round(shape.tail_log_drop, 4),
    }
    message = (
        f"The loss ({c.name}) stopped improving at step {step} ({pct(shape.stop_fraction)} into the run) and has "
        f"stayed near {num(shape.end)} since. Try a learning-rate schedule (decay on plateau), a larger model, or "
        "stop the run earlier."
    )
    return Hit("plateau", confidence, step, [c.name], evidence, message)


def underfitting(run: RunCurves) -> Hit | None:
    """The training (and validation) loss high and flat from the start; the accuracy low where logged."""
    train, shape = run.train, run.train_shape
    if train is None or shape is None:
        return None
    val = (run.val, run.val_shape) if run.val is not None and run.val_shape is not None else None
    accuracy = _final_accuracy(run)
    if shape.improvement > 0.25 or shape.late_improvement > shape.tolerance + 0.01 or shape.noise > 0.2:
        return None
    if shape.trend < -0.9 and shape.slope_ratio > 0.25 and shape.improvement > 0.03:
        return None  # a steady slow fall is lr_too_low
    tags = [train.name]
    evidence: dict[str, float | int | str] = {
        "train_start": round(shape.start, 6),
        "train_end": round(shape.end, 6),
        "improvement": round(shape.improvement, 4),
    }
    ramps = [ramp(0.25 - shape.improvement, 0, 0.2)]
    if val is not None:
        vc, vshape = val
        if vshape.improvement > 0.25 or vshape.late_improvement > vshape.tolerance + 0.01:
            return None
        gap = (vshape.end - shape.end) / max(abs(vshape.end), 1e-12)
        if gap > 0.3:
            return None  # validation far above training is not underfitting
        tags.append(vc.name)
        evidence["val_end"] = round(vshape.end, 6)
    if accuracy is not None:
        name, value = accuracy
        evidence["accuracy"] = round(value, 4)
        if value > 0.75:
            return None
        tags.append(name)
        ramps.append(ramp(0.75 - value, 0, 0.4))
    else:
        ramps.append(0.0)
    acc_words = f", accuracy only {pct(accuracy[1])}" if accuracy else ""
    message = (
        f"Underfitting: the loss ({train.name}{' and ' + val[0].name if val else ''}) stayed high and flat "
        f"({num(shape.start)} -> {num(shape.end)}){acc_words}. The model is not learning enough: use a larger "
        "model, train longer, or check the inputs and the learning rate."
    )
    return Hit("underfitting", confidence_of(*ramps), int(train.step[0]), tags, evidence, message)


def nan_only(run: RunCurves) -> Hit | None:
    """A training loss too short for a shape that turned NaN/Inf: that says enough."""
    c = run.train
    if c is None or c.first_nonfinite is None:
        return None
    step = c.first_nonfinite or 0
    message = f"The training loss ({c.name}) became NaN/Inf at step {step}: the learning rate is probably too high."
    return Hit("lr_too_high", 0.9, step, [c.name], {"first_nonfinite_step": step}, message)


def _final_accuracy(run: RunCurves) -> tuple[str, float] | None:
    """The last accuracy (validation first), when it looks like a fraction (0..1) or a percentage (0..100)."""
    roles, max_points, min_points = run.roles, run.config.max_points, run.config.min_points
    for names in (roles.val_acc, roles.other_acc, roles.train_acc):
        name = primary(names)
        if name is None:
            continue
        c = clean_curve(name, run.scalars[name], max_points)
        if len(c) < min(3, min_points):
            continue
        value = tail(c.raw, 0.1)
        if c.raw.min() >= 0 and c.raw.max() <= 1:
            return name, value
        if c.raw.min() >= 0 and c.raw.max() <= 100 and c.raw.max() > 1:
            return name, value / 100
    return None
