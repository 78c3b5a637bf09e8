"""The embeddings of the projector (what ``add_embedding`` wrote): one :class:`EmbeddingRef` per embedding of a
run's projector config, its files (tensors, metadata, sprite, bookmarks) read only when asked for.

Files are opened through ``_open``, a callable ``path -> binary file`` given by whoever listed the embeddings
(ingest's ``read_projector``, over the run's filesystem). Every error is a :class:`ProjectorError` naming the file.
"""

from __future__ import annotations

import contextlib
import os
import re
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO
from urllib.parse import unquote

import numpy as np

from ridgeline.store.media import image_content_type

__all__ = ["EmbeddingMetadata", "EmbeddingRef", "Opener", "ProjectorError", "Sprite", "parse_tsv"]

# torch's tensor_name: the tag, a colon and the step zero-padded to at least 5 digits.
_TORCH_NAME = re.compile(r"(?P<tag>.+):(?P<step>\d{5,})")

Opener = Callable[[str], IO[bytes]]


class ProjectorError(ValueError):
    """A projector file that is missing, unreadable or malformed (the message names it)."""


@contextlib.contextmanager
def _reading(path: str, what: str) -> Iterator[None]:
    try:
        yield
    except ProjectorError:
        raise
    except FileNotFoundError:
        raise ProjectorError(f"{what} {path} does not exist") from None
    except Exception as error:
        raise ProjectorError(f"{what} {path} could not be read: {type(error).__name__}: {error}") from None


def _read(opener: Opener, path: str, what: str) -> bytes:
    with _reading(path, what), opener(path) as file:
        data = file.read()
    return bytes(data)


def _is_text(data: bytes) -> bool:
    """Whether a tensor file is text (TSV): ASCII, or failing that valid UTF-8 (checked only then: decoding a
    gigabyte of ASCII would copy it)."""
    if data.isascii():
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


_BLOCK_LINES = 4096  # lines parsed at a time when looking for the line that is not a row of numbers


def parse_tsv(data: bytes, what: str) -> np.ndarray:
    """Rows of tab-separated numbers (blank lines skipped, ``\\r\\n`` accepted, ``nan``/``inf`` read as such) as a
    float32 matrix, parsed as float64 first, as TensorBoard does. ``what`` names the file in errors.

    pyarrow's multi-threaded CSV reader parses a clean matrix when it is installed (and checks that every row has
    as many values as the first); otherwise, or when it refuses the file, numpy's C parser, then a search for the
    line at fault."""
    first, width = _first_row(data)
    matrix = _parse_arrow(data, width)
    if matrix is not None:
        return matrix
    lines = _line_count(data)
    if lines == 0:
        return np.zeros((0, 0), dtype=np.float32)
    values = _parse_numbers(data)
    if values is None or values.size != lines * width:
        _diagnose(data, first, width, what)
        if values is None:  # every line is a row of `width` numbers, but the fast path could not say so
            values = _parse_numbers(data)
    if values is None or values.size % width:
        raise ProjectorError(f"{what}: rows have different numbers of values")
    return values.reshape(-1, width).astype(np.float32)


def _first_row(data: bytes) -> tuple[int, int]:
    """The first line that holds something (1-based) and its number of tab-separated fields."""
    at, number = 0, 1
    while True:
        end = data.find(b"\n", at)
        line = data[at : len(data) if end < 0 else end]
        if line.strip() or end < 0:
            return number, line.count(b"\t") + 1
        at, number = end + 1, number + 1


def _line_count(data: bytes) -> int:
    """Lines holding something (blank ones skipped)."""
    count = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
    if b"\n\n" in data or b"\n\r\n" in data or data.startswith((b"\n", b"\r\n")):
        blank = sum(1 for line in data.split(b"\n") if not line.strip())  # rare: a Python loop over lines only
        count = count + (1 if data.endswith(b"\n") else 0) - blank
    return count


