"""Loss rules: what the shape of the training (and validation) loss says — overfitting, underfitting, plateau,
learning rate too low (too high: :mod:`.instability`)."""

from __future__ import annotations

import math

import numpy as np

from ridgeline.analysis.diagnosis.curves import (
    Curve,
    Shape,
    bucket_medians,
    clean_curve,
    head,
    mad,
    rank_correlation,
    tail,
)
from ridgeline.analysis.diagnosis.findings import Hit, Spot, confidence_of, num, pct, ramp, sig
from ridgeline.analysis.diagnosis.roles import primary
from ridgeline.analysis.diagnosis.run import RunCurves

PLATEAU_MIN_FALL = 0.25  # of its start, before the plateau
PLATEAU_MIN_LENGTH = 0.35  # of the run
PLATEAU_LATEST_START = 0.45  # of the run
PLATEAU_FLAT = 0.02  # the most the loss may change over a plateau, as a share of its total fall (log)
PLATEAU_MAX_NOISE = 0.1  # twice the standard error of that change must be under this share of the fall,
PLATEAU_RESOLUTION = 0.06  # and under this (log units: 6%), else flat and slowly improving look alike
PLATEAU_MAX_CHANGE = 0.05  # the most the change itself may be (log units: 5%)
PLATEAU_SCAN_POINTS = 256  # longer curves are scanned on this many bucket medians
PLATEAU_RECOVERY = 0.15  # a plateau that ends before the run does: the loss falls this much after it,
PLATEAU_RECOVERY_WITHIN = 0.15  # within this share of the run (a slow fall hidden in noise is no recovery)
UNDERFIT_MAX_IMPROVEMENT = 0.25  # of its start, over the whole run
UNDERFIT_ACCURACY = 0.75  # a final accuracy above this is no underfitting


def overfitting(run: RunCurves) -> Hit | None:
    """The validation loss rises from its best while the training loss keeps falling, or the gap between them
    keeps widening while validation stays flat."""
    train, val = run.train, run.val
    if train is None or val is None or len(val) < min(5, run.config.min_points):
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
        "val_best": sig(val_best),
        "val_end": sig(val_end),
        "val_rise": sig(rise),
        "train_at_val_best": sig(train_at),
        "train_end": sig(train_end),
        "train_drop_after": sig(train_drop),
    }
    end_step = int(val.step[-1])
    spots = (
        Spot(val.name, int(best_step), f"validation at its best ({num(val_best)})"),
        Spot(val.name, end_step, f"validation at the end ({num(val_end)})"),
        Spot(train.name, end_step, f"training at the end ({num(train_end)})"),
    )
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
        return Hit("overfitting", confidence, int(best_step), [train.name, val.name], evidence, message, spots)
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
    evidence.update({"gap_early": sig(gap_early), "gap_end": sig(gap_late)})
    material = gap_late > 0.05 * abs(head(train.raw, 0.02))  # not a gap of 0.003 between two losses near 0
    if widened > 0.3 and material and val_late < 0.02 and train_late > 0.3 and gap_late > 3 * max(gap_early, 1e-12):
        start = int(common[int(np.argmax(gaps > (gap_early + gap_late) / 2))])
        confidence = confidence_of(ramp(widened, 0.3, 1.0), ramp(train_late, 0.3, 1.0), floor=0.5)
        message = (
            f"Overfitting from about step {start}: the gap between validation loss ({val.name}) and training loss "
            f"({train.name}) widened from {num(gap_early)} to {num(gap_late)} while validation stopped improving. "
            "Stop earlier, add regularisation or more data."
        )
        gap_spots = (Spot(val.name, start, "the gap starts to widen"), *spots[1:])
        return Hit("overfitting", confidence, start, [train.name, val.name], evidence, message, gap_spots)
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
        "start": sig(shape.start),
        "end": sig(shape.end),
        "improvement": sig(shape.improvement),
        "slope_ratio": sig(shape.slope_ratio),
    }
    spots = (
        Spot(c.name, int(c.step[0]), f"start ({num(shape.start)})"),
        Spot(c.name, int(c.step[-1]), f"end ({num(shape.end)}), still falling"),
    )
    message = (
        f"The loss ({c.name}) falls steadily but slowly: only {pct(shape.improvement)} over the whole run "
        f"({num(shape.start)} -> {num(shape.end)}), still at the pace it started with. The learning rate is "
        "probably too low (try 3-10x higher)."
    )
    return Hit("lr_too_low", confidence, int(c.step[0]), [c.name], evidence, message, spots)


