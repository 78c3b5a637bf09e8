"""The hparams dashboard's table: one row per trial (a run with a session start), its hyperparameters as
written, and the final and best value of each metric.

What counts as a metric: the metrics the hparams plugin's experiment summaries declare (torch's
``add_hparams`` writes one per trial, TF2's ``hp.hparams_config`` one at the root), else the scalar tags every
trial shares (its own tags and those of its sub-runs that are not trials themselves, e.g. Keras'
``run-0/validation``). A metric declared with a group (TF2: "validation") is read from the trial's sub-run of
that name.

A torch trial attached to the run it was written from (:mod:`ridgeline.store.trials`) is listed under that
run's name, with ``trial`` naming the sub-run its record and hparam metrics were read from; every other row's
``trial`` is its own run.

Booleans: TF2 and ``ridgeline.SummaryWriter(hparams=)`` store them as bools; torch's ``add_hparams`` stores
them as the numbers 1.0/0.0 (type FLOAT64). A numeric hparam is shown as a bool when its declared type is
BOOL or its declared discrete domain is exactly {0, 1} (what torch writes for ``hparam_domain_discrete=
{"flag": [True, False]}``); without such a declaration 1.0/0.0 stay numbers, because an integer hparam looks
exactly the same.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from ridgeline.format.tags import HPARAMS_PREFIX
from ridgeline.store.logdir import LogDir
from ridgeline.store.payloads import DecodeError, HParamInfo, HParams, HParamValue, MetricInfo
from ridgeline.store.trials import TORCH_TRIAL_NAME, link_trials

Goal = Literal["min", "max"]
ColumnType = Literal["number", "string", "bool", "mixed", "none"]

# A metric whose tag says it is an error of some kind is best when smallest; any other when largest.
_LOWER_IS_BETTER = re.compile(
    r"loss|err|mse|mae|rmse|nll|perplexity|ppl|wer|cer|distance|latency|time|regret|cost|fid", re.IGNORECASE
)


def goal_of(tag: str) -> Goal:
    """Whether a metric is best when smallest ("min": losses, errors, times) or largest ("max": the rest)."""
    return "min" if _LOWER_IS_BETTER.search(tag) else "max"


@dataclass
class _Experiment:
    """Every experiment summary of the log directory merged: hparam infos by name, metric infos by (group, tag)."""

    hparams: dict[str, HParamInfo] = field(default_factory=dict)
    metrics: dict[tuple[str, str], MetricInfo] = field(default_factory=dict)
    names: list[str] = field(default_factory=list)

    def add(self, record: HParams) -> None:
        for info in record.hparam_infos:
            known = self.hparams.get(info.name)
            # torch writes an experiment per trial: one trial may declare a domain (or a bool) that another did not.
            if known is None or (_says_nothing(known) and not _says_nothing(info)):
                self.hparams[info.name] = info
        for metric in record.metric_infos:
            self.metrics.setdefault((metric.group, metric.tag), metric)
        if record.experiment_name and record.experiment_name not in self.names:
            self.names.append(record.experiment_name)


def build_table(logdir: LogDir) -> dict[str, Any]:
    """The payload of ``GET /api/hparams/table`` (see docs/hparams.md)."""
    runs = logdir.runs()
    experiment = _Experiment()
    trials: dict[str, HParams] = {}
    status: dict[str, HParams] = {}
    unreadable: list[dict[str, Any]] = []
    for run in runs:
        try:
            record = logdir.hparams(run)
            declared = logdir.hparams_experiment(run)
            ended = logdir.hparams_session_end(run)
        except KeyError:  # the run vanished meanwhile
            continue
        except DecodeError as error:  # ingest checks these records; a file rewritten since may still fail
            unreadable.append({"path": run, "offset": None, "reason": str(error)})
            continue
        if declared is not None:
            experiment.add(declared)
        if record is not None:
            trials[run] = record
            if ended is not None:
                status[run] = ended

    names = _hparam_names(trials, experiment)
    as_bool = {name for name in names if _declared_bool(experiment.hparams.get(name))}
    values = {
        run: {name: _value(record.hparams[name], name in as_bool) for name in record.hparams}
        for run, record in trials.items()
    }
    columns = [_hparam_column(name, experiment.hparams.get(name), values, name in as_bool) for name in names]

    if experiment.metrics:
        keys = list(experiment.metrics)
        source = "experiment"
    else:
        keys = _shared_metrics(logdir, runs, trials)
        source = "shared_tags"
    metrics = [_metric_column(group, tag, experiment.metrics.get((group, tag))) for group, tag in keys]
    metrics = _unique_ids(metrics)

    links = link_trials(logdir)
    rows = []
    for run, record in trials.items():
        ended = status.get(run)
        shown = links.parent_of.get(run, run)
        rows.append(
            {
                "run": shown,
                "trial": run,
                "hparams": values[run],
                "metrics": {
                    metric["id"]: _metric_value(
                        logdir, _metric_run(run, metric["group"]), metric["tag"], metric["goal"]
                    )
                    for metric in metrics
                },
                "status": ended.status if ended is not None else None,
                "start_time": record.start_time_secs,
                "end_time": ended.end_time_secs if ended is not None else None,
                "group_name": record.group_name,
                "related_runs": _related_runs(shown, runs),
            }
        )
    return {
        "hparams": columns,
        "metrics": metrics,
        "metrics_source": source,
        "experiments": experiment.names,
        "trials": rows,
        "problems": unreadable + _hparams_problems(logdir),
    }


def _hparams_problems(logdir: LogDir) -> list[dict[str, Any]]:
    """The hparams records ingest could not read (a corrupt experiment or session start): the page says so
    instead of silently missing a trial."""
    return [
        {"path": problem.path, "offset": problem.offset, "reason": problem.reason}
        for problem in logdir.problems()
        if f"'{HPARAMS_PREFIX}" in problem.reason
    ]


def _hparam_names(trials: dict[str, HParams], experiment: _Experiment) -> list[str]:
    """Declared names first (in declaration order), then any other name a trial has, sorted."""
    seen = list(experiment.hparams)
    extra = sorted({name for record in trials.values() for name in record.hparams} - set(seen))
    used = {name for record in trials.values() for name in record.hparams}
    return [name for name in seen if name in used] + extra


def _says_nothing(info: HParamInfo) -> bool:
    """An hparam info with neither a domain nor a type beyond torch's default for numbers."""
    return info.domain_discrete is None and info.domain_interval is None and info.type in ("unset", "float64")


