"""Reading ahead: event files read and parsed in worker threads while one thread appends what they parsed.

Reading a file and the compiled core's record loop both release the GIL, so that work runs in parallel in plain
threads: no fork, no spawn, usable from the threaded server or any caller. Appending to the store holds the GIL
and a series takes one writer thread, so it stays in the caller's thread, file after file, in record order:
:func:`ridgeline.ingest.tail.read_new` takes a file's :class:`FileJob` and applies its chunks before it reads
the rest itself.

A job parses its file from its start, chunk by chunk, exactly as ``read_new`` would, and stops at the end of the
file as it was when the job started, or at the first chunk that decides nothing alone (a record longer than a
chunk, a damaged span that crosses one: ``read_new`` takes over there). At most ``limit`` chunks wait to be
applied; the worker then waits for the caller, so memory stays bounded whatever the file's size, and a large
file is parsed one chunk ahead of its appends (a two-stage pipeline even for one run).

When it pays (:func:`worth_threads`): only with the compiled core (the numpy loop holds the GIL for most of its
work, and threads only add switching), only with two or more CPUs this process may run on, only while at least
one of them is idle (the 1-minute load average at most the CPU count minus one), and only for enough bytes that
a thread's start is noise. The work is the same as in one thread, but it is handed between threads several
times a chunk, and on a saturated machine each hand-over waits for the scheduler: at a load average of 15-20 on
2 CPUs, threads took 1.2x one thread's time on 1,000 small files and 1.7x on one 1.6 GB file, while they won on
a machine with a CPU to spare (bench/ingest.py measures both in every run).
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from ridgeline.ingest import fastpath
from ridgeline.ingest.discovery import FileSystem
from ridgeline.ingest.fastpath import ParsedRecords, parse_records
from ridgeline.ingest.tail import CHUNK_BYTES

AHEAD_CHUNKS = 16  # parsed chunks (of up to CHUNK_BYTES read) waiting per file, at most
MAX_WORKERS = 8
MIN_BYTES = 4 << 20  # below this, one thread reads the whole first pass before a worker would have started


@dataclass(frozen=True, slots=True)
class Chunk:
    """One parsed chunk of a file: ``parsed`` is the parse of the bytes from ``offset``; ``buffer`` holds them
    when records in it need the slow path, and is empty otherwise (the scalars are in ``parsed``)."""

    offset: int
    parsed: ParsedRecords
    buffer: bytes


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the platform has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def load_average() -> float | None:
    """The 1-minute load average, None where the platform has none."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def worth_threads(total_bytes: int, *, cpus: int | None = None, load: float | None = None) -> bool:
    """Whether a first pass over ``total_bytes`` of event files should read ahead in threads (module docstring);
    ``cpus`` and ``load`` default to this process's usable CPUs and the machine's load average."""
    if fastpath.IMPLEMENTATION != "core" or total_bytes < MIN_BYTES:
        return False
    cpus = usable_cpus() if cpus is None else cpus
    load = load_average() if load is None else load
    return cpus >= 2 and (load is None or load <= cpus - 1)


class FileJob:
    """One file read and parsed ahead, from offset 0, by a worker thread; its chunks are taken in order by one
    consumer (:meth:`chunks`). Started by :class:`ReadAhead`."""

    def __init__(self, path: str, fs: FileSystem, size: int, check_crc: bool, limit: int = AHEAD_CHUNKS) -> None:
        self.path = path
        self.fs = fs
        self.size = size  # the file's size when the job was made: what it reads up to
        self.check_crc = check_crc
        self._limit = max(1, limit)
        self._ready: deque[Chunk] = deque()
        self._changed = threading.Condition()
        self._finished = False
        self._cancelled = False
        self._error: BaseException | None = None

    # --- worker thread ------------------------------------------------------------------------------------------
    def run(self) -> None:
        offset = 0
        try:
            while offset < self.size and not self._cancelled:
                available = self.size - offset
                buffer = self.fs.read(self.path, offset, min(CHUNK_BYTES, available))
                if not buffer:
                    break
                parsed = parse_records(buffer, check_crc=self.check_crc, available=available)
                if parsed.end == 0:  # the record at offset needs more than a chunk: read_new's to decide
                    break
                if not self._put(Chunk(offset, parsed, buffer if len(parsed.other_order) else b"")):
                    break
                offset += parsed.end
        except OSError:
            pass  # read_new reads from where the chunks stop and reports the error itself
        except BaseException as error:  # a bug: raised in the consumer's thread, not lost in this one
            self._error = error
        finally:
            with self._changed:
                self._finished = True
                self._changed.notify_all()

    def _put(self, chunk: Chunk) -> bool:
        with self._changed:
            while len(self._ready) >= self._limit and not self._cancelled:
                self._changed.wait()
            if self._cancelled:
                return False
            self._ready.append(chunk)
            self._changed.notify_all()
            return True

    @property
    def pending(self) -> int:
        """Chunks parsed and not taken yet."""
        return len(self._ready)

    # --- consumer -----------------------------------------------------------------------------------------------
    def chunks(self) -> Iterator[Chunk]:
        """The parsed chunks, in file order, as the worker produces them; ends where the worker stopped."""
        while True:
            with self._changed:
                while not self._ready and not self._finished:
                    self._changed.wait()
                if not self._ready:
                    if self._error is not None:
                        raise self._error
                    return
                chunk = self._ready.popleft()
                self._changed.notify_all()
            yield chunk

    def cancel(self) -> None:
        """Stop the worker at its next chunk and drop what it parsed (the consumer reads the file itself)."""
        with self._changed:
            self._cancelled = True
            self._ready.clear()
            self._changed.notify_all()


class ReadAhead:
    """A pool of worker threads reading files ahead of one consumer, which takes their jobs in the order the files
    were given: at most ``workers + 1`` jobs are started and not yet taken, so the pool never runs far ahead."""

    def __init__(
        self, files: list[tuple[str, FileSystem, int]], *, check_crc: bool, workers: int | None = None
    ) -> None:
        self._workers = max(1, min(MAX_WORKERS, usable_cpus() if workers is None else workers))
        self._pool = ThreadPoolExecutor(max_workers=self._workers, thread_name_prefix="ridgeline-read-ahead")
        self._jobs = [FileJob(path, fs, size, check_crc) for path, fs, size in files]
        self._waiting = deque(self._jobs)
        self._started: dict[str, FileJob] = {}
        self._fill()

    def _fill(self) -> None:
        while self._waiting and len(self._started) <= self._workers:
            job = self._waiting.popleft()
            self._started[job.path] = job
            self._pool.submit(job.run)

    def take(self, path: str) -> FileJob | None:
        """The job of ``path`` (None if it was not given, or was taken); the next file's job starts."""
        job = self._started.pop(path, None)
        if job is None:
            # Taken out of order (a run re-read after a rewrite): drop it, the caller reads the file itself.
            for waiting in self._waiting:
                if waiting.path == path:
                    self._waiting.remove(waiting)
                    break
        self._fill()
        return job

    def discard(self, paths: list[str]) -> None:
        """Drop the jobs of ``paths`` not taken yet (their run is read again from scratch, without them)."""
        for path in paths:
            job = self.take(path)
            if job is not None:
                job.cancel()

    def close(self) -> None:
        """Cancel every job (those taken are done with by now) and wait for the workers to stop."""
        for job in self._jobs:
            job.cancel()
        self._waiting.clear()
        self._started.clear()
        self._pool.shutdown(wait=True)

    def __enter__(self) -> ReadAhead:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
