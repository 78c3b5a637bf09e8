"""The learning rate too high: the training loss turns NaN/Inf, diverges, blows up and stays stuck, or swings
and jumps around a level it never settles below. The swings are told from batch noise by their structure, not
their size: batch noise is independent from one point to the next, so a light running median removes most of
it, while the swings of too large a step last several points and survive it. A logged learning rate (``lr``,
``learning_rate``, Lightning's ``lr-Adam``, Hugging Face's ``train/learning_rate``) says when the instability
started relative to its schedule (a warm-up that reached too high a peak)."""

from __future__ import annotations

import numpy as np

from ridgeline.analysis.diagnosis.curves import AGGREGATE, Curve, Shape, clean_curve, mad, rolling_median
from ridgeline.analysis.diagnosis.findings import Hit, Spot, confidence_of, num, pct, ramp, sig
from ridgeline.analysis.diagnosis.roles import primary
from ridgeline.analysis.diagnosis.run import RunCurves

# Structured swings: their robust spread after a 3-point running median, relative to the loss level, and to the
# point-to-point jitter of batch noise (independent noise leaves about half of its jitter there; swings more).
MIN_SWING = 0.04
MIN_SWING_RATIO = 1.0
UNSETTLED_IMPROVEMENT = 0.6  # a loss that lost more than this much of its start is learning, swings or not
MIN_POINTS_FOR_SWINGS = 16
KILLED_WITHIN = 0.15  # of the run: most layers alive at first and dead this soon were killed by the first steps
# A learning rate that varies (warm-up, decay): the loss, no better at the end of the high-learning-rate part
# than at its start, is this much noisier there than where the learning rate is low.
HIGH_LR = 0.7  # of the peak
LOW_LR = 0.5
MIN_NOISE_GROWTH = 1.5


def lr_too_high(run: RunCurves) -> Hit | None:
    """The first of: NaN/Inf, divergence, a blow-up that left the loss stuck, unstable swings, wild noise."""
    c, shape = run.train, run.train_shape
    if c is None or shape is None:
        return None
    for rule in (_nonfinite, _diverged, _blew_up, _killed_early, _unstable, _noisy_at_high_lr, _wild):
        found = rule(run, c, shape)
        if found is not None:
            return found
    return None


def _evidence(shape: Shape) -> dict[str, float | int | str]:
    return {"start": sig(shape.start), "best": sig(shape.best), "end": sig(shape.end), "noise": sig(shape.noise)}


def _nonfinite(run: RunCurves, c: Curve, shape: Shape) -> Hit | None:
    if c.first_nonfinite is None:
        return None
    evidence = _evidence(shape) | {"first_nonfinite_step": c.first_nonfinite}
    message = (
        f"The training loss ({c.name}) became NaN/Inf at step {c.first_nonfinite}: the learning rate is probably "
        "too high (lower it, add warm-up or gradient clipping)."
    )
    spots = (Spot(c.name, c.first_nonfinite, "first NaN/Inf"),)
    return Hit("lr_too_high", 0.9, c.first_nonfinite, [c.name], evidence, message, spots)


def _diverged(run: RunCurves, c: Curve, shape: Shape) -> Hit | None:
    diverged = shape.rise > 0.5 and (shape.end - shape.best) / max(abs(shape.best), 1e-12) > 0.3
    if not (diverged and shape.end > shape.start * 0.8):
        return None
    i = int(np.argmin(c.smooth))
    step = int(c.step[i])
    evidence = _evidence(shape) | {"rise": sig(shape.rise)}
    message = (
        f"The training loss ({c.name}) diverged: it fell to {num(shape.best)} by step {step}, then climbed back to "
        f"{num(shape.end)}. Lower the learning rate or add gradient clipping."
    )
    spots = (
        Spot(c.name, step, f"lowest ({num(shape.best)})"),
        Spot(c.name, int(c.step[-1]), f"end ({num(shape.end)})"),
    )
    return Hit("lr_too_high", confidence_of(ramp(shape.rise, 0.5, 1.5)), step, [c.name], evidence, message, spots)


def _blew_up(run: RunCurves, c: Curve, shape: Shape) -> Hit | None:
    peak_at = int(np.argmax(c.raw))
    peak = float(c.raw[peak_at])
    if not (peak > 10 * max(abs(shape.start), abs(shape.end)) and shape.improvement < 0.25):
        return None
    step = int(c.step[peak_at])
    evidence = _evidence(shape) | {"peak": sig(peak)}
    message = (
        f"The training loss ({c.name}) blew up to {num(peak)} at step {step}, then got stuck near {num(shape.end)} "
        "and did not learn after that: the learning rate is probably too high (units may have died in the "
        "blow-up)."
    )
    confidence = confidence_of(ramp(peak / max(abs(shape.end), 1e-12), 10, 100))
    return Hit("lr_too_high", confidence, step, [c.name], evidence, message, (Spot(c.name, step, "blow-up"),))


