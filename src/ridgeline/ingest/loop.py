"""Keeping the store current: discover runs, read what each file gained, in passes.

``Ingestor.reload()`` is one pass; ``Ingestor.start(interval)`` runs passes in a background thread (the server
starts it in its lifespan). The first pass reads the files of runs not read yet ahead in worker threads when that
pays (:mod:`ridgeline.ingest.ahead`: the compiled core parses without the GIL) and appends them in the calling
thread; later passes read only new bytes.
"""

from __future__ import annotations

import base64
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeGuard

from ridgeline.format.proto.summary_pb2 import SummaryMetadata
from ridgeline.ingest.ahead import ReadAhead, worth_threads
from ridgeline.ingest.decode import EventDecoder
from ridgeline.ingest.discovery import (
    FileSystem,
    LocalFileSystem,
    LogDirSource,
    check_source,
    filesystem_for,
    find_runs,
)
from ridgeline.ingest.fastpath import masked_crc32c
from ridgeline.ingest.payload_decode import decode_value
from ridgeline.ingest.projector import EmbeddingRef, read_projector
from ridgeline.ingest.tail import FileTail, read_new
from ridgeline.store.base import BlobRef, Kind, Problem
from ridgeline.store.collect import long_lived
from ridgeline.store.payloads import DecodedPayload
from ridgeline.store.provider import MAX_NOTES_BYTES, NOTES_FILES
from ridgeline.store.run import Store

if TYPE_CHECKING:
    from ridgeline.store.disk import DiskStore

# Called with (files read, files to read) as the first pass goes: the CLI's progress bar.
Progress = Callable[[int, int], None]

FINGERPRINT_BYTES = 4096
# Records read into an on-disk store after which the pass has them written out (DiskStore.write_pending, in the
# background) before the next run: a cold pass over a log directory larger than memory holds about twice this many
# points (~24 B each) pending, not all of them.
PENDING_RECORDS = 8_000_000
REMOTE_WORKERS = 8  # requests in flight while the first pass reads a log directory behind a URL


@dataclass
class RunState:
    """What ingest keeps per run besides its data: its files' positions and its decoder."""

    name: str
    fs: FileSystem
    decoder: EventDecoder = field(default_factory=EventDecoder)
    tails: dict[str, FileTail] = field(default_factory=dict)
    # The last resume state handed to the store, with what it was made from (see Ingestor._resume_state).
    resume: tuple[object, dict[str, object]] | None = field(default=None, repr=False)


@dataclass
class PassStats:
    runs: int = 0
    files: int = 0
    records: int = 0
    seconds: float = 0.0


