"""Log directories on object storage (``s3://``, ``gs://``, any fsspec URL), read at the cost of a listing.

A pass over a remote log directory must not cost a request per run or per file: a bucket of 1,000 runs is
listed, not walked. :class:`ObjectReads` is what :class:`ridgeline.ingest.discovery.FsspecFileSystem` keeps
between passes:

- **One listing per pass.** Discovery lists the log directory recursively (``find(detail=True)``: one
  ListObjectsV2 request per 1,000 keys on S3, whatever the number of directories); the sizes and versions
  (ETag, else size and modification time) it returns answer every ``size`` of the pass. An object that did not
  change costs nothing more: its size is its stored offset, so nothing is read.
- **Ranged reads.** Every read is a ranged GET (``cat_file(path, start, end)``). A read that starts past the
  object's beginning and ends within ``READAHEAD_BYTES`` of its listed end is extended to that end: tailing a
  grown object reads the 4 KiB before the stored offset (the loop's fingerprint of what it read before) and
  everything after it in one request, and the reads that follow (the new records, the next fingerprint) are
  served from it.
- **A cache that cannot be stale.** What was read is kept per object *version* (the listing's tag): an object on
  S3 or GCS is replaced whole, never changed in place, so bytes read from one version stay true for it, and a
  new version (a longer upload) misses. Few blocks are kept (``CACHED_OBJECTS`` objects, two blocks each, at
  most ``CACHED_BYTES`` in all); reads come from several threads on the first pass (read ahead), under a lock.

Credentials and endpoint come from the standard AWS variables (:func:`storage_options`), passed to s3fs as
arguments so that fsspec's instance cache tells two endpoints apart.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

READAHEAD_BYTES = 1 << 20
CACHED_OBJECTS = 32  # more than the first pass reads ahead (ingest.loop.REMOTE_WORKERS + 1 files at a time)
CACHED_BYTES = 64 << 20

Cat = Callable[[str, int, int], bytes]  # (path, start, end) -> bytes: one ranged request


def storage_options(protocol: str, environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """fsspec arguments for ``protocol`` from the environment: for S3, ``AWS_ENDPOINT_URL_S3`` or
    ``AWS_ENDPOINT_URL`` (MinIO, Ceph, R2, moto...), ``AWS_ACCESS_KEY_ID`` / ``AWS_SECRET_ACCESS_KEY`` /
    ``AWS_SESSION_TOKEN``, ``AWS_PROFILE``, and ``AWS_REGION`` or ``AWS_DEFAULT_REGION``. Anything unset is left
    to botocore's own chain (config files, instance roles)."""
    if protocol not in ("s3", "s3a"):
        return {}
    env = os.environ if environ is None else environ
    options: dict[str, Any] = {}
    endpoint = env.get("AWS_ENDPOINT_URL_S3") or env.get("AWS_ENDPOINT_URL")
    if endpoint:
        options["endpoint_url"] = endpoint
    key, secret = env.get("AWS_ACCESS_KEY_ID"), env.get("AWS_SECRET_ACCESS_KEY")
    if key and secret:
        options["key"], options["secret"] = key, secret
        if env.get("AWS_SESSION_TOKEN"):
            options["token"] = env["AWS_SESSION_TOKEN"]
    elif env.get("AWS_PROFILE"):
        options["profile"] = env["AWS_PROFILE"]
    region = env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION")
    if region:
        options["client_kwargs"] = {"region_name": region}
    return options


@dataclass(frozen=True, slots=True)
class Listed:
    """An object as the last listing saw it."""

    size: int
    version: str
    modified: float | None = None  # Unix seconds (S3's LastModified, GCS's updated), None when not listed


def modified_of(info: Mapping[str, Any]) -> float | None:
    """An fsspec info's modification time in Unix seconds (a number, a datetime or an ISO 8601 string), None
    when it has none."""
    for key in ("mtime", "LastModified", "last_modified", "updated", "modified", "created"):
        value = info.get(key)
        if isinstance(value, int | float):
            return float(value)
        timestamp = getattr(value, "timestamp", None)
        if callable(timestamp):
            return float(timestamp())
        if isinstance(value, str):
            from datetime import datetime

            try:
                return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
            except ValueError:
                continue
    return None


