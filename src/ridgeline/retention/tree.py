"""The files of a log directory as retention sees them, and the only code in ridgeline that deletes or moves one.

Two kinds of tree, one interface: :class:`LocalTree` (``os``) and :class:`RemoteTree` (any fsspec URL: ``s3://``,
``gs://``, ``memory://``). A scan lists every directory below the root with what is directly in it
(:class:`Entry`: path, size, modification time, whether it is a regular file); it doubles as the
:class:`~ridgeline.ingest.discovery.FileSystem` that discovery walks, so runs get the names the reader gives them.

On the local disk nothing is followed: the walk does not descend into a symlinked directory, a symlink is never
removed or moved (nor is anything that is not a regular file), and before each removal the file is checked again
with ``lstat`` (still a regular file) and ``realpath`` (its directory still inside the log directory), so a
directory swapped for a symlink meanwhile cannot lead a deletion elsewhere. The log directory itself may be a
symlink (``runs -> /data/runs``): it is resolved once, and :func:`refuse_dangerous` judges where it leads.
"""

from __future__ import annotations

import os
import shutil
import stat
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from ridgeline.ingest.discovery import FsspecFileSystem, LogDirError, LogDirSource, check_source

__all__ = ["Entry", "Listing", "LocalTree", "RemoteTree", "Tree", "refuse_dangerous", "tree_for"]


@dataclass(frozen=True, slots=True)
class Entry:
    """A file (or a symlink, a socket: anything but a directory walked into) directly in a directory."""

    path: str
    size: int
    mtime: float
    regular: bool = True  # only regular files are ever removed or moved

    @property
    def name(self) -> str:
        return self.path.replace("\\", "/").rsplit("/", 1)[-1]


@dataclass
class Listing:
    """Every directory below a root (the root included) with the entries directly in it; also the FileSystem
    that :func:`ridgeline.ingest.discovery.find_runs` walks (it sees regular files only)."""

    directories: dict[str, list[Entry]]
    sep: str
    problems: list[str] = field(default_factory=list)

    def walk_files(self, root: str) -> Iterator[tuple[str, list[str]]]:
        for directory, entries in self.directories.items():
            yield directory, [entry.name for entry in entries if entry.regular]

    def join(self, *parts: str) -> str:
        return self.sep.join(part.rstrip(self.sep) for part in parts[:-1]) + self.sep + parts[-1]

    def below(self, directory: str) -> list[str]:
        """``directory`` and every directory under it."""
        prefix = directory.rstrip(self.sep) + self.sep
        return [name for name in self.directories if name == directory or name.startswith(prefix)]


class Tree(Protocol):
    """A log directory's storage: listing, reading, and the removals retention makes."""

    root: str  # the log directory, as discovery normalises it (the run directories start with it)
    sep: str

    def scan(self) -> Listing: ...
    def read(self, path: str, start: int, end: int) -> bytes: ...
    def entries(self, directory: str) -> list[Entry]: ...
    def remove(self, entries: list[Entry]) -> list[str]: ...
    def move(self, moves: list[tuple[Entry, str]]) -> list[str]: ...
    def prune(self, directories: Iterable[str]) -> None: ...
    def trash_path(self, trash: str, relative: str) -> str: ...


def tree_for(source: LogDirSource) -> Tree:
    """The tree of one log directory; LogDirError when it does not exist, is not a directory, or (local) is a
    directory retention refuses (see :func:`refuse_dangerous`)."""
    if "://" in source.path:
        remote = RemoteTree(source.path)
        check_source(LogDirSource(source.path, source.name), remote.filesystem)
        return remote
    local = LocalTree(source.path)
    if not os.path.isdir(local.root):
        if os.path.exists(local.root):
            raise LogDirError(f"log directory {source.path!r} is not a directory")
        raise LogDirError(f"log directory {source.path!r} does not exist")
    refuse_dangerous(local.root)
    return local


def home_directories() -> set[str]:
    """The home directories retention refuses, resolved: this user's, root's, and every login account's (uid 1000
    and up, as Linux distributions number people; system accounts' homes such as /var/www are not people's)."""
    homes = {os.path.expanduser("~"), "/root"}
    try:
        import pwd

        homes.update(a.pw_dir for a in pwd.getpwall() if 1000 <= a.pw_uid < 65534 or a.pw_uid == 0)
    except (ImportError, OSError):  # not Unix
        pass
    return {os.path.realpath(home) for home in homes if home and home != "~"}


