"""Ranks as one run: grouping, per-step aggregation, clock alignment, stragglers and load balance.

Pure functions on numpy arrays (docs/distributed.md describes what each figure means); the service
:mod:`ridgeline.services.distributed` reads the log directory and calls them.
"""

from __future__ import annotations

from ridgeline.analysis.distributed.aggregate import STATISTICS, Aggregate, aggregate, reduce_aggregate
from ridgeline.analysis.distributed.clocks import Offset, estimate_offsets, reference_rank
from ridgeline.analysis.distributed.grouping import DEFAULT_PATTERN, RankGroup, group_ranks
from ridgeline.analysis.distributed.load_balance import Spread, input_bound_ranks, utilisation_spread
from ridgeline.analysis.distributed.stragglers import (
    DEFAULT_THRESHOLD,
    RankScore,
    SyncReport,
    analyse_step_rates,
    analyse_sync,
)

__all__ = [
    "DEFAULT_PATTERN",
    "DEFAULT_THRESHOLD",
    "STATISTICS",
    "Aggregate",
    "Offset",
    "RankGroup",
    "RankScore",
    "Spread",
    "SyncReport",
    "aggregate",
    "analyse_step_rates",
    "analyse_sync",
    "estimate_offsets",
    "group_ranks",
    "input_bound_ranks",
    "reduce_aggregate",
    "reference_rank",
    "utilisation_spread",
]
