"""The in-memory backend of the :class:`~ridgeline.store.provider.Provider` protocol.

Every point lives in process memory, in the append-only columns of :mod:`ridgeline.store.series` and
:mod:`ridgeline.store.blobs`, grouped per run in a :class:`~ridgeline.store.run.Store`. Ingest fills the store;
this class answers readers from it. What the store cannot do by itself — read a pass of new bytes, decode a
record from its event file, list a run's projector files — it asks of its :class:`Loader` (ingest's
``Ingestor``), so the store never imports ingest.
"""

from __future__ import annotations

from typing import Any, Protocol

from ridgeline.format.tags import ANNOTATION_TAG
from ridgeline.store.base import BlobRef, Kind, Problem
from ridgeline.store.embeddings import EmbeddingRef
from ridgeline.store.payloads import DecodedPayload
from ridgeline.store.provider import RunInfo, Scalars, StoredEntry, UnknownRun, UnknownSeries, Version
from ridgeline.store.run import RunData, Store

# Run info counts the visible records of the annotation tag.
_ANNOTATION_KEY: tuple[Kind, str] = ("text", ANNOTATION_TAG)


class Loader(Protocol):
    """What keeps a :class:`MemoryProvider`'s store current and reads records back from the log directory."""

    @property
    def label(self) -> str: ...

    def reload(self) -> Any: ...

    def start(self, interval: float) -> None: ...

    def stop(self) -> None: ...

    def read_value(self, run: str, kind: Kind, tag: str, ref: BlobRef) -> DecodedPayload: ...

    def embeddings(self, run: str) -> list[EmbeddingRef]: ...

    def notes_file(self, run: str) -> str | None: ...
    def run_directory(self, run: str) -> str: ...
    def last_modified(self, run: str) -> float | None: ...


class MemoryProvider:
    """A :class:`~ridgeline.store.provider.Provider` over a :class:`Store` that ``loader`` fills."""

    def __init__(self, store: Store, loader: Loader) -> None:
        self._store = store
        self._loader = loader

    # --- change tokens ------------------------------------------------------------------------------------------
    @property
    def generation(self) -> int:
        return self._store.generation

    @property
    def label(self) -> str:
        return self._loader.label

    def version(self, run: str, kind: Kind, tag: str) -> Version:
        data = self._run(run)
        series = data.scalars.get(tag) if kind == "scalars" else data.blobs.get((kind, tag))
        if series is None:
            raise UnknownSeries(f"run {run!r} has no {kind} tag {tag!r}")
        length = len(series)  # read the length before the marks: marks only follow points
        return Version(data.epoch, length, len(series.restart_marks))

    # --- listing ------------------------------------------------------------------------------------------------
    def runs(self) -> list[str]:
        return sorted(self._store.runs)

    def run_info(self, run: str) -> RunInfo:
        data = self._run(run)
        notes = data.blobs.get(_ANNOTATION_KEY)
        last_step = data.last_step
        return RunInfo(
            name=run,
            epoch=data.epoch,
            tags={kind: tuple(tags) for kind, tags in data.tags().items()},  # type: ignore[misc]
            first_wall_time=data.first_wall_time,
            last_wall_time=data.last_wall_time if last_step is not None else None,
            last_step=last_step,
            annotations=int(notes.snapshot().visible().sum()) if notes is not None else 0,
        )

    def problems(self) -> list[Problem]:
        return self._store.problems()

    # --- series -------------------------------------------------------------------------------------------------
    def scalars(self, run: str, tag: str, *, all_points: bool = False) -> Scalars:
        data = self._run(run)
        series = data.scalars.get(tag)
        if series is None:
            raise UnknownSeries(f"run {run!r} has no scalar tag {tag!r}; it has: {sorted(data.scalars)}")
        snapshot = series.snapshot()
        if all_points:
            return Scalars(snapshot.step, snapshot.wall_time, snapshot.value)
        if snapshot.all_visible():  # the usual case, known without a pass: the snapshot's own views, no copy
            return Scalars(snapshot.step, snapshot.wall_time, snapshot.value)
        keep = snapshot.visible()
        if keep.all():
            return Scalars(snapshot.step, snapshot.wall_time, snapshot.value)
        return Scalars(snapshot.step[keep], snapshot.wall_time[keep], snapshot.value[keep])

    def entries(self, run: str, kind: Kind, tag: str) -> list[StoredEntry]:
        data = self._run(run)
        series = data.blobs.get((kind, tag))
        if series is None:
            known = sorted(t for k, t in list(data.blobs) if k == kind)
            raise UnknownSeries(f"run {run!r} has no {kind} tag {tag!r}; it has: {known}")
        refs = series.snapshot()
        keep = refs.visible()
        shown = keep.tolist()
        return [StoredEntry(ref.step, ref.wall_time, ref) for ref, visible in zip(refs, shown, strict=True) if visible]

    def read_value(self, run: str, kind: Kind, tag: str, ref: BlobRef) -> Any:
        self._run(run)
        return self._loader.read_value(run, kind, tag, ref)

    def embeddings(self, run: str) -> list[EmbeddingRef]:
        self._run(run)
        return self._loader.embeddings(run)

    def notes_file(self, run: str) -> str | None:
        self._run(run)
        return self._loader.notes_file(run)

    def run_directory(self, run: str) -> str:
        self._run(run)
        return self._loader.run_directory(run)

    def last_modified(self, run: str) -> float | None:
        self._run(run)
        return self._loader.last_modified(run)

    # --- liveness -----------------------------------------------------------------------------------------------
    def reload(self) -> None:
        self._loader.reload()

    def start(self, interval: float) -> None:
        self._loader.start(interval)

    def stop(self) -> None:
        self._loader.stop()

    def _run(self, run: str) -> RunData:
        data = self._store.runs.get(run)
        if data is None:
            raise UnknownRun(f"no run {run!r}; runs: {self.runs()}")
        return data
