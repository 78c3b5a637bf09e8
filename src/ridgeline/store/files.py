"""The on-disk store's file handling: private directories, atomic JSON, append-only column files, one writer.

Everything the store writes is private to the user who wrote it — directories 0700, files 0600 — and a store
directory that another user owns, or that anyone may write into, is refused (:class:`StoreError`): what is read
back from it is trusted to be what this user wrote. Nothing in it is ever unpickled; manifests are (gzip'd) JSON and
columns little-endian numbers (raw, or the chunks of :mod:`ridgeline.store.encoding`), so a damaged or hostile
file can at worst be rejected, never run.

A column file only grows (``pwrite`` at the committed end, so a write cut short by a full disk is overwritten by
the next); its committed length and CRC32C live in the run's manifest (in its shard), written after the bytes
and swapped in atomically (a temporary file and ``os.replace``). Bytes past the committed length — a process
killed between the two — are cut off when the store is opened again.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import gzip
import json
import mmap
import os
import stat
import sys
import weakref
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from ridgeline.format.records import crc32c

VERIFY_READ_BYTES = 1 << 20  # columns up to this size are read to be checked, larger ones mapped
DIRECTORY_MODE = 0o700
FILE_MODE = 0o600


class StoreError(OSError):
    """The store cannot be used as asked (the message names the directory and what was expected)."""

    def __str__(self) -> str:
        return str(self.strerror)


def private_directory(path: Path) -> Path:
    """Create ``path`` (and missing parents) as 0700, or check that an existing one is safe to trust."""
    try:
        path.mkdir(mode=DIRECTORY_MODE, parents=True, exist_ok=True)
        info = path.stat()
    except OSError as error:
        raise StoreError(error.errno, f"store directory {str(path)!r} cannot be created: {error.strerror}") from None
    check_private(path, info)
    return path


def check_private(path: Path, info: os.stat_result) -> None:
    """Refuse a directory another user owns or anyone may write into: its files could be swapped under us."""
    if not stat.S_ISDIR(info.st_mode):
        raise StoreError(errno.ENOTDIR, f"store directory {str(path)!r} is not a directory")
    if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
        raise StoreError(errno.EPERM, f"store directory {str(path)!r} belongs to another user (uid {info.st_uid})")
    if info.st_mode & stat.S_IWOTH:
        raise StoreError(
            errno.EPERM,
            f"store directory {str(path)!r} is writable by every user (mode {stat.S_IMODE(info.st_mode):o}); "
            "expected a directory only you can write (chmod o-w, or choose another cache directory)",
        )


def check_store_directory(path: Path) -> Path:
    """An existing store directory checked as :func:`private_directory` checks it, created never (a replica)."""
    try:
        info = path.stat()
    except OSError as error:
        raise StoreError(error.errno, f"store {str(path)!r} cannot be read: {error.strerror}") from None
    check_private(path, info)
    return path


def write_json(path: Path, value: Any) -> None:
    """Write ``value`` as JSON to ``path`` atomically, mode 0600."""
    write_atomically(path, json.dumps(value, separators=(",", ":"), allow_nan=True).encode())


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (a temporary file, then ``os.replace``), mode 0600."""
    temporary = path.with_name(f".tmp-{os.getpid()}-{path.name}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    try:
        write_all(fd, data, 0)
    finally:
        os.close(fd)
    os.replace(temporary, path)


def read_json(path: Path) -> Any | None:
    """The JSON in ``path``; None when it is missing or not valid JSON (the caller rebuilds)."""
    try:
        with open(path, "rb") as file:
            return json.loads(file.read())
    except (OSError, ValueError):
        return None


def decode_manifest(data: bytes) -> Any | None:
    """The gzip'd JSON in ``data`` (a manifest shard, :mod:`ridgeline.store.manifests`); None when it is not
    (the caller rebuilds)."""
    try:
        return json.loads(gzip.decompress(data))
    except (OSError, EOFError, ValueError, zlib.error):  # gzip.BadGzipFile is an OSError
        return None


def write_all(fd: int, data: bytes | memoryview, offset: int) -> None:
    view = memoryview(data)
    while view:
        written = os.pwrite(fd, view, offset)
        view, offset = view[written:], offset + written


class ColumnFile:
    """One append-only column of fixed-size little-endian numbers, with the CRC32C of its committed bytes."""

    __slots__ = ("crc", "dtype", "length", "path")

    def __init__(self, path: Path, dtype: np.dtype[Any], length: int = 0, crc: int = 0) -> None:
        self.path = path
        self.dtype = dtype
        self.length = length  # committed elements
        self.crc = crc

    def append(self, values: np.ndarray) -> None:
        """Write ``values`` after the committed elements, then count them as committed."""
        data = np.ascontiguousarray(values, dtype=self.dtype)
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT, FILE_MODE)
        try:
            write_all(fd, data.data.cast("B"), self.length * self.dtype.itemsize)
        finally:
            os.close(fd)
        self.crc = crc32c(data.data.cast("B"), value=self.crc)
        self.length += len(data)

    def read(self, start: int, count: int) -> np.ndarray:
        """Elements ``start`` to ``start + count``, read (a new array)."""
        size = self.dtype.itemsize
        if count <= 0:
            return np.empty(0, dtype=self.dtype)
        fd = os.open(self.path, os.O_RDONLY)
        try:
            data = os.pread(fd, count * size, start * size)
        finally:
            os.close(fd)
        if len(data) != count * size:
            raise OSError(f"{self.path} is shorter than its committed length")
        return np.frombuffer(data, dtype=self.dtype).copy()

    def map(self, length: int) -> np.ndarray:
        """The first ``length`` elements, mapped read-only from the file (no copy; pages load as touched)."""
        if length == 0:
            return np.empty(0, dtype=self.dtype)
        with open(self.path, "rb") as file:
            mapped = mmap.mmap(file.fileno(), length * self.dtype.itemsize, access=mmap.ACCESS_READ)
        return np.frombuffer(mapped, dtype=self.dtype, count=length)

    def verify(self) -> bool:
        """Trim bytes past the committed length (a write the manifest never saw) and check the CRC of the rest.

        Plain reads of the file (mapped only when large): opening a store checks every column of every run."""
        size = self.length * self.dtype.itemsize
        try:
            fd = os.open(self.path, os.O_RDWR)
        except FileNotFoundError:
            return size == 0 and self.crc == 0
        except OSError:
            return False
        try:
            actual = os.fstat(fd).st_size
            if actual < size:
                return False
            if actual > size:
                os.ftruncate(fd, size)
            if size <= VERIFY_READ_BYTES:
                return bool(crc32c(os.pread(fd, size, 0)) == self.crc) if size else self.crc == 0
            with mmap.mmap(fd, size, access=mmap.ACCESS_READ) as mapped, memoryview(mapped) as view:
                return bool(crc32c(view) == self.crc)
        except OSError:
            return False
        finally:
            os.close(fd)

    def check(self, known: tuple[int, int] | None = None) -> bool:
        """Whether the committed bytes are there and match the CRC, read only (a replica's :meth:`verify`: bytes
        past the committed length are an indexer's write in progress, left alone). ``known``: a ``(length, crc)``
        of this file already checked; only the bytes after it are read then (committed bytes never change)."""
        size = self.length * self.dtype.itemsize
        start, crc = 0, 0
        if known is not None and 0 < known[0] <= self.length:
            start, crc = known[0] * self.dtype.itemsize, known[1]
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            return size == 0 and self.crc == 0
        except OSError:
            return False
        try:
            if os.fstat(fd).st_size < size:
                return False
            while start < size:
                data = os.pread(fd, min(size - start, VERIFY_READ_BYTES), start)
                if not data:
                    return False
                crc = crc32c(data, value=crc)
                start += len(data)
            return bool(crc == self.crc)
        except OSError:
            return False
        finally:
            os.close(fd)

    def describe(self) -> dict[str, Any]:
        return {
            "file": self.path.name,
            "length": self.length,
            "bytes": self.length * self.dtype.itemsize,
            "crc": self.crc,
        }


