"""Carrying out a plan: a dry run (nothing touched), deleting, or moving to a trash folder; and what it did.

Just before a candidate goes, its runs' directories are listed again: a file written to within the last hour,
or an event file the scan did not see (a job resumed meanwhile), and the candidate stays. A deletion removes
only the files the plan names, then the directories that became empty, up to the log directory (never
it). A move keeps each file's path below the log directory under ``<trash>/ridgeline-clean-<UTC time>/``
(``<name>/`` first for a named log directory of several); a trash inside the log directory is refused, since
the reader would find the moved runs there again.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any, Literal

from ridgeline.ingest.discovery import LogDirSource, is_event_file
from ridgeline.retention.candidates import Candidate, Scan, scan
from ridgeline.retention.policy import Decision, Plan, Policy, plan
from ridgeline.retention.tree import LocalTree, RemoteTree, Tree, inside, tree_for

__all__ = ["Action", "Outcome", "TrashError", "apply", "check_trash", "outcome_json", "prepare", "sweep"]

Mode = Literal["dry-run", "delete", "trash"]


class TrashError(ValueError):
    """A trash folder that cannot be used for these log directories; the message says why."""


@dataclass(frozen=True)
class Action:
    """What to do with what the policy selects: nothing (``dry-run``), ``delete``, or ``trash`` into ``trash``."""

    mode: Mode = "dry-run"
    trash: str | None = None


@dataclass
class Outcome:
    """What a sweep did: the plan, the candidates removed (deleted or moved; none in a dry run), those that
    stayed because they were written to since the scan, what the scan could not read (``problems``) and the files
    that could not be removed (``failures``)."""

    plan: Plan
    action: Action
    removed: list[Decision] = field(default_factory=list)
    skipped: list[tuple[Decision, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    freed: int = 0
    files: int = 0
    trash_folder: str | None = None
    finished: float = 0.0


def sweep(sources: list[LogDirSource], policy: Policy, action: Action, now: float | None = None) -> Outcome:
    """Scan the log directories, apply ``policy`` (at time ``now``, default: now) and carry out ``action``.
    LogDirError (a missing or refused log directory) and TrashError before anything is touched."""
    scans = [scan(source, tree, all_files=policy.all_files) for source, tree in prepare(sources, action)]
    return apply(plan(scans, policy, time.time() if now is None else now), action)


def prepare(sources: list[LogDirSource], action: Action) -> list[tuple[LogDirSource, Tree]]:
    """The storage of each log directory, checked: LogDirError for a missing or refused log directory, TrashError
    for a trash folder that cannot take its runs."""
    trees = [(source, tree_for(source)) for source in sources]
    if action.mode == "trash":
        assert action.trash is not None
        check_trash(action.trash, [tree for _, tree in trees])
    return trees


def apply(chosen: Plan, action: Action) -> Outcome:
    outcome = Outcome(chosen, action, problems=list(chosen.problems))
    if action.mode == "trash":
        assert action.trash is not None
        outcome.trash_folder = _trash_folder(action.trash, time.time())
    if action.mode != "dry-run":
        for scanned, decisions in chosen.parts:
            for decision in decisions:
                if decision.goes:
                    _remove(scanned, decision, outcome)
    outcome.finished = time.time()
    return outcome


def _remove(scanned: Scan, decision: Decision, outcome: Outcome) -> None:
    tree, candidate = scanned.tree, decision.candidate
    changed = _changed_since(tree, candidate, outcome.plan.policy.recent)
    if changed is not None:
        outcome.skipped.append((decision, changed))
        return
    files = list(candidate.goes)
    if outcome.trash_folder is not None:
        prefix = f"{scanned.source.name}/" if scanned.source.name else ""
        moves = [(entry, tree.trash_path(outcome.trash_folder, prefix + _below(tree, entry.path))) for entry in files]
        problems = tree.move(moves)
    else:
        problems = tree.remove(files)
    tree.prune([*candidate.directories, *_ancestors(tree, candidate.directories)])
    gone = [entry for entry in files if not _exists(tree, entry.path)] if problems else files
    outcome.failures += problems
    outcome.files += len(gone)
    outcome.freed += sum(entry.size for entry in gone)
    if not problems:
        outcome.removed.append(decision)


def _changed_since(tree: Tree, candidate: Candidate, recent: float) -> str | None:
    """Why the candidate must stay after all (None: it may go): its runs' directories as they are now."""
    planned = {entry.path for entry in candidate.goes}
    threshold = time.time() - recent
    for directory in candidate.run_directories:
        for entry in tree.entries(directory):
            if entry.regular and entry.mtime > threshold:
                return f"{entry.name} was written to since the scan"
            if entry.regular and is_event_file(entry.name) and entry.path not in planned:
                return f"a new event file appeared since the scan ({entry.name})"
    return None


