"""Which directories are runs, in one or several log directories, local or behind an fsspec URL.

A run is a directory that holds event files (a name containing ``tfevents``), at any depth below its log
directory. Its name is its path relative to the log directory (``.`` for the log directory itself). With
several log directories, each run name is prefixed by its log directory's name: ``name/relative`` (``name`` for
the log directory's own root), where the name is the one given (``name:path``) or else the last part of the path.

Local paths use ``os`` only; URLs (``s3://``, ``gs://``, ``memory://``, ...) go through fsspec, imported on first
use, listed once per pass (:mod:`ridgeline.ingest.remote`). Event files ending ``.gz`` are read decompressed
(:mod:`ridgeline.ingest.gzip_source`). Nothing here ever writes.

Symbolic links on the local disk: the log directory itself may be one (``runs -> /data/runs``). Below it, a link
is never followed out of the log directory, and each directory is read once. A link to a directory inside the log
directory names a directory the walk reaches anyway under its own path, so it is not followed again: a link to an
ancestor (a loop) or to a sibling (``latest -> exp3``) adds no run and cannot make the walk endless. A link to an
event file counts only where the file it leads to is inside the log directory. What was not followed is told to
the reader through :attr:`LocalFileSystem.skipped`, and listed as a problem.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO, Protocol

from ridgeline.ingest.gzip_source import GzipFiles, is_gzip_event_file
from ridgeline.ingest.remote import ObjectReads, modified_of, storage_options

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")


class LogDirError(ValueError):
    """A log directory that does not exist, is not a directory, or cannot be listed."""


@dataclass(frozen=True, slots=True)
class LogDirSource:
    """One log directory: where it is, and the name its runs are prefixed with (None for a single log dir)."""

    path: str
    name: str | None = None


class FileSystem(Protocol):
    """The little ridgeline needs from a file system: list, stat, read a byte range."""

    def is_dir(self, path: str) -> bool: ...
    def walk_files(self, root: str) -> Iterator[tuple[str, list[str]]]: ...
    def size(self, path: str) -> int: ...
    def modified(self, path: str) -> float | None: ...
    def read(self, path: str, offset: int, length: int) -> bytes: ...
    def open_binary(self, path: str) -> BinaryIO: ...
    def join(self, *parts: str) -> str: ...


class LocalFileSystem:
    """The local disk, through ``os`` (no extra dependency)."""

    def is_dir(self, path: str) -> bool:
        return os.path.isdir(path)

    def __init__(self) -> None:
        self.skipped: list[tuple[str, str]] = []  # (path, why) of the links the last walk did not follow
        self.gzip = GzipFiles(self._raw_size, self._raw_read)  # .gz event files, read decompressed

    def walk_files(self, root: str) -> Iterator[tuple[str, list[str]]]:
        """Every directory below ``root`` (``root`` first) with the event-file candidates directly in it.

        Directories are entered without following links, each once (by device and inode, so a bind mount or a
        hard-linked directory cannot loop either), in name order. Files that are links are kept only when they
        lead to a regular file inside ``root``."""
        self.skipped = []
        real_root = os.path.realpath(root)
        seen: set[tuple[int, int]] = set()
        pending = [root]
        while pending:
            directory = pending.pop()
            try:
                status = os.stat(directory)
            except OSError:
                continue
            if (status.st_dev, status.st_ino) in seen:
                self.skipped.append((directory, "is a directory already read (a loop); not followed"))
                continue
            seen.add((status.st_dev, status.st_ino))
            try:
                with os.scandir(directory) as listing:
                    entries = sorted(listing, key=lambda entry: entry.name)
            except OSError:
                continue
            files, subdirectories = [], []
            for entry in entries:
                try:
                    if entry.is_symlink():
                        if self._linked_file_inside(entry, real_root):
                            files.append(entry.name)
                    elif entry.is_dir(follow_symlinks=False):
                        subdirectories.append(entry.path)
                    else:
                        files.append(entry.name)
                except OSError:
                    continue
            yield directory, files
            pending.extend(reversed(subdirectories))

    def _linked_file_inside(self, entry: os.DirEntry[str], real_root: str) -> bool:
        target = os.path.realpath(entry.path)
        if not _inside(target, real_root):
            self.skipped.append((entry.path, f"is a link out of the log directory (to {target}); not followed"))
            return False
        if os.path.isdir(target):
            if _inside(os.path.realpath(os.path.dirname(entry.path)), target):
                self.skipped.append((entry.path, "is a link to a directory above it (a loop); not followed"))
            return False  # a directory inside the log directory: the walk reaches it under its own name
        return os.path.isfile(target)

    def size(self, path: str) -> int:
        """The file's size; a ``.gz`` event file's decompressed size (its complete members)."""
        return self.gzip.size(path) if is_gzip_event_file(path) else self._raw_size(path)

    def modified(self, path: str) -> float | None:
        try:
            return os.stat(path).st_mtime
        except OSError:
            return None

    def read(self, path: str, offset: int, length: int) -> bytes:
        """Bytes of the file; of a ``.gz`` event file, decompressed bytes."""
        if is_gzip_event_file(path):
            return self.gzip.read(path, offset, length)
        return self._raw_read(path, offset, length)

    def read_pieces(self, path: str, pieces: list[tuple[int, int]]) -> list[bytes]:
        """Several ``(offset, length)`` ranges of one file, opened once (a fingerprint's head and tail)."""
        if is_gzip_event_file(path):
            return [self.gzip.read(path, offset, length) for offset, length in pieces]
        with open(path, "rb") as file:
            found = []
            for offset, length in pieces:
                file.seek(offset)
                found.append(file.read(length))
            return found

    def _raw_size(self, path: str) -> int:
        return os.stat(path).st_size

    def _raw_read(self, path: str, offset: int, length: int) -> bytes:
        with open(path, "rb") as file:
            file.seek(offset)
            return file.read(length)

    def open_binary(self, path: str) -> BinaryIO:
        return open(path, "rb")

    def join(self, *parts: str) -> str:
        return os.path.join(*parts)


class FsspecFileSystem:
    """Any fsspec file system (S3, GCS, HDFS, memory, ...), addressed by URL: one recursive listing per walk, sizes
    from it, ranged reads (see :mod:`ridgeline.ingest.remote`); S3's endpoint and credentials from the standard
    AWS variables."""

    def __init__(self, url: str) -> None:
        try:
            import fsspec
        except ImportError as error:
            raise LogDirError(
                f"log directory {url!r} is a URL: reading it needs fsspec (pip install fsspec)"
            ) from error
        self.protocol = url.split("://", 1)[0]
        try:
            self.fs: Any = fsspec.core.url_to_fs(url, **storage_options(self.protocol))[0]
        except (ImportError, ValueError) as error:  # e.g. s3:// without s3fs installed
            raise LogDirError(f"log directory {url!r}: {error}") from error
        self.objects = ObjectReads(self._cat)
        self.gzip = GzipFiles(self._raw_size, self._raw_read)

    def _url(self, path: str) -> str:
        return path if _URL.match(path) else f"{self.protocol}://{path}"

    def _name(self, path: str) -> str:
        return str(self.fs._strip_protocol(path)).rstrip("/")

    def is_dir(self, path: str) -> bool:
        self.fs.invalidate_cache(self._name(path))  # s3fs caches listings: say what is there now
        return bool(self.fs.isdir(path))

    def walk_files(self, root: str) -> Iterator[tuple[str, list[str]]]:
        """Every directory below ``root`` holding files, from one recursive listing (``find``: on S3 one request
        per 1,000 objects, however many directories), in name order."""
        found: dict[str, dict[str, Any]] = self.fs.find(root, detail=True)
        self.objects.note_listing(found)
        directories: dict[str, list[str]] = {}
        for name in sorted(self.objects.listed):
            directory, _, file = name.rpartition("/")
            directories.setdefault(directory, []).append(file)
        for directory, files in directories.items():
            yield self._url(directory), files

    def size(self, path: str) -> int:
        """The size the last listing gave (no request); a ``.gz`` event file's decompressed size."""
        return self.gzip.size(path) if is_gzip_event_file(path) else self._raw_size(path)

    def modified(self, path: str) -> float | None:
        """The object's modification time (S3's LastModified, GCS's updated, a local mtime), None if unknown: as
        the last listing gave it (no request), else asked. Never fsspec's cached info: s3fs keeps a directory's
        first listing, so an object replaced since would keep its first time (a live run shown finished)."""
        listed = self.objects.listing(self._name(path))
        if listed is not None and listed.modified is not None:
            return listed.modified
        self.fs.invalidate_cache(self._name(path))
        try:
            return modified_of(self.fs.info(path))
        except (OSError, ValueError):
            return None

    def read(self, path: str, offset: int, length: int) -> bytes:
        if is_gzip_event_file(path):
            return self.gzip.read(path, offset, length)
        return self._raw_read(path, offset, length)

    def _raw_size(self, path: str) -> int:
        listed = self.objects.size(self._name(path))
        return int(self.fs.size(path)) if listed is None else listed

    def _raw_read(self, path: str, offset: int, length: int) -> bytes:
        return self.objects.read(self._name(path), offset, length)

    def _cat(self, name: str, start: int, end: int) -> bytes:
        data: bytes = self.fs.cat_file(self._url(name), start=start, end=end)
        return data

    def open_binary(self, path: str) -> BinaryIO:
        file: BinaryIO = self.fs.open(path, "rb")
        return file

    def join(self, *parts: str) -> str:
        return "/".join(part.rstrip("/") for part in parts[:-1]) + "/" + parts[-1]


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def filesystem_for(path: str) -> FileSystem:
    return FsspecFileSystem(path) if _URL.match(path) else LocalFileSystem()


def parse_logdir_spec(spec: str) -> list[LogDirSource]:
    """TensorBoard's ``--logdir_spec``: ``name1:path1,name2:path2``; an entry without a name is a plain path.

    A URL (``s3://bucket/x``) or a Windows drive (``C:\\runs``) is a path, not ``name:path``.
    """
    sources = []
    for entry in (part.strip() for part in spec.split(",")):
        if not entry:
            continue
        if _URL.match(entry) or _WINDOWS_DRIVE.match(entry) or ":" not in entry:
            sources.append(LogDirSource(entry))
            continue
        name, path = entry.split(":", 1)
        if not name or not path:
            raise LogDirError(f"--logdir_spec entry {entry!r} must be name:path or a path")
        sources.append(LogDirSource(path, name))
    if not sources:
        raise LogDirError("--logdir_spec names no log directory")
    return sources


def sources_from(logdir: str | os.PathLike[str] | list[Any] | tuple[Any, ...]) -> list[LogDirSource]:
    """The log directories named by ``logdir``: one path, ``a,b`` (or ``name:path`` entries), or a list."""
    if isinstance(logdir, list | tuple):
        entries = [os.fspath(item) if not isinstance(item, LogDirSource) else item for item in logdir]
        sources = [item if isinstance(item, LogDirSource) else LogDirSource(item) for item in entries]
    elif isinstance(logdir, str | os.PathLike):
        text = os.fspath(logdir)
        sources = parse_logdir_spec(text) if "," in text or _named(text) else [LogDirSource(text)]
    else:
        raise TypeError(f"logdir must be a path, a URL or a list of them, got {type(logdir).__name__}")
    if not sources:
        raise LogDirError("no log directory given")
    if len(sources) > 1:
        sources = _name_sources(sources)
    return sources


def _named(text: str) -> bool:
    """``name:path`` rather than a path that happens to hold a colon."""
    if _URL.match(text) or _WINDOWS_DRIVE.match(text) or ":" not in text or os.path.exists(text):
        return False
    name = text.split(":", 1)[0]
    return bool(name) and "/" not in name and "\\" not in name


def _name_sources(sources: list[LogDirSource]) -> list[LogDirSource]:
    """Give every source of several a distinct name (its own, else the last part of its path)."""
    named: list[LogDirSource] = []
    taken: set[str] = set()
    for source in sources:
        name = source.name or os.path.basename(source.path.rstrip("/\\")) or source.path
        candidate, suffix = name, 2
        while candidate in taken:
            candidate, suffix = f"{name}_{suffix}", suffix + 1
        taken.add(candidate)
        named.append(LogDirSource(source.path, candidate))
    return named


def is_event_file(name: str) -> bool:
    return "tfevents" in name


@dataclass(frozen=True, slots=True)
class RunLocation:
    """A run: its name, its directory, and the file system it lives on."""

    name: str
    directory: str
    fs: FileSystem


def check_source(source: LogDirSource, fs: FileSystem) -> None:
    try:
        exists = fs.is_dir(source.path)
    except OSError as error:
        raise LogDirError(f"log directory {source.path!r} cannot be read: {error}") from error
    if not exists:
        if not _URL.match(source.path) and os.path.exists(source.path):
            raise LogDirError(f"log directory {source.path!r} is not a directory")
        raise LogDirError(f"log directory {source.path!r} does not exist")


_DIGITS = re.compile(r"(\d+)")


def event_file_order(name: str) -> tuple[tuple[int, str], ...]:
    """The order a run's event files are read in: by name as TensorBoard reads them, but with the numbers in it
    compared as numbers. The writers (torch's, tensorboardX's, ours) end a name with a counter of the files the
    process opened: ``...1700000000.host.123.10`` was opened after ``...1700000000.host.123.9`` in the same
    second, and a restart in the later file must be read after the points it supersedes."""
    return tuple((int(part), "") if part.isdigit() else (-1, part) for part in _DIGITS.split(name))


def find_runs(source: LogDirSource, fs: FileSystem) -> dict[str, tuple[RunLocation, list[str]]]:
    """Every run below ``source``: run name -> (location, event file paths sorted by name, as TensorBoard reads)."""
    runs: dict[str, tuple[RunLocation, list[str]]] = {}
    root = source.path.rstrip("/") if _URL.match(source.path) else os.path.normpath(source.path)
    for directory, files in fs.walk_files(root):
        event_files = sorted((name for name in files if is_event_file(name)), key=event_file_order)
        if not event_files:
            continue
        relative = _relative(directory, root)
        name = relative if source.name is None else (source.name if relative == "." else f"{source.name}/{relative}")
        location = RunLocation(name, directory, fs)
        runs[name] = (location, [fs.join(directory, file) for file in event_files])
    return runs


def _relative(directory: str, root: str) -> str:
    if _URL.match(root):
        stripped_root = root.split("://", 1)[1].rstrip("/")
        stripped = directory.split("://", 1)[1].rstrip("/") if _URL.match(directory) else directory.rstrip("/")
        stripped = stripped.removeprefix("/") if not stripped_root.startswith("/") else stripped
        rest = stripped[len(stripped_root) :].strip("/")
        return rest or "."
    if directory == root:
        return "."
    prefix = root if root.endswith(os.sep) else root + os.sep
    if directory.startswith(prefix):  # what the walk yields (os.path.relpath cost 15 us a run, twice abspath)
        return directory[len(prefix) :].replace(os.sep, "/")
    return os.path.relpath(directory, root).replace(os.sep, "/")
