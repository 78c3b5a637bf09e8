"""Gzip-compressed event files (``*.tfevents*.gz``), read as the plain bytes they hold.

The reader's file systems (:mod:`ridgeline.ingest.discovery`) hand a ``.gz`` event file to a :class:`GzipFiles`:
its ``size`` is the number of decompressed bytes in the file's *complete* gzip members, and ``read`` returns
decompressed bytes, so everything above (the tail, the compiled core, blob references, fingerprints) works on
the decompressed stream as it does on a plain file, and offsets of records are offsets in that stream.

- A file is a sequence of gzip members (RFC 1952 allows any number; ridgeline's writer writes one per write, so
  a flush always ends a member). Members are found by decompressing: a deflate stream does not say its length.
- Only complete members count. A member still being written (its end not in the file yet) is waited for, as the
  plain reader waits for a record cut short: nothing is reported while it may still complete.
- A corrupt member (bad deflate data, a CRC or length trailer that does not match) is skipped: the reader looks
  for the next member (its magic bytes, then a decode that succeeds) and reports the skipped span once, with its
  offset *in the compressed file*. Until a following member is found, the search resumes on the next pass.
- Memory stays bounded: members are decompressed in pieces, never the whole file; what a scan decompressed is
  kept (up to ``RECENT_BYTES``) for the reads that follow it, a file's first ``HEAD_BYTES`` are kept for the
  fingerprints, and a sequential read continues its decompressor instead of starting the member again. Only the
  ``ACTIVE_FILES`` files used last keep decompressed bytes and a decompressor, whatever the number of files.
- A file that shrank, or whose bytes before the last member's end changed (copied over), is indexed again from
  its start; the loop's fingerprints then see a rewritten file and re-read the run.
"""

from __future__ import annotations

import bisect
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

MAGIC = b"\x1f\x8b\x08"  # ID1, ID2, CM=deflate
RAW_PIECE = 256 << 10  # compressed bytes read at a time
OUT_PIECE = 1 << 20  # decompressed bytes produced at a time
RECENT_BYTES = 2 << 20  # decompressed bytes of a file's last scan kept for the reads that follow it
CURSORS = 2  # decompressors kept per file: a read crossing into the next member keeps the one it left
ACTIVE_FILES = 16  # files that keep those, and a decompressor, at once (the others' are dropped)
HEAD_BYTES = 4096  # a file's first decompressed bytes, kept: every fingerprint reads them
TRAILER_BYTES = 8  # the CRC32 and ISIZE that end a member: rechecked to notice a file copied over

RawSize = Callable[[str], int]
RawRead = Callable[[str, int, int], bytes]


def is_gzip_event_file(path: str) -> bool:
    """Whether ``path`` names a compressed event file (``events.out.tfevents...gz``)."""
    return path.endswith(".gz") and "tfevents" in path.rsplit("/", 1)[-1]


@dataclass(frozen=True, slots=True)
class Member:
    """One complete member: where it lies in the file and in the decompressed stream."""

    raw_start: int
    raw_end: int
    start: int
    end: int


@dataclass(slots=True)
class _Outcome:
    status: str  # "complete", "partial" or "corrupt"
    raw_end: int = 0
    size: int = 0
    data: bytes | None = None  # the decompressed bytes, when they fitted the budget given
    error: str = ""


def _decode(path: str, raw_start: int, raw_size: int, read: RawRead, keep: int) -> _Outcome:
    """Decompress the member starting at ``raw_start``, in pieces; its bytes are kept if at most ``keep``."""
    inflate = zlib.decompressobj(wbits=31)
    position, size = raw_start, 0
    kept: list[bytes] | None = [] if keep > 0 else None
    while position < raw_size:
        piece = read(path, position, min(RAW_PIECE, raw_size - position))
        if not piece:
            break
        data = piece
        while True:
            try:
                out = inflate.decompress(data, OUT_PIECE)
            except zlib.error as error:
                return _Outcome("corrupt", error=str(error))
            size += len(out)
            if kept is not None:
                if size <= keep:
                    kept.append(out)
                else:
                    kept = None
            if inflate.eof:
                # At the end the input left over is unused_data (unconsumed_tail then holds the same bytes).
                consumed = len(piece) - len(inflate.unused_data)
                return _Outcome("complete", position + consumed, size, b"".join(kept) if kept is not None else None)
            data = inflate.unconsumed_tail
            if not data and len(out) < OUT_PIECE:  # a full piece out: zlib may hold more output, drain it first
                break
        position += len(piece)
    return _Outcome("partial")


