"""A retention policy, and what it decides for each candidate of a log directory.

The rules select candidates (a run with its nested runs, see :mod:`ridgeline.retention.candidates`) by their
last event, newest first:

* ``older_than``: a candidate whose last event is older than this goes;
* ``keep_last``: the ``keep_last`` latest stay, the older ones go;
* ``max_size``: the oldest go until the others take at most this many bytes (counting what deleting them would
  free), the ones kept for the reasons below included.

A candidate goes when any rule selects it, unless it is kept whatever the rules say: one of its runs matches
``keep`` (an RE2 pattern, searched in run names as ``--run`` is), or it was written to within ``recent`` seconds
(the last-hour rule: an event or any of its files newer than that means it may still be training). The policy
applies to each log directory on its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from ridgeline.retention.candidates import Candidate, Scan
from ridgeline.retention.units import format_duration, format_size
from ridgeline.store.selection import compile_pattern

__all__ = ["RECENT", "Decision", "Plan", "Policy", "PolicyError", "decide", "plan"]

RECENT = 3600.0  # seconds: anything written to this recently stays, whatever the policy


class PolicyError(ValueError):
    """A policy that selects nothing or holds an impossible value; the message names the option."""


@dataclass(frozen=True)
class Policy:
    older_than: float | None = None  # seconds
    keep_last: int | None = None
    max_size: int | None = None  # bytes
    keep: str | None = None  # an RE2 pattern
    all_files: bool = False  # delete every file of a run, not only event and projector files
    recent: float = RECENT

    def __post_init__(self) -> None:
        if self.older_than is None and self.keep_last is None and self.max_size is None:
            raise PolicyError("say which runs go: --older-than, --keep-last or --max-size (or several)")
        for option, value in (("--older-than", self.older_than), ("--keep-last", self.keep_last)):
            if value is not None and value < 0:
                raise PolicyError(f"{option} must not be negative, got {value}")
        if self.max_size is not None and self.max_size < 0:
            raise PolicyError(f"--max-size must not be negative, got {self.max_size}")
        if self.keep:
            compile_pattern(self.keep)  # PatternError (a ValueError) names what RE2 refused

    def describe(self) -> str:
        """The policy in words: ``runs older than 30 days, beyond the 20 latest; keeping runs matching '^best'``."""
        rules = []
        if self.older_than is not None:
            rules.append(f"older than {format_duration(self.older_than)}")
        if self.keep_last is not None:
            rules.append(f"beyond the {self.keep_last} latest")
        if self.max_size is not None:
            rules.append(f"beyond {format_size(self.max_size)} in all")
        text = "runs " + ", ".join(rules)
        if self.keep:
            text += f"; keeping runs matching {self.keep!r}"
        return text + ("; every file of a run" if self.all_files else "")


@dataclass(frozen=True)
class Decision:
    """What the policy says of one candidate."""

    candidate: Candidate
    reasons: tuple[str, ...] = ()  # why the rules select it (none: they do not)
    kept: str | None = None  # why it stays although they do

    @property
    def goes(self) -> bool:
        return bool(self.reasons) and self.kept is None


@dataclass(frozen=True)
class Plan:
    """A policy's decisions over the log directories scanned, at time ``now``."""

    policy: Policy
    now: float
    parts: tuple[tuple[Scan, tuple[Decision, ...]], ...]  # per log directory: its decisions, newest first

    @property
    def decisions(self) -> list[Decision]:
        return [decision for _, decisions in self.parts for decision in decisions]

    @property
    def going(self) -> list[Decision]:
        return [decision for decision in self.decisions if decision.goes]

    @property
    def freed(self) -> int:
        return sum(decision.candidate.size for decision in self.going)

    @property
    def problems(self) -> list[str]:
        return [problem for scan, _ in self.parts for problem in scan.problems]


def plan(scans: list[Scan], policy: Policy, now: float) -> Plan:
    return Plan(policy, now, tuple((scan, tuple(decide(scan.candidates, policy, now))) for scan in scans))


def decide(candidates: list[Candidate], policy: Policy, now: float) -> list[Decision]:
    """The policy's decision for each candidate of one log directory, newest first."""
    keep = compile_pattern(policy.keep) if policy.keep else None
    newest_first = sorted(candidates, key=lambda c: (-c.last_seen, c.name))
    decisions = []
    for index, candidate in enumerate(newest_first):
        reasons = []
        age = now - candidate.last_seen
        if policy.older_than is not None and age > policy.older_than:
            reasons.append(f"older than {format_duration(policy.older_than)}")
        if policy.keep_last is not None and index >= policy.keep_last:
            reasons.append(f"not among the {policy.keep_last} latest")
        kept = None
        if keep is not None and any(keep.search(run) for run in candidate.runs):
            kept = "matches --keep"
        elif now - candidate.last_active < policy.recent:
            since = now - candidate.last_active
            kept = "written to just now" if since < 60 else f"written to {format_duration(since)} ago"
        decisions.append(Decision(candidate, tuple(reasons), kept))
    if policy.max_size is not None:
        decisions = _over_size(decisions, policy.max_size)
    return decisions


def _over_size(decisions: list[Decision], limit: int) -> list[Decision]:
    """Select the oldest of what would stay until the rest takes at most ``limit`` bytes: once the newer runs
    reach the limit, every older one goes, even one small enough to fit in what is left (it is older than a run
    that went; kept runs still count and still stay)."""
    total = 0
    full = False
    decided = []
    for decision in decisions:
        if not decision.goes:
            size = decision.candidate.size
            full = full or total + size > limit
            if full:
                reason = f"over --max-size {format_size(limit)}: the newer runs take {format_size(total)}"
                decision = Decision(decision.candidate, (*decision.reasons, reason), decision.kept)
            if not full or decision.kept is not None:
                total += size
        decided.append(decision)
    return decided
