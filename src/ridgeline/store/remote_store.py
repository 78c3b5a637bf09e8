"""A store on object storage (``--store s3://bucket/prefix``, any fsspec URL): published by its indexer, mirrored by
its replicas.

Object stores have no append, no rename and no mapping, so neither side writes or maps the objects in place:

- the indexer keeps an ordinary :class:`~ridgeline.store.disk.DiskStore` in its cache directory and, after each
  pass, :class:`Publisher` uploads what changed: for every column file a manifest names, the bytes it committed
  since the last pass as one *part* object, ``<column>.part-<first byte in 16 hex digits>`` (the whole column,
  its *base* object, the first time in a process and once it has :data:`MAX_PARTS` parts, whose objects are
  then removed), **then** the manifest, then ``store.json``, ``sources.json`` and ``problems.json``; runs no
  longer there are deleted. A pass that appends 1 MB to a 1 GB column uploads 1 MB, not 1 GB. A PUT is atomic
  (a reader gets the old object or the new one), and a manifest is uploaded after the columns it counts, so a
  manifest a replica reads names bytes that are already there. Columns only grow, so a base object read later
  is a longer version of the same bytes, and a part holds the bytes after those it follows.
- a replica's :class:`Mirror` copies the store into a directory of its own (its cache, never the store):
  each changed manifest (by its listed ETag or size), then, for each column it names, the bytes past what the
  copy holds (ranged GETs of its base object and parts, in order; a part removed meanwhile, or a gap, ends the
  copy there until the next sync), then the manifest, written atomically. The :class:`~ridgeline.store.replica.Replica`
  reads the copy as it reads a local store: columns checked against the manifest's CRCs before they are served.

The fsspec file system and the URL's path are given by the caller (``ridgeline.api``: credentials and endpoint
from the environment, as for log directories).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

from ridgeline.store.files import (
    FILE_MODE,
    MANIFEST,
    decode_manifest,
    private_directory,
    write_atomically,
    write_json,
)

TOP_FILES = ("store.json", "sources.json", "problems.json")
PART = ".part-"  # <column>.part-<first byte, 16 hex digits>: bytes the column gained after its base object
MAX_PARTS = 16  # a column with this many parts is uploaded whole again (one base object) and its parts removed


def named_files(manifest: Any) -> list[str]:
    """The column files a run's manifest names (what must be published with it)."""
    return list(committed_bytes(manifest))


def committed_bytes(manifest: Any) -> dict[str, int]:
    """The column files a run's manifest names, each with the bytes it committed."""
    if not isinstance(manifest, dict):
        return {}
    specs = []
    for entry in manifest.get("scalars") or []:
        own = entry.get("own") if isinstance(entry, dict) else None
        if isinstance(own, dict):
            specs += [own[part] for part in ("step", "wall_time", "value", "lod") if part in own]
    specs += [manifest.get(key) for key in ("packed", "blob_table")]
    return {
        str(spec["file"]): int(spec["bytes"])
        for spec in specs
        if isinstance(spec, dict) and _plain(str(spec.get("file", ""))) and isinstance(spec.get("bytes"), int)
    }


def _plain(name: str) -> bool:
    return bool(name) and "/" not in name and "\\" not in name and not name.startswith(".")


