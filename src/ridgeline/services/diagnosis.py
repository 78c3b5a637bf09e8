"""Diagnosis over a log directory: the thin adapter between :func:`ridgeline.open` and the pure
:func:`ridgeline.analysis.diagnosis.diagnose`.

Runs are diagnosed in groups: a run whose last path part names a split (``exp/train``, ``exp/validation``,
``exp/loss_val`` as torch's ``add_scalars`` writes them) is read together with its siblings, its series named
``<part>/<tag>``, so a Keras-style ``epoch_loss`` in ``train`` and ``validation`` pairs up. A group's findings are
reported under the parent run when it exists, else under its training run (else its first run); ``Finding.runs``
lists every run of the group, and tags are given back as the runs' own tag names (each spot names the run that
logged its tag). :class:`GroupDiagnosis` also keeps what was checked, for the runs with nothing to report.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, replace

import numpy as np

from ridgeline.analysis.diagnosis import (
    DiagnosisConfig,
    Finding,
    HistogramSeries,
    Series,
    diagnose_run,
    histogram_series,
    summarise_histogram,
)
from ridgeline.store.logdir import LogDir
from ridgeline.store.payloads import DecodeError, Histogram

MAX_HISTOGRAM_STEPS = 100  # histogram steps decoded per tag (evenly spread, first and last kept)


@dataclass(frozen=True)
class Group:
    """Runs diagnosed together: ``members`` maps each run to the prefix its series get ("" for a lone run)."""

    report: str
    members: dict[str, str]


def groups(runs: Iterable[str], config: DiagnosisConfig | None = None) -> list[Group]:
    """The runs grouped as described in the module docstring, in the order of their first run."""
    patterns = (config or DiagnosisConfig()).compiled()
    listed = list(runs)
    existing = set(listed)
    split: dict[str, dict[str, str]] = {}
    order: list[tuple[str, str]] = []  # (kind, key) in first-seen order
    for run in listed:
        parent, _, leaf = run.rpartition("/")
        if leaf and (patterns.train.search(leaf) or patterns.validation.search(leaf)):
            if parent not in split:
                split[parent] = {}
                order.append(("split", parent))
            split[parent][run] = leaf
        else:
            order.append(("run", run))
    out: list[Group] = []
    for kind, key in order:
        if kind == "run":
            if key in split:  # the parent of split runs: reported with them
                continue
            out.append(Group(key, {key: ""}))
            continue
        members = dict(split[key])
        if key in existing:
            members[key] = ""
            report = key
        else:
            trains = [r for r, leaf in members.items() if patterns.train.search(leaf)]
            report = (trains or list(members))[0]
        out.append(Group(report, members))
    return out


def _sample(n: int, most: int) -> np.ndarray:
    if n <= most:
        return np.arange(n)
    return np.unique(np.round(np.linspace(0, n - 1, most)).astype(np.int64))


def read_histogram(logdir: LogDir, run: str, tag: str) -> HistogramSeries:
    """A histogram tag summarised per step (at most :data:`MAX_HISTOGRAM_STEPS`; undecodable steps skipped).
    A step whose histogram holds non-finite values keeps its NaN summary (the diagnosis reads it as a NaN); one
    whose recorded min and max are both 0 holds only zeros and is summarised as exactly 0."""
    found = sorted(logdir.histograms(run, tag), key=lambda e: e.step)
    steps: list[int] = []
    summaries: list[tuple[float, ...]] = []
    for i in _sample(len(found), MAX_HISTOGRAM_STEPS).tolist():
        entry = found[i]
        try:
            value = entry.value
        except DecodeError:
            continue
        if not isinstance(value, Histogram) or not len(value.lower) == len(value.upper) == len(value.count):
            continue
        summary = summarise_histogram(value.lower, value.upper, value.count)
        if value.max is not None and value.min is not None:
            if not np.isfinite([value.min, value.max]).all():
                summary = (np.nan,) * 5
            elif value.min == value.max == 0 and np.sum(value.count) > 0:
                summary = (0.0,) * 5  # all exactly zero (a dead layer), whatever bucket the zeros fell in
        steps.append(entry.step)
        summaries.append(summary)
    return histogram_series(steps, summaries)


@dataclass(frozen=True)
class GroupDiagnosis:
    """One group's findings and what was checked (sentences, see :mod:`ridgeline.analysis.diagnosis.checks`)."""

    report: str
    runs: tuple[str, ...]
    findings: list[Finding]
    checked: list[str]

    def checked_dict(self) -> dict[str, object]:
        return {"run": self.report, "runs": list(self.runs), "checked": self.checked}


def diagnose_group(logdir: LogDir, group: Group, config: DiagnosisConfig | None = None) -> list[Finding]:
    """The findings of one group of runs (tags given back as each run's own tag names)."""
    return explain_group(logdir, group, config).findings