def refuse_dangerous(path: str) -> None:
    """LogDirError when ``path`` (resolved through symlinks) is a file system root (``/``), a home directory, or
    an ancestor of one (``/home``): deleting runs there could take far more than training logs."""
    real = os.path.realpath(path)
    if os.path.dirname(real) == real:
        raise LogDirError(f"refusing {path!r} as a log directory to clean: it is the root of the file system")
    for home in sorted(home_directories()):
        if real == home:
            raise LogDirError(f"refusing {path!r} as a log directory to clean: it is the home directory {home}")
        if home.startswith(real.rstrip(os.sep) + os.sep):
            raise LogDirError(
                f"refusing {path!r} as a log directory to clean: it holds the home directory {home}; "
                "name the directory the runs are in"
            )


def inside(path: str, root: str, sep: str = os.sep) -> bool:
    """Whether ``path`` is ``root`` or below it (both already normalised or resolved)."""
    return path == root or path.startswith(root.rstrip(sep) + sep)


class LocalTree:
    """A log directory on this machine's disk."""

    sep = os.sep

    def __init__(self, path: str) -> None:
        self.root = os.path.normpath(path)
        self.real_root = os.path.realpath(self.root)

    def scan(self) -> Listing:
        problems: list[str] = []
        directories: dict[str, list[Entry]] = {}
        for directory, subdirectories, names in os.walk(self.root, onerror=lambda e: problems.append(str(e))):
            # A symlink to a directory is listed among the subdirectories (and not walked into): keep it as an
            # entry, so that its directory is never taken for empty.
            links = [name for name in subdirectories if os.path.islink(os.path.join(directory, name))]
            entries = [self._entry(os.path.join(directory, name)) for name in [*names, *links]]
            directories[directory] = [entry for entry in entries if entry is not None]
        return Listing(directories, self.sep, problems)

    def entries(self, directory: str) -> list[Entry]:
        try:
            with os.scandir(directory) as found:
                paths = [item.path for item in found if item.is_symlink() or not item.is_dir(follow_symlinks=False)]
        except OSError:
            return []
        return [entry for entry in map(self._entry, paths) if entry is not None]

    @staticmethod
    def _entry(path: str) -> Entry | None:
        try:
            info = os.lstat(path)
        except OSError:  # gone meanwhile
            return None
        return Entry(path, info.st_size, info.st_mtime, stat.S_ISREG(info.st_mode))

    def read(self, path: str, start: int, end: int) -> bytes:
        with open(path, "rb") as file:
            file.seek(start)
            return file.read(end - start)

    def _confined(self, path: str) -> str | None:
        """Why ``path`` must not be touched now (None: it may): it is no longer a regular file, or its directory
        no longer resolves inside the log directory."""
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            return "it is gone"
        if not stat.S_ISREG(info.st_mode):
            return "it is not a regular file"
        if not inside(os.path.realpath(os.path.dirname(path)), self.real_root):
            return "its directory leads outside the log directory"
        return None

    def remove(self, entries: list[Entry]) -> list[str]:
        problems = []
        for entry in entries:
            refused = self._confined(entry.path)
            if refused is not None:
                if refused != "it is gone":
                    problems.append(f"{entry.path}: not deleted, {refused}")
                continue
            try:
                os.unlink(entry.path)
            except OSError as error:
                problems.append(f"{entry.path}: {error.strerror or error}")
        return problems

    def move(self, moves: list[tuple[Entry, str]]) -> list[str]:
        problems = []
        for entry, destination in moves:
            refused = self._confined(entry.path)
            if refused is not None:
                if refused != "it is gone":
                    problems.append(f"{entry.path}: not moved, {refused}")
                continue
            try:
                os.makedirs(os.path.dirname(destination), exist_ok=True)
                shutil.move(entry.path, destination)  # a rename, or a copy and delete across file systems
            except OSError as error:
                problems.append(f"{entry.path}: {error.strerror or error}")
        return problems

    def prune(self, directories: Iterable[str]) -> None:
        """Remove those of ``directories`` that are empty now, deepest first; never the log directory."""
        for directory in sorted(set(directories), key=lambda name: name.count(os.sep), reverse=True):
            if directory == self.root or not inside(os.path.normpath(directory), self.root):
                continue
            try:
                if not stat.S_ISDIR(os.lstat(directory).st_mode):
                    continue
                if not inside(os.path.realpath(directory), self.real_root):
                    continue
                os.rmdir(directory)  # fails unless it is empty
            except OSError:
                continue

    def trash_path(self, trash: str, relative: str) -> str:
        return os.path.join(trash, *relative.split("/"))


