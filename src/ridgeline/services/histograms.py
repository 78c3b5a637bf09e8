"""Reading histograms for the histograms and distributions dashboards (and anyone else): a tag's entries in step
order, decoded one by one so that a corrupt value stays an error of its own step. Choosing which steps to decode
and putting histograms on common bins is pure arithmetic: :mod:`ridgeline.analysis.histograms`.

TensorBoard's histogram data is a list of buckets (left edge, right edge, count); torch writes the legacy
``HistogramProto`` (bucket limits and counts), TF2 a ``[k, 3]`` tensor; :class:`ridgeline.store.payloads.Histogram`
holds either as ``lower``/``upper``/``count`` arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

from ridgeline.store.logdir import Entry, LogDir
from ridgeline.store.payloads import DecodeError, Histogram


@dataclass(frozen=True, slots=True)
class Decoded:
    """One step's histogram, or why it could not be read."""

    step: int
    wall_time: float
    histogram: Histogram | None
    error: str | None = None


def entries(logdir: LogDir, run: str, tag: str) -> list[Entry[Histogram]]:
    """The histogram entries of ``run``/``tag`` in step order (KeyError when either is unknown); none decoded."""
    return sorted(logdir.histograms(run, tag), key=lambda e: e.step)


def decode(entry: Entry[Histogram]) -> Decoded:
    """The entry's histogram; a value that does not decode, or whose arrays disagree, becomes an error."""
    try:
        value = entry.value
    except DecodeError as error:
        return Decoded(entry.step, entry.wall_time, None, str(error))
    if not isinstance(value, Histogram) or not len(value.lower) == len(value.upper) == len(value.count):
        return Decoded(entry.step, entry.wall_time, None, "not a histogram (bucket arrays of different lengths)")
    return Decoded(entry.step, entry.wall_time, value)