def _parse_numbers(data: bytes) -> np.ndarray | None:
    """Every whitespace-separated number in ``data`` (numpy's C parser), or None when one is not a number."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        try:
            return np.fromstring(data, dtype=np.float64, sep=" ")
        except (ValueError, DeprecationWarning):
            return None


def _parse_arrow(data: bytes, width: int) -> np.ndarray | None:
    """The (rows, width) float32 matrix read by pyarrow's CSV reader (a few times faster than numpy's, on every
    core); None when pyarrow is not installed or the data is not a clean matrix (then the numpy path decides and
    :func:`_diagnose` says where)."""
    try:
        import pyarrow as pa
        import pyarrow.csv as pa_csv
    except ImportError:
        return None
    options = pa_csv.ParseOptions(delimiter="\t", quote_char=False, double_quote=False, escape_char=False)
    # No null values: "nan" is a number here, and an empty field is an error, not a missing value.
    convert = pa_csv.ConvertOptions(
        column_types={f"f{i}": pa.float64() for i in range(width)}, null_values=[], strings_can_be_null=False
    )
    try:
        table = pa_csv.read_csv(
            pa.py_buffer(data),
            read_options=pa_csv.ReadOptions(autogenerate_column_names=True),
            parse_options=options,
            convert_options=convert,
        )
    except (pa.ArrowInvalid, ValueError):
        return None
    if table.num_columns != width or table.num_rows == 0 or any(column.null_count for column in table.columns):
        return None
    # Column by column into a column-major float32 array (contiguous writes), then one transpose: filling the
    # row-major matrix a column at a time would write with a stride of a whole row.
    columns = np.empty((width, table.num_rows), dtype=np.float32)
    for i, column in enumerate(table.columns):
        at = 0
        for chunk in column.chunks:
            columns[i, at : at + len(chunk)] = chunk.to_numpy(zero_copy_only=False)
            at += len(chunk)
    return np.ascontiguousarray(columns.T)


def _diagnose(data: bytes, first: int, width: int, what: str) -> None:
    """Raises the ProjectorError that says which line is not a row of ``width`` numbers (if one is not), in blocks
    of lines so that a problem near the end of a large file is found in seconds."""
    lines = data.split(b"\n")
    for start in range(0, len(lines), _BLOCK_LINES):
        block = lines[start : start + _BLOCK_LINES]
        values = _parse_numbers(b"\n".join(block))
        fields = [line.count(b"\t") + 1 for line in block if line.strip()]
        if values is not None and values.size == width * len(fields) and all(f == width for f in fields):
            continue
        for number, line in enumerate(block, start + 1):
            if line.strip():
                _check_line(line, number, lines[number:], first, width, what)


def _check_line(line: bytes, number: int, rest: list[bytes], first: int, width: int, what: str) -> None:
    found = _parse_numbers(line)
    if found is None:
        bad = next((t for t in line.split() if _parse_numbers(t) is None), line.strip())[:40]
        raise ProjectorError(f"{what}: not a matrix of numbers: line {number} holds {bad.decode('utf-8', 'replace')!r}")
    fields = line.count(b"\t") + 1
    last = all(not later.strip() for later in rest)
    if fields != width:
        raise ProjectorError(
            f"{what}: rows have different numbers of values: line {number} has {fields}, line {first} has {width}"
            + (" (the file looks truncated)" if last and fields < width else "")
        )
    if found.size != width:
        raise ProjectorError(
            f"{what}: line {number} has an empty value (two tabs in a row, or a tab at an end)"
            + (": the file looks truncated" if last else "")
        )


@dataclass(frozen=True, slots=True)
class EmbeddingMetadata:
    """metadata.tsv: ``header`` is the column names when the file has more than one column (its first line holds
    a tab, as TensorBoard decides), else None; ``rows`` one tuple of fields per point."""

    header: tuple[str, ...] | None
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True, slots=True)
class Sprite:
    """The sprite image (all label images tiled) and one image's ``single_image_dim`` (width, height)."""

    data: bytes
    single_image_dim: tuple[int, ...]
    content_type: str