def _declared_bool(info: HParamInfo | None) -> bool:
    if info is None:
        return False
    if info.type == "bool":
        return True
    domain = info.domain_discrete
    if info.type == "float64" and domain is not None and len(domain) == 2:
        return all(isinstance(item, bool | float | int) for item in domain) and set(domain) == {0.0, 1.0}
    return False


def _value(value: HParamValue, as_bool: bool) -> bool | float | str | None:
    """A value as the table shows it: torch's 1.0/0.0 as a bool where declared so, structs as JSON text."""
    if as_bool and isinstance(value, float | int) and not isinstance(value, bool) and value in (0.0, 1.0):
        return bool(value)
    if isinstance(value, list | dict):
        return json.dumps(value, sort_keys=True)
    if isinstance(value, float) and not math.isfinite(value):
        return _number(value)  # JSON has no such numbers: "NaN", "Infinity", "-Infinity"
    return value


def _type_of(value: Any) -> ColumnType:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "none"


def _hparam_column(
    name: str, info: HParamInfo | None, values: dict[str, dict[str, Any]], as_bool: bool
) -> dict[str, Any]:
    kinds = {_type_of(row[name]) for row in values.values() if name in row} - {"none"}
    kind: ColumnType = "none" if not kinds else kinds.pop() if len(kinds) == 1 else "mixed"
    domain: dict[str, Any] | None = None
    if info is not None and info.domain_discrete is not None:
        domain = {"values": [_value(item, as_bool) for item in info.domain_discrete]}
    elif info is not None and info.domain_interval is not None:
        domain = {"min": info.domain_interval[0], "max": info.domain_interval[1]}
    return {
        "name": name,
        "display_name": (info.display_name if info is not None else "") or name,
        "description": info.description if info is not None else "",
        "type": kind,
        "declared_type": info.type if info is not None else None,
        "domain": domain,
    }