def _exists(tree: Tree, path: str) -> bool:
    if isinstance(tree, RemoteTree):
        return bool(tree.fs.exists(path))
    return os.path.lexists(path)


def _below(tree: Tree, path: str) -> str:
    """``path`` relative to the log directory, with "/"."""
    return path[len(tree.root.rstrip(tree.sep)) + 1 :].replace(tree.sep, "/")


def _ancestors(tree: Tree, directories: tuple[str, ...]) -> list[str]:
    """The directories between those given and the log directory (exclusive): emptied, they go too."""
    found = []
    for directory in directories:
        while tree.sep in directory and directory != tree.root:
            directory = directory.rsplit(tree.sep, 1)[0]
            if directory == tree.root or not inside(directory, tree.root, tree.sep):
                break
            found.append(directory)
    return found


def _trash_folder(trash: str, now: float) -> str:
    return trash.rstrip("/\\") + "/ridgeline-clean-" + time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(now))


def check_trash(trash: str, trees: list[Tree]) -> None:
    """TrashError when ``trash`` is not on the log directories' storage, is inside one of them, or exists and is
    not a folder."""
    remote = "://" in trash
    for tree in trees:
        if isinstance(tree, LocalTree):
            if remote:
                raise TrashError(f"--trash {trash!r} is a URL but the log directory {tree.root!r} is local")
            if inside(os.path.realpath(trash), tree.real_root):
                raise TrashError(
                    f"--trash {trash!r} is inside the log directory {tree.root!r}: the moved runs would be read "
                    "there again; choose a folder outside it"
                )
            if os.path.exists(trash) and not os.path.isdir(trash):
                raise TrashError(f"--trash {trash!r} exists and is not a folder")
        elif isinstance(tree, RemoteTree):
            if not trash.startswith(f"{tree.protocol}://"):
                raise TrashError(f"--trash {trash!r} must be a {tree.protocol}:// URL, as the log directory is")
            if inside(str(tree.fs._strip_protocol(trash)).rstrip("/"), tree.root, "/"):
                raise TrashError(f"--trash {trash!r} is inside the log directory {tree.url!r}; choose one outside")


def outcome_json(outcome: Outcome) -> dict[str, Any]:
    """The outcome as JSON: what ``ridgeline clean --json`` prints and ``GET /api/retention`` answers as
    ``last``. ``runs``: what went (or, in a dry run, would go); ``kept``: what the rules selected but stays."""
    removed = {id(decision) for decision in outcome.removed}
    skipped = {id(decision): why for decision, why in outcome.skipped}
    going = outcome.plan.going
    return {
        "mode": outcome.action.mode,
        "policy": outcome.plan.policy.describe(),
        "scanned": outcome.plan.now,
        "finished": outcome.finished,
        "runs": [
            {**_candidate_json(d), "reasons": list(d.reasons), "done": id(d) in removed, "skipped": skipped.get(id(d))}
            for d in going
        ],
        "kept": [{**_candidate_json(d), "reasons": list(d.reasons), "why": d.kept} for d in _kept(outcome.plan)],
        "selected_bytes": outcome.plan.freed,
        "freed_bytes": outcome.freed,
        "files": outcome.files,
        "left": _left_json(outcome.plan),
        "trash": outcome.trash_folder,
        "problems": outcome.problems,
        "failures": outcome.failures,
    }


def _kept(chosen: Plan) -> list[Decision]:
    return [decision for decision in chosen.decisions if decision.reasons and decision.kept is not None]


def _candidate_json(decision: Decision) -> dict[str, Any]:
    candidate = decision.candidate
    return {
        "run": candidate.name,
        "runs": list(candidate.runs),
        "last_event": candidate.last_event,
        "last_written": candidate.last_written,
        "size": candidate.size,
    }


def _left_json(chosen: Plan) -> dict[str, int]:
    """The regular files the going candidates leave in place (they need --all-files)."""
    left = [entry for decision in chosen.going for entry in decision.candidate.stays if entry.regular]
    return {"files": len(left), "bytes": sum(entry.size for entry in left)}