@dataclass(frozen=True, slots=True)
class EmbeddingRef:
    """One embedding of a projector config; the files are read only when asked for.

    ``name`` is the config's tensor_name (a trailing ":0" dropped, as TensorBoard does); paths are resolved
    (relative to the config's directory) or None when the config names no such file.
    """

    name: str
    config_path: str
    tensor_path: str | None
    tensor_shape: tuple[int, ...]
    metadata_path: str | None
    sprite_path: str | None
    sprite_single_image_dim: tuple[int, ...]
    bookmarks_path: str | None
    _open: Opener

    @property
    def tag(self) -> str:
        """The tag given to ``add_embedding`` (``name`` without torch's ``:<step>`` suffix)."""
        return self._tag_and_step()[0]

    @property
    def step(self) -> int | None:
        """The step it was logged at, or None when the config does not say (TensorFlow's projector has no steps).

        torch names each embedding ``<tag>:<step, 5 digits>`` and puts its files in ``<step>/<encoded tag>/``;
        the name decides, the directory is the fallback."""
        return self._tag_and_step()[1]

    def _tag_and_step(self) -> tuple[str, int | None]:
        named = _TORCH_NAME.fullmatch(self.name)
        if named:
            return named["tag"], int(named["step"])
        if self.tensor_path is not None:
            parts = self.tensor_path.replace("\\", "/").split("/")
            if len(parts) >= 3 and parts[-3].isdigit():
                return unquote(parts[-2]), int(parts[-3])
        return self.name, None

    def tensors(self) -> np.ndarray:
        """The (points, dimensions) float32 matrix of tensors.tsv, or of a raw float32 file (``*.bytes``, or any
        file that is not text) read with the config's tensor_shape, as TensorBoard does.

        Text is parsed by numpy (or pyarrow when installed) in bulk, never value by value: a million rows of 128
        values take seconds. A ragged or truncated file, or a value that is not a number, is a ProjectorError
        naming the line."""
        if self.tensor_path is None:
            raise ProjectorError(f"embedding {self.name!r} in {self.config_path} names no tensor file")
        path = self.tensor_path
        data = _read(self._open, path, "tensor file")
        if path.endswith(".bytes") or not _is_text(data):
            return self._binary_tensors(data)
        return parse_tsv(data, f"tensor file {path}")

    def _binary_tensors(self, data: bytes) -> np.ndarray:
        shape = self.tensor_shape
        if len(shape) != 2 or len(data) != shape[0] * shape[1] * 4:
            expected = f"{shape[0] * shape[1] * 4} bytes" if len(shape) == 2 else "a [points, dimensions] shape"
            raise ProjectorError(
                f"tensor file {self.tensor_path} is not UTF-8 text, and as raw float32 it does not match the "
                f"tensor_shape {list(shape)} of {self.config_path} ({len(data)} bytes; it needs {expected}"
                f"{': truncated?' if len(shape) == 2 and len(data) < shape[0] * shape[1] * 4 else ''})"
            )
        return np.frombuffer(data, dtype="<f4").astype(np.float32).reshape(shape)

    def stamp(self) -> tuple[int, int | None]:
        """(size in bytes, modification time in ns or None) of the tensor file, without reading it: what a cache of
        its parsed matrix is keyed on (add_embedding never rewrites a file in place; a new step is a new file)."""
        if self.tensor_path is None:
            raise ProjectorError(f"embedding {self.name!r} in {self.config_path} names no tensor file")
        with _reading(self.tensor_path, "tensor file"), self._open(self.tensor_path) as file:
            size = file.seek(0, 2)
            try:
                modified: int | None = os.fstat(file.fileno()).st_mtime_ns
            except (AttributeError, OSError, ValueError):  # a remote file has no descriptor
                modified = None
        return int(size), modified

    def metadata(self) -> EmbeddingMetadata:
        if self.metadata_path is None:
            raise ProjectorError(f"embedding {self.name!r} in {self.config_path} names no metadata file")
        data = _read(self._open, self.metadata_path, "metadata file")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ProjectorError(f"metadata file {self.metadata_path} is not UTF-8 text: {error}") from None
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        rows = [tuple(line.removesuffix("\r").split("\t")) for line in lines]
        if rows and len(rows[0]) > 1:
            return EmbeddingMetadata(rows[0], tuple(rows[1:]))
        return EmbeddingMetadata(None, tuple(rows))

    def sprite(self) -> Sprite:
        if self.sprite_path is None:
            raise ProjectorError(f"embedding {self.name!r} in {self.config_path} names no sprite image")
        data = _read(self._open, self.sprite_path, "sprite image")
        return Sprite(data, self.sprite_single_image_dim, image_content_type(data))

    def bookmarks(self) -> bytes:
        """The bookmarks file as stored (JSON written by the projector's UI)."""
        if self.bookmarks_path is None:
            raise ProjectorError(f"embedding {self.name!r} in {self.config_path} names no bookmarks file")
        return _read(self._open, self.bookmarks_path, "bookmarks file")