def _killed_early(run: RunCurves, c: Curve, shape: Shape) -> Hit | None:
    """Most layers' gradients were alive at the first step and exactly zero within the first steps of the run,
    and the loss learned nothing after: the first updates were so large they killed the units (dying ReLUs)."""
    layers = [g for g in run.grads if not AGGREGATE.search(g.name)]
    killed = [
        (g, i)
        for g in layers
        if (i := run.dead_gradients.get(g.name)) is not None and i > 0 and g.step[i] <= _at(c, KILLED_WITHIN)
    ]
    if len(killed) < 2 or 2 * len(killed) < len(layers) or shape.improvement > 0.25:
        return None
    last = max(int(g.step[i]) for g, i in killed)
    evidence = _evidence(shape) | {"layers_killed": len(killed), "of_layers": len(layers), "all_dead_by_step": last}
    tags = [c.name] + [g.name for g, _ in killed]
    lr = _learning_rate(run)
    lr_words = ""
    if lr is not None:
        tags.append(lr.name)
        lr_words = f" at a learning rate of {num(float(np.median(lr.raw)))} ({lr.name})"
        evidence["learning_rate"] = sig(float(np.median(lr.raw)))
    message = (
        f"The first updates killed the network{lr_words}: the gradients of {len(killed)} of {len(layers)} layers "
        f"were alive at the start and exactly zero by step {last}, and the loss ({c.name}) learned nothing after "
        f"({num(shape.start)} -> {num(shape.end)}). The learning rate is too high (dying ReLUs): lower it, or warm "
        "up."
    )
    spots = (
        *(Spot(g.name, int(g.step[i]), "gradients drop to zero") for g, i in killed[:4]),
        Spot(c.name, int(c.step[-1]), f"no better ({num(shape.end)})"),
    )
    confidence = confidence_of(ramp(len(killed) / len(layers), 0.5, 1.0), ramp(0.25 - shape.improvement, 0, 0.2))
    return Hit("lr_too_high", confidence, last, tags, evidence, message, spots)


def _at(c: Curve, fraction: float) -> float:
    """The step ``fraction`` of the way through ``c``."""
    return float(c.step[0] + fraction * (c.step[-1] - c.step[0]))