class _Cursor:
    """A decompressor stopped inside one member, at ``out`` bytes into it: a read that continues from there
    continues it."""

    def __init__(self, member: int, raw_start: int) -> None:
        self.member = member
        self.inflate = zlib.decompressobj(wbits=31)
        self.raw = raw_start  # the next compressed byte to feed
        self.pending = b""  # compressed bytes fed but not consumed yet
        self.out = 0
        self.spare = b""  # decompressed bytes produced past what was asked
        self.last = b""  # the bytes just before ``out``: what a read stepping back asks again
        self.hungry = True  # the last decompress gave less than asked: it needs more input for more

    def take(self, path: str, count: int, raw_end: int, read: RawRead, *, keep_last: bool = True) -> bytes:
        """The next ``count`` decompressed bytes (fewer at the member's end)."""
        parts, have = [], 0
        if self.spare:
            part, self.spare = self.spare[:count], self.spare[count:]
            parts.append(part)
            have = len(part)
        while have < count and not self.inflate.eof:
            if not self.pending and self.hungry:
                if self.raw >= raw_end:
                    break
                self.pending = read(path, self.raw, min(RAW_PIECE, raw_end - self.raw))
                if not self.pending:
                    break
                self.raw += len(self.pending)
            limit = min(OUT_PIECE, count - have)
            out = self.inflate.decompress(self.pending, limit)
            self.pending = self.inflate.unconsumed_tail
            self.hungry = len(out) < limit  # else zlib may hold more output for the input it took: drain it first
            if have + len(out) > count:
                out, self.spare = out[: count - have], out[count - have :]
            parts.append(out)
            have += len(out)
        self.out += have
        data = b"".join(parts)
        self.last = data if keep_last or len(data) >= len(self.last) else self.last[len(data) :] + data
        return data