class PackPart:
    """One run's bytes of a pack file (:class:`ridgeline.store.packs.Packs`): ``length`` bytes from
    ``start``, and their CRC32C, as the run's manifest committed them. A pack is written once, whole, and never
    changes: there is nothing to trim, and a part checked once stays checked."""

    __slots__ = ("crc", "length", "number", "path", "start")

    def __init__(self, path: Path, number: int, start: int, length: int, crc: int) -> None:
        self.path = path
        self.number = number
        self.start = start
        self.length = length
        self.crc = crc

    def verify(self) -> bool:
        return self.check()

    def check(self, known: tuple[int, int] | None = None) -> bool:
        """Whether the bytes are there and match the CRC (``known``: this part's ``(length, crc)``, checked)."""
        if known == (self.length, self.crc):
            return True
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except OSError:
            return False
        try:
            data = os.pread(fd, self.length, self.start)
        except OSError:
            return False
        finally:
            os.close(fd)
        return len(data) == self.length and bool(crc32c(data) == self.crc)

    def describe(self) -> list[int]:
        return [self.number, self.start, self.length, self.crc]


Checked = ColumnFile | PackPart  # what a run's manifest commits, and a check of it takes


class WriterLock:
    """An exclusive lock on a store: one indexer writes it at a time (held until :meth:`release` or exit)."""

    def __init__(self, directory: Path) -> None:
        self.fd: int | None = os.open(directory / "writer.lock", os.O_RDWR | os.O_CREAT, FILE_MODE)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(self.fd)
            self.fd = None
            raise StoreError(errno.EBUSY, f"store {str(directory)!r} is being written by another indexer") from None
        self._finalizer = weakref.finalize(self, os.close, self.fd)

    def release(self) -> None:
        self._finalizer()


def native_little_endian() -> bool:
    """Columns are little-endian as written; a big-endian host would misread them, so it rebuilds instead."""
    return sys.byteorder == "little"


def remove_quietly(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()
