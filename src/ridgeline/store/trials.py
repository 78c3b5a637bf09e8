"""Which run a torch ``add_hparams`` trial belongs to.

torch's ``SummaryWriter.add_hparams`` does not write the hyperparameters into the run it is called on: it opens a
second writer in a sub-directory named after ``time.time()`` (``cnn_lr0.01/1796175606.61``) and writes the
session start and the hparam metrics there, while the training curves stay in the run above. Read as written, the
run with the curves has no hyperparameters and the run with the hyperparameters has no curves.

The rule (docs/hparams.md#torch-trials): a trial — a run with a session start whose name ends in a timestamp —
is *attached* to the run directly above it when that run holds data of its own (curves, histograms, ...) and
records no session start of its own. That run then has the trial's hyperparameters everywhere: grouping, colours,
filters, the hparams table, the report, run queries. When one run holds several trials (``add_hparams`` called
more than once on the same writer), the latest (the largest timestamp) is attached; the earlier ones stay trials of
their own, listed under their sub-run's name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Protocol

from ridgeline.format.tags import HPARAMS_SESSION_START_TAG, INTERNAL_TAG
from ridgeline.store.provider import RunInfo

# torch names each add_hparams trial after time.time(): "1795978037.475189".
TORCH_TRIAL_NAME = re.compile(r"^\d{9,}(\.\d+)?$")


class Runs(Protocol):
    """What the rule reads: the run names and each run's tags (a Provider or a LogDir)."""

    def runs(self) -> list[str]: ...

    def run_info(self, run: str) -> RunInfo: ...


@dataclass(frozen=True, slots=True)
class TrialLinks:
    """The attached torch trials of a log directory, both ways."""

    parent_of: dict[str, str] = field(default_factory=dict)  # attached trial -> the run it was written from
    trial_of: dict[str, str] = field(default_factory=dict)  # that run -> its attached trial

    def hparams_run(self, run: str) -> str:
        """The run whose session start holds ``run``'s hyperparameters: its attached trial, else itself."""
        return self.trial_of.get(run, run)


def link_trials(provider: Runs) -> TrialLinks:
    """Every torch trial attached to the run it was written from (the rule is the module docstring's)."""
    runs = set(provider.runs())
    candidates: dict[str, list[str]] = {}
    for run in runs:
        parent = _torch_parent(run)
        if parent is not None and parent in runs and _has_session_start(provider, run):
            candidates.setdefault(parent, []).append(run)
    links = TrialLinks()
    for parent, trials in candidates.items():
        if _has_session_start(provider, parent) or not _holds_data(provider, parent):
            continue
        latest = max(trials, key=lambda trial: float(trial.rpartition("/")[2]))
        links.parent_of[latest] = parent
        links.trial_of[parent] = latest
    return links


def _torch_parent(run: str) -> str | None:
    """The run a torch trial named ``run`` was written under, or None when ``run`` is not named like one."""
    parent, _, leaf = run.rpartition("/")
    if not TORCH_TRIAL_NAME.match(leaf):
        return None
    return parent or "."


def _has_session_start(provider: Runs, run: str) -> bool:
    try:
        return HPARAMS_SESSION_START_TAG in provider.run_info(run).tags.get("hparams", ())
    except KeyError:  # vanished meanwhile
        return False


def _holds_data(provider: Runs, run: str) -> bool:
    """Whether the run holds any series of its own beyond bookkeeping (a writer's metadata alone does not count)."""
    try:
        tags = provider.run_info(run).tags
    except KeyError:
        return False
    return any(not INTERNAL_TAG.match(tag) for names in tags.values() for tag in names)
