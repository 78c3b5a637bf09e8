"""Each rank's clock offset against a reference rank, from instants that every rank stamps at once.

Node clocks disagree, by milliseconds with NTP and by seconds without it, so wall times from different ranks cannot
be compared as they are. Two kinds of instants are (nearly) simultaneous on every rank:

- the departures from a barrier (``SummaryWriter.sync_step``): every rank leaves it when the last one arrives;
- in a synchronous job, the wall times of values every rank logs at the same step right after a collective.

For each rank the offset is the median of its per-instant differences against the reference rank (robust to the
odd late print or preempted thread), and its uncertainty the standard error of that median estimated from the
median absolute deviation (1.2533 × 1.4826 × MAD / √n): both in seconds here. Past
:data:`MAX_INSTANTS` differences per rank, an evenly spread subset of that many is used (the uncertainty is then
already microseconds: more only costs time). ``offset > 0`` means the rank's
clock runs ahead of the reference's; subtract it from the rank's wall times to align them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

# Standard error of a median of normally distributed values, from the MAD: sqrt(pi/2) × (1 / Phi^-1(3/4)).
_MEDIAN_SE_FROM_MAD = 1.2533 * 1.4826

MAX_INSTANTS = 1 << 15

Instants = tuple[np.ndarray, np.ndarray]  # (keys: int64, times: float64) of one rank, keys unique


@dataclass(frozen=True)
class Offset:
    """One rank's clock against the reference rank's: seconds, and the number of instants it rests on."""

    offset: float
    uncertainty: float
    samples: int


def reference_rank(ranks: Sequence[int]) -> int:
    """Rank 0 when there is one, else the lowest rank."""
    if not ranks:
        raise ValueError("ranks must not be empty")
    return 0 if 0 in ranks else min(ranks)


def _channel_differences(channel: Mapping[int, Instants], ref: int) -> dict[int, np.ndarray]:
    """Per rank of the channel, its times minus the reference's at the keys both have."""
    ref_keys, ref_times = channel[ref]
    out: dict[int, np.ndarray] = {}
    for rank, (keys, times) in channel.items():
        if rank == ref:
            continue
        if len(keys) == len(ref_keys) and np.array_equal(keys, ref_keys):
            out[rank] = np.asarray(times, dtype=np.float64) - ref_times  # the usual case: the same steps
            continue
        _, here, there = np.intersect1d(keys, ref_keys, assume_unique=True, return_indices=True)
        out[rank] = np.asarray(times[here] - ref_times[there], dtype=np.float64)
    return out


def estimate_offsets(channels: Sequence[Mapping[int, Instants]], reference: int | None = None) -> dict[int, Offset]:
    """Every rank's offset against ``reference`` (default :func:`reference_rank`), pooling the differences of
    every channel: a channel maps each rank to its instants (a tag's steps and wall times, or the sync records'
    steps and departures), and only instants of the same channel and key are compared.

    A rank sharing no instant with the reference gets offset NaN and 0 samples; the reference itself 0 ± 0."""
    ranks = sorted({rank for channel in channels for rank in channel})
    if not ranks:
        return {}
    ref = reference_rank(ranks) if reference is None else reference
    pooled: dict[int, list[np.ndarray]] = {rank: [] for rank in ranks}
    for channel in channels:
        if ref in channel:
            for rank, found in _channel_differences(channel, ref).items():
                pooled[rank].append(found)
    offsets: dict[int, Offset] = {}
    for rank in ranks:
        if rank == ref:
            offsets[rank] = Offset(0.0, 0.0, sum(len(channel[ref][0]) for channel in channels if ref in channel))
            continue
        differences = np.concatenate(pooled[rank]) if pooled[rank] else np.zeros(0)
        differences = differences[np.isfinite(differences)]
        if len(differences) > MAX_INSTANTS:
            differences = differences[np.linspace(0, len(differences) - 1, MAX_INSTANTS).astype(np.int64)]
        if len(differences) == 0:
            offsets[rank] = Offset(float("nan"), float("nan"), 0)
            continue
        median = float(np.median(differences))
        mad = float(np.median(np.abs(differences - median)))
        offsets[rank] = Offset(median, _MEDIAN_SE_FROM_MAD * mad / np.sqrt(len(differences)), len(differences))
    return offsets
