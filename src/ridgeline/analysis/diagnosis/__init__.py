"""Training diagnosis: read a run's curves the way an experienced practitioner would, and say what is wrong.

Pure functions over numpy arrays (no I/O): :func:`diagnose` takes a run's scalar series and histogram summaries
keyed by name and returns :class:`Finding` objects, each with a kind, a confidence in 0..1, the step where the
problem starts, the tags that show it, the numbers that triggered it and a message in plain words. The adapter
that reads a log directory is :mod:`ridgeline.services.diagnosis`.

Kinds (:data:`KINDS`):

- ``overfitting``: the training loss keeps falling while the validation loss rises from its best (or the gap
  between them keeps widening while validation stays flat).
- ``underfitting``: training (and validation) loss high and flat from the start; accuracy low where logged.
- ``plateau``: the loss fell, then stopped improving early and stayed flat for most of the run.
- ``lr_too_high``: the training loss oscillates with a large amplitude, diverges, or turns NaN/Inf.
- ``lr_too_low``: the loss falls steadily but so slowly that it is nowhere near converging.
- ``vanishing_gradients``: gradient norms collapse by orders of magnitude while the loss stalls.
- ``exploding_gradients``: gradient norms grow by orders of magnitude (NaN/Inf often follows).
- ``dead_units``: a layer's weights stop changing, or its gradients drop to exactly zero, while training goes on.

Everything is judged on robust statistics of smoothed curves (rolling medians, median absolute deviations, values
relative to the curve's own level) so that batch noise alone raises nothing. Tags are recognised by the naming
conventions in :class:`DiagnosisConfig`, whose regular expressions can all be overridden.

The modules: :mod:`.inputs` (what goes in), :mod:`.config` (naming conventions, thresholds), :mod:`.roles`
(which series is which), :mod:`.curves` (curve statistics), :mod:`.run` (what every rule gets), one module per
family of rules (:mod:`.loss_rules`, :mod:`.gradient_rules`, :mod:`.weight_rules`), :mod:`.findings` (what comes
out) and :mod:`.engine` (the order of precedence).
"""

from ridgeline.analysis.diagnosis.config import DiagnosisConfig
from ridgeline.analysis.diagnosis.curves import rolling_median
from ridgeline.analysis.diagnosis.engine import diagnose
from ridgeline.analysis.diagnosis.findings import KINDS, Finding, Kind
from ridgeline.analysis.diagnosis.inputs import HistogramSeries, Series, histogram_series, summarise_histogram

__all__ = [
    "KINDS",
    "DiagnosisConfig",
    "Finding",
    "HistogramSeries",
    "Kind",
    "Series",
    "diagnose",
    "histogram_series",
    "rolling_median",
    "summarise_histogram",
]
