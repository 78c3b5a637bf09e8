"""What every rule gets: a :class:`RunCurves`, one run's series recognised and cleaned once. A rule is a
:data:`Rule`, a function of it that returns a :class:`~ridgeline.analysis.diagnosis.findings.Hit` or None.

A new rule goes into the module of its family (:mod:`.loss_rules`, :mod:`.gradient_rules`, :mod:`.weight_rules`)
and is called by :mod:`.engine` at its place in the order of precedence; what a rule needs that is not here yet
(another curve, a statistic several rules share) becomes a field or a cached property of :class:`RunCurves`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cached_property

import numpy as np

from ridgeline.analysis.diagnosis.config import DiagnosisConfig
from ridgeline.analysis.diagnosis.curves import Curve, Shape, clean_curve, dead_from, shape_of
from ridgeline.analysis.diagnosis.findings import Hit
from ridgeline.analysis.diagnosis.inputs import HistogramSeries, Series
from ridgeline.analysis.diagnosis.roles import Roles, pairing_key, primary, recognise


class RunCurves:
    """One run as the rules see it.

    ``train``: the main training loss (the shortest name), or the validation loss when there is no training
    one; ``val``: its validation twin (paired by name, else the main validation loss). Each is None when missing,
    or when shorter than ``config.min_points`` without a NaN/Inf. ``grads``: the gradient magnitudes (norms
    logged as scalars, RMS of gradient histograms) with ``config.min_points`` or a NaN/Inf."""

    def __init__(
        self, scalars: Mapping[str, Series], histograms: Mapping[str, HistogramSeries], config: DiagnosisConfig
    ) -> None:
        self.scalars = scalars
        self.histograms = histograms
        self.config = config
        patterns = config.compiled()
        self.roles: Roles = recognise(scalars, histograms, patterns)
        train_name = primary(self.roles.train_loss) or primary(self.roles.other_loss)
        self.train = self._loss_curve(train_name)
        self.val: Curve | None = None
        if train_name is not None and self.roles.val_loss:
            key = pairing_key(train_name, patterns.train)
            self.val = self._loss_curve(self.roles.val_loss.get(key) or primary(self.roles.val_loss))
        elif self.train is None and self.roles.val_loss:  # only a validation loss: judge its shape on its own
            self.train = self._loss_curve(primary(self.roles.val_loss))
        grads = gradient_curves(scalars, histograms, self.roles, config.max_points)
        self.grads = [g for g in grads if len(g) >= config.min_points or g.first_nonfinite is not None]

    def _loss_curve(self, name: str | None) -> Curve | None:
        if name is None:
            return None
        c = clean_curve(name, self.scalars[name], self.config.max_points)
        return c if len(c) >= self.config.min_points or c.first_nonfinite is not None else None

    @cached_property
    def train_shape(self) -> Shape | None:
        """The shape of ``train`` when it has ``config.min_points`` (the loss rules judge no shorter curve)."""
        return self._shape(self.train)

    @cached_property
    def val_shape(self) -> Shape | None:
        """The shape of ``val`` when it has ``config.min_points``."""
        return self._shape(self.val)

    @cached_property
    def dead_gradients(self) -> dict[str, int]:
        """Gradient series (by name) that are dead, and the index into its curve from which they are: a norm at
        exactly zero, or a gradient histogram that never changes (see :func:`~.curves.dead_from`)."""
        out: dict[str, int] = {}
        for g in self.grads:
            if g.name in self.histograms:
                h = self.histograms[g.name]
                rows = h.vectors()
                rows = rows[np.isfinite(rows).all(axis=1)]
                found = dead_from(rows, self.config.min_points, zero=False) if len(rows) == len(g) else None
            else:
                found = dead_from(g.raw, self.config.min_points, zero=True)
            if found is not None:
                out[g.name] = found
        return out

    def _shape(self, c: Curve | None) -> Shape | None:
        return shape_of(c) if c is not None and len(c) >= self.config.min_points else None


Rule = Callable[[RunCurves], Hit | None]


def gradient_curves(
    scalars: Mapping[str, Series], histograms: Mapping[str, HistogramSeries], roles: Roles, max_points: int
) -> list[Curve]:
    """Gradient magnitudes over steps: the norms logged as scalars, and the RMS of gradient histograms."""
    curves = [clean_curve(name, scalars[name], max_points) for name in roles.grad_scalars]
    for name in roles.grad_hists:
        h = histograms[name]
        curves.append(clean_curve(name, Series(h.step, h.rms), max_points))
    return curves
