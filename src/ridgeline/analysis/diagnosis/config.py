"""How the diagnosis recognises tags (naming conventions as regular expressions) and the few thresholds a user may
move; built from a settings table by :meth:`DiagnosisConfig.from_mapping` (reading the file is the caller's)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from ridgeline.analysis.alert_config import ACCURACY, LEARNING_RATE, LOSS, TagPattern, compile_tag_pattern

_SEP = r"[/_.\-\s:]"


@dataclass(frozen=True)
class DiagnosisConfig:
    """How tags are recognised (RE2 regular expressions, searched anywhere in the name, case-insensitive unless
    the pattern says otherwise; no lookaround, so matching is linear) and the few thresholds a user may move.

    ``train``/``validation`` are matched against ``<run part>/<tag>`` names, so a run named ``exp/val`` or a tag
    ``loss/val`` both count; replacing the match (the word and the separators around it) by one separator gives
    the key that pairs a training series with its validation twin (``train/loss`` with ``val/loss``,
    ``loss_train`` with ``loss_valid``). ``gradient`` marks gradient norms and gradient histograms; every other
    histogram that is not an ``activation`` is taken as a layer's weights (as written by
    ``add_histogram(name, param)``). ``loss``, ``accuracy`` and ``learning_rate`` are the alerts' own patterns
    (:mod:`ridgeline.analysis.alert_config`): one naming rule for both.
    """

    train: str = rf"(?i)(?:^|{_SEP})(?:train|training|trn)(?:$|{_SEP})"
    validation: str = rf"(?i)(?:^|{_SEP})(?:val|valid|validation|eval|evaluation|test|dev|holdout)(?:$|{_SEP})"
    loss: str = LOSS
    accuracy: str = ACCURACY
    learning_rate: str = LEARNING_RATE
    gradient: str = r"(?i)(?:^|[/_.\-])grads?(?:$|[/_.\-])|grad_?norm|gradient"
    activation: str = r"(?i)activation|(?:^|[/_.])(?:act|acts|relu|out|output|logits|preact)(?:$|[/_.])"
    max_points: int = 2000  # longer series are reduced to this many bucket medians first
    min_points: int = 8  # fewer points than this: too short to judge
    min_confidence: float = 0.5  # findings below are dropped

    def __post_init__(self) -> None:
        checks = (
            ("min_points", _integer(self.min_points) and self.min_points >= 3, "an integer >= 3"),
            ("max_points", _integer(self.max_points) and self.max_points >= 16, "an integer >= 16"),
            (
                "min_confidence",
                _number(self.min_confidence) and 0 <= self.min_confidence <= 1,
                "a number from 0 to 1",
            ),
        )
        for name, ok, expected in checks:
            if not ok:
                raise ValueError(f"diagnosis config: {name!r} must be {expected}, got {getattr(self, name)!r}")

    @classmethod
    def from_mapping(cls, data: Mapping[str, object]) -> DiagnosisConfig:
        """A config from settings by field name (a parsed TOML or JSON file); the others keep their defaults.
        ValueError names an unknown setting, a value of the wrong type or a pattern that does not compile."""
        known = {f.name: f.type for f in fields(cls)}
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise ValueError(f"diagnosis config: unknown setting(s) {unknown}; known: {sorted(known)}")
        for name, value in data.items():
            kind = known[name]
            if kind == "str":
                if not isinstance(value, str):
                    raise ValueError(f"diagnosis config: {name!r} must be a regular expression (a string)")
                try:
                    compile_tag_pattern(value)
                except ValueError as error:
                    shown = value if len(value) <= 80 else value[:80] + "..."
                    raise ValueError(f"diagnosis config: {name!r}: {shown!r} does not compile: {error}") from None
            elif (
                isinstance(value, bool) or not isinstance(value, int | float) or (kind == "int" and value != int(value))
            ):
                raise ValueError(f"diagnosis config: {name!r} must be a number ({kind}), got {value!r}")
        settings: dict[str, Any] = {name: int(v) if known[name] == "int" else v for name, v in data.items()}  # type: ignore[call-overload]
        return cls(**settings)

    def compiled(self) -> Patterns:
        return Patterns(
            train=compile_tag_pattern(self.train),
            validation=compile_tag_pattern(self.validation),
            loss=compile_tag_pattern(self.loss),
            accuracy=compile_tag_pattern(self.accuracy),
            learning_rate=compile_tag_pattern(self.learning_rate),
            gradient=compile_tag_pattern(self.gradient),
            activation=compile_tag_pattern(self.activation),
        )


@dataclass(frozen=True)
class Patterns:
    """A config's patterns, compiled by RE2."""

    train: TagPattern
    validation: TagPattern
    loss: TagPattern
    accuracy: TagPattern
    learning_rate: TagPattern
    gradient: TagPattern
    activation: TagPattern


def _integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