def _shared_metrics(logdir: LogDir, runs: list[str], trials: dict[str, HParams]) -> list[tuple[str, str]]:
    """(group, tag) of the scalars every trial has: its own, and those of its sub-runs that are not trials."""
    shared: set[tuple[str, str]] | None = None
    for trial in trials:
        found: set[tuple[str, str]] = set()
        for run in runs:
            group = _group_of(trial, run)
            if group is None or (group and run in trials):
                continue
            try:
                found.update((group, tag) for tag in logdir.tags(run).get("scalars", []))
            except KeyError:
                continue
        shared = found if shared is None else shared & found
    return sorted(shared or ())


def _group_of(trial: str, run: str) -> str | None:
    """The path of ``run`` under ``trial`` ("" for the trial itself), None when it is not under it."""
    if run == trial:
        return ""
    prefix = "" if trial == "." else trial + "/"
    return run[len(prefix) :] if run.startswith(prefix) and run != "." else None


def _metric_run(trial: str, group: str) -> str:
    if not group:
        return trial
    return group if trial == "." else f"{trial}/{group}"


def _metric_column(group: str, tag: str, info: MetricInfo | None) -> dict[str, Any]:
    return {
        "id": f"{group}/{tag}" if group else tag,
        "group": group,
        "tag": tag,
        "display_name": (info.display_name if info is not None else "") or (f"{tag} ({group})" if group else tag),
        "description": info.description if info is not None else "",
        "dataset_type": info.dataset_type if info is not None else None,
        "goal": goal_of(tag),
    }


def _unique_ids(metrics: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: set[str] = set()
    kept = []
    for metric in metrics:
        if metric["id"] not in seen:
            seen.add(metric["id"])
            kept.append(metric)
    return kept


def _number(value: float) -> float | str:
    """A metric value for JSON: finite numbers as they are, NaN and infinities as "NaN", "Infinity", "-Infinity"
    (what JavaScript's ``Number()`` parses back)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return value


def _metric_value(logdir: LogDir, run: str, tag: str, goal: Goal) -> dict[str, Any] | None:
    """``{"final", "final_step", "best", "best_step", "points"}`` of one series, None when the trial lacks it."""
    try:
        series = logdir.scalars(run, tag)
    except KeyError:
        return None
    if len(series) == 0:
        return None
    values = series.value.astype(np.float64)
    finite = np.flatnonzero(np.isfinite(values))
    best: dict[str, Any] = {"best": None, "best_step": None}
    if len(finite):
        index = int(finite[np.argmin(values[finite]) if goal == "min" else np.argmax(values[finite])])
        best = {"best": float(values[index]), "best_step": int(series.step[index])}
    return {
        "final": _number(float(values[-1])),
        "final_step": int(series.step[-1]),
        **best,
        "points": len(series),
    }


def _related_runs(trial: str, runs: list[str]) -> list[str]:
    """The runs whose scalars belong to the trial: itself, its sub-runs, and for a torch trial named after a
    timestamp the run it was written under (which holds the training curves)."""
    related = [run for run in runs if _group_of(trial, run) is not None]
    parent, _, leaf = trial.rpartition("/")
    parent = parent or "."
    if TORCH_TRIAL_NAME.match(leaf) and parent != trial and parent in runs:
        related.insert(0, parent)
    return related
