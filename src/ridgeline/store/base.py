"""The data model, shared by ingest (which fills it) and every reader (server, CLI, reading API).

A log directory holds **runs** (directories with event files, named by their path relative to the log
directory). A run holds **series** keyed by ``(tag, kind)`` and indexed by step:

- ``scalars``: every point kept, as columns ``step`` (int64), ``wall_time`` (float64), ``value`` (float64).
- everything else (histograms, images, audio, text, tensors, pr_curves, hparams, custom_scalars, meshes,
  graphs, confusion_matrices): a list of :class:`BlobRef` — where the record lies in its file — decoded on demand.

Points are kept in the order they were read (file order). Which of them a TensorBoard user would see after a
restart is decided by :mod:`ridgeline.store.restarts`; every point stays reachable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

Kind = Literal[
    "scalars",
    "histograms",
    "images",
    "audio",
    "text",
    "tensors",
    "pr_curves",
    "hparams",
    "custom_scalars",
    "meshes",
    "graphs",
    "confusion_matrices",
]
KINDS: tuple[Kind, ...] = get_args(Kind)


@dataclass(frozen=True, slots=True)
class BlobRef:
    """One summary value that stays in its file until asked for.

    ``offset``/``length`` locate the record's *data* (the serialized Event, after the 12-byte header);
    ``value_index`` says which ``Summary.value`` of the event it is (-1 for a graph_def or tagged_run_metadata).
    """

    path: str
    offset: int
    length: int
    value_index: int
    step: int
    wall_time: float


@dataclass(frozen=True, slots=True)
class Problem:
    """Something that could not be read: a corrupt record, an unreadable file, a value that decodes to nonsense."""

    path: str
    offset: int | None
    reason: str