def _unstable(run: RunCurves, c: Curve, shape: Shape) -> Hit | None:
    """Swings that last several points, large against the level and against the batch noise, in a loss that
    does not settle (it lost little of its start and is no longer falling)."""
    n = len(c)
    if n < max(MIN_POINTS_FOR_SWINGS, run.config.min_points):
        return None
    if shape.improvement > UNSETTLED_IMPROVEMENT or shape.late_improvement > max(0.1, shape.tolerance):
        return None
    part = slice(n // 3, n)
    level = max(float(np.median(np.abs(c.raw[part]))), 1e-12)
    light = rolling_median(c.raw, 1.0, 3)  # a 3-point running median
    deviation = (light - c.smooth)[part] / level
    swing = mad(deviation)
    jitter = mad(np.diff(c.raw[part])) / np.sqrt(2) / level
    ratio = swing / max(jitter, 1e-12)
    if swing < MIN_SWING or ratio < MIN_SWING_RATIO:
        return None
    onset_at = int(np.argmax(np.abs(deviation) > 2 * swing)) + n // 3
    onset = int(c.step[onset_at])
    evidence = _evidence(shape) | {
        "swing": sig(swing),
        "swing_to_noise": sig(ratio),
        "improvement": sig(shape.improvement),
    }
    tags, spots = [c.name], [Spot(c.name, onset, f"swings of {pct(swing)} of the level begin")]
    lr_words = ""
    lr = _learning_rate(run)
    if lr is not None:
        peak_at = int(np.argmax(lr.raw >= 0.9 * lr.raw.max()))
        peak_step = int(lr.step[peak_at])
        evidence |= {"learning_rate_peak": sig(float(lr.raw.max())), "learning_rate_peak_step": peak_step}
        tags.append(lr.name)
        spots.append(Spot(lr.name, peak_step, f"learning rate reaches {num(float(lr.raw.max()))}"))
        warmed = peak_at > 0.02 * len(lr)
        lr_words = (
            f" The learning rate ({lr.name}) warmed up to {num(float(lr.raw.max()))} by step {peak_step}: too high a "
            "peak."
            if warmed
            else f" The learning rate ({lr.name}) is {num(float(np.median(lr.raw)))}."
        )
    confidence = confidence_of(ramp(ratio, MIN_SWING_RATIO, 2.5), ramp(swing, MIN_SWING, 0.15))
    message = (
        f"The training loss ({c.name}) is unstable: it swings by about {pct(swing)} of its level over several "
        f"points at a time ({sig(ratio, 2)}x what batch noise leaves) and never settles (it improved only "
        f"{pct(max(shape.improvement, 0))}).{lr_words} Lower the learning rate (or its peak), or clip gradients."
    )
    return Hit("lr_too_high", confidence, onset, tags, evidence, message, tuple(spots))


def _noisy_at_high_lr(run: RunCurves, c: Curve, shape: Shape) -> Hit | None:
    """Where the logged learning rate is high the loss is much noisier than where it is low, and does not
    improve: the noise grows with the learning rate, the step is too large for the loss to settle."""
    lr = _learning_rate(run)
    if lr is None or float(lr.raw.min()) > LOW_LR * float(lr.raw.max()):
        return None  # a constant learning rate says nothing here
    rate = np.interp(c.step, lr.step, lr.raw) / float(lr.raw.max())
    high, low = rate >= HIGH_LR, rate <= LOW_LR
    minimum = max(5, run.config.min_points // 2)
    if high.sum() < max(minimum, run.config.min_points) or low.sum() < minimum:
        return None
    noise_high, noise_low = _jitter(c.raw, high), _jitter(c.raw, low)
    growth = noise_high / max(noise_low, 1e-12)
    part = c.raw[high]
    k = max(3, len(part) // 5)
    first, last = float(np.median(part[:k])), float(np.median(part[-k:]))
    improvement = (first - last) / max(abs(first), 1e-12)
    if growth < MIN_NOISE_GROWTH or improvement > 0.05 or noise_high < 0.02:
        return None
    steps = c.step[high]
    start, end = int(steps[0]), int(steps[-1])
    peak = float(lr.raw.max())
    evidence = _evidence(shape) | {
        "learning_rate_peak": sig(peak),
        "noise_at_high_lr": sig(noise_high),
        "noise_at_low_lr": sig(noise_low),
        "improvement_at_high_lr": sig(improvement),
    }
    message = (
        f"While the learning rate ({lr.name}) was near its peak of {num(peak)} (steps {start}-{end}) the training "
        f"loss ({c.name}) did not improve ({num(first)} -> {num(last)}) and was {growth:.1f}x as noisy as where "
        "the learning rate was lower: the learning rate is too high there. Lower its peak (or warm up longer)."
    )
    spots = (
        Spot(c.name, start, f"the learning rate reaches {pct(HIGH_LR)} of its peak"),
        Spot(lr.name, start, f"learning rate {num(float(np.interp(start, lr.step, lr.raw)))}"),
        Spot(c.name, end, f"no better ({num(last)})"),
    )
    confidence = confidence_of(ramp(growth, MIN_NOISE_GROWTH, 3), ramp(-improvement, -0.05, 0.1))
    return Hit("lr_too_high", confidence, start, [c.name, lr.name], evidence, message, spots)


def _jitter(values: np.ndarray, where: np.ndarray) -> float:
    """The point-to-point noise of ``values`` at the points ``where`` is true (pairs of neighbours both in it),
    relative to their level."""
    both = where[1:] & where[:-1]
    if both.sum() < 3:
        return 0.0
    level = max(float(np.median(np.abs(values[where]))), 1e-12)
    return mad(np.diff(values)[both]) / np.sqrt(2) / level


def _wild(run: RunCurves, c: Curve, shape: Shape) -> Hit | None:
    """Noise so large against the level that nothing is learned (a loss still trending down is learning)."""
    half = len(c) // 2
    swing = float(np.percentile(c.raw[half:], 90) - np.percentile(c.raw[half:], 10)) / max(
        abs(float(np.median(c.raw[half:]))), 1e-12
    )
    if not (shape.noise > 0.25 and swing > 0.5 and shape.improvement < 0.45 and shape.trend > -0.5):
        return None
    evidence = _evidence(shape) | {"swing": sig(swing)}
    confidence = confidence_of(ramp(shape.noise, 0.2, 0.5), ramp(0.6 - shape.improvement, 0, 0.6))
    message = (
        f"The training loss ({c.name}) oscillates wildly (it swings {pct(swing)} of its level) and improved only "
        f"{pct(max(shape.improvement, 0))}: the learning rate is probably too high."
    )
    spots = (Spot(c.name, int(c.step[half]), "oscillating"),)
    return Hit("lr_too_high", confidence, int(c.step[0]), [c.name], evidence, message, spots)


def _learning_rate(run: RunCurves) -> Curve | None:
    """The logged learning rate (the main one of several), when it has a few positive points."""
    name = primary(run.roles.learning_rates)
    if name is None:
        return None
    lr = clean_curve(name, run.scalars[name], run.config.max_points)
    return lr if len(lr) >= 3 and float(lr.raw.max()) > 0 else None


def nan_only(run: RunCurves) -> Hit | None:
    """A training loss too short for a shape that turned NaN/Inf: that says enough."""
    c = run.train
    if c is None or c.first_nonfinite is None:
        return None
    step = c.first_nonfinite
    message = f"The training loss ({c.name}) became NaN/Inf at step {step}: the learning rate is probably too high."
    spots = (Spot(c.name, step, "first NaN/Inf"),)
    return Hit("lr_too_high", 0.9, step, [c.name], {"first_nonfinite_step": step}, message, spots)