class RemoteTree:
    """A log directory behind an fsspec URL. Object stores have no symlinks and no directories to remove."""

    sep = "/"

    def __init__(self, url: str) -> None:
        self.filesystem = FsspecFileSystem(url)
        self.fs: Any = self.filesystem.fs
        self.protocol = self.filesystem.protocol
        self.url = url.rstrip("/")
        self.root = str(self.fs._strip_protocol(self.url)).rstrip("/")

    def scan(self) -> Listing:
        self.fs.invalidate_cache()  # s3fs caches listings: a sweep must see what is there now
        found: dict[str, dict[str, Any]] = self.fs.find(self.root, detail=True, withdirs=True)
        directories: dict[str, list[Entry]] = {self.root: []}
        for path, info in sorted(found.items()):
            path = path.rstrip("/")
            if info.get("type") == "directory":
                directories.setdefault(path, [])
                continue
            parent = path.rsplit("/", 1)[0]
            for ancestor in _ancestors(parent, self.root):
                directories.setdefault(ancestor, [])
            directories[parent].append(Entry(path, int(info.get("size") or 0), _mtime(info)))
        return Listing(directories, self.sep)

    def entries(self, directory: str) -> list[Entry]:
        self.fs.invalidate_cache(directory)
        try:
            listed: list[dict[str, Any]] = self.fs.ls(directory, detail=True)
        except OSError:
            return []
        return [
            Entry(str(info["name"]).rstrip("/"), int(info.get("size") or 0), _mtime(info))
            for info in listed
            if info.get("type") != "directory"
        ]

    def read(self, path: str, start: int, end: int) -> bytes:
        data: bytes = self.fs.cat_file(path, start=start, end=end)
        return data

    def remove(self, entries: list[Entry]) -> list[str]:
        if not entries:
            return []
        try:
            self.fs.rm([entry.path for entry in entries])
        except (OSError, ValueError) as error:
            return [f"{entries[0].path} and {len(entries) - 1} more: {error}"]
        finally:
            self.fs.invalidate_cache()
        return []

    def move(self, moves: list[tuple[Entry, str]]) -> list[str]:
        problems = []
        for entry, destination in moves:
            try:
                self.fs.mv(entry.path, destination)
            except (OSError, ValueError) as error:
                problems.append(f"{entry.path}: {error}")
        self.fs.invalidate_cache()
        return problems

    def prune(self, directories: Iterable[str]) -> None:
        """Nothing to do: an object store's "directory" is gone with its last object."""

    def trash_path(self, trash: str, relative: str) -> str:
        return str(self.fs._strip_protocol(trash)).rstrip("/") + "/" + relative


def _ancestors(directory: str, root: str) -> list[str]:
    """``directory`` and its parents down to ``root`` (both included)."""
    found = [directory]
    while directory != root and "/" in directory and inside(directory, root, "/"):
        directory = directory.rsplit("/", 1)[0]
        found.append(directory)
    return found


def _mtime(info: dict[str, Any]) -> float:
    """An fsspec entry's modification time (S3's LastModified, a local mtime, GCS's updated); unknown: now, so
    that the last-hour rule keeps the file rather than guess it is old."""
    for key in ("mtime", "LastModified", "last_modified", "updated", "modified", "created"):
        value = info.get(key)
        if isinstance(value, datetime):
            return value.timestamp()
        if isinstance(value, int | float):
            return float(value)
        if isinstance(value, str):
            try:
                return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
            except ValueError:
                continue
    return time.time()