def plateau(run: RunCurves) -> Hit | None:
    """The loss fell, then stayed flat for a long stretch: to the end, or until it recovered (after a
    learning-rate decay, say). Flat means: the change over the stretch is within a small share of the loss's
    total fall plus what its noise allows, and the noise is small enough to tell (else nothing is said)."""
    c, shape = run.train, run.train_shape
    if c is None or shape is None or shape.improvement < PLATEAU_MIN_FALL:
        return None
    if shape.end < 0.02 * shape.level:  # it reached (near) zero: converged, not stuck
        return None
    stretch = _flat_stretch(c)
    if stretch is None:
        return None
    i, j, change, se, fall = stretch
    start, end = int(c.step[i]), int(c.step[j])
    value = float(np.median(c.raw[i : j + 1]))
    n = len(c)
    fraction = (j - i) / max(n - 1, 1)
    recovered = j < n - 1
    evidence: dict[str, float | int | str] = {
        "plateau_value": sig(value),
        "start": sig(shape.start),
        "plateau_from_step": start,
        "plateau_to_step": end,
        "plateau_fraction": sig(fraction, 3),
        "change_on_plateau": sig(change),
    }
    spots = [Spot(c.name, start, f"the loss stops improving ({num(value)})")]
    if recovered:
        after = tail(c.raw, 0.05)
        evidence["end"] = sig(after)
        spots.append(Spot(c.name, end, f"it improves again, to {num(after)}"))
        words = f"stayed near {num(value)} until step {end} ({pct(fraction)} of the run), then improved again"
        advice = "Decay the learning rate earlier (on plateau), or warm-restart it."
    else:
        words = f"has stayed near {num(value)} since ({pct(fraction)} of the run)"
        advice = "Try a learning-rate schedule (decay on plateau), a larger model, or stop the run earlier."
    message = f"The loss ({c.name}) stopped improving at step {start} and {words}. {advice}"
    confidence = confidence_of(ramp(fraction, 0.35, 0.7), ramp(PLATEAU_MAX_NOISE - 2 * se / fall, 0, 0.08))
    return Hit("plateau", confidence, start, [c.name], evidence, message, tuple(spots))


