"""Alert settings: how each series is watched, per tag pattern (see docs/insights.md, Configuration).

:class:`DetectorParams` holds one series' settings (checked when made); an :class:`AlertConfig` maps tag patterns
to them, the first matching rule winning. Built-in rules, kept after the user's: learning-rate tags are exempt
from outlier and spike alerts, since schedules change them on purpose; losses and gradients alert on rises,
accuracies on falls. :meth:`AlertConfig.from_mapping` builds a config from the table a settings file holds
(reading the file is the caller's: ``ridgeline.settings_files.read_table``). Pure; no I/O.

Tag patterns, the built-in ones and those of config files, are compiled by RE2 (:func:`compile_tag_pattern`),
as every pattern a user gives is: matching takes linear time whatever the pattern, so a config file copied from
elsewhere cannot freeze the server's alert monitor.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal, Protocol

import re2

MAX_PATTERN = 2_000  # characters, as for the patterns of routes and commands (ridgeline.store.selection)


class TagPattern(Protocol):
    """A compiled RE2 pattern (``re2._Regexp``): what the alerts and the diagnosis match tags with."""

    pattern: str

    def search(self, text: str) -> object | None: ...
    def sub(self, replacement: str, text: str) -> str: ...


def compile_tag_pattern(pattern: str) -> TagPattern:
    """``pattern`` compiled by RE2; ValueError saying why when it cannot be (over MAX_PATTERN characters, or a
    construct RE2 has not, such as lookaround or backreferences). Analysis imports nothing of ridgeline's other
    layers, so this mirrors :func:`ridgeline.store.selection.compile_pattern`."""
    if len(pattern) > MAX_PATTERN:
        raise ValueError(f"it is {len(pattern):,} characters long; at most {MAX_PATTERN:,} are accepted")
    options = re2.Options()
    options.log_errors = False
    try:
        compiled: TagPattern = re2.compile(pattern, options=options)
    except re2.error as error:
        raw = error.args[0] if error.args else b""
        detail = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
        raise ValueError(detail or "RE2 rejects it") from None
    return compiled


Direction = Literal["both", "up", "down"]  # which departures count: "up" for a loss, "down" for an accuracy
DIRECTIONS: tuple[Direction, ...] = ("both", "up", "down")


@dataclass(frozen=True, slots=True)
class DetectorParams:
    """How one series is watched; every field can be set per tag pattern (see :class:`AlertConfig`).

    ``stall_factor``: a series is stalled when the run went on for more than this many of its own logging
    intervals (in steps, and in wall time) since its last point."""

    window: int = 50
    consecutive: int = 3
    k: float = 3.0
    spike_window: int = 50
    spike_k: float = 10.0
    stall_factor: float = 10.0
    outlier: bool = True
    spike: bool = True
    stalled: bool = True
    direction: Direction = "both"

    def __post_init__(self) -> None:
        checks = (
            ("window", self.window >= 2, "an integer >= 2"),
            ("consecutive", self.consecutive >= 1, "an integer >= 1"),
            ("k", self.k > 0 and math.isfinite(self.k), "a positive number"),
            ("spike_window", self.spike_window >= 3, "an integer >= 3"),
            ("spike_k", self.spike_k > 0 and math.isfinite(self.spike_k), "a positive number"),
            ("stall_factor", self.stall_factor > 1 and math.isfinite(self.stall_factor), "a number > 1"),
            ("direction", self.direction in DIRECTIONS, "one of " + ", ".join(map(repr, DIRECTIONS))),
        )
        for name, ok, expected in checks:
            if not ok:
                raise ValueError(f"alert setting {name!r} must be {expected}, got {getattr(self, name)!r}")

    @property
    def history(self) -> int:
        """How many past finite values a detector keeps: its windows, and the block before them (see
        :func:`ridgeline.analysis.window_stats.window_mean_std`)."""
        return 2 * max(self.window, self.spike_window) + self.consecutive


# Learning rates follow schedules (step decay, warm-up, cosine): a drop is intended, not an anomaly.
LEARNING_RATE = r"(?i)(^|[/_.\-\s])(lr|learning[_\-\s]?rate)([/_.\-\s]|$)"
# Lower is better: only a rise is bad news (a step decay of the learning rate drops the loss to a new level).
LOSS = (
    r"(?i)loss|cross_?entropy|xent"
    r"|(^|[/_.\-\s])(nll|ce|mse|mae|rmse|perplexity|ppl|err|error)([/_.\-\s]|$)"
)
# Gradient norms: explosions are the alarm; a collapse is the diagnosis' vanishing_gradients.
GRADIENT = r"(?i)grad"
# Accuracies (fractions or percentages of right answers): the diagnosis reads them for underfitting.
ACCURACY = r"(?i)acc|(^|[/_.\-\s])top[-_]?\d+([/_.\-\s]|$)"
# Higher is better: only a fall is bad news.
SCORE = ACCURACY + r"|(^|[/_.\-\s])(f1|auc|iou|dice|bleu|rouge\w*|map|precision|recall)([/_.\-\s]|$)"
BUILTIN_RULES: tuple[tuple[str, Mapping[str, Any]], ...] = (
    (LEARNING_RATE, {"outlier": False, "spike": False}),
    (LOSS, {"direction": "up"}),
    (GRADIENT, {"direction": "up"}),
    (SCORE, {"direction": "down"}),
)


def builtin_rules(default: DetectorParams) -> tuple[tuple[TagPattern, DetectorParams], ...]:
    """:data:`BUILTIN_RULES` on top of ``default``."""
    return tuple((compile_tag_pattern(pattern), replace(default, **settings)) for pattern, settings in BUILTIN_RULES)


@dataclass(frozen=True)
class AlertConfig:
    """Detector settings per tag pattern: ``rules`` are ``(RE2 pattern, params)`` tried in order (searched
    anywhere in the tag), the first match wins; ``default`` applies when none matches."""

    rules: tuple[tuple[TagPattern, DetectorParams], ...] = field(
        default_factory=lambda: builtin_rules(DetectorParams())
    )
    default: DetectorParams = field(default_factory=DetectorParams)

    def params_for(self, tag: str) -> DetectorParams:
        for pattern, params in self.rules:
            if pattern.search(tag):
                return params
        return self.default

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> AlertConfig:
        """From ``{"default": {setting: value}, "rules": [{"tag": regex, setting: value, ...}]}`` (the shape of
        the TOML/JSON config file). A rule's unset settings come from ``default``; the built-in rules
        (:data:`BUILTIN_RULES`) are kept after the given rules unless ``"builtin_rules": false``."""
        if not isinstance(data, Mapping):
            raise ValueError("alert config must be a table/object with 'default' and/or 'rules'")
        unknown = set(data) - {"default", "rules", "builtin_rules"}
        if unknown:
            raise ValueError(f"alert config: unknown key(s) {sorted(unknown)}; expected 'default', 'rules'")
        default = _params(DetectorParams(), data.get("default", {}), "default")
        rules: list[tuple[TagPattern, DetectorParams]] = []
        entries = data.get("rules", [])
        if not isinstance(entries, list):
            raise ValueError("alert config: 'rules' must be a list of tables with a 'tag' regex")
        for number, entry in enumerate(entries, 1):
            if not isinstance(entry, Mapping) or not isinstance(entry.get("tag"), str):
                raise ValueError(f"alert config: rule {number} needs a 'tag' (a regular expression)")
            try:
                pattern = compile_tag_pattern(entry["tag"])
            except ValueError as error:
                tag = entry["tag"] if len(entry["tag"]) <= 80 else entry["tag"][:80] + "..."
                raise ValueError(f"alert config: rule {number}: invalid tag regex {tag!r}: {error}") from None
            settings = {key: value for key, value in entry.items() if key != "tag"}
            rules.append((pattern, _params(default, settings, f"rule {number}")))
        if data.get("builtin_rules", True):
            rules.extend(builtin_rules(default))
        return cls(rules=tuple(rules), default=default)


def _params(base: DetectorParams, settings: Mapping[str, Any], where: str) -> DetectorParams:
    if not isinstance(settings, Mapping):
        raise ValueError(f"alert config: {where} must be a table of settings")
    known = {item.name: item.type for item in fields(DetectorParams)}
    unknown = set(settings) - set(known)
    if unknown:
        raise ValueError(f"alert config: {where}: unknown setting(s) {sorted(unknown)}; known: {sorted(known)}")
    for name, value in settings.items():
        if known[name] == "Direction":
            if value not in DIRECTIONS:
                raise ValueError(f"alert config: {where}: {name!r} must be one of {list(DIRECTIONS)}, got {value!r}")
            continue
        wanted = bool if known[name] == "bool" else int if known[name] == "int" else float
        if isinstance(value, bool) != (wanted is bool) or not isinstance(value, (int, float)):
            raise ValueError(f"alert config: {where}: {name!r} must be a {wanted.__name__}, got {value!r}")
        if wanted is int and not float(value).is_integer():
            raise ValueError(f"alert config: {where}: {name!r} must be an integer, got {value!r}")
    converted: dict[str, Any] = {
        name: (int(value) if known[name] == "int" else value) for name, value in settings.items()
    }
    return replace(base, **converted)
