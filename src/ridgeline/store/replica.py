"""A read-only replica of an on-disk store: what ``ridgeline serve --store DIR`` serves without ingesting.

One indexer (``ridgeline index --logdir L --store DIR --watch S``, or a server with ``--logdir`` and ``--store``)
writes the store; any number of replicas read it. A replica never writes into the store and never takes its
writer lock: it opens ``store.json`` (another format is refused, never rebuilt: that is the indexer's job), then
the manifest shards (``manifests/<0-f>.json.gz``: every run's manifest), and serves each run's columns up to the
lengths its manifest committed.

Why a replica never sees a half-written commit (see docs/store.md, *Many servers, one store*): column files only
grow, the indexer writes a column's bytes before the manifest that counts them, and a manifest is replaced
atomically (``os.replace`` of a complete temporary shard), so every manifest a replica can open names bytes
that are already there and never change again (a pack is written once, whole, before any manifest names it).
Bytes past the committed lengths (a write in progress) are not read.
Every column a manifest names is checked against its CRC32C before the run is served (a file already checked is
read only past what was checked); a run whose files do not match is refused and listed as a problem, unless its
manifest changed meanwhile (the indexer rewrote or removed the run: read again at once).

Non-scalar records (images, histograms, ...) stay references into the event files: decoding one needs read
access to the log directory, through the :class:`EventFiles` the replica is given (None: scalars only, and a
request for a record answers :class:`RecordsUnavailable`).
"""

from __future__ import annotations

import base64
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ridgeline.store.base import BlobRef, Kind, Problem
from ridgeline.store.disk import FORMAT, DiskRunData, header, run_from
from ridgeline.store.embeddings import EmbeddingRef
from ridgeline.store.files import Checked, StoreError, check_store_directory, read_json
from ridgeline.store.manifests import SHARDS, read_shard, shard_of, shard_path
from ridgeline.store.packs import Packs
from ridgeline.store.payloads import DecodedPayload
from ridgeline.store.run import Store

if TYPE_CHECKING:  # protobuf is imported when a record is first decoded (issue 15's fast start)
    from ridgeline.format.proto.summary_pb2 import SummaryMetadata

SOURCES_FILE = "sources.json"  # {"logdir": label, "sources": [[name, path], ...]}: written by the indexer
RETRIES = 3  # a run whose manifest changed while it was read is read again at once, this many times


class RecordsUnavailable(StoreError):
    """A replica without read access to the log directory was asked for a record kept in an event file."""


class EventFiles(Protocol):
    """What a replica reads from the log directory itself (ingest's readers, given by ``ridgeline.api``)."""

    def read_value(self, kind: Kind, ref: BlobRef, metadata: SummaryMetadata | None) -> DecodedPayload: ...

    def embeddings(self, directory: str) -> list[EmbeddingRef]: ...

    def notes_file(self, directory: str) -> str | None: ...

    def last_modified(self, paths: list[str]) -> float | None: ...


@dataclass
class _Seen:
    """One run as last read: its manifest, and the reading it described."""

    manifest: Any
    data: DiskRunData | None  # None: refused (damaged)
    metadata: dict[str, str] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    checked: dict[Path, tuple[int, int]] = field(default_factory=dict)  # column file -> (length, crc) checked


class ReplicaStore(Store):
    """The runs a replica serves; its problems are the indexer's and the runs it refuses now (a refused run the
    indexer wrote again is served, and no longer listed)."""

    def __init__(self) -> None:
        super().__init__()
        self.refused: dict[str, Problem] = {}  # run directory name -> why it is not served

    def problems(self) -> list[Problem]:
        return super().problems() + list(self.refused.values())


