"""The embeddings of the projector (what ``add_embedding`` wrote): one :class:`EmbeddingRef` per embedding of a
run's projector config, its files (tensors, metadata, sprite, bookmarks) read only when asked for.

Files are opened through ``_open``, a callable ``path -> binary file`` given by whoever listed the embeddings
(ingest's ``read_projector``, over the run's filesystem). Every error is a :class:`ProjectorError` naming the file.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO
from urllib.parse import unquote

import numpy as np

from ridgeline.store.media import image_content_type

__all__ = ["EmbeddingMetadata", "EmbeddingRef", "Opener", "ProjectorError", "Sprite"]

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
        """The (points, dimensions) float32 matrix of tensors.tsv (or a raw float32 file, read with the config's
        tensor_shape when the file is not text, as TensorBoard falls back to)."""
        if self.tensor_path is None:
            raise ProjectorError(f"embedding {self.name!r} in {self.config_path} names no tensor file")
        path = self.tensor_path
        data = _read(self._open, path, "tensor file")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return self._binary_tensors(data)
        lines = (line.removesuffix("\r") for line in text.split("\n"))
        rows = [line.split("\t") for line in lines if line]
        widths = {len(row) for row in rows}
        if len(widths) > 1:
            raise ProjectorError(f"tensor file {path}: rows have different numbers of values ({sorted(widths)})")
        try:
            matrix = np.array(rows, dtype=np.float64).astype(np.float32)  # parsed as Python floats, as TensorBoard
        except ValueError as error:
            raise ProjectorError(f"tensor file {path}: not a matrix of numbers: {error}") from None
        return matrix.reshape(len(rows), widths.pop() if widths else 0)

    def _binary_tensors(self, data: bytes) -> np.ndarray:
        shape = self.tensor_shape
        if len(shape) != 2 or len(data) != shape[0] * shape[1] * 4:
            raise ProjectorError(
                f"tensor file {self.tensor_path} is not UTF-8 text, and as raw float32 it does not match the "
                f"tensor_shape {list(shape)} of {self.config_path} ({len(data)} bytes)"
            )
        return np.frombuffer(data, dtype="<f4").astype(np.float32).reshape(shape)

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