def version_of(info: Mapping[str, Any]) -> str:
    """What changes when an object is replaced: its ETag (S3), generation or md5 (GCS), else size and mtime."""
    for key in ("ETag", "etag", "generation", "md5Hash", "version_id"):
        value = info.get(key)
        if value:
            return str(value)
    modified = info.get("LastModified") or info.get("mtime") or info.get("updated") or info.get("created") or ""
    return f"{info.get('size')}:{modified}"


class ObjectReads:
    """The objects of the last listing, and reads of them through a small per-version cache."""

    def __init__(self, cat: Cat) -> None:
        self._cat = cat
        self.listed: dict[str, Listed] = {}
        self._blocks: OrderedDict[str, tuple[str, list[tuple[int, bytes]]]] = OrderedDict()
        self._lock = threading.Lock()

    def note_listing(self, found: Mapping[str, Mapping[str, Any]]) -> None:
        """Take the objects of a fresh listing (name without protocol -> fsspec info)."""
        listed = {}
        for name, info in found.items():
            if info.get("type") != "directory":
                listed[name.rstrip("/")] = Listed(int(info.get("size") or 0), version_of(info), modified_of(info))
        with self._lock:
            self.listed = listed
            for name in [name for name, (version, _) in self._blocks.items() if name not in listed]:
                del self._blocks[name]

    def listing(self, name: str) -> Listed | None:
        """``name`` as the last listing saw it; None when it did not have it."""
        return self.listed.get(name)

    def size(self, name: str) -> int | None:
        """The listed size of ``name``; None when the last listing did not have it."""
        listed = self.listed.get(name)
        return None if listed is None else listed.size

    def read(self, name: str, offset: int, length: int) -> bytes:
        """``length`` bytes from ``offset`` of ``name``, as one ranged request or from the cache."""
        end = offset + length
        listed = self.listed.get(name)
        if listed is None or end > listed.size or length <= 0:
            return self._cat(name, offset, end) if length > 0 else b""
        with self._lock:
            cached = self._cached(name, listed.version, offset, end)
        if cached is not None:
            return cached
        fetch_end = listed.size if offset > 0 and listed.size - end <= READAHEAD_BYTES else end
        data = self._cat(name, offset, fetch_end)
        if len(data) == fetch_end - offset:
            with self._lock:
                self._keep(name, listed.version, offset, data)
        return data[:length]

    def _cached(self, name: str, version: str, start: int, end: int) -> bytes | None:
        entry = self._blocks.get(name)
        if entry is None or entry[0] != version:
            return None
        self._blocks.move_to_end(name)
        for block_start, data in entry[1]:
            if block_start <= start and end <= block_start + len(data):
                return data[start - block_start : end - block_start]
        return None

    def _keep(self, name: str, version: str, start: int, data: bytes) -> None:
        """Keep the block: per object the one at offset 0 (fingerprints read it every time) and the latest, joined
        into one when they meet (a small object's start, then what follows it)."""
        entry = self._blocks.get(name)
        blocks = entry[1] if entry is not None and entry[0] == version else []
        head = next((block for block in blocks if block[0] == 0), None)
        if head is not None and start != 0:
            if len(head[1]) == start and start + len(data) <= 2 * READAHEAD_BYTES:
                kept = [(0, head[1] + data)]
            else:
                kept = [head, (start, data)]
        else:
            kept = [(start, data)]
        self._blocks[name] = (version, kept)
        self._blocks.move_to_end(name)
        while len(self._blocks) > CACHED_OBJECTS or (
            len(self._blocks) > 1
            and sum(len(data) for _, blocks in self._blocks.values() for _, data in blocks) > CACHED_BYTES
        ):
            self._blocks.popitem(last=False)
