"""One event file and the background thread that fills it.

The training thread only appends to a queue; a daemon thread turns what is queued into records and writes
them with one ``os.write`` per batch. Scalars, the overwhelming majority of calls, travel as plain tuples and
are encoded straight into Event bytes by :func:`encode_scalar_event`, so a call costs the caller about as much
as a ``deque.append``.

Guarantees:
- Nothing is dropped. The queue is bounded (by count and by bytes); a full queue makes the caller wait.
- ``flush()`` returns once everything queued before it has been handed to the operating system, so it survives
  the process being killed. ``close()`` and interpreter exit flush too.
- An error in the background thread (disk full, the file or its directory removed) is raised on the caller's
  next call and on ``close()``.
- After ``fork()`` the child never touches the parent's file: the first event it logs opens a file of its own.
- While the file is open its modification time is at most :data:`HEARTBEAT_SECS` old, even when nothing is
  logged (the thread touches it): a reader tells a live run that is quiet (a long epoch) from one whose process
  died (``ridgeline.store.status``). No record is written for it.
- With ``compression="gzip"`` the file's name ends ``.gz`` and every write is one complete gzip member (RFC 1952
  allows any number in a file), so what a flush wrote survives a SIGKILL as it does uncompressed; a kill during
  a write leaves at most that member cut short, which readers wait for and never report. TensorBoard cannot
  read such files.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import os
import socket
import struct
import threading
import time
import weakref
import zlib
from collections import deque
from typing import Any

from ridgeline.format import records
from ridgeline.format.proto import event_pb2, summary_pb2
from ridgeline.format.wire import encode_varint as _varint

FILE_VERSION = "brain.Event:2"
MAX_PENDING_EVENTS = 1 << 16
MAX_PENDING_BYTES = 64 << 20
WRITE_BATCH = 4096  # records per os.write while draining a backlog
HEARTBEAT_SECS = 30.0  # an open file's modification time is never older than this
COMPRESSIONS = (None, "gzip")
GZIP_LEVEL = 6  # zlib's default: most of level 9's ratio on event records at a fraction of its time


def _scalar_core() -> Any:
    """The compiled framing of queued scalars (``_scalar_core.c``), or None where it was not built: then each
    scalar is framed in Python (the same bytes, about 2 µs of the writer thread's time a scalar instead of 0.1)."""
    try:
        from ridgeline.writer import _scalar_core as core  # type: ignore[attr-defined]
    except ImportError:
        return None
    return core


SCALAR_CORE: Any = _scalar_core()  # tests set it to None to take the Python path
_uid = itertools.count()
_live_writers: weakref.WeakSet[EventFileWriter] = weakref.WeakSet()

_DOUBLE = struct.Struct("<d")
_FLOAT = struct.Struct("<f")
_ZERO_DOUBLE = bytes(8)
_FLOAT_INF = _FLOAT.pack(float("inf"))
_FLOAT_NEG_INF = _FLOAT.pack(float("-inf"))


def _scalar_head(tag: str) -> bytes:
    """Everything of a scalar Event from the summary field up to the float, which depends only on the tag.

    Event.summary (field 5) > Summary.value (field 1) > Value.tag (field 1), then the tag of
    Value.simple_value (field 2, fixed32).
    """
    tag_bytes = tag.encode("utf-8")
    value = b"\x0a" + _varint(len(tag_bytes)) + tag_bytes + b"\x15"
    value_length = len(value) + 4
    summary_length = 1 + len(_varint(value_length)) + value_length
    return b"\x2a" + _varint(summary_length) + b"\x0a" + _varint(value_length) + value


def _float32(value: float) -> bytes:
    try:
        return _FLOAT.pack(value)
    except OverflowError:  # beyond float32's range: the float cast that protobuf does gives ±inf too
        return _FLOAT_INF if value > 0 else _FLOAT_NEG_INF


def encode_scalar_event(head: bytes, value: float, step: int, wall_time: float) -> bytes:
    """The serialized ``Event(wall_time, step, summary=Summary(value=[Value(tag, simple_value)]))``.

    Byte-for-byte what protobuf produces: fields in number order, defaults (wall_time 0.0, step 0) omitted.
    """
    wall = _DOUBLE.pack(wall_time)
    parts = b"\x09" + wall if wall != _ZERO_DOUBLE else b""
    if step:
        parts += b"\x10" + _varint(step)
    return parts + head + _float32(value)


class _Flush:
    """A marker in the queue: set once everything queued before it is written."""

    __slots__ = ("done",)

    def __init__(self) -> None:
        self.done = threading.Event()


class _OpenOnFirstUse:
    """Stands in for the queue of a writer inherited through fork(): the first append opens the child's file."""

    __slots__ = ("writer",)

    def __init__(self, writer: EventFileWriter) -> None:
        self.writer = writer

    def __len__(self) -> int:
        return 0

    def append(self, item: Any) -> None:
        self.writer._open()
        self.writer._queue.append(item)


class EventFileWriter:
    """Writes events to a new file in ``log_dir`` from a background thread.

    Args:
        log_dir: the directory; created if missing. An unwritable directory raises ValueError here, not later.
        max_queue: the background thread is woken to write once this many events are pending.
        flush_secs: pending events are written at least this often.
        filename_suffix: appended to the file name.
        compression: None, or ``"gzip"``: the name ends ``.gz`` and each write is one complete gzip member.
    """

    def __init__(
        self,
        log_dir: str,
        max_queue: int = 10,
        flush_secs: float = 120,
        filename_suffix: str = "",
        compression: str | None = None,
    ) -> None:
        if compression not in COMPRESSIONS:
            raise ValueError(f"compression must be None or 'gzip', got {compression!r}")
        self.compression = compression
        self.log_dir = log_dir
        self.max_queue = max(1, int(max_queue))
        self.flush_secs = float(flush_secs)
        self.filename_suffix = filename_suffix
        self._scalar_heads: dict[str, bytes] = {}
        self._closed = False
        self._open()
        _live_writers.add(self)

    # --- opening -----------------------------------------------------------------------------------------
    def _open(self) -> None:
        """Create the file with its version record, and start the thread that fills it."""
        self._queue: deque[Any] = deque()
        self._bytes_lock = threading.Lock()
        self._bytes_queued = 0
        self._bytes_written = 0
        self._wake = threading.Event()
        self._space = threading.Condition()
        self._error: BaseException | None = None
        self._stopping = False
        self._wake_at = min(self.max_queue, MAX_PENDING_EVENTS)  # never let the backlog pass the capacity unseen
        self._pid = os.getpid()
        self.path = os.path.join(
            self.log_dir,
            f"events.out.tfevents.{int(time.time()):010d}.{socket.gethostname()}.{self._pid}.{next(_uid)}"
            + self.filename_suffix
            + (".gz" if self.compression == "gzip" else ""),
        )
        try:
            os.makedirs(self.log_dir, exist_ok=True)
            self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o644)
        except OSError as error:
            raise ValueError(f"SummaryWriter: log_dir {self.log_dir!r} is not writable: {error}") from error
        self._identity = _identity(os.fstat(self._fd))
        os.write(
            self._fd,
            self._encoded(
                records.frame(event_pb2.Event(wall_time=time.time(), file_version=FILE_VERSION).SerializeToString())
            ),
        )
        self._thread = threading.Thread(target=self._run, name=f"ridgeline-writer:{self.log_dir}", daemon=True)
        self._thread.start()

    # --- the caller's side ---------------------------------------------------------------------------------
    def add_scalar(self, tag: str, value: float, step: int, wall_time: float) -> None:
        """Queue one simple_value scalar. ``value`` must be a float, ``step`` an int in int64 range."""
        if self._error is not None:
            self._raise_error()
        queue = self._queue
        queue.append((tag, value, step, wall_time))
        if len(queue) >= self._wake_at:
            self._on_backlog()

    def add_event(self, event: Any, step: Any = None, walltime: float | None = None) -> None:
        """Queue an Event message (ours, or torch's/TensorBoard's: any message with Event's fields).

        As in torch's FileWriter, the event's wall_time is set to ``walltime`` (default now), and its step to
        ``step`` when given.
        """
        event.wall_time = time.time() if walltime is None else float(walltime)
        if step is not None:
            event.step = int(step)
        self.add_serialized(event.SerializeToString())

    def add_summary(self, summary: Any, global_step: Any = None, walltime: float | None = None) -> None:
        """Queue a Summary message as torch's ``FileWriter.add_summary`` does (Lightning calls it directly)."""
        event = event_pb2.Event(summary=summary_pb2.Summary.FromString(summary.SerializeToString()))
        self.add_event(event, global_step, walltime)

    def get_logdir(self) -> str:
        return self.log_dir

    def add_serialized(self, data: bytes) -> None:
        if self._error is not None:
            self._raise_error()
        with self._bytes_lock:
            self._bytes_queued += len(data)
        self._queue.append(data)
        if len(self._queue) >= self._wake_at or self._bytes_queued - self._bytes_written > MAX_PENDING_BYTES:
            self._on_backlog()

    def _on_backlog(self) -> None:
        """Wake the thread; if the queue is full, wait until it has room (never drop)."""
        if not self._wake.is_set():
            self._wake.set()
        if len(self._queue) < MAX_PENDING_EVENTS and self._bytes_queued - self._bytes_written <= MAX_PENDING_BYTES:
            return
        resume_below = max(MAX_PENDING_EVENTS // 2, MAX_PENDING_EVENTS - WRITE_BATCH)  # about one batch written
        with self._space:
            while (
                self._error is None
                and self._thread.is_alive()
                and (len(self._queue) >= resume_below or self._bytes_queued - self._bytes_written > MAX_PENDING_BYTES)
            ):
                self._wake.set()
                self._space.wait(0.05)
        if self._error is not None:
            self._raise_error()

    def flush(self) -> None:
        """Return once everything queued so far is written to the file (in the OS's hands)."""
        if self._closed:
            return
        if self._error is not None:
            self._raise_error()
        if isinstance(self._queue, _OpenOnFirstUse):  # a fork child that has not logged: nothing to flush
            return
        marker = _Flush()
        self._queue.append(marker)
        self._wake.set()
        while not marker.done.wait(0.05):
            if not self._thread.is_alive():
                break
        if self._error is not None:
            self._raise_error()

    def close(self) -> None:
        """Flush, stop the thread and close the file. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        _live_writers.discard(self)
        if isinstance(self._queue, _OpenOnFirstUse):  # a fork child that never logged: nothing of ours to close
            return
        try:
            self.flush()
        finally:
            self._stopping = True
            self._wake.set()
            self._thread.join()
            os.close(self._fd)
        if self._error is not None:
            self._raise_error()

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def writable(self) -> bool:
        """Open, with a file of this process (a fork child that never logged has none yet) and no pending error."""
        return not self._closed and not isinstance(self._queue, _OpenOnFirstUse) and self._error is None

    def _raise_error(self) -> None:
        error = self._error
        raise RuntimeError(f"ridgeline: writing {self.path} failed: {error}") from error

    # --- the background thread ---------------------------------------------------------------------------
    def _run(self) -> None:
        deadline = time.monotonic() + self.flush_secs
        beat = time.monotonic() + HEARTBEAT_SECS
        while True:
            woken = self._wake.wait(max(0.0, min(deadline, beat) - time.monotonic()))
            if time.monotonic() >= beat:
                self._heartbeat()
                beat = time.monotonic() + HEARTBEAT_SECS
            if not woken and time.monotonic() < deadline:  # only the heartbeat was due: the queue waits its turn
                continue
            self._wake.clear()
            stopping = self._stopping
            try:
                self._drain()
            except BaseException as error:  # reported to the caller, never swallowed
                self._error = error
                self._release_waiters()
                return
            if stopping:
                return
            if time.monotonic() >= deadline:
                deadline = time.monotonic() + self.flush_secs

    def _drain(self) -> None:
        """Write everything queued, in order, in as few system calls as possible."""
        queue = self._queue
        heads = self._scalar_heads
        frame = records.frame
        masked_crc = records.masked_crc32c
        pack_length = records.LENGTH.pack
        pack_crc = records.CRC.pack
        compiled = SCALAR_CORE
        batch: list[bytes] = []
        batched = 0  # records in batch
        drained_bytes = 0
        while True:
            try:
                item = queue.popleft()
            except IndexError:
                break
            if type(item) is tuple and compiled is not None:
                # The scalars queued next to each other framed in one call (only this thread pops the queue).
                run = [item]
                room = WRITE_BATCH - batched
                while len(run) < room and queue and type(queue[0]) is tuple:
                    run.append(queue.popleft())
                batch.append(compiled.frame(run, heads, _scalar_head))
                batched += len(run)
            elif type(item) is tuple:
                tag, value, step, wall_time = item
                head = heads.get(tag)
                if head is None:
                    head = heads[tag] = _scalar_head(tag)
                data = encode_scalar_event(head, value, step, wall_time)
                length = pack_length(len(data))
                batch.append(length + pack_crc(masked_crc(length)) + data + pack_crc(masked_crc(data)))
                batched += 1
            elif type(item) is bytes:
                batch.append(frame(item))
                batched += 1
                drained_bytes += len(item)
            else:  # a flush marker: everything before it goes out now
                self._write(batch)
                batch, batched = [], 0
                item.done.set()
            if batched >= WRITE_BATCH:
                self._write(batch)
                batch, batched = [], 0
                self._release_waiters()  # a caller blocked on a full queue resumes as soon as there is room
        self._write(batch)
        if drained_bytes:
            with self._bytes_lock:
                self._bytes_written += drained_bytes
        self._release_waiters()

    def _write(self, batch: list[bytes]) -> None:
        if not batch:
            return
        data = memoryview(self._encoded(b"".join(batch)))
        while data:
            written = os.write(self._fd, data)
            data = data[written:]
        self._check_still_there()

    def _encoded(self, data: bytes) -> bytes:
        """What goes into the file for ``data``: itself, or one complete gzip member holding it."""
        return zlib.compress(data, GZIP_LEVEL, wbits=31) if self.compression == "gzip" else data

    def _check_still_there(self) -> None:
        """Writes into a file whose directory was removed succeed and go nowhere: tell the caller instead (the
        next call raises, as for a full disk)."""
        try:
            found = _identity(os.stat(self.path))
        except FileNotFoundError:
            found = None
        if found != self._identity:
            raise OSError(
                f"the event file was deleted or replaced while the run was writing to it (was the log directory "
                f"{self.log_dir!r} removed?); what was logged since is not on disk"
            )

    def _heartbeat(self) -> None:
        """Touch the file: its modification time says the process is alive (no byte is written)."""
        with contextlib.suppress(OSError, NotImplementedError):
            os.utime(self._fd if os.utime in os.supports_fd else self.path)

    def _release_waiters(self) -> None:
        with self._space:
            self._space.notify_all()

    # --- fork ------------------------------------------------------------------------------------------------
    def _after_fork_in_child(self) -> None:
        """The parent's thread does not exist here and its file is not ours: start over lazily."""
        if self._closed:
            return
        with contextlib.suppress(OSError):
            os.close(self._fd)
        self._queue = _OpenOnFirstUse(self)  # type: ignore[assignment]
        self._wake = threading.Event()
        self._space = threading.Condition()
        self._bytes_lock = threading.Lock()
        self._bytes_queued = self._bytes_written = 0


def _identity(stat: os.stat_result) -> tuple[int, int]:
    return stat.st_dev, stat.st_ino


def _after_fork_in_child() -> None:
    for writer in list(_live_writers):
        writer._after_fork_in_child()


def _close_all_at_exit() -> None:
    for writer in list(_live_writers):
        if writer._pid == os.getpid():
            try:
                writer.close()
            except Exception as error:  # one failed writer must not stop the others from flushing
                print(f"ridgeline: {error}", flush=True)


os.register_at_fork(after_in_child=_after_fork_in_child)
atexit.register(_close_all_at_exit)