class Replica:
    """The :class:`~ridgeline.store.memory.Loader` of a read-only replica: each :meth:`reload` reads the
    manifests that changed since the last one into :attr:`store` (a plain in-memory :class:`Store` of runs
    whose columns are the store's files). Raises :class:`StoreError` when ``directory`` is not a store this
    version reads."""

    def __init__(
        self,
        directory: str | os.PathLike[str],
        event_files: EventFiles | None,
        *,
        sync: Callable[[], None] | None = None,
    ) -> None:
        self.directory = check_store_directory(Path(directory))
        self._sync = sync  # a store on object storage: bring the local copy up to date first (remote_store.Mirror)
        found = read_json(self.directory / "store.json")
        if found != header():
            what = "has no store.json (no indexer has written it yet?)" if found is None else f"is {found}"
            raise StoreError(
                0,
                f"store {str(self.directory)!r} {what}; this version reads {header()}: run `ridgeline index "
                f"--logdir LOGDIR --store {self.directory}` with this version first",
            )
        sources = read_json(self.directory / SOURCES_FILE)
        self.logdir = str(sources["logdir"]) if isinstance(sources, dict) and "logdir" in sources else None
        self.event_files = event_files
        self.store = ReplicaStore()
        self.packs = Packs(self.directory / "packs")  # read only
        self._seen: dict[str, _Seen] = {}  # run directory name -> what was read from it
        self._shards: dict[str, tuple[tuple[int, int, int], dict[str, Any]]] = {}  # shard -> identity, manifests
        self._by_run: dict[str, _Seen] = {}  # run name -> what is served of it
        self._problems_key: tuple[int, int, int] | None = None
        self._pass_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def label(self) -> str:
        return self.logdir if self.logdir is not None else str(self.directory)

    # --- passes -------------------------------------------------------------------------------------------
    def load(self, progress: Any = None, cancel: threading.Event | None = None) -> tuple[int, int]:
        """The first pass (what :class:`ridgeline.api.Opening` runs): every committed run read. Returns how many
        runs came from the store (all of them) and how many changed."""
        changed = self.reload()
        return len(self.store.runs), changed

    def reload(self) -> int:
        """Read every manifest that changed since the last pass; returns how many runs changed."""
        with self._pass_lock:
            if self._sync is not None:
                try:
                    self._sync()
                except Exception as error:  # unreachable meanwhile: keep serving the copy, say why
                    self.store.add_problems([Problem(str(self.directory), None, f"store copy not updated: {error}")])
            changed = 0
            manifests = self._manifests()
            for name in sorted(manifests):
                changed += self._read_run(name, manifests[name])
            for name in sorted(set(self._seen) - set(manifests)):
                changed += self._forget(name)
            self._read_problems()
            if changed:
                self.store.generation += 1
            return changed

    def _manifests(self) -> dict[str, Any]:
        """Every run's committed manifest (run directory name -> manifest): the shards that changed read again."""
        found: dict[str, Any] = {}
        for shard in SHARDS:
            entries = self._shard(shard)
            if entries is not None:
                found.update(entries)
        return found

    def _shard(self, shard: str, again: bool = False) -> dict[str, Any] | None:
        path = shard_path(self.directory, shard)
        key = _identity(path)
        if key is None:
            self._shards.pop(shard, None)
            return None
        known = self._shards.get(shard)
        if known is not None and known[0] == key and not again:
            return known[1]
        entries = read_shard(path, FORMAT)
        if entries is None:  # damaged, or replaced between the stat and the read: the next pass reads it
            return known[1] if known is not None else None
        self._shards[shard] = (key, entries)
        return entries

    def _read_run(self, name: str, manifest: Any) -> int:
        directory = self.directory / "runs" / name
        previous = self._seen.get(name)
        if previous is not None and previous.manifest == manifest:
            return 0
        attempts = 0
        while True:
            checked: dict[Path, tuple[int, int]] = {}
            data = run_from(manifest, directory, self.packs, self._checker(previous, checked))
            attempts += 1
            if data is not None or attempts == RETRIES:
                break
            # A failed check of a manifest replaced meanwhile is the indexer moving on (a run rewritten or
            # removed, its old files deleted): read the new one. One still in place names damaged files.
            fresh = (self._shard(shard_of(name), again=True) or {}).get(name)
            if fresh is None:
                return self._forget(name)
            if fresh == manifest:
                break
            manifest = fresh
        if data is None:
            changed = self._forget(name)
            self._refuse(name, manifest, previous)
            self._seen[name] = _Seen(manifest, None)
            return changed
        assert isinstance(manifest, dict)
        self.store.refused.pop(name, None)
        if previous is not None and previous.data is not None:
            self._by_run.pop(previous.data.name, None)
            if previous.data.name != data.name:
                self.store.drop_run(previous.data.name)
            else:
                previous.data.release()
        resume = manifest.get("resume")
        metadata = resume.get("metadata", {}) if isinstance(resume, dict) else {}
        files = [str(entry[0]) for entry in resume.get("files", [])] if isinstance(resume, dict) else []
        self.store.replace_run(data)
        if previous is not None and previous.data is not None and previous.data.reading == data.reading:
            data.epoch = previous.data.epoch  # the same reading, grown: change tokens stay comparable
        seen = _Seen(manifest, data, metadata if isinstance(metadata, dict) else {}, files, checked)
        self._seen[name] = self._by_run[data.name] = seen
        return 1

    def _forget(self, name: str) -> int:
        """Stop serving what was read from run directory ``name``; 1 when a run was served from it."""
        self.store.refused.pop(name, None)
        seen = self._seen.pop(name, None)
        if seen is None or seen.data is None:
            return 0
        self._by_run.pop(seen.data.name, None)
        self.store.drop_run(seen.data.name)
        return 1

    @staticmethod
    def _checker(previous: _Seen | None, checked: dict[Path, tuple[int, int]]) -> Callable[[Checked], bool]:
        """A read-only check of each column, reading only past what ``previous`` checked of the same file;
        records in ``checked`` what passed."""
        known = previous.checked if previous is not None else {}

        def check(column: Checked) -> bool:
            if not column.check(known.get(column.path)):
                return False
            checked[column.path] = (column.length, column.crc)
            return True

        return check

    def _refuse(self, name: str, manifest: Any, previous: _Seen | None) -> None:
        run = manifest.get("name") if isinstance(manifest, dict) else None
        if previous is not None and previous.data is not None:
            run = run or previous.data.name
        what = f"run {run!r}" if isinstance(run, str) else f"run directory {name}"
        self.store.refused[name] = Problem(
            str(self.directory / "runs" / name),
            None,
            f"store {what} is damaged (a column or its manifest does not match its checksum or length): "
            "not served until the indexer writes it again",
        )

    def _read_problems(self) -> None:
        path = self.directory / "problems.json"
        key = _identity(path)
        if key is None or key == self._problems_key:
            return
        self._problems_key = key
        stored = read_json(path)
        if isinstance(stored, list):
            problems = []
            for entry in stored:
                try:
                    where, offset, reason = entry
                    problems.append(Problem(str(where), None if offset is None else int(offset), str(reason)))
                except (TypeError, ValueError):
                    continue
            self.store.add_problems(problems)

    def start(self, interval: float) -> None:
        """Read what the indexer committed every ``interval`` seconds, in a daemon thread, until :meth:`stop`."""
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, args=(interval,), name="ridgeline-replica", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _loop(self, interval: float) -> None:
        while not self._stop.wait(interval):
            try:
                self.reload()
            except Exception as error:  # a pass that fails is reported; the next one tries again
                self.store.add_problems([Problem(str(self.directory), None, f"reload failed: {error!r}")])

    # --- what lives in the event files --------------------------------------------------------------------
    def _run(self, run: str) -> _Seen:
        return self._by_run[run]

    def _event_files(self) -> EventFiles:
        if self.event_files is None:
            raise RecordsUnavailable(
                0,
                f"this replica of store {self.directory} serves scalars only: images, histograms and other "
                f"records stay in the event files of {self.label}, which it cannot read (serve it where that "
                "directory is readable)",
            )
        return self.event_files

    def read_value(self, run: str, kind: Kind, tag: str, ref: BlobRef) -> DecodedPayload:
        from ridgeline.format.proto.summary_pb2 import SummaryMetadata

        encoded = self._run(run).metadata.get(tag)
        metadata = SummaryMetadata.FromString(base64.b64decode(encoded)) if isinstance(encoded, str) else None
        return self._event_files().read_value(kind, ref, metadata)

    def embeddings(self, run: str) -> list[EmbeddingRef]:
        return [] if self.event_files is None else self.event_files.embeddings(self.run_directory(run))

    def notes_file(self, run: str) -> str | None:
        return None if self.event_files is None else self.event_files.notes_file(self.run_directory(run))

    def run_directory(self, run: str) -> str:
        """The run's directory as the indexer found it: where its event files are."""
        files = self._run(run).files
        if not files:
            return ""
        first = files[0]
        return first.rsplit("/", 1)[0] if "://" in first else os.path.dirname(first)

    def last_modified(self, run: str) -> float | None:
        return None if self.event_files is None else self.event_files.last_modified(self._run(run).files)


def _identity(path: Path) -> tuple[int, int, int] | None:
    """What changes whenever a manifest is replaced (a new inode every ``os.replace``), None when it is missing."""
    try:
        info = path.stat()
    except OSError:
        return None
    return (info.st_ino, info.st_mtime_ns, info.st_size)
