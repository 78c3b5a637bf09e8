"""Which runs are the ranks of one distributed run.

By default a run whose last path part is ``rank{N}`` (the writer's per-rank layout) is rank N of the run named by
the rest of its path (``exp1/rank3`` → rank 3 of ``exp1``; ``rank0`` alone → rank 0 of ``.``). A user's regular
expression groups differently: its ``job`` group (else its first group) names the distributed run and its
``rank`` group (else the run's last number) the rank; runs it does not match are left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

DEFAULT_PATTERN = re.compile(r"^(?:(?P<job>.*)/)?rank(?P<rank>\d+)$")
_LAST_NUMBER = re.compile(r"(\d+)(?!.*\d)")


@dataclass(frozen=True)
class RankGroup:
    """One distributed run: its name and its ranks' runs, by rank (sorted)."""

    name: str
    ranks: dict[int, str]

    @property
    def world_size(self) -> int:
        return len(self.ranks)


def _job_and_rank(match: Any, run: str) -> tuple[str, int] | None:
    groups = match.re.groupindex
    job = match.group("job") if "job" in groups else (match.group(1) if match.re.groups else None)
    rank_text = match.group("rank") if "rank" in groups else None
    if rank_text is None:
        found = _LAST_NUMBER.search(run)
        rank_text = found.group(1) if found else None
    if rank_text is None:
        return None
    return (job if job else "."), int(rank_text)


def group_ranks(runs: Iterable[str], pattern: Any = None) -> list[RankGroup]:
    """The distributed runs among ``runs`` (groups of at least one rank), in the order of their first run.
    ``pattern`` is a compiled ``re`` or RE2 pattern (anything with ``search`` giving ``re``-like matches).

    A rank claimed twice (two runs mapping to the same job and rank) keeps the first run in sorted order; the
    other stays out of the group rather than being silently merged with it."""
    regex = pattern or DEFAULT_PATTERN
    found: dict[str, dict[int, str]] = {}
    for run in sorted(runs):
        match = regex.search(run)
        if match is None:
            continue
        identity = _job_and_rank(match, run)
        if identity is None:
            continue
        job, rank = identity
        found.setdefault(job, {}).setdefault(rank, run)
    return [RankGroup(job, dict(sorted(ranks.items()))) for job, ranks in found.items()]
