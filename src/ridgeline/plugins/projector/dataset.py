"""One embedding ready for the projector: its vectors, its metadata columns, its sprite, and what is wrong with them.

Loading reads the tensor file once per server (``DatasetCache``, in memory) and once per machine: the parsed matrix
is saved as ``<cache dir>/projector/tensors/<content hash>.npy`` (read back with ``allow_pickle=False``, memory
mapped), found again by the tensor file's path, size and modification time. The content hash (BLAKE2b of the
float32 matrix) is what projections are cached by: the same vectors logged twice share their projections.

Bad input never stops the embedding from being shown when its vectors can be read: metadata whose row count
disagrees with the tensor, a sprite of the wrong size, NaN/Inf rows, a single row or dimension each become a line
in ``problems`` (shown in the card), and the part at fault is left out. A tensor file that cannot be read at all
is a ProjectorError naming the file.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ridgeline.plugins.kit.media import image_size
from ridgeline.search.rows import RowSearch
from ridgeline.services.recent import RecentAnswers
from ridgeline.store.embeddings import EmbeddingRef, ProjectorError
from ridgeline.store.media import image_content_type

CATEGORICAL_LIMIT = 256  # distinct values up to which a column can colour the points by category


@dataclass(frozen=True, slots=True)
class Column:
    """One metadata column, dictionary-encoded: ``values`` (distinct, in first-seen order), each row's ``codes``,
    and ``numbers`` (one float per distinct value) when every value is a number."""

    name: str
    values: list[str]
    codes: np.ndarray
    numbers: np.ndarray | None

    @property
    def kind(self) -> str:
        """``numeric`` (colour by value), ``categorical`` (colour by category, with a legend) or ``text`` (too
        many distinct values to colour by: labels, tooltips and search only)."""
        if self.numbers is not None and len(self.values) > 12:
            return "numeric"
        return "categorical" if len(self.values) <= CATEGORICAL_LIMIT else "text"


@dataclass(frozen=True, slots=True)
class SpriteInfo:
    width: int
    height: int
    single_image_dim: tuple[int, int]
    per_row: int
    content_type: str


@dataclass
class Dataset:
    """An embedding's vectors (read-only float32, one row per point) and what goes with them."""

    ref: EmbeddingRef
    vectors: np.ndarray
    digest: str
    columns: list[Column]
    sprite: SpriteInfo | None
    problems: list[str]
    finite: np.ndarray  # rows without NaN/Inf
    _search: RowSearch | None = None
    _norms: np.ndarray | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def points(self) -> int:
        return int(self.vectors.shape[0])

    @property
    def dimensions(self) -> int:
        return int(self.vectors.shape[1]) if self.vectors.ndim == 2 else 0

    def search(self) -> RowSearch:
        """The metadata's row search (built on first use)."""
        with self._lock:
            if self._search is None:
                self._search = RowSearch({c.name: (c.values, c.codes) for c in self.columns})
            return self._search

    def norms(self) -> np.ndarray:
        """Each row's euclidean norm (float32), computed once: cosine neighbours divide by them."""
        with self._lock:
            if self._norms is None:
                norms = np.empty(self.points, dtype=np.float32)
                for start in range(0, self.points, 65536):
                    chunk = self.vectors[start : start + 65536]
                    norms[start : start + len(chunk)] = np.sqrt(np.einsum("ij,ij->i", chunk, chunk))
                self._norms = norms
            return self._norms


# --- loading ---------------------------------------------------------------------------------------------------