class Publisher:
    """Uploads a local store's committed state to ``root`` on ``fs`` (module docstring)."""

    def __init__(self, local: Path, fs: Any, root: str) -> None:
        self.local = local
        self.fs = fs
        self.root = root.rstrip("/")
        self._uploaded: dict[str, tuple[int, int]] = {}  # remote path -> (size, mtime_ns) of the local file sent
        self._columns: dict[str, tuple[int, int]] = {}  # remote column -> (bytes published, parts written)
        self._named: dict[str, set[str]] = {}  # run directory -> the files its published manifest names

    def publish(self) -> int:
        """Upload what changed since the last call; returns how many objects were written."""
        written = 0
        runs = self.local / "runs"
        present = set()
        for directory in sorted(runs.iterdir()) if runs.is_dir() else []:
            manifest_path = directory / MANIFEST
            try:
                manifest_bytes = manifest_path.read_bytes()
            except OSError:
                continue
            present.add(directory.name)
            remote = f"{self.root}/runs/{directory.name}"
            committed = committed_bytes(decode_manifest(manifest_bytes))
            names = set(committed)
            for name in sorted(names):
                written += self._put_column(directory / name, f"{remote}/{name}", committed[name])
            written += self._put_bytes(manifest_bytes, manifest_path, f"{remote}/{MANIFEST}")
            if self._named.get(directory.name) != names:  # a new reading (a rewind, a rebuild): drop the old files
                written += self._remove_unnamed(remote, names)
                self._named[directory.name] = names
        for name in TOP_FILES:
            written += self._put(self.local / name, f"{self.root}/{name}")
        with contextlib.suppress(FileNotFoundError):
            for gone in {path.rstrip("/").rsplit("/", 1)[-1] for path in self.fs.ls(f"{self.root}/runs")} - present:
                self.fs.rm(f"{self.root}/runs/{gone}", recursive=True)
                written += 1
        return written

    def _remove_unnamed(self, remote: str, names: set[str]) -> int:
        removed = 0
        with contextlib.suppress(FileNotFoundError):
            for path in self.fs.ls(remote, detail=False):
                name = str(path).rstrip("/").rsplit("/", 1)[-1]
                if name.split(PART, 1)[0] not in names and name != MANIFEST:
                    self.fs.rm_file(path)
                    self._columns.pop(f"{remote}/{name}", None)
                    removed += 1
        return removed

    def _put_column(self, path: Path, remote: str, size: int) -> int:
        """Publish a column's first ``size`` bytes (what its manifest committed): the bytes it gained since the
        last call as one part object, or the column whole (its first time in this process, or once it has
        :data:`MAX_PARTS` parts), then its parts removed. A column only grows, so a part never changes what a
        replica copied before it."""
        sent, parts = self._columns.get(remote, (-1, 0))
        if size == sent or size == 0:  # unchanged, or nothing committed (a file never written)
            return 0
        try:
            file = open(path, "rb")  # noqa: SIM115  # closed below
        except FileNotFoundError:  # a run removed since its manifest was read: the next pass sees it gone
            return 0
        with file:
            if 0 <= sent < size and parts < MAX_PARTS:
                file.seek(sent)
                self.fs.pipe_file(f"{remote}{PART}{sent:016x}", _read_exactly(file, size - sent, path))
                self._columns[remote] = (size, parts + 1)
                return 1
            self.fs.pipe_file(remote, _read_exactly(file, size, path))
        self._columns[remote] = (size, 0)
        return 1 + self._remove_parts(remote)

    def _remove_parts(self, remote: str) -> int:
        """Delete the parts of ``remote`` (its base object now holds their bytes)."""
        directory, name = remote.rsplit("/", 1)
        removed = 0
        with contextlib.suppress(FileNotFoundError):
            for path in self.fs.ls(directory, detail=False):
                if str(path).rstrip("/").rsplit("/", 1)[-1].startswith(name + PART):
                    self.fs.rm_file(path)
                    removed += 1
        return removed

    def _put(self, path: Path, remote: str) -> int:
        try:
            info = path.stat()
        except FileNotFoundError:
            return 0
        if self._uploaded.get(remote) == (info.st_size, info.st_mtime_ns):
            return 0
        return self._put_bytes(path.read_bytes(), path, remote, (info.st_size, info.st_mtime_ns))

    def _put_bytes(self, data: bytes, path: Path, remote: str, seen: tuple[int, int] | None = None) -> int:
        if seen is None:
            info = path.stat()
            seen = (info.st_size, info.st_mtime_ns)
            if self._uploaded.get(remote) == seen:
                return 0
        self.fs.pipe_file(remote, data)
        self._uploaded[remote] = seen
        return 1