class Ingestor:
    """Reads log directories into a :class:`Store`, pass after pass: the loader behind the in-memory backend
    (:class:`ridgeline.store.memory.MemoryProvider`), which also asks it to decode records and list embeddings."""

    def __init__(
        self,
        sources: list[LogDirSource],
        *,
        check_crc: bool = True,
        parallel: bool = True,
        store: Store | None = None,
    ) -> None:
        self.sources = [(source, filesystem_for(source.path)) for source in sources]
        for source, fs in self.sources:
            check_source(source, fs)
        self.check_crc = check_crc
        self.parallel = parallel
        self.store = store if store is not None else Store()  # a DiskStore keeps what was read for the next start
        self.states: dict[str, RunState] = {}
        self.directories: dict[str, str] = {}  # run name -> its directory
        self._pass_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def label(self) -> str:
        """``path`` for one log directory, ``name:path,...`` for several (the ``--logdir`` spec it was given)."""
        if len(self.sources) == 1:
            return self.sources[0][0].path
        return ",".join(f"{source.name}:{source.path}" if source.name else source.path for source, _ in self.sources)

    # --- reading records back -----------------------------------------------------------------------------
    def read_value(self, run: str, kind: Kind, tag: str, ref: BlobRef) -> DecodedPayload:
        """Decode the record ``ref`` of the run's series ``(kind, tag)`` from its event file."""
        state = self.states[run]
        data = state.fs.read(ref.path, ref.offset, ref.length)
        return decode_value(kind, data, ref.value_index, state.decoder.metadata(tag))

    def embeddings(self, run: str) -> list[EmbeddingRef]:
        """The run's projector embeddings (its ``projector_config.pbtxt``), files read lazily."""
        return read_projector(self.directories[run], self.states[run].fs.open_binary)

    def notes_file(self, run: str) -> str | None:
        """The run's README.md, README.txt or NOTES.md, read now (see ``Provider.notes_file``)."""
        fs = self.states[run].fs
        for name in NOTES_FILES:
            try:
                with fs.open_binary(fs.join(self.directories[run], name)) as file:
                    return file.read(MAX_NOTES_BYTES).decode("utf-8", "replace")
            except OSError:
                continue
        return None

    def run_directory(self, run: str) -> str:
        """The run's directory, a local path or a URL, as discovery found it."""
        return self.directories[run]

    def last_modified(self, run: str) -> float | None:
        """When the run's event files were last modified (``Provider.last_modified``): asked of the file system
        now, or on object storage as the last pass's listing gave it."""
        state = self.states[run]
        times = [when for path in list(state.tails) if (when := state.fs.modified(path)) is not None]
        return max(times, default=None)

    # --- passes -------------------------------------------------------------------------------------------
    def reload(self, cancel: threading.Event | None = None) -> PassStats:
        """One pass: find new runs and files, read what every file gained since the last pass. Once ``cancel`` is
        set the pass ends after the run it is reading (the rest waits for the next pass)."""
        with self._pass_lock:
            return self._pass(self._discover(), cancel=cancel)

    def load(self, progress: Progress | None = None, cancel: threading.Event | None = None) -> tuple[int, PassStats]:
        """The first pass: take unchanged runs from the cache, then read everything else, from one listing of
        the log directories. Returns how many runs came from the cache, and the pass's statistics.
        ``progress(done, total)`` is called as event files are read (runs from the cache count as read).

        Readers may read the store meanwhile (a server answering while it loads): each run is listed once its
        reading began, and the store's generation moves after every run read, so a listing remembered by
        generation is rebuilt as runs arrive. ``cancel`` ends the pass early, as for :meth:`reload`."""
        with self._pass_lock:
            discovered = self._discover()
            restored = self._restore(discovered)
            if restored:
                self.store.generation += 1
            return restored, self._pass(discovered, progress, cancel=cancel, per_run_generation=True)

    def _pass(
        self,
        discovered: dict[str, tuple[FileSystem, list[str]]],
        progress: Progress | None = None,
        *,
        cancel: threading.Event | None = None,
        per_run_generation: bool = False,
    ) -> PassStats:
        started = time.perf_counter()
        stats = PassStats()
        known = set(self.store.runs)
        total = sum(len(files) for _, files in discovered.values())
        cold = [name for name in discovered if name not in self.states]
        ahead = self._read_ahead(cold, discovered) if self.parallel else None
        done = unwritten = 0
        read_since: list[str] = []  # the runs read since the store last wrote
        try:
            for name, (fs, files) in discovered.items():
                if cancel is not None and cancel.is_set():
                    break
                state = self.states.get(name)
                if state is None:
                    state = self.states[name] = RunState(name, fs)
                with long_lived():  # what a run's reading leaves alive is its series: none of it garbage
                    records = self._read_run(state, files, ahead)
                stats.records += records
                unwritten += records
                read_since.append(name)
                if unwritten >= PENDING_RECORDS and _on_disk(self.store):
                    self.store.write_pending(read_since)  # in the background, while the next runs are read
                    unwritten, read_since = 0, []
                stats.files += len(files)
                if per_run_generation and (records or name not in known):
                    self.store.generation += 1
                if progress is not None:
                    done += len(files)
                    progress(done, total)
        finally:
            if ahead is not None:
                ahead.close()
        self._drop_vanished(discovered)
        stats.runs = len(discovered)
        stats.seconds = time.perf_counter() - started
        if stats.records or set(self.store.runs) != known:
            self.store.generation += 1
        if _on_disk(self.store):
            self.store.checkpoint({name: self._resume_state(state) for name, state in self.states.items()})
        return stats

    def _drop_vanished(self, discovered: dict[str, tuple[FileSystem, list[str]]]) -> None:
        """Forget the runs whose directory was deleted (a listing that merely failed keeps them)."""
        for name in [name for name in self.states if name not in discovered]:
            state, directory = self.states[name], self.directories.get(name)
            try:
                gone = directory is None or not state.fs.is_dir(directory)
            except OSError:
                gone = False
            if gone:
                self.store.drop_run(name)
                del self.states[name]
                self.directories.pop(name, None)

    def _discover(self) -> dict[str, tuple[FileSystem, list[str]]]:
        found: dict[str, tuple[FileSystem, list[str]]] = {}
        for source, fs in self.sources:
            try:
                runs = find_runs(source, fs)
            except OSError as error:
                self.store.add_problems([Problem(source.path, None, f"cannot be listed: {error}")])
                continue
            self.store.add_problems([Problem(path, None, why) for path, why in getattr(fs, "skipped", ())])
            for name, (location, files) in runs.items():
                found[name] = (location.fs, files)
                self.directories[name] = location.directory
        return found

    def _read_run(self, state: RunState, files: list[str], ahead: ReadAhead | None = None) -> int:
        run = self.store.run(state.name)
        records = 0
        for path in files:
            tail = state.tails.get(path)
            if tail is None:
                self.store.file_started(state.name, path, {p: t.offset for p, t in state.tails.items()})
                tail = state.tails[path] = FileTail(path)
            if _rewritten(tail, state.fs):
                self.store.add_problems([Problem(path, None, "was rewritten in place; run re-read")])
                if ahead is not None:
                    ahead.discard(files)
                return records + self._reread_run(state, files, path)
            job = ahead.take(path) if ahead is not None else None
            result = read_new(tail, state.fs, run, state.decoder, check_crc=self.check_crc, ahead=job)
            self.store.add_problems(result.problems)
            records += result.records
            if tail.shrank:  # a file was rewritten: what was read from it may no longer be true
                if ahead is not None:
                    ahead.discard(files)
                return records + self._reread_run(state, files, path)
            if result.records or tail.fingerprint is None:
                tail.fingerprint = _fingerprint(tail, state.fs, result.whole)
        return records

    def _reread_run(self, state: RunState, files: list[str], changed: str) -> int:
        """Read again what ``changed`` may have made untrue: only what the run gained since that file was first
        read, where the store can take it back (``Store.rewind``); else the whole run."""
        offsets = self.store.rewind(state.name, [changed])
        if offsets is not None:
            state.tails = {path: FileTail(path, offset) for path, offset in offsets.items()}
            return self._read_run(state, files)
        self.store.drop_run(state.name)
        fresh = self.states[state.name] = RunState(state.name, state.fs)
        return self._read_run(fresh, files)

    # --- reading ahead ----------------------------------------------------------------------------------------
    def _read_ahead(self, cold: list[str], discovered: dict[str, tuple[FileSystem, list[str]]]) -> ReadAhead | None:
        """Worker threads reading the files of the runs not read yet, in the order this pass appends them; None
        when that does not pay (:func:`ridgeline.ingest.ahead.worth_threads`). Files behind a URL are always read
        ahead, by ``REMOTE_WORKERS`` threads: waiting for a request costs no CPU, and one request after the other
        made the first read of a bucket of 1,000 runs take 1,000 round trips."""
        files: list[tuple[str, FileSystem, int]] = []
        remote = False
        for name in cold:
            fs, paths = discovered[name]
            remote = remote or not isinstance(fs, LocalFileSystem)
            for path in paths:
                try:
                    files.append((path, fs, fs.size(path)))
                except OSError:
                    continue  # read_new reports it
        if remote and len(files) > 1:
            return ReadAhead(files, check_crc=self.check_crc, workers=REMOTE_WORKERS)
        if remote or not worth_threads(sum(size for _, _, size in files)):
            return None
        return ReadAhead(files, check_crc=self.check_crc)

    # --- the on-disk store ------------------------------------------------------------------------------
    def _restore(self, discovered: dict[str, tuple[FileSystem, list[str]]]) -> int:
        """Take every run whose files still begin with what was read from them from the store; returns how many.

        A run with a file that shrank or changed before the stored offset keeps what it held before that file was
        first read (``Store.rewind``: per file, not per run) and is not counted; where the store cannot, it is
        dropped and read from scratch.
        """
        if not _on_disk(self.store):
            return 0
        restored = 0
        for name, (run, resume) in self.store.stored_runs().items():
            state = _state_from(name, resume, discovered[name][0]) if name in discovered else None
            changed = [] if state is None else [p for p, tail in state.tails.items() if not _unchanged(tail, state.fs)]
            if state is not None and not changed:
                self.states[name] = state
                self.store.replace_run(run)
                restored += 1
            elif state is not None:  # keep what the run held before the first changed file was read
                self.store.replace_run(run)
                offsets = self.store.rewind(name, changed)
                if offsets is None:
                    self.store.drop_run(name)
                else:
                    state.tails = {path: FileTail(path, offset) for path, offset in offsets.items()}
                    self.states[name] = state
            else:
                self.store.forget(name)
        return restored

    def _resume_state(self, state: RunState) -> dict[str, object]:
        """What the store keeps for a run to continue from: each file's offset and the CRC of the bytes before
        it, and each tag's first SummaryMetadata (JSON: nothing in the store is ever unpickled)."""
        files = [[tail.path, tail.offset, tail.fingerprint] for tail in state.tails.values()]
        found = state.decoder.all_metadata()
        made_from = (files, len(found))  # a tag's metadata is its first: only new tags change them
        if state.resume is not None and state.resume[0] == made_from:
            # Unchanged: the same object, which the store compares first by identity (a warm start's first
            # checkpoint serialized and encoded every tag's metadata of every run again, to find it unchanged).
            return state.resume[1]
        metadata = {tag: _encoded(value) for tag, value in found.items()}
        resume: dict[str, object] = {"files": files, "metadata": metadata}
        state.resume = (made_from, resume)
        return resume

    # --- background loop ----------------------------------------------------------------------------------
    def start(self, interval: float) -> None:
        """Run passes every ``interval`` seconds in a daemon thread until :meth:`stop`."""
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, args=(interval,), name="ridgeline-ingest", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the background passes: a pass under way ends after the run it is reading."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _loop(self, interval: float) -> None:
        while not self._stop.wait(interval):
            try:
                self.reload(cancel=self._stop)
            except Exception as error:  # a pass that fails is reported; the next one tries again
                self.store.add_problems([Problem("", None, f"reload failed: {error!r}")])


