"""What the diagnosis says: the kinds of problem, a :class:`Finding` (the public result), the :class:`Hit` every
rule returns (a finding before it is given its run), and how rules score and word what they found."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, get_args

import numpy as np

Kind = Literal[
    "overfitting",
    "underfitting",
    "plateau",
    "lr_too_high",
    "lr_too_low",
    "vanishing_gradients",
    "exploding_gradients",
    "dead_units",
]
KINDS: tuple[Kind, ...] = get_args(Kind)


@dataclass(frozen=True, slots=True)
class Spot:
    """A place on a chart a finding rests on: the series ``tag`` (a scalar, or a histogram when ``chart`` says
    so) at ``step``, and what is to be seen there in a few words. ``run`` is the run that logged the tag (None:
    the finding's run)."""

    tag: str
    step: int
    what: str
    chart: Literal["scalars", "histograms"] = "scalars"
    run: str | None = None

    def to_dict(self, run: str) -> dict[str, object]:
        return {"run": self.run or run, "tag": self.tag, "step": self.step, "what": self.what, "chart": self.chart}


@dataclass(frozen=True)
class Finding:
    """One diagnosed problem of a run (the JSON shape of ``GET /api/diagnosis`` via :meth:`to_dict`).

    ``runs`` lists every run whose series took part (a ``exp/train`` + ``exp/val`` pair); ``run`` is the one it
    is reported under. ``spots`` are the places on the charts the evidence comes from (each with its tag, step
    and what is seen there), the first one where the problem shows best."""

    run: str
    kind: Kind
    confidence: float
    step: int | None
    tags: list[str]
    evidence: dict[str, float | int | str]
    message: str
    runs: tuple[str, ...] = field(default=())
    spots: tuple[Spot, ...] = field(default=())

    def to_dict(self) -> dict[str, object]:
        return {
            "run": self.run,
            "kind": self.kind,
            "confidence": round(self.confidence, 3),
            "step": self.step,
            "tags": self.tags,
            "evidence": self.evidence,
            "message": self.message,
            "spots": [spot.to_dict(self.run) for spot in self.spots],
        }


@dataclass(frozen=True, slots=True)
class Hit:
    """What a rule found: a :class:`Finding` before the engine gives it its run (and drops it below
    ``min_confidence``)."""

    kind: Kind
    confidence: float
    step: int | None
    tags: list[str]
    evidence: dict[str, float | int | str]
    message: str
    spots: tuple[Spot, ...] = ()


def ramp(x: float, low: float, high: float) -> float:
    """0 at ``low``, 1 at ``high`` (clipped): how far past its threshold a number is."""
    if high == low:
        return 1.0
    return float(min(1.0, max(0.0, (x - low) / (high - low))))


def confidence_of(*ramps: float, floor: float = 0.5) -> float:
    """A finding's confidence: ``floor`` plus the rest of the way to 1 in proportion to the mean of ``ramps``."""
    return round(floor + (1 - floor) * float(np.mean(ramps)), 3)


def pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def num(x: float) -> str:
    return f"{x:.3g}"


def sig(x: float, digits: int = 4) -> float:
    """``x`` rounded to ``digits`` significant digits (evidence of 1e-10 stays 1e-10, not 0)."""
    return float(f"{x:.{digits}g}") if np.isfinite(x) else float(x)