def load(ref: EmbeddingRef, cache_dir: Path | None) -> Dataset:
    """Read ``ref``'s files into a Dataset (the vectors through the parse cache in ``cache_dir`` when given)."""
    vectors, digest = _vectors(ref, cache_dir)
    problems: list[str] = []
    points = vectors.shape[0]
    shape = tuple(ref.tensor_shape)
    if len(shape) == 2 and shape != vectors.shape:
        problems.append(
            f"{Path(ref.config_path).name} gives tensor_shape {list(shape)}, but {_name(ref.tensor_path)} holds "
            f"{list(vectors.shape)}: the file is what is shown"
        )
    finite = np.isfinite(vectors).all(axis=1) if vectors.size else np.ones(points, dtype=np.bool_)
    bad = points - int(finite.sum())
    if bad:
        problems.append(
            f"{bad:,} of {points:,} points hold NaN or ±Inf values: they are left out of projections and "
            "neighbours (and not drawn)"
        )
    if points == 1:
        problems.append("the embedding has a single point: there is nothing to project or compare it with")
    elif points == 0:
        problems.append("the embedding has no points")
    if vectors.ndim == 2 and vectors.shape[1] == 1 and points:
        problems.append("the vectors have one dimension: PCA has one component, drawn along the x axis")
    columns = _columns(ref, points, problems)
    sprite = _sprite(ref, points, problems)
    return Dataset(ref, vectors, digest, columns, sprite, problems, finite)


def _name(path: str | None) -> str:
    return "the tensor file" if path is None else path.replace("\\", "/").rsplit("/", 1)[-1]


def _vectors(ref: EmbeddingRef, cache_dir: Path | None) -> tuple[np.ndarray, str]:
    """The matrix and its content hash: from the parse cache when the file's path, size and time match."""
    stamp_file = None
    if cache_dir is not None:
        size, modified = ref.stamp()
        if modified is not None:
            stamp = hashlib.sha256(f"{ref.tensor_path}\0{size}\0{modified}".encode()).hexdigest()[:32]
            stamp_file = cache_dir / "stamps" / f"{stamp}.json"
            cached = _cached_vectors(cache_dir, stamp_file)
            if cached is not None:
                return cached
    vectors = np.ascontiguousarray(ref.tensors(), dtype=np.float32)
    if vectors.ndim != 2:
        vectors = vectors.reshape(len(vectors), -1)
    digest = content_digest(vectors)
    vectors.setflags(write=False)
    if cache_dir is not None:
        saved = save_vectors(cache_dir, digest, vectors)
        if saved and stamp_file is not None:
            _write_atomic(stamp_file, json.dumps({"digest": digest}).encode())
    return vectors, digest


def content_digest(vectors: np.ndarray) -> str:
    hasher = hashlib.blake2b(digest_size=16)
    hasher.update(repr(vectors.shape).encode())
    for start in range(0, len(vectors), 65536):  # in chunks: no copy of the whole matrix
        hasher.update(np.ascontiguousarray(vectors[start : start + 65536], dtype="<f4").tobytes())
    return hasher.hexdigest()


def vectors_path(cache_dir: Path, digest: str) -> Path:
    return cache_dir / "tensors" / f"{digest}.npy"


def save_vectors(cache_dir: Path, digest: str, vectors: np.ndarray) -> bool:
    """Save the matrix as .npy under its digest (what background jobs read); False when it cannot be written."""
    path = vectors_path(cache_dir, digest)
    if path.exists():
        return True
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".tmp-", suffix=".npy", delete=False) as file:
            np.save(file, vectors, allow_pickle=False)
        os.replace(file.name, path)
    except OSError:
        return False
    return True


