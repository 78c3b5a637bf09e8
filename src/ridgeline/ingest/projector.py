"""The embedding projector's files of one run: ``projector_config.pbtxt`` and the files it names, read lazily.

TensorBoard looks for the config in the run directory and in ``plugins/org_tensorflow_tensorboard_projector/``
(where TF's ``projector.visualize_embeddings`` puts it when given a plugin assets directory); so does
:func:`read_projector`. Paths in the config are relative to the config's directory, and, as in TensorBoard,
may not lead outside it. Checkpoint-backed embeddings (``model_checkpoint_path`` with no ``tensor_path``) need
TensorFlow and are listed without a tensor file.

Files are opened through ``open_file``: a callable ``path -> binary file`` or an fsspec-like filesystem (any
object with ``open(path, "rb")``); by default the local filesystem. Every error is a :class:`ProjectorError`
naming the file.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Any, Protocol
from urllib.parse import unquote

import numpy as np

from ridgeline.format.proto import projector_pb2
from ridgeline.ingest.media import image_content_type

__all__ = [
    "CONFIG_FILE",
    "PLUGIN_ASSETS_DIR",
    "EmbeddingMetadata",
    "EmbeddingRef",
    "ProjectorError",
    "Sprite",
    "read_projector",
]

CONFIG_FILE = "projector_config.pbtxt"
# torch's tensor_name: the tag, a colon and the step zero-padded to at least 5 digits.
_TORCH_NAME = re.compile(r"(?P<tag>.+):(?P<step>\d{5,})")
PLUGIN_ASSETS_DIR = "plugins/org_tensorflow_tensorboard_projector"


class ProjectorError(ValueError):
    """A projector file that is missing, unreadable or malformed (the message names it)."""


class FileSystemLike(Protocol):
    def open(self, path: str, mode: str = "rb") -> Any: ...


Opener = Callable[[str], IO[bytes]]


def _local_open(path: str) -> IO[bytes]:
    return open(path, "rb")  # the caller closes it (`with`)


def _opener(open_file: Opener | FileSystemLike | None) -> Opener:
    if open_file is None:
        return _local_open
    if callable(open_file):
        return open_file
    fs = open_file
    return lambda path: fs.open(path, "rb")  # type: ignore[no-any-return]


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


def _is_url(path: str) -> bool:
    return "://" in path


def _join(directory: str, name: str) -> str:
    if _is_url(directory):
        return posixpath.join(directory, name)
    return os.path.join(directory, *name.split("/"))


def _resolve(config_dir: str, name: str, config_path: str) -> str:
    """``name`` (from the config) as a path, refusing one that leads outside the config's directory."""
    if _is_url(name) or posixpath.isabs(name) or os.path.isabs(name):
        if _is_url(config_dir):
            inside = name.startswith(config_dir.rstrip("/") + "/")
        else:
            real_dir = os.path.realpath(config_dir)
            inside = os.path.commonpath([real_dir, os.path.realpath(name)]) == real_dir
        if not inside:
            raise ProjectorError(f"{config_path}: path {name!r} resolves outside the config's directory")
        return name
    normal = posixpath.normpath(name.replace("\\", "/"))
    if normal == ".." or normal.startswith("../"):
        raise ProjectorError(f"{config_path}: path {name!r} resolves outside the config's directory")
    return _join(config_dir, normal)


def _read_config(opener: Opener, path: str) -> projector_pb2.ProjectorConfig | None:
    try:
        with opener(path) as file:
            data = bytes(file.read())
    except FileNotFoundError:
        return None
    except Exception as error:
        raise ProjectorError(f"projector config {path} could not be read: {type(error).__name__}: {error}") from None
    from google.protobuf import text_format

    config = projector_pb2.ProjectorConfig()
    try:
        text_format.Parse(data.decode("utf-8"), config)
    except (UnicodeDecodeError, text_format.ParseError) as error:
        raise ProjectorError(f"projector config {path} is malformed: {error}") from None
    return config


def read_projector(
    run_dir: str | os.PathLike[str], open_file: Opener | FileSystemLike | None = None
) -> list[EmbeddingRef]:
    """The embeddings listed by the projector configs of ``run_dir`` (none when it has no config).

    Raises ProjectorError when a config exists but cannot be read or parsed, or names a path outside its
    directory.
    """
    opener = _opener(open_file)
    run = os.fspath(run_dir)
    embeddings = []
    for config_dir in (run, _join(run, PLUGIN_ASSETS_DIR)):
        config_path = _join(config_dir, CONFIG_FILE)
        config = _read_config(opener, config_path)
        if config is None:
            continue
        for info in config.embeddings:

            def resolve(name: str, config_dir: str = config_dir, config_path: str = config_path) -> str | None:
                return _resolve(config_dir, name, config_path) if name else None

            embeddings.append(
                EmbeddingRef(
                    name=info.tensor_name.removesuffix(":0"),
                    config_path=config_path,
                    tensor_path=resolve(info.tensor_path),
                    tensor_shape=tuple(info.tensor_shape),
                    metadata_path=resolve(info.metadata_path),
                    sprite_path=resolve(info.sprite.image_path),
                    sprite_single_image_dim=tuple(info.sprite.single_image_dim),
                    bookmarks_path=resolve(info.bookmarks_path),
                    _open=opener,
                )
            )
    return embeddings
