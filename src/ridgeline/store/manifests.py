"""The store's manifests: every run's, in :data:`SHARDS` files, not one file per run.

A run's manifest (a JSON object: its series, their files or packed segments, committed lengths and CRC32C, its
facts and ingest's resume state; see :mod:`ridgeline.store.disk`) lives in the *shard* named after the first
hex digit of the run's directory name, ``manifests/<digit>.json.gz``::

    {"format": 5, "runs": {"<run directory name>": <manifest>, ...}}

gzip'd JSON without a timestamp (equal shards are equal bytes), rewritten atomically (a temporary file, then
``os.replace``) at the end of each ingest pass that changed one of its runs. Sixteen files instead of one per
run: creating and renaming a file per run was most of the first pass over a directory of 1,000 short runs.
A shard that does not decompress or parse holds no run: its runs are read again from their event files.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from ridgeline.store.files import decode_manifest, remove_quietly, write_atomically

SHARDS = "0123456789abcdef"
DIRECTORY = "manifests"


def shard_of(run_directory: str) -> str:
    """The shard holding the manifest of the run whose directory is ``run_directory`` (a hex digest)."""
    return run_directory[:1]


def shard_name(shard: str) -> str:
    return f"{shard}.json.gz"


def shard_path(store: Path, shard: str) -> Path:
    return store / DIRECTORY / shard_name(shard)


def encode_shard(format_: int, entries: Mapping[str, str]) -> bytes:
    """A shard's bytes from its runs' manifests, each already JSON (``entries``: directory name -> JSON)."""
    body = ",".join(f"{json.dumps(name)}:{entries[name]}" for name in sorted(entries))
    # Level 1: half the time of level 6 (7 against 16 ms for 1,000 runs' manifests), a quarter more bytes.
    return gzip.compress(f'{{"format":{format_},"runs":{{{body}}}}}'.encode(), 1, mtime=0)


def decode_shard(data: bytes, format_: int) -> dict[str, Any] | None:
    """The manifests of a shard's runs (directory name -> manifest); None when it is not a shard of
    ``format_`` (damaged, or another version's)."""
    found = decode_manifest(data)
    if not isinstance(found, dict) or found.get("format") != format_ or not isinstance(found.get("runs"), dict):
        return None
    runs: dict[str, Any] = found["runs"]
    return runs


def read_shard(path: Path, format_: int) -> dict[str, Any] | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return decode_shard(data, format_)


def write_shard(store: Path, shard: str, format_: int, entries: Mapping[str, str]) -> None:
    """Write a shard (its file removed when it holds no run)."""
    path = shard_path(store, shard)
    if entries:
        write_atomically(path, encode_shard(format_, entries))
    else:
        remove_quietly(path)


def to_json(manifest: Any) -> str:
    """The manifest as compact JSON, by orjson where that says the same (2x faster than json for 1,000 runs'
    manifests, the check of what it wrote included): it writes a NaN or an infinity (a wall time from a damaged
    file) as null, refuses an integer beyond 64 bits, and makes tuples lists; any of that and json writes it."""
    try:
        text = orjson.dumps(manifest)
        if orjson.loads(text) == manifest:
            return text.decode()
    except (TypeError, orjson.JSONEncodeError):
        pass
    return _ENCODER.encode(manifest)


# A manifest is plain data built afresh (no cycles): not checking for them is a fifth of encoding 1,000 runs'.
_ENCODER = json.JSONEncoder(separators=(",", ":"), allow_nan=True, check_circular=False)
