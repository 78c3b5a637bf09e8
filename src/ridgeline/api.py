"""The reading API: a log directory as numpy arrays (and pandas, if installed).

import ridgeline
logdir = ridgeline.open("runs")
s = logdir.scalars("exp1", "loss/train")      # s.step, s.wall_time, s.value

``open`` wires ingest to a backend behind the provider protocol; what it returns, a
:class:`~ridgeline.store.logdir.LogDir`, reads through that protocol only.
"""

from __future__ import annotations

import hashlib
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ridgeline.ingest.discovery import FileSystem, LogDirError, filesystem_for, sources_from
from ridgeline.ingest.loop import Ingestor, PassStats, Progress
from ridgeline.ingest.payload_decode import decode_value
from ridgeline.ingest.projector import read_projector
from ridgeline.ingest.remote import storage_options
from ridgeline.store.logdir import Entry, LogDir
from ridgeline.store.memory import MemoryProvider
from ridgeline.store.provider import MAX_NOTES_BYTES, NOTES_FILES, Provider, Scalars

# The on-disk store (the cache, --store, replicas) is imported when one is opened: a read without a cache
# (``cache=False``, ``ridgeline serve --no-cache``) needs none of it, nor the crc32c package its files check
# with (importing that costs tens of milliseconds of a server's start; issue 15).
if TYPE_CHECKING:
    from ridgeline.format.proto.summary_pb2 import SummaryMetadata
    from ridgeline.store.base import BlobRef, Kind
    from ridgeline.store.disk import DiskStore
    from ridgeline.store.embeddings import EmbeddingRef
    from ridgeline.store.payloads import DecodedPayload
    from ridgeline.store.remote_store import Publisher
    from ridgeline.store.replica import RecordsUnavailable, Replica

__all__ = [
    "Entry",
    "LogDir",
    "LogDirError",
    "Opening",
    "RecordsUnavailable",
    "Scalars",
    "open",
    "open_replica",
    "opening",
    "scalars_only",
]