class Mirror:
    """A local copy of the store at ``root`` on ``fs``, brought up to date by :meth:`sync` (module docstring)."""

    def __init__(self, fs: Any, root: str, local: Path) -> None:
        self.fs = fs
        self.root = root.rstrip("/")
        self.local = private_directory(local)
        self._seen: dict[str, Any] = {}  # remote manifest -> its listed identity

    def sync(self) -> None:
        """Copy what changed: top files, then per changed run its columns' new bytes, then its manifest."""
        self._forget_listings()
        for name in TOP_FILES:
            with contextlib.suppress(FileNotFoundError):
                write_json(self.local / name, json.loads(self.fs.cat_file(f"{self.root}/{name}")))
        try:
            listed = self.fs.find(f"{self.root}/runs", detail=True)
        except FileNotFoundError:
            listed = {}
        extents = _extents(
            {self.fs._strip_protocol(path).rstrip("/"): info.get("size", 0) for path, info in listed.items()}
        )
        runs = private_directory(self.local / "runs")
        remote_runs = set()
        for path, info in sorted(listed.items()):
            if not path.endswith(f"/{MANIFEST}"):
                continue
            run = path.rstrip("/").rsplit("/", 2)[-2]
            remote_runs.add(run)
            identity = (info.get("ETag"), info.get("size"), info.get("LastModified"))
            if self._seen.get(path) == identity:
                continue
            with contextlib.suppress(OSError, ValueError):
                self._copy_run(path, run, extents, runs / run)
                self._seen[path] = identity
        for stale in {entry.name for entry in os.scandir(runs) if entry.is_dir()} - remote_runs:
            shutil.rmtree(runs / stale, ignore_errors=True)

    def _forget_listings(self) -> None:
        """Drop every directory listing the file system cached under the store. s3fs's ``find`` caches a
        directory's listing only when none is cached, and ``cat_file`` trusts a cached one: a listing taken while
        the indexer was uploading a new run (its columns, not yet its manifest) would hide that manifest from
        every later sync, and the run would never be served."""
        self.fs.invalidate_cache(self.root)
        cache = getattr(self.fs, "dircache", None)
        if cache is None:
            return
        root = self.fs._strip_protocol(self.root).rstrip("/")
        for key in [key for key in cache if key == root or key.startswith(root + "/")]:
            cache.pop(key, None)

    def _copy_run(self, manifest_path: str, run: str, extents: Extents, directory: Path) -> None:
        manifest_bytes = self.fs.cat_file(manifest_path)
        manifest = decode_manifest(manifest_bytes)
        if not isinstance(manifest, dict):
            raise ValueError(f"{manifest_path} is not a manifest")
        private_directory(directory)
        base = manifest_path.rstrip("/").rsplit("/", 1)[0]
        for name, needed in committed_bytes(manifest).items():
            local = directory / name
            have = local.stat().st_size if local.exists() else 0
            if needed <= have:
                continue
            fd = os.open(local, os.O_WRONLY | os.O_CREAT, FILE_MODE)
            try:  # the base object, then its parts in order: each read from where the copy ends
                for start, size, key in extents.get(self.fs._strip_protocol(f"{base}/{name}").rstrip("/"), []):
                    if start + size <= have:
                        continue
                    if start > have:  # a gap (a part listed before the one it follows): the next sync copies it
                        break
                    data = self.fs.cat_file(key, start=have - start, end=size)
                    os.pwrite(fd, data, have)
                    have += len(data)
            finally:
                os.close(fd)
        write_atomically(directory / MANIFEST, manifest_bytes)
        keep = {*named_files(manifest), MANIFEST}
        for entry in os.scandir(directory):
            if entry.name not in keep and not entry.name.startswith(".tmp-"):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


def _read_exactly(file: Any, count: int, path: Path) -> bytes:
    data = file.read(count)
    if len(data) != count:
        raise OSError(f"{path} is shorter than its manifest committed")
    return data


Extents = dict[str, list[tuple[int, int, str]]]  # column object -> (first byte, size, object) of it and its parts


def _extents(sizes: dict[str, int]) -> Extents:
    """The listed objects as columns: each base object and its parts, by first byte."""
    out: Extents = {}
    for key, size in sizes.items():
        column, _, start = key.partition(PART)
        if not start:
            out.setdefault(key, []).append((0, size, key))
        elif len(start) == 16 and all(c in "0123456789abcdef" for c in start):
            out.setdefault(column, []).append((int(start, 16), size, key))
    for parts in out.values():
        parts.sort()
    return out