def _state_from(name: str, resume: object, fs: FileSystem) -> RunState | None:
    """The RunState a store's resume state describes (None when it is not what ``_resume_state`` writes)."""
    if not isinstance(resume, dict):
        return None
    try:
        tails = {}
        for path, offset, fingerprint in resume["files"]:
            tails[str(path)] = FileTail(
                str(path), int(offset), fingerprint=None if fingerprint is None else int(fingerprint)
            )
        metadata = {
            str(tag): SummaryMetadata.FromString(base64.b64decode(text)) for tag, text in resume["metadata"].items()
        }
    except Exception:  # anything unexpected in the file: read the run again
        return None
    files = [[tail.path, tail.offset, tail.fingerprint] for tail in tails.values()]
    # What _resume_state would make of this state is what it was made from: handed back as it is while unchanged.
    same = resume["files"] == files and len(resume["metadata"]) == len(metadata)
    kept = ((files, len(metadata)), resume) if same else None
    return RunState(name, fs, EventDecoder(metadata), tails, resume=kept)


# SummaryMetadata as the store keeps it (base64 of its bytes), by the message's identity: the metadata of a
# simple_value tag is one message for every run (decode._simple_value_metadata), so a first pass over 1,000 runs of
# 10 tags serialized 10 messages 1,000 times each. A message is kept with its text (an id is only unique while
# it lives); the decoder never changes the metadata it hands out.
_ENCODED: dict[int, tuple[SummaryMetadata, str]] = {}
_ENCODED_MAX = 4096


