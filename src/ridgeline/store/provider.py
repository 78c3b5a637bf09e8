"""THE seam between reading log directories and everything that shows them: the :class:`Provider` protocol.

Everything above the store — the reading API's :class:`~ridgeline.store.logdir.LogDir`, services, search, plugins,
the server, the CLI and the report — reads through this protocol and nothing else. A backend implements it: the
in-memory one (:mod:`ridgeline.store.memory`, filled by ingest) today, an on-disk columnar one next; both must pass
the contract tests in ``tests/store/contract/`` unchanged.

The data model
--------------
A log directory holds **runs**: directories with event files, named by their path relative to the log directory
(``"."`` for event files at its top). A run holds **series** keyed by ``(kind, tag)`` and indexed by step:

- ``scalars``: every point kept, as columns ``step`` (int64), ``wall_time`` (float64), ``value`` (float64), in the
  order they were read (file order). A backend may also offer ``indexed_scalars(run, tag)`` (the on-disk one
  does, for long series): the stored column with its level-of-detail pyramid, read by the reduced chart answer
  (``LogDir.indexed_scalars``; not part of the protocol).
- every other kind (histograms, images, audio, text, tensors, pr_curves, hparams, custom_scalars, meshes, graphs,
  confusion_matrices):
  a sequence of :class:`BlobRef` — where a record lies in its file — decoded only when read
  (:meth:`Provider.read_value`), into the payload types of :mod:`ridgeline.store.payloads`.

Tags include the bookkeeping ones (``_ridgeline/run_metadata``, ``_hparams_/...``, ``__graph__``); the reading API
hides them from its tag listing and offers them through their own methods.

**Visibility.** Every point stays stored. After a restart (a step going back, or a ``SessionLog.START``), the
superseded points are hidden from what a TensorBoard user sees; the rule is :mod:`ridgeline.store.restarts`.
``scalars(..., all_points=False)`` and :meth:`Provider.entries` return the visible points, in step order;
``all_points=True`` returns every point in file order.

**Change detection.** Data only grows, except when a file was rewritten (what its run gained since that file was
first read is read again: the on-disk store takes back only that, the in-memory one the whole run) or a run's
directory vanished. A reader caches on two cheap tokens:

- :attr:`Provider.generation`, a counter that moves whenever an ingest pass changed anything (points added, a run
  found, re-read or gone): "has anything changed at all?";
- :meth:`Provider.version`, per series: ``(epoch, length, restarts)``. ``epoch`` identifies one reading of the
  run (it changes when the run is re-read from scratch or replaced, never otherwise), ``length`` counts every
  stored point of the series, ``restarts`` the restart marks that apply to it. The token changes exactly when the
  series' data changes, so a cache keyed on it is never stale and never needlessly rebuilt. Object identity of a
  backend's internals is never a token: an on-disk or remote backend cannot offer it.

**Run info** (:class:`RunInfo`): a run's tags per kind, first and last wall time, last step and annotation count,
kept as points arrive (never found by scanning every series).

**Liveness of a run**: :meth:`Provider.last_modified`, its event files' modification time, asked of the file
system when called (as :meth:`Provider.notes_file` reads the notes); on object storage, as the last pass's
listing gave it (no request per file).

**Problems** (:class:`Problem`): everything that could not be read — corrupt records with their file and byte
offset, unreadable files, values that decode to nonsense — listed once each.

**Liveness.** ``reload()`` reads what was appended since the last pass; ``start(interval)``/``stop()`` run passes in
the background for the server's lifespan. A backend that only reads a store kept current by another process
(``ridgeline serve --store``) implements them by re-reading its store.

**Threads.** One ingest thread appends while any number of reader threads call every method; readers never see
a half-appended point, and arrays they are given never change afterwards (they may be read-only views).

Errors: an unknown run is an :class:`UnknownRun`, an unknown series an :class:`UnknownSeries` (both
``KeyError``, their message naming what exists); a value that cannot be decoded is a
:class:`~ridgeline.store.payloads.DecodeError`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, Protocol, overload, runtime_checkable

import numpy as np

from ridgeline.store.base import KINDS, BlobRef, Kind, Problem
from ridgeline.store.embeddings import EmbeddingRef
from ridgeline.store.payloads import (
    Audio,
    ConfusionMatrix,
    CustomScalarsLayout,
    DecodedPayload,
    Graph,
    Histogram,
    HParams,
    Images,
    Mesh,
    PrCurve,
    Tensor,
    Text,
)

__all__ = [
    "KINDS",
    "MAX_NOTES_BYTES",
    "NOTES_FILES",
    "BlobRef",
    "Kind",
    "Problem",
    "Provider",
    "RunInfo",
    "Scalars",
    "StoredEntry",
    "UnknownRun",
    "UnknownSeries",
    "Version",
]


# The files of a run's directory read as its notes (Provider.notes_file), in order of preference.
NOTES_FILES = ("README.md", "README.txt", "NOTES.md")
MAX_NOTES_BYTES = 64 << 10


class UnknownRun(KeyError):
    """No run of that name (the message lists the runs)."""


class UnknownSeries(KeyError):
    """The run exists but has no series of that kind and tag (the message lists the run's tags of that kind)."""


@dataclass(frozen=True, slots=True)
class Version:
    """A series' change token: equal tokens mean identical data (see the module docstring)."""

    epoch: int
    length: int
    restarts: int


@dataclass(frozen=True, slots=True)
class Scalars:
    """One scalar series: three numpy arrays of equal length, in step order (or file order with all_points)."""

    step: np.ndarray
    wall_time: np.ndarray
    value: np.ndarray

    def __len__(self) -> int:
        return len(self.step)


@dataclass(frozen=True, slots=True)
class StoredEntry:
    """One visible non-scalar record of a series: where it is, and its step and wall time."""

    step: int
    wall_time: float
    ref: BlobRef


@dataclass(frozen=True, slots=True)
class RunInfo:
    """What a run holds, kept current as points arrive.

    ``tags`` lists every tag per kind (bookkeeping tags included), sorted; kinds without tags are left out.
    ``first_wall_time``/``last_wall_time`` span the run's records (the writer's run-metadata record, written when a
    writer opens, and its end record, written when it closes, do not move ``last_wall_time``); ``last_step`` is the
    largest step of any series' last point; all three are None for a run with no record yet. ``annotations``
    counts the visible annotations. ``epoch`` changes when the run is re-read from scratch (then every series'
    :class:`Version` changes with it).
    """

    name: str
    epoch: int
    tags: Mapping[Kind, tuple[str, ...]] = field(default_factory=dict)
    first_wall_time: float | None = None
    last_wall_time: float | None = None
    last_step: int | None = None
    annotations: int = 0


@runtime_checkable
class Provider(Protocol):
    """A log directory's runs and series, read through one narrow, typed interface (see the module docstring)."""

    @property
    def generation(self) -> int:
        """Moves whenever an ingest pass changed anything: compare it to skip work when nothing did."""
        ...

    @property
    def label(self) -> str:
        """The log directories this provider reads, as the user gave them (``path`` or ``name:path,...``)."""
        ...

    def runs(self) -> list[str]:
        """Every run's name, sorted."""
        ...

    def run_info(self, run: str) -> RunInfo:
        """What ``run`` holds (KeyError when there is no such run)."""
        ...

    def version(self, run: str, kind: Kind, tag: str) -> Version:
        """The change token of one series (KeyError when the run has no such series)."""
        ...

    def scalars(self, run: str, tag: str, *, all_points: bool = False) -> Scalars:
        """The visible points of a scalar series in step order; with ``all_points`` every point in file order."""
        ...

    def entries(self, run: str, kind: Kind, tag: str) -> list[StoredEntry]:
        """The visible records of a non-scalar series, in step order."""
        ...

    @overload
    def read_value(self, run: str, kind: Literal["histograms"], tag: str, ref: BlobRef) -> Histogram: ...
    @overload
    def read_value(self, run: str, kind: Literal["images"], tag: str, ref: BlobRef) -> Images: ...
    @overload
    def read_value(self, run: str, kind: Literal["audio"], tag: str, ref: BlobRef) -> Audio: ...
    @overload
    def read_value(self, run: str, kind: Literal["text"], tag: str, ref: BlobRef) -> Text: ...
    @overload
    def read_value(self, run: str, kind: Literal["tensors"], tag: str, ref: BlobRef) -> Tensor: ...
    @overload
    def read_value(self, run: str, kind: Literal["pr_curves"], tag: str, ref: BlobRef) -> PrCurve: ...
    @overload
    def read_value(self, run: str, kind: Literal["hparams"], tag: str, ref: BlobRef) -> HParams: ...
    @overload
    def read_value(self, run: str, kind: Literal["custom_scalars"], tag: str, ref: BlobRef) -> CustomScalarsLayout: ...
    @overload
    def read_value(self, run: str, kind: Literal["meshes"], tag: str, ref: BlobRef) -> Mesh: ...
    @overload
    def read_value(self, run: str, kind: Literal["graphs"], tag: str, ref: BlobRef) -> Graph: ...
    @overload
    def read_value(self, run: str, kind: Literal["confusion_matrices"], tag: str, ref: BlobRef) -> ConfusionMatrix: ...
    @overload
    def read_value(self, run: str, kind: Kind, tag: str, ref: BlobRef) -> DecodedPayload: ...
    def read_value(self, run: str, kind: Kind, tag: str, ref: BlobRef) -> DecodedPayload:
        """Decode one record (DecodeError when it cannot be; OSError when its file cannot be read)."""
        ...

    def embeddings(self, run: str) -> list[EmbeddingRef]:
        """The run's embeddings for the projector (what add_embedding wrote), their files read lazily."""
        ...

    def notes_file(self, run: str) -> str | None:
        """The text of the first of ``NOTES_FILES`` in the run's own directory (a README users write per
        experiment), its first ``MAX_NOTES_BYTES`` bytes decoded as UTF-8 (bad bytes replaced); None when there is
        none. Read when asked, so it is always the file as it is now."""

    def run_directory(self, run: str) -> str:
        """The run's directory (a local path or a URL): where files beside the event files live (profiler traces)."""
        ...

    def last_modified(self, run: str) -> float | None:
        """When the run's event files were last modified (Unix seconds; the newest of them), as the file system says
        now, or None when it cannot say. A ridgeline writer keeps its open file's time fresh (a heartbeat), so this
        tells a quiet live run from a dead one (:mod:`ridgeline.store.status`)."""
        ...

    def problems(self) -> list[Problem]:
        """Everything that could not be read, each listed once, in the order met."""
        ...

    def reload(self) -> None:
        """Read what was appended since the last pass (one pass, in the calling thread)."""
        ...

    def start(self, interval: float) -> None:
        """Run passes every ``interval`` seconds in a background thread until :meth:`stop`."""
        ...

    def stop(self) -> None:
        """Stop the background passes (returns once the thread has ended)."""
        ...
