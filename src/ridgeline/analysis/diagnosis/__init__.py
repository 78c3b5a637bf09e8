"""Training diagnosis: read a run's curves the way an experienced practitioner would, and say what is wrong.

Pure functions over numpy arrays (no I/O): :func:`diagnose` takes a run's scalar series and histogram summaries
keyed by name and returns :class:`Finding` objects, each with a kind, a confidence in 0..1, the step where the
problem starts, the tags that show it, the numbers that triggered it, the chart spots (:class:`Spot`: tag and
step) they were read at and a message in plain words; :func:`diagnose_run` also says what was checked. The adapter
that reads a log directory is :mod:`ridgeline.services.diagnosis`.

Kinds (:data:`KINDS`):

- ``overfitting``: the training loss keeps falling while the validation loss rises from its best (or the gap
  between them keeps widening while validation stays flat).
- ``underfitting``: training (and validation) loss high and flat from the start; accuracy low where logged.
- ``plateau``: the loss fell, then stayed flat for a long stretch (to the end, or until a quick recovery).
- ``lr_too_high``: the training loss turns NaN/Inf, diverges, or swings without settling (swings that last
  several points, or noise that grows with the logged learning rate).
- ``lr_too_low``: the loss falls steadily but so slowly that it is nowhere near converging.
- ``vanishing_gradients``: gradient norms decay smoothly by orders of magnitude while the loss stalls, or lie
  orders of magnitude apart across layers.
- ``exploding_gradients``: gradient norms grow by orders of magnitude (NaN/Inf often follows).
- ``dead_units``: a layer's weights stop changing, its gradients drop to exactly zero, or its activations are all
  zero or constant (also from the first step), while training goes on.

Everything is judged on robust statistics of smoothed curves (rolling medians, median absolute deviations, values
relative to the curve's own level) so that batch noise alone raises nothing. Tags are recognised by the naming
conventions in :class:`DiagnosisConfig`, whose regular expressions can all be overridden.

The modules: :mod:`.inputs` (what goes in), :mod:`.config` (naming conventions, thresholds), :mod:`.roles`
(which series is which), :mod:`.curves` (curve statistics), :mod:`.run` (what every rule gets), one module per
family of rules (:mod:`.loss_rules`, :mod:`.instability` for a too-high learning rate, :mod:`.gradient_rules`,
:mod:`.weight_rules`), :mod:`.findings` (what comes out), :mod:`.checks` (what was looked at, in words) and
:mod:`.engine` (the order of precedence).
"""

from ridgeline.analysis.diagnosis.config import DiagnosisConfig
from ridgeline.analysis.diagnosis.curves import rolling_median
from ridgeline.analysis.diagnosis.engine import Diagnosis, diagnose, diagnose_run
from ridgeline.analysis.diagnosis.findings import KINDS, Finding, Kind, Spot
from ridgeline.analysis.diagnosis.inputs import HistogramSeries, Series, histogram_series, summarise_histogram

__all__ = [
    "KINDS",
    "Diagnosis",
    "DiagnosisConfig",
    "Finding",
    "HistogramSeries",
    "Kind",
    "Series",
    "Spot",
    "diagnose",
    "diagnose_run",
    "histogram_series",
    "rolling_median",
    "summarise_histogram",
]