def __getattr__(name: str) -> Any:
    """``RecordsUnavailable``, imported with the store on first use (see the imports above)."""
    if name == "RecordsUnavailable":
        from ridgeline.store.replica import RecordsUnavailable

        return RecordsUnavailable
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def open(
    logdir: str | os.PathLike[str] | list[str] | None = None,
    *,
    cache: bool = True,
    cache_dir: str | os.PathLike[str] | None = None,
    store: str | os.PathLike[str] | None = None,
    check_crc: bool = True,
    parallel: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> LogDir:
    """Read a log directory (or several: a list, ``a,b``, or ``name:path`` entries; local paths or fsspec URLs).

    Everything is read before this returns; ``LogDir.reload()`` reads what was appended since. With ``cache``
    (the default) what was read is kept in an on-disk store outside the log directory (``cache_dir``, default
    ``~/.cache/ridgeline``; see docs/store.md): scalar series are read from it as mapped files, and the next open
    reads only what changed. A cache directory another user owns, or anyone may write, is refused
    (``StoreError``, an OSError). ``check_crc=False`` skips the data checksums (lengths are still checked).
    ``progress(done, total)`` is called as event files are read (the CLI's progress bars). Raises
    ``LogDirError`` (a ValueError) naming the path when a log directory does not exist or is not a directory.

    ``store``: the store's own directory instead of one under ``cache_dir`` (``--store DIR``). With a log
    directory, this process keeps it current (refused with a StoreError while another process does); without
    one, the store is read as a replica (:func:`open_replica`): nothing is ingested or written, and
    ``LogDir.reload()`` reads what the indexer committed since.
    """
    if logdir is None:
        if store is None:
            raise LogDirError("give a log directory to read, or a store to read as a replica (store=DIR)")
        return open_replica(store)
    ingestor, opened = _ingestor(logdir, cache, cache_dir, check_crc, parallel, store)
    restored, _ = ingestor.load(progress)
    caches = _caches(cache, cache_dir, store)
    if opened is not None:
        from ridgeline.store.disk_provider import DiskProvider

        return LogDir(DiskProvider(opened, ingestor, restored_runs=restored), cache_dir=caches)
    return LogDir(MemoryProvider(ingestor.store, ingestor), cache_dir=caches)


def open_replica(store: str | os.PathLike[str], *, records: bool | None = None) -> LogDir:
    """The store in directory ``store`` read as a replica (``ridgeline serve --store DIR``): never written, its
    writer lock never taken, each run served as its last committed manifest describes it (see
    :mod:`ridgeline.store.replica`). ``LogDir.reload()`` (or ``LogDir.start(interval)``) reads what the indexer
    committed since.

    Images, histograms and every other non-scalar record are read from the event files the store refers to:
    ``records=None`` reads them when every log directory the indexer recorded can be read from here, and serves
    scalars only otherwise (a record asked for raises ``RecordsUnavailable``, a StoreError saying so; see
    :func:`scalars_only`). Raises StoreError when ``store`` is not a store this version reads."""
    from ridgeline.store.disk_provider import DiskProvider

    replica = _replica(store, records)
    replica.reload()
    return LogDir(DiskProvider(replica.store, replica, directory=replica.directory), cache_dir=None)


def replica_label(store: str | os.PathLike[str]) -> str:
    """What a replica of ``store`` names as its log directory (StoreError when ``store`` is no store)."""
    return _replica(store, False).label


def _replica(store: str | os.PathLike[str], records: bool | None) -> Replica:
    from ridgeline.store.cache import default_cache_dir
    from ridgeline.store.files import StoreError
    from ridgeline.store.remote_store import Mirror
    from ridgeline.store.replica import Replica

    if _is_url(store):
        fs, root = _fsspec(str(store))
        mirror = Mirror(fs, root, default_cache_dir() / f"replica-{_digest(str(store))}")
        try:
            mirror.sync()
        except (OSError, ValueError) as error:
            raise StoreError(getattr(error, "errno", 0) or 0, f"store {str(store)!r} cannot be read: {error}") from None
        if not (mirror.local / "store.json").exists():
            raise StoreError(
                0,
                f"store {str(store)!r} has no store.json (no indexer has published it yet?): run `ridgeline index "
                f"--logdir LOGDIR --store {store}` first",
            )
        replica = Replica(mirror.local, None, sync=mirror.sync)
    else:
        replica = Replica(store, None)
    if records is None:
        records = _readable(replica.directory)
    if records:
        replica.event_files = _EventFiles()
    return replica


def scalars_only(logdir: LogDir) -> bool:
    """Whether ``logdir`` is a replica that cannot read the event files (it serves scalars only)."""
    replica = sys.modules.get("ridgeline.store.replica")  # not imported: no replica was opened
    disk = sys.modules.get("ridgeline.store.disk_provider")
    if replica is None or disk is None or not isinstance(logdir.provider, disk.DiskProvider):
        return False
    loader = logdir.provider.loader
    return isinstance(loader, replica.Replica) and loader.event_files is None


def opening(
    logdir: str | os.PathLike[str] | list[str] | None,
    *,
    cache: bool = True,
    cache_dir: str | os.PathLike[str] | None = None,
    store: str | os.PathLike[str] | None = None,
    check_crc: bool = True,
    parallel: bool = True,
) -> Opening:
    """A log directory opened as :func:`open` opens it, but not read yet: :meth:`Opening.load` reads it while
    ``Opening.logdir`` already answers (what a server does to answer at once). Raises what ``open`` raises for a
    log directory or cache directory it cannot use. ``logdir=None`` with a ``store``: a replica (see
    :func:`open_replica`), read by :meth:`Opening.load`."""
    if logdir is None:
        if store is None:
            raise LogDirError("give a log directory to read, or a store to read as a replica (store=DIR)")
        from ridgeline.store.disk_provider import DiskProvider

        replica = _replica(store, None)
        return Opening(LogDir(DiskProvider(replica.store, replica, directory=replica.directory)), replica)
    ingestor, opened = _ingestor(logdir, cache, cache_dir, check_crc, parallel, store)
    if opened is None:
        provider: Provider = MemoryProvider(ingestor.store, ingestor)
    else:
        from ridgeline.store.disk_provider import DiskProvider

        provider = DiskProvider(opened, ingestor)
    return Opening(LogDir(provider, cache_dir=_caches(cache, cache_dir, store)), ingestor)


def _caches(
    cache: bool, cache_dir: str | os.PathLike[str] | None, store: str | os.PathLike[str] | None = None
) -> Path | None:
    """Where what else is cached (parsed profiler traces) goes: the cache directory, and nowhere without cache
    (nor beside a store of the user's choosing, unless a cache directory is named too)."""
    if not cache or (store is not None and cache_dir is None):
        return None
    if cache_dir is not None:
        return Path(cache_dir)
    from ridgeline.store.cache import default_cache_dir

    return default_cache_dir()


class Opening:
    """A LogDir whose first pass is still to run (:func:`opening`).

    While :meth:`load` runs (in another thread), ``logdir`` lists each run once its reading began, and its
    ``generation`` moves after every run read; :meth:`state` says how far the pass got.
    """

    def __init__(self, logdir: LogDir, ingestor: Ingestor | Replica) -> None:
        self.logdir = logdir
        self._ingestor = ingestor
        self._cancel = threading.Event()
        self._files: tuple[int, int | None] = (0, None)
        self._loaded = threading.Event()

    def load(self, progress: Callable[[int, int], None] | None = None) -> LogDir:
        """Run the first pass (``progress(done, total)`` as event files are read) and return ``logdir``; ends
        early once :meth:`cancel` was called."""

        def step(done: int, total: int) -> None:
            self._files = (done, total)
            if progress is not None:
                progress(done, total)

        try:
            self._ingestor.load(step, cancel=self._cancel)
        finally:
            self._loaded.set()
        return self.logdir

    @property
    def loaded(self) -> bool:
        """Whether the first pass is over (finished, cancelled or failed)."""
        return self._loaded.is_set()

    def cancel(self) -> None:
        """End the first pass after the run it is reading (the server stopping while it loads)."""
        self._cancel.set()

    def state(self) -> dict[str, int | None] | None:
        """``{"files_read", "files", "runs"}`` while the first pass runs (``files`` None until the log directories
        were listed), None once it is over."""
        if self._loaded.is_set():
            return None
        done, total = self._files
        return {"files_read": done, "files": total, "runs": len(self.logdir.runs())}


def _ingestor(
    logdir: str | os.PathLike[str] | list[str],
    cache: bool,
    cache_dir: str | os.PathLike[str] | None,
    check_crc: bool,
    parallel: bool,
    store: str | os.PathLike[str] | None = None,
) -> tuple[Ingestor, DiskStore | None]:
    sources = sources_from(logdir)
    named = [(s.name, s.path) for s in sources]
    publisher = None
    opened = None
    if store is not None and _is_url(store):  # indexed here, published there (ridgeline.store.remote_store)
        from ridgeline.store.cache import default_cache_dir
        from ridgeline.store.files import private_directory
        from ridgeline.store.remote_store import Publisher

        fs, root = _fsspec(str(store))
        local = Path(cache_dir) if cache_dir is not None else default_cache_dir()
        store = private_directory(local) / f"store-{_digest(str(store))}"
        publisher = Publisher(store, fs, root)
    if cache or store:
        from ridgeline.store.cache import open_store

        opened = open_store(named, {"check_crc": check_crc}, cache_dir, store=store)
    ingestor = _Publishing(sources, check_crc=check_crc, parallel=parallel, store=opened)
    ingestor.publisher = publisher
    return ingestor, opened


class _Publishing(Ingestor):
    """Ingest that uploads the store after each pass when it lives on object storage (``publisher``)."""

    publisher: Publisher | None = None

    def load(self, progress: Progress | None = None, cancel: threading.Event | None = None) -> tuple[int, PassStats]:
        done = super().load(progress, cancel)
        if self.publisher is not None:
            self.publisher.publish()
        return done

    def reload(self, cancel: threading.Event | None = None) -> PassStats:
        stats = super().reload(cancel)
        if self.publisher is not None:
            self.publisher.publish()
        return stats


def _is_url(path: str | os.PathLike[str]) -> bool:
    return "://" in str(path)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _fsspec(url: str) -> tuple[Any, str]:
    """The fsspec file system of ``url`` (endpoint and credentials from the environment) and its path there."""
    from ridgeline.store.files import StoreError

    try:
        import fsspec
    except ImportError as error:
        raise StoreError(0, f"store {url!r} is a URL: it needs fsspec (pip install fsspec s3fs)") from error
    try:
        fs, root = fsspec.core.url_to_fs(url, **storage_options(url.split("://", 1)[0]))
    except (ImportError, ValueError) as error:
        raise StoreError(0, f"store {url!r}: {error}") from error
    return fs, str(root)


def _readable(directory: Path) -> bool:
    """Whether every log directory the store's indexer recorded can be read from here (URLs: assumed so)."""
    from ridgeline.store.files import read_json
    from ridgeline.store.replica import SOURCES_FILE

    sources = read_json(directory / SOURCES_FILE)
    if not isinstance(sources, dict) or not isinstance(sources.get("sources"), list):
        return False
    paths = [str(entry[1]) for entry in sources["sources"] if isinstance(entry, list) and len(entry) == 2]
    return bool(paths) and all("://" in path or os.access(path, os.R_OK | os.X_OK) for path in paths)


class _EventFiles:
    """A replica's reads from the log directory: one record decoded, a run's projector and notes files."""

    def __init__(self) -> None:
        self._systems: dict[str, FileSystem] = {}

    def _fs(self, path: str) -> FileSystem:
        scheme = path.split("://", 1)[0] if "://" in path else ""
        if scheme not in self._systems:
            self._systems[scheme] = filesystem_for(path)
        return self._systems[scheme]

    def read_value(self, kind: Kind, ref: BlobRef, metadata: SummaryMetadata | None) -> DecodedPayload:
        try:
            data = self._fs(ref.path).read(ref.path, ref.offset, ref.length)
        except OSError as error:
            from ridgeline.store.replica import RecordsUnavailable

            raise RecordsUnavailable(
                error.errno or 0, f"event file {ref.path!r} cannot be read from this replica: {error}"
            ) from None
        return decode_value(kind, data, ref.value_index, metadata)

    def embeddings(self, directory: str) -> list[EmbeddingRef]:
        return read_projector(directory, self._fs(directory).open_binary) if directory else []

    def notes_file(self, directory: str) -> str | None:
        if not directory:
            return None
        fs = self._fs(directory)
        for name in NOTES_FILES:
            try:
                with fs.open_binary(fs.join(directory, name)) as file:
                    return file.read(MAX_NOTES_BYTES).decode("utf-8", "replace")
            except OSError:
                continue
        return None

    def last_modified(self, paths: list[str]) -> float | None:
        times = [when for path in paths if (when := self._fs(path).modified(path)) is not None]
        return max(times, default=None)