class GzipIndex:
    """The complete members of one compressed file found so far, and what was decompressed lately."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        self.members: list[Member] = []
        self.starts: list[int] = []
        self.raw_end = 0  # where the next member is looked for
        self.size = 0  # decompressed bytes in the complete members
        self.trailer = b""  # the compressed bytes just before raw_end, as last seen
        self.head = b""  # the first HEAD_BYTES decompressed bytes, once known
        self.recent: dict[int, bytes] = {}  # member number -> its bytes, from the last scan
        self.corrupt_at: int | None = None  # a corrupt span reported, whose end is not found yet
        self.resync_from = 0
        self.problems: list[tuple[int, str]] = []
        self.cursors: OrderedDict[int, _Cursor] = OrderedDict()  # member number -> its decompressor, newest last
        self.scanned = False

    # --- finding members -----------------------------------------------------------------------------------
    def update(self, path: str, raw_size: int, read: RawRead) -> int:
        """Index what the file gained; returns the decompressed size of its complete members."""
        if raw_size < self.raw_end or (raw_size > self.raw_end and self.trailer and not self._same_trailer(path, read)):
            self.reset()
        self.scanned = True
        if raw_size <= self.raw_end:
            return self.size
        self.recent = {}
        budget = RECENT_BYTES
        while self.raw_end < raw_size:
            if self.corrupt_at is not None:
                if not self._resync(path, raw_size, read):
                    break
                continue
            outcome = _decode(path, self.raw_end, raw_size, read, budget)
            if outcome.status == "partial":
                break  # a member still being written
            if outcome.status == "corrupt":
                self.corrupt_at, self.resync_from = self.raw_end, self.raw_end + 1
                self.problems.append((self.raw_end, f"corrupt gzip member ({outcome.error}); skipped"))
                continue
            self._add(outcome.raw_end, outcome.size, outcome.data)
            if outcome.data is not None:
                budget -= len(outcome.data)
        self.trailer = read(path, max(0, self.raw_end - TRAILER_BYTES), min(TRAILER_BYTES, self.raw_end))
        return self.size

    def _same_trailer(self, path: str, read: RawRead) -> bool:
        start = max(0, self.raw_end - TRAILER_BYTES)
        return read(path, start, self.raw_end - start) == self.trailer

    def _add(self, raw_end: int, size: int, data: bytes | None) -> None:
        number = len(self.members)
        self.members.append(Member(self.raw_end, raw_end, self.size, self.size + size))
        self.starts.append(self.size)
        if data is not None:
            self.recent[number] = data
            if len(self.head) < HEAD_BYTES and len(self.head) == self.size:
                self.head += data[: HEAD_BYTES - len(self.head)]
        self.raw_end, self.size = raw_end, self.size + size

    def _resync(self, path: str, raw_size: int, read: RawRead) -> bool:
        """Look for the member that follows a corrupt one; True once found (indexing continues from it)."""
        position = self.resync_from
        while position + len(MAGIC) <= raw_size:
            window = read(path, position, min(RAW_PIECE, raw_size - position))
            found = window.find(MAGIC)
            if found < 0:
                position += max(1, len(window) - (len(MAGIC) - 1))
                continue
            candidate = position + found
            outcome = _decode(path, candidate, raw_size, read, 0)
            if outcome.status == "complete":
                self.raw_end, self.corrupt_at = candidate, None
                return True
            if outcome.status == "partial":  # perhaps the next member, still being written
                self.resync_from = candidate
                return False
            position = candidate + 1
        self.resync_from = max(self.resync_from, raw_size - (len(MAGIC) - 1))
        return False

    # --- reading -------------------------------------------------------------------------------------------
    def read(self, path: str, offset: int, length: int, read: RawRead) -> bytes:
        """``length`` decompressed bytes from ``offset`` (fewer at the end of the complete members)."""
        end = min(offset + length, self.size)
        if offset >= end:
            return b""
        if end <= len(self.head):
            return self.head[offset:end]
        parts = []
        number = bisect.bisect_right(self.starts, offset) - 1
        position = offset
        while position < end:
            member = self.members[number]
            upto = min(end, member.end)
            parts.append(self._member_bytes(path, number, position - member.start, upto - position, read))
            position = upto
            number += 1
        return b"".join(parts)

    def _member_bytes(self, path: str, number: int, start: int, count: int, read: RawRead) -> bytes:
        data = self.recent.get(number)
        if data is not None:
            return data[start : start + count]
        member = self.members[number]
        cursor = self.cursors.get(number)
        if cursor is None or start < cursor.out - len(cursor.last):
            cursor = self.cursors[number] = _Cursor(number, member.raw_start)
        self.cursors.move_to_end(number)
        while len(self.cursors) > CURSORS:  # a read that ends in the next member must not lose this one's
            self.cursors.popitem(last=False)
        if start < cursor.out:  # a read that steps back into what the last one returned (a record re-read)
            prefix = cursor.last[len(cursor.last) - (cursor.out - start) :][:count]
            if len(prefix) == count:
                return prefix
            return prefix + cursor.take(path, count - len(prefix), member.raw_end, read, keep_last=False)
        while cursor.out < start:  # skip to the offset, a piece at a time
            if not cursor.take(path, min(OUT_PIECE, start - cursor.out), member.raw_end, read):
                break
        return cursor.take(path, count, member.raw_end, read)


class GzipFiles:
    """The compressed event files of one file system, indexed as they are read (thread-safe per file)."""

    def __init__(self, raw_size: RawSize, raw_read: RawRead) -> None:
        self._raw_size = raw_size
        self._raw_read = raw_read
        self._indexes: dict[str, GzipIndex] = {}
        self._active: OrderedDict[str, GzipIndex] = OrderedDict()  # the files used last, newest at the end
        self._lock = threading.Lock()

    def _index(self, path: str) -> GzipIndex:
        with self._lock:
            index = self._indexes.get(path)
            if index is None:
                index = self._indexes[path] = GzipIndex()
            self._active[path] = index
            self._active.move_to_end(path)
            idle = [self._active.popitem(last=False)[1] for _ in range(len(self._active) - ACTIVE_FILES)]
        for other in idle:  # bounded memory across many files: a file not used lately keeps only its index
            with other.lock:
                other.recent, other.cursors = {}, OrderedDict()
        return index

    def size(self, path: str) -> int:
        """The decompressed size of the file's complete members (indexing what it gained)."""
        index = self._index(path)
        with index.lock:
            return index.update(path, self._raw_size(path), self._raw_read)

    def read(self, path: str, offset: int, length: int) -> bytes:
        index = self._index(path)
        with index.lock:
            if not index.scanned:
                index.update(path, self._raw_size(path), self._raw_read)
            return index.read(path, offset, length, self._raw_read)

    def take_problems(self, path: str) -> list[tuple[int, str]]:
        """The corrupt members found in ``path`` since the last call: (offset in the compressed file, reason)."""
        with self._lock:
            index = self._indexes.get(path)
        if index is None:
            return []
        with index.lock:
            problems, index.problems = index.problems, []
        return problems


def taken_problems(fs: object, path: str) -> list[tuple[int, str]]:
    """The corrupt gzip members ``fs`` found in ``path`` since last asked (none for a plain file)."""
    files = getattr(fs, "gzip", None)
    if not isinstance(files, GzipFiles) or not is_gzip_event_file(path):
        return []
    return files.take_problems(path)