def explain_group(logdir: LogDir, group: Group, config: DiagnosisConfig | None = None) -> GroupDiagnosis:
    """:func:`diagnose_group`, and what was checked."""
    scalars: dict[str, Series] = {}
    histograms: dict[str, HistogramSeries] = {}
    for run, prefix in group.members.items():
        try:
            tags = logdir.tags(run)
        except KeyError:  # vanished meanwhile
            continue
        for tag in tags.get("scalars", []):
            try:
                s = logdir.scalars(run, tag)
            except KeyError:
                continue
            scalars[f"{prefix}/{tag}" if prefix else tag] = Series(s.step, s.value)
        for tag in tags.get("histograms", []):
            try:
                histograms[f"{prefix}/{tag}" if prefix else tag] = read_histogram(logdir, run, tag)
            except KeyError:
                continue
    runs = tuple(group.members)
    found = diagnose_run(group.report, scalars, histograms, config, runs=runs)
    by_prefix = sorted(((p, r) for r, p in group.members.items() if p), key=lambda pr: len(pr[0]), reverse=True)

    def own(name: str) -> tuple[str | None, str]:
        """The run that logged ``name`` (None: the reported one) and its own tag name."""
        for prefix, run in by_prefix:
            if name.startswith(prefix + "/"):
                return run, name[len(prefix) + 1 :]
        return None, name

    def translate(text: str) -> str:
        for prefix, _ in by_prefix:
            text = text.replace(f" {prefix}/", " ").replace(f"({prefix}/", "(")
        return text

    findings = []
    for f in found.findings:
        spots = tuple(replace(spot, run=own(spot.tag)[0], tag=own(spot.tag)[1]) for spot in f.spots)
        findings.append(replace(f, tags=list(dict.fromkeys(own(t)[1] for t in f.tags)), spots=spots))
    return GroupDiagnosis(group.report, runs, findings, [translate(line) for line in found.checked])


def diagnose_logdir(
    logdir: LogDir, runs: Iterable[str] | None = None, config: DiagnosisConfig | None = None
) -> list[Finding]:
    """Findings of every group that holds one of ``runs`` (default: all runs), group by group."""
    wanted = set(logdir.runs() if runs is None else runs)
    out: list[Finding] = []
    for group in groups(logdir.runs(), config):
        if wanted & set(group.members):
            out += diagnose_group(logdir, group, config)
    return out


class DiagnosisCache:
    """Findings per group, computed when first asked for and kept while the group's runs are unchanged: after an
    ingest pass (the store's generation moved), only groups whose runs got data (their last wall time or their
    number of tags moved, or a run was replaced) are diagnosed again, so a page that polls while one job of many
    logs pays for that job's runs only."""

    def __init__(self, logdir: LogDir, config: DiagnosisConfig | None = None) -> None:
        self._logdir = logdir
        self._config = config
        self._lock = threading.Lock()
        self._generation = -1
        self._groups: list[Group] = []
        self._found: dict[str, tuple[tuple[object, ...], GroupDiagnosis]] = {}

    def _signature(self, group: Group) -> tuple[object, ...]:
        out: list[object] = []
        for run in sorted(group.members):
            try:
                info = self._logdir.run_info(run)
            except KeyError:
                out.append(None)
                continue
            out.append((info.epoch, info.last_wall_time, sum(len(tags) for tags in info.tags.values())))
        return tuple(out)

    def findings(self, run: str | None = None) -> list[Finding]:
        """Every finding, or those of the group that holds ``run`` (KeyError when there is no such run)."""
        return [f for group in self.groups(run) for f in group.findings]

    def groups(self, run: str | None = None) -> list[GroupDiagnosis]:
        """Every group's diagnosis, or that of the group that holds ``run`` (KeyError when there is no such run)."""
        with self._lock:
            generation = self._logdir.generation
            if generation != self._generation:
                self._groups = groups(self._logdir.runs(), self._config)
                self._generation = generation
                current = {"\0".join(sorted(g.members)) for g in self._groups}
                self._found = {k: v for k, v in self._found.items() if k in current}  # runs gone
            chosen = [g for g in self._groups if run is None or run in g.members]
            if run is not None and not chosen:
                raise KeyError(run)
            out: list[GroupDiagnosis] = []
            for group in chosen:
                key = "\0".join(sorted(group.members))
                signature = self._signature(group)
                cached = self._found.get(key)
                if cached is None or cached[0] != signature:
                    cached = self._found[key] = (signature, explain_group(self._logdir, group, self._config))
                out.append(cached[1])
            return out


__all__ = [
    "DiagnosisCache",
    "Group",
    "GroupDiagnosis",
    "diagnose_group",
    "diagnose_logdir",
    "explain_group",
    "groups",
    "read_histogram",
]
