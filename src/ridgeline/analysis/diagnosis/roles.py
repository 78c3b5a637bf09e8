"""Recognising tags: which series are training and validation losses, accuracies, learning rates, gradient
norms, and which histograms are gradients, activations or weights (by the patterns of
:class:`~.config.DiagnosisConfig`)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ridgeline.analysis.alert_config import TagPattern
from ridgeline.analysis.diagnosis.config import Patterns
from ridgeline.analysis.diagnosis.inputs import HistogramSeries, Series


@dataclass
class Roles:
    """The names of a run's series by the part they play (losses keyed by their train/validation pairing key)."""

    train_loss: dict[str, str] = field(default_factory=dict)  # pairing key -> name
    val_loss: dict[str, str] = field(default_factory=dict)
    other_loss: list[str] = field(default_factory=list)
    train_acc: list[str] = field(default_factory=list)
    val_acc: list[str] = field(default_factory=list)
    other_acc: list[str] = field(default_factory=list)
    learning_rates: list[str] = field(default_factory=list)
    grad_scalars: list[str] = field(default_factory=list)
    grad_hists: list[str] = field(default_factory=list)
    weight_hists: list[str] = field(default_factory=list)
    activation_hists: list[str] = field(default_factory=list)


def pairing_key(name: str, pattern: TagPattern) -> str:
    """``name`` without its train/validation word and separators, lowercased: the pairing key."""
    return re.sub(r"[/_.\-\s:]+", "/", pattern.sub("/", name)).strip("/").lower()


def recognise(scalars: Mapping[str, Series], histograms: Mapping[str, HistogramSeries], p: Patterns) -> Roles:
    roles = Roles()
    for name in scalars:
        if p.learning_rate.search(name):
            roles.learning_rates.append(name)
        elif p.gradient.search(name):
            roles.grad_scalars.append(name)
        elif p.loss.search(name):
            if p.validation.search(name):
                roles.val_loss.setdefault(pairing_key(name, p.validation), name)
            elif p.train.search(name):
                roles.train_loss.setdefault(pairing_key(name, p.train), name)
            else:
                roles.other_loss.append(name)
        elif p.accuracy.search(name):
            (
                roles.val_acc
                if p.validation.search(name)
                else roles.train_acc
                if p.train.search(name)
                else roles.other_acc
            ).append(name)
    for name in histograms:
        if p.gradient.search(name):
            roles.grad_hists.append(name)
        elif p.activation.search(name):
            roles.activation_hists.append(name)
        else:
            roles.weight_hists.append(name)
    return roles


_LOSS_WORD = re.compile(r"(?i)loss")


def primary(keys: Mapping[str, str] | Sequence[str]) -> str | None:
    """The main series among several: one named a loss before an error or a perplexity, then the shortest
    name (``loss`` over ``loss/kl``)."""
    names = list(keys.values()) if isinstance(keys, Mapping) else list(keys)
    return min(names, key=lambda n: (not _LOSS_WORD.search(n), len(n), n)) if names else None
