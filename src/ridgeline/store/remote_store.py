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

from ridgeline.store.disk import FORMAT
from ridgeline.store.files import FILE_MODE, private_directory, remove_quietly, write_atomically, write_json
from ridgeline.store.manifests import DIRECTORY, SHARDS, decode_shard, shard_name, shard_path
from ridgeline.store.packs import pack_name

TOP_FILES = ("store.json", "sources.json", "problems.json")
PART = ".part-"  # <column>.part-<first byte, 16 hex digits>: bytes the column gained after its base object
MAX_PARTS = 16  # a column with this many parts is uploaded whole again (one base object) and its parts removed


def named_files(manifest: Any) -> list[str]:
    """The column files under the run's directory a run's manifest names (what must be published with it)."""
    return list(committed_bytes(manifest))


def committed_bytes(manifest: Any) -> dict[str, int]:
    """The column files under the run's directory a run's manifest names, each with the bytes it committed."""
    if not isinstance(manifest, dict):
        return {}
    specs = []
    for entry in manifest.get("scalars") or []:
        own = entry.get("own") if isinstance(entry, dict) else None
        if isinstance(own, dict):
            specs += [own[part] for part in ("step", "wall_time", "value", "lod") if part in own]
    specs.append(manifest.get("blob_table"))
    return {
        str(spec["file"]): int(spec["bytes"])
        for spec in specs
        if isinstance(spec, dict) and _plain(str(spec.get("file", ""))) and isinstance(spec.get("bytes"), int)
    }


def named_packs(manifest: Any) -> set[str]:
    """The packs a run's manifest names (file names under ``packs/``)."""
    found = set()
    for part in manifest.get("packed") or [] if isinstance(manifest, dict) else []:
        with contextlib.suppress(TypeError, ValueError, IndexError):
            found.add(pack_name(int(part[0])))
    return found


def _plain(name: str) -> bool:
    return bool(name) and "/" not in name and "\\" not in name and not name.startswith(".")


def local_manifests(store: Path) -> tuple[dict[str, bytes], dict[str, Any]]:
    """A local store's shard files (shard -> bytes) and the runs' manifests they hold (run directory -> manifest)."""
    shards: dict[str, bytes] = {}
    manifests: dict[str, Any] = {}
    for shard in SHARDS:
        try:
            data = shard_path(store, shard).read_bytes()
        except OSError:
            continue
        shards[shard] = data
        manifests.update(decode_shard(data, FORMAT) or {})
    return shards, manifests


class Publisher:
    """Uploads a local store's committed state to ``root`` on ``fs`` (module docstring)."""

    def __init__(self, local: Path, fs: Any, root: str) -> None:
        self.local = local
        self.fs = fs
        self.root = root.rstrip("/")
        self._uploaded: dict[str, bytes | tuple[int, int]] = {}  # remote path -> what was sent (bytes, or stat)
        self._columns: dict[str, tuple[int, int]] = {}  # remote column -> (bytes published, parts written)
        self._named: dict[str, set[str]] = {}  # run directory -> the files its published manifest names
        self._packs: set[str] = set()  # packs uploaded (a pack never changes)

    def publish(self) -> int:
        """Upload what changed since the last call; returns how many objects were written."""
        written = 0
        shards, manifests = local_manifests(self.local)
        packs = set()
        for key, manifest in sorted(manifests.items()):
            committed = committed_bytes(manifest)
            for name in sorted(committed):
                written += self._put_column(
                    self.local / "runs" / key / name, f"{self.root}/runs/{key}/{name}", committed[name]
                )
            for name in sorted(named_packs(manifest) - self._packs):
                path = self.local / "packs" / name
                with contextlib.suppress(FileNotFoundError):  # unused meanwhile: a later shard drops it
                    self.fs.pipe_file(f"{self.root}/packs/{name}", path.read_bytes())
                    self._packs.add(name)
                    written += 1
            packs |= named_packs(manifest)
        # Then the manifests that count those bytes, then what they no longer name.
        for shard, data in sorted(shards.items()):
            remote = f"{self.root}/{DIRECTORY}/{shard_name(shard)}"
            if self._uploaded.get(remote) != data:
                self.fs.pipe_file(remote, data)
                self._uploaded[remote] = data
                written += 1
        for listed in self._listing(f"{self.root}/{DIRECTORY}"):
            if listed.rsplit("/", 1)[-1].split(".", 1)[0] not in shards:
                self.fs.rm_file(listed)
                self._uploaded.pop(f"{self.root}/{DIRECTORY}/{listed.rsplit('/', 1)[-1]}", None)
                written += 1
        for key, manifest in sorted(manifests.items()):
            names = set(committed_bytes(manifest))
            if self._named.get(key) != names:  # a new reading (a rewind, a rebuild): drop the old files
                written += self._remove_unnamed(f"{self.root}/runs/{key}", names)
                self._named[key] = names
        for name in TOP_FILES:
            written += self._put(self.local / name, f"{self.root}/{name}")
        for listed in self._listing(f"{self.root}/packs"):
            if listed.rsplit("/", 1)[-1] not in packs:
                self.fs.rm_file(listed)
                self._packs.discard(listed.rsplit("/", 1)[-1])
                written += 1
        with contextlib.suppress(FileNotFoundError):
            for gone in {path.rstrip("/").rsplit("/", 1)[-1] for path in self.fs.ls(f"{self.root}/runs")} - set(
                manifests
            ):
                self.fs.rm(f"{self.root}/runs/{gone}", recursive=True)
                self._named.pop(gone, None)
                written += 1
        return written

    def _listing(self, remote: str) -> list[str]:
        try:
            return [str(path).rstrip("/") for path in self.fs.ls(remote, detail=False)]
        except FileNotFoundError:
            return []

    def _remove_unnamed(self, remote: str, names: set[str]) -> int:
        removed = 0
        for path in self._listing(remote):
            name = path.rsplit("/", 1)[-1]
            if name.split(PART, 1)[0] not in names:
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
        for path in self._listing(directory):
            if path.rsplit("/", 1)[-1].startswith(name + PART):
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
        self.fs.pipe_file(remote, path.read_bytes())
        self._uploaded[remote] = (info.st_size, info.st_mtime_ns)
        return 1


