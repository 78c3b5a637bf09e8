"""Finding the embedding projector's files of one run: ``projector_config.pbtxt`` and the files it names.

TensorBoard looks for the config in the run directory and in ``plugins/org_tensorflow_tensorboard_projector/``
(where TF's ``projector.visualize_embeddings`` puts it when given a plugin assets directory); so does
:func:`read_projector`. Paths in the config are relative to the config's directory, and, as in TensorBoard,
may not lead outside it. Checkpoint-backed embeddings (``model_checkpoint_path`` with no ``tensor_path``) need
TensorFlow and are listed without a tensor file.

Files are opened through ``open_file``: a callable ``path -> binary file`` or an fsspec-like filesystem (any
object with ``open(path, "rb")``); by default the local filesystem. The embeddings found are the store's
:class:`~ridgeline.store.embeddings.EmbeddingRef`, their files read lazily. Every error is a :class:`ProjectorError`
naming the file.
"""

from __future__ import annotations

import os
import posixpath
from typing import IO, TYPE_CHECKING, Any, Protocol

from ridgeline.store.embeddings import EmbeddingRef, Opener, ProjectorError

if TYPE_CHECKING:  # imported when a projector config is first read (issue 15's fast start)
    from ridgeline.format.proto import projector_pb2

__all__ = [
    "CONFIG_FILE",
    "PLUGIN_ASSETS_DIR",
    "read_projector",
]

CONFIG_FILE = "projector_config.pbtxt"
PLUGIN_ASSETS_DIR = "plugins/org_tensorflow_tensorboard_projector"


class FileSystemLike(Protocol):
    def open(self, path: str, mode: str = "rb") -> Any: ...


def _local_open(path: str) -> IO[bytes]:
    return open(path, "rb")  # the caller closes it (`with`)


def _opener(open_file: Opener | FileSystemLike | None) -> Opener:
    if open_file is None:
        return _local_open
    if callable(open_file):
        return open_file
    fs = open_file
    return lambda path: fs.open(path, "rb")  # type: ignore[no-any-return]


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

    from ridgeline.format.proto import projector_pb2

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