def _encoded(metadata: SummaryMetadata) -> str:
    found = _ENCODED.get(id(metadata))
    if found is not None and found[0] is metadata:
        return found[1]
    text = base64.b64encode(metadata.SerializeToString()).decode()
    if len(_ENCODED) >= _ENCODED_MAX:
        _ENCODED.clear()
    _ENCODED[id(metadata)] = (metadata, text)
    return text


def _on_disk(store: Store) -> TypeGuard[DiskStore]:
    """Whether ``store`` is an on-disk store. Its module is imported only by whoever makes one (a read without a
    cache never does): not imported, ``store`` is none."""
    disk = sys.modules.get("ridgeline.store.disk")
    return disk is not None and isinstance(store, disk.DiskStore)


def _fingerprint(tail: FileTail, fs: FileSystem, whole: bytes | None = None) -> int | None:
    """The CRC of the first and the last (up to) 4 KiB before the tail's offset: what must still be there to
    resume from it. A file written again from the start (another job, a copy over it) differs in both: its
    first record holds the writer's own wall time. ``whole``: the file's bytes from 0 up to at least the offset,
    when the pass has them (then nothing is read again)."""
    end = tail.offset
    head = min(end, FINGERPRINT_BYTES)
    start = max(head, end - FINGERPRINT_BYTES)
    if whole is not None and len(whole) >= end:
        return masked_crc32c(bytes(whole[:head]) + bytes(whole[start:end]))
    pieces = [(0, head), (start, end - start)] if end > start else [(0, head)]
    try:
        if isinstance(fs, LocalFileSystem):  # one open for both (a warm start checks every event file)
            data = b"".join(fs.read_pieces(tail.path, pieces))
        else:
            data = b"".join(fs.read(tail.path, offset, length) for offset, length in pieces)
    except OSError:
        return None
    return masked_crc32c(data)


def _rewritten(tail: FileTail, fs: FileSystem) -> bool:
    """Whether a file read before grew since with other bytes before where reading stopped (rewritten in place
    and already longer than before). Checked only when it grew: an unchanged file costs no read; one that
    shrank is caught by :func:`read_new`."""
    if tail.fingerprint is None or tail.offset == 0:
        return False
    try:
        if fs.size(tail.path) <= tail.offset:
            return False
    except OSError:
        return False
    now = _fingerprint(tail, fs)
    return now is not None and now != tail.fingerprint


def _unchanged(tail: FileTail, fs: FileSystem) -> bool:
    try:
        if fs.size(tail.path) < tail.offset:
            return False
    except OSError:
        return False
    return tail.fingerprint is not None and _fingerprint(tail, fs) == tail.fingerprint
