"""A store on object storage (``--store s3://bucket/prefix``, any fsspec URL): published by its indexer, mirrored by
its replicas.

Object stores have no append, no rename and no mapping, so neither side writes or maps the objects in place:

- the indexer keeps an ordinary :class:`~ridgeline.store.disk.DiskStore` in its cache directory and, after each
  pass, :class:`Publisher` uploads what changed: every column file a manifest names whose size or time moved
  (whole: an object is written whole), **then** the manifest, then ``store.json``, ``sources.json`` and
  ``problems.json``; runs no longer there are deleted. A PUT is atomic (a reader gets the old object or the new
  one), and a manifest is uploaded after the columns it counts, so a manifest a replica reads names bytes that
  are already there. Columns only grow, so an object read later is a longer version of the same bytes.
- a replica's :class:`Mirror` copies the store into a directory of its own (its cache, never the store):
  each changed manifest (by its listed ETag or size), then, for each column it names, the bytes past what the
  copy holds (one ranged GET), then the manifest, written atomically. The :class:`~ridgeline.store.replica.Replica`
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


def named_files(manifest: Any) -> list[str]:
    """The column files a run's manifest names (what must be published with it)."""
    if not isinstance(manifest, dict):
        return []
    names = []
    for entry in manifest.get("scalars") or []:
        own = entry.get("own") if isinstance(entry, dict) else None
        if isinstance(own, dict):
            names += [own[part]["file"] for part in ("step", "wall_time", "value", "lod") if part in own]
    for key in ("packed", "blob_table"):
        spec = manifest.get(key)
        if isinstance(spec, dict):
            names.append(spec["file"])
    return [str(name) for name in names if _plain(str(name))]


def _plain(name: str) -> bool:
    return bool(name) and "/" not in name and "\\" not in name and not name.startswith(".")


class Publisher:
    """Uploads a local store's committed state to ``root`` on ``fs`` (module docstring)."""

    def __init__(self, local: Path, fs: Any, root: str) -> None:
        self.local = local
        self.fs = fs
        self.root = root.rstrip("/")
        self._uploaded: dict[str, tuple[int, int]] = {}  # remote path -> (size, mtime_ns) of the local file sent
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
            names = set(named_files(decode_manifest(manifest_bytes)))
            for name in sorted(names):
                written += self._put(directory / name, f"{remote}/{name}")
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
                if name not in names and name != MANIFEST:
                    self.fs.rm_file(path)
                    self._uploaded.pop(f"{remote}/{name}", None)
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
        self.fs.invalidate_cache(self.root)
        for name in TOP_FILES:
            with contextlib.suppress(FileNotFoundError):
                write_json(self.local / name, json.loads(self.fs.cat_file(f"{self.root}/{name}")))
        try:
            listed = self.fs.find(f"{self.root}/runs", detail=True)
        except FileNotFoundError:
            listed = {}
        sizes = {self.fs._strip_protocol(path).rstrip("/"): info.get("size", 0) for path, info in listed.items()}
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
                self._copy_run(path, run, sizes, runs / run)
                self._seen[path] = identity
        for stale in {entry.name for entry in os.scandir(runs) if entry.is_dir()} - remote_runs:
            shutil.rmtree(runs / stale, ignore_errors=True)

    def _copy_run(self, manifest_path: str, run: str, sizes: dict[str, int], directory: Path) -> None:
        manifest_bytes = self.fs.cat_file(manifest_path)
        manifest = decode_manifest(manifest_bytes)
        if not isinstance(manifest, dict):
            raise ValueError(f"{manifest_path} is not a manifest")
        private_directory(directory)
        base = manifest_path.rstrip("/").rsplit("/", 1)[0]
        for name in named_files(manifest):
            remote = f"{base}/{name}"
            local = directory / name
            have = local.stat().st_size if local.exists() else 0
            size = sizes.get(self.fs._strip_protocol(remote).rstrip("/"))
            if size is None or size <= have:
                continue
            data = self.fs.cat_file(remote, start=have, end=size)
            fd = os.open(local, os.O_WRONLY | os.O_CREAT, FILE_MODE)
            try:
                os.pwrite(fd, data, have)
            finally:
                os.close(fd)
        write_atomically(directory / MANIFEST, manifest_bytes)
        keep = {*named_files(manifest), MANIFEST}
        for entry in os.scandir(directory):
            if entry.name not in keep and not entry.name.startswith(".tmp-"):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