def _cached_vectors(cache_dir: Path, stamp_file: Path) -> tuple[np.ndarray, str] | None:
    try:
        digest = str(json.loads(stamp_file.read_bytes())["digest"])
        if not digest.isalnum():
            return None
        vectors = np.load(vectors_path(cache_dir, digest), mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if vectors.dtype != np.float32 or vectors.ndim != 2:
        return None
    return vectors, digest


def _write_atomic(path: Path, data: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".tmp-", delete=False) as file:
            file.write(data)
        os.replace(file.name, path)
    except OSError:
        pass  # the cache is an optimisation: the next load parses again


def _columns(ref: EmbeddingRef, points: int, problems: list[str]) -> list[Column]:
    if ref.metadata_path is None:
        return []
    name = _name(ref.metadata_path)
    try:
        metadata = ref.metadata()
    except ProjectorError as error:
        problems.append(f"{error}: the metadata is left out")
        return []
    header, rows = metadata.header, list(metadata.rows)
    if header is None and len(rows) == points + 1 and points > 0:
        problems.append(
            f"{name} has one line more than there are points ({points:,}): its first line is read as the column "
            "name (a file of one column has no header in TensorBoard's format)"
        )
        header, rows = rows[0], rows[1:]
    if len(rows) != points:
        what = "rows after its header line" if metadata.header is not None else "lines"
        problems.append(
            f"{name} has {len(rows):,} {what} for {points:,} points: the metadata is left out (it must have one "
            "row per point" + (", after a header line of column names" if metadata.header is not None else "") + ")"
        )
        return []
    names = list(header) if header is not None else ["label"]
    ragged = sum(1 for row in rows if len(row) != len(names))
    if ragged:
        problems.append(f"{ragged:,} rows of {name} do not have {len(names)} fields: the missing ones are empty")
    columns = []
    for index, column in enumerate(_unique(names)):
        values: dict[str, int] = {}
        codes = np.fromiter(
            (values.setdefault(row[index] if index < len(row) else "", len(values)) for row in rows),
            dtype=np.int32,
            count=len(rows),
        )
        distinct = list(values)
        columns.append(Column(column, distinct, codes, _numbers(distinct)))
    return columns


def _unique(names: list[str]) -> list[str]:
    """Column names made distinct (a repeated or empty header field gets a suffix)."""
    seen: dict[str, int] = {}
    out = []
    for position, name in enumerate(names):
        name = name.strip() or f"column {position + 1}"
        count = seen.get(name, 0)
        seen[name] = count + 1
        out.append(name if count == 0 else f"{name} ({count + 1})")
    return out


def _numbers(values: list[str]) -> np.ndarray | None:
    """One float per value when every non-empty value is a finite-or-not number (empty ones are NaN), else None."""
    try:
        numbers = np.array([float(v) if v.strip() else math.nan for v in values], dtype=np.float64)
    except ValueError:
        return None
    return numbers if np.isfinite(numbers).any() else None


def _sprite(ref: EmbeddingRef, points: int, problems: list[str]) -> SpriteInfo | None:
    if ref.sprite_path is None:
        return None
    name = _name(ref.sprite_path)
    dims = tuple(ref.sprite_single_image_dim)
    if len(dims) != 2 or dims[0] <= 0 or dims[1] <= 0:
        problems.append(f"the sprite {name} has no single_image_dim [width, height] in the config: it is left out")
        return None
    try:
        data = ref.sprite().data
    except ProjectorError as error:
        problems.append(f"{error}: the sprite is left out")
        return None
    content_type = image_content_type(data)
    size = image_size(data)
    if size is None or not content_type.startswith("image/"):
        problems.append(f"the sprite {name} is not a PNG, JPEG, GIF or BMP image: it is left out")
        return None
    width, height = size
    per_row, rows = width // dims[0], height // dims[1]
    if per_row * rows < points:
        problems.append(
            f"the sprite {name} is {width}×{height}: it holds {per_row * rows:,} images of {dims[0]}×{dims[1]}, "
            f"not one for each of the {points:,} points: it is left out"
        )
        return None
    return SpriteInfo(width, height, (int(dims[0]), int(dims[1])), per_row, content_type)


# --- the cache -------------------------------------------------------------------------------------------------


class DatasetCache:
    """The datasets loaded by this server, the most recently used kept (``capacity`` of them); one load at a time
    per embedding (a second request for it waits for the first instead of parsing the file again)."""

    def __init__(self, cache_dir: Path | None, capacity: int = 6) -> None:
        self.cache_dir = cache_dir
        self._datasets: RecentAnswers[tuple[object, ...], Dataset] = RecentAnswers(capacity)

    def get(self, run: str, ref: EmbeddingRef) -> Dataset:
        key = (run, ref.config_path, ref.name, ref.tensor_path, ref.metadata_path, ref.sprite_path, ref.stamp())
        return self._datasets.get(key, lambda: load(ref, self.cache_dir))