def _flat_stretch(c: Curve) -> tuple[int, int, float, float, float] | None:
    """The longest stretch ``[i, j]`` (at least :data:`PLATEAU_MIN_LENGTH` of the run, starting in its first
    :data:`PLATEAU_LATEST_START`, after the loss fell :data:`PLATEAU_MIN_FALL`) over which the loss is flat, and
    that lasts to the end or is followed by a quick recovery (:data:`PLATEAU_RECOVERY`); with the change over it (log
    units), that change's standard error, and the curve's whole fall. Judged on log values (losses > 0), the
    change from the medians of the stretch's first and last thirds."""
    raw = c.raw
    if not (raw > 0).all():
        return None
    y = np.log(raw)
    ys = np.log(np.maximum(c.smooth, 1e-300))
    # How much the smoothed curve wanders by noise alone (a running median over about 8% of the points).
    window = min(101, max(3, round(0.08 * len(y))))
    wander = 3 * 1.25 * mad(np.diff(y)) / math.sqrt(2) / math.sqrt(window)
    if len(y) > PLATEAU_SCAN_POINTS:  # the scan needs no finer resolution; bucket medians keep its statistics
        y, ys = bucket_medians(y, PLATEAU_SCAN_POINTS), bucket_medians(ys, PLATEAU_SCAN_POINTS)
    n = len(y)
    started = head(y, 0.02)
    fall = started - float(ys.min())
    if fall <= 0 or n < 9:
        return None
    sigma = mad(np.diff(y)) / math.sqrt(2)  # the batch noise of one point, in log units
    # Medians of every window of a few lengths, so that each candidate stretch costs two look-ups.
    lengths = sorted({int(k) for k in np.geomspace(3, max(3, n // 3), 24)})
    medians = {k: np.median(np.lib.stride_tricks.sliding_window_view(y, k), axis=1) for k in lengths}
    starts = [
        i
        for i in sorted({round(f * (n - 1)) for f in np.arange(0.02, PLATEAU_LATEST_START + 1e-9, 0.02)})
        if started - ys[i] >= math.log(1 / (1 - PLATEAU_MIN_FALL))  # fallen enough before it
    ]
    soon = max(1, round(PLATEAU_RECOVERY_WITHIN * (n - 1)))
    ends = [n - 1] + [
        j
        for j in range(n - 2, 0, -max(1, n // 20))
        if ys[j] - ys[min(j + soon, n - 1)] >= math.log(1 / (1 - PLATEAU_RECOVERY))  # a quick recovery after it
    ]
    best: tuple[int, int, float, float, float] | None = None
    for j in ends:
        for i in starts:
            if j - i < PLATEAU_MIN_LENGTH * (n - 1) or (best is not None and j - i <= best[1] - best[0]):
                continue
            k = max(x for x in lengths if x <= max(3, (j - i + 1) // 3))
            change = float(medians[k][i] - medians[k][j - k + 1])
            se = 1.25 * sigma * math.sqrt(2 / k)
            if 2 * se > min(PLATEAU_MAX_NOISE * fall, PLATEAU_RESOLUTION):
                continue  # too noisy to tell flat from slowly improving
            allowed = min(PLATEAU_FLAT * fall + 2 * se, PLATEAU_MAX_CHANGE)
            if abs(change) > allowed or float(np.ptp(ys[i : j + 1])) > 2 * allowed + 2 * wander:
                continue
            best = (i, j, change, se, fall)
            break
    if best is None:
        return None
    i, j, change, se, fall = best
    size = -(-len(raw) // n) if len(raw) > n else 1  # back from bucket medians to the curve's points
    last = len(raw) - 1
    return min(i * size, last), (last if j == n - 1 else min(j * size, last)), change, se, fall


def underfitting(run: RunCurves) -> Hit | None:
    """The training (and validation) loss high and flat from the start; the accuracy low where logged."""
    train, shape = run.train, run.train_shape
    if train is None or shape is None:
        return None
    val = (run.val, run.val_shape) if run.val is not None and run.val_shape is not None else None
    accuracy = _final_accuracy(run)
    # No veto for a slow, steady fall: lr_too_low comes first, and a loss it does not claim is underfitting
    # if it lost this little.
    if shape.improvement > UNDERFIT_MAX_IMPROVEMENT:
        return None
    tags = [train.name]
    evidence: dict[str, float | int | str] = {
        "train_start": sig(shape.start),
        "train_end": sig(shape.end),
        "improvement": sig(shape.improvement),
    }
    spots = [
        Spot(train.name, int(train.step[0]), f"start ({num(shape.start)})"),
        Spot(train.name, int(train.step[-1]), f"end ({num(shape.end)})"),
    ]
    ramps = [ramp(UNDERFIT_MAX_IMPROVEMENT - shape.improvement, 0, 0.2)]
    if val is not None:
        vc, vshape = val
        if vshape.improvement > UNDERFIT_MAX_IMPROVEMENT:
            return None
        gap = (vshape.end - shape.end) / max(abs(vshape.end), 1e-12)
        if gap > 0.3:
            return None  # validation far above training is not underfitting
        tags.append(vc.name)
        evidence["val_end"] = sig(vshape.end)
        spots.append(Spot(vc.name, int(vc.step[-1]), f"validation at the end ({num(vshape.end)})"))
    if accuracy is not None:
        name, value, step = accuracy
        evidence["accuracy"] = sig(value)
        if value > UNDERFIT_ACCURACY:
            return None
        tags.append(name)
        ramps.append(ramp(UNDERFIT_ACCURACY - value, 0, 0.4))
        spots.append(Spot(name, step, f"accuracy at the end ({pct(value)})"))
    else:
        ramps.append(0.0)
    acc_words = f", accuracy only {pct(accuracy[1])}" if accuracy else ""
    message = (
        f"Underfitting: the loss ({train.name}{' and ' + val[0].name if val else ''}) stayed high "
        f"({num(shape.start)} -> {num(shape.end)}, {pct(max(shape.improvement, 0))} better){acc_words}. The model "
        "is not learning enough: use a larger model, train longer, or check the inputs and the learning rate."
    )
    return Hit("underfitting", confidence_of(*ramps), int(train.step[0]), tags, evidence, message, tuple(spots))


def _final_accuracy(run: RunCurves) -> tuple[str, float, int] | None:
    """The last accuracy (validation first) and its last step, when it looks like a fraction (0..1) or a
    percentage (0..100)."""
    roles, max_points = run.roles, run.config.max_points
    for names in (roles.val_acc, roles.other_acc, roles.train_acc):
        name = primary(names)
        if name is None:
            continue
        c = clean_curve(name, run.scalars[name], max_points)
        if len(c) < 3:  # a final value needs no shape (validation accuracy is often logged per epoch)
            continue
        value = tail(c.raw, 0.1)
        if c.raw.min() >= 0 and c.raw.max() <= 1:
            return name, value, int(c.step[-1])
        if c.raw.min() >= 0 and c.raw.max() <= 100 and c.raw.max() > 1:
            return name, value / 100, int(c.step[-1])
    return None