class Mirror:
    """A local copy of the store at ``root`` on ``fs``, brought up to date by :meth:`sync` (module docstring)."""

    def __init__(self, fs: Any, root: str, local: Path) -> None:
        self.fs = fs
        self.root = root.rstrip("/")
        self.local = private_directory(local)
        self._seen: dict[str, Any] = {}  # remote shard -> its listed identity

    def sync(self) -> None:
        """Copy what changed: top files, then per changed shard its runs' new bytes and packs, then the shard."""
        self._forget_listings()
        for name in TOP_FILES:
            with contextlib.suppress(FileNotFoundError):
                write_json(self.local / name, json.loads(self.fs.cat_file(f"{self.root}/{name}")))
        try:
            listed = self.fs.find(self.root, detail=True)
        except FileNotFoundError:
            listed = {}
        extents = _extents(
            {self.fs._strip_protocol(path).rstrip("/"): info.get("size", 0) for path, info in listed.items()}
        )
        private_directory(self.local / "runs")
        private_directory(self.local / "packs")
        private_directory(self.local / DIRECTORY)
        remote_shards = set()
        root = self.fs._strip_protocol(self.root).rstrip("/")
        for path, info in sorted(listed.items()):
            relative = self.fs._strip_protocol(path).rstrip("/")[len(root) + 1 :]
            folder, _, name = relative.rpartition("/")
            shard = name.split(".", 1)[0]
            if folder != DIRECTORY or name != shard_name(shard) or shard not in SHARDS:
                continue
            remote_shards.add(shard)
            identity = (info.get("ETag"), info.get("size"), info.get("LastModified"))
            if self._seen.get(path) == identity:
                continue
            with contextlib.suppress(OSError, ValueError):
                self._copy_shard(path, shard, extents)
                self._seen[path] = identity
        for shard in set(SHARDS) - remote_shards:
            remove_quietly(shard_path(self.local, shard))
        self._remove_unnamed()

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

    def _copy_shard(self, shard_object: str, shard: str, extents: Extents) -> None:
        data = self.fs.cat_file(shard_object)
        manifests = decode_shard(data, FORMAT)
        if manifests is None:
            raise ValueError(f"{shard_object} is not a manifest shard")
        for key, manifest in manifests.items():
            if not _plain(str(key)):
                continue
            directory = self.local / "runs" / str(key)
            for name, needed in committed_bytes(manifest).items():
                self._copy_column(f"{self.root}/runs/{key}/{name}", directory / name, needed, extents)
            for name in named_packs(manifest):
                local = self.local / "packs" / name
                if not local.exists():
                    write_atomically(local, self.fs.cat_file(f"{self.root}/packs/{name}"))
        write_atomically(shard_path(self.local, shard), data)

    def _copy_column(self, remote: str, local: Path, needed: int, extents: Extents) -> None:
        have = local.stat().st_size if local.exists() else 0
        if needed <= have:
            return
        private_directory(local.parent)
        fd = os.open(local, os.O_WRONLY | os.O_CREAT, FILE_MODE)
        try:  # the base object, then its parts in order: each read from where the copy ends
            for start, size, key in extents.get(self.fs._strip_protocol(remote).rstrip("/"), []):
                if start + size <= have:
                    continue
                if start > have:  # a gap (a part listed before the one it follows): the next sync copies it
                    break
                data = self.fs.cat_file(key, start=have - start, end=size)
                os.pwrite(fd, data, have)
                have += len(data)
        finally:
            os.close(fd)

    def _remove_unnamed(self) -> None:
        """Delete from the copy what none of its shards names (runs gone, old readings, packs unused)."""
        _, manifests = local_manifests(self.local)
        packs = set().union(*(named_packs(manifest) for manifest in manifests.values())) if manifests else set()
        for entry in os.scandir(self.local / "packs"):
            if entry.name not in packs and not entry.name.startswith(".tmp-"):
                remove_quietly(Path(entry.path))
        for entry in os.scandir(self.local / "runs"):
            if entry.name not in manifests:
                shutil.rmtree(entry.path, ignore_errors=True)
                continue
            keep = set(named_files(manifests[entry.name]))
            for column in os.scandir(entry.path):
                if column.name not in keep and not column.name.startswith(".tmp-"):
                    remove_quietly(Path(column.path))


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
