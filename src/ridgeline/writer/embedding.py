"""The embedding projector's files: what ``add_embedding`` writes into the log directory.

The layout is torch's (``torch.utils.tensorboard``), so TensorBoard's projector and ours read either::

    <log_dir>/projector_config.pbtxt              one EmbeddingInfo per embedding, protobuf text format
    <log_dir>/<step, 5 digits>/<encoded tag>/
        tensors.tsv                               one row per point, values separated by tabs
        metadata.tsv                              optional: one label per row, or a header and columns
        sprite.png                                optional: the label images tiled row by row on a square

``add_embedding`` writes no event: the projector finds its data through ``projector_config.pbtxt``.

Where this differs from torch, on purpose:

- Every argument is checked before anything is written, so a bad call leaves no half-written directory.
- ``projector_config.pbtxt`` is read back and extended, not rebuilt from one writer's memory: embeddings written
  by an earlier process in the same log directory stay listed. Writing the same step and tag again replaces
  that entry instead of listing the same files twice. The file is replaced atomically.
- ``label_img`` of dtype uint8 is read as 0..255 (torch multiplies it by 255 as well, saturating it to white);
  numpy arrays and lists are accepted for it (torch needs a tensor). Images taller than the square torch draws
  them on (where torch fails) get a sprite as wide as torch's and tall enough to hold them.
- Metadata given as a torch tensor is written as numbers (torch writes ``tensor(3)``); multi-column rows must
  all have one value per header column (torch checks the first row only).
- A tag of ``.`` or ``..`` is encoded like ``/`` and ``%`` are, so the files stay inside their step directory.
- Reusing a directory warns through :mod:`warnings` (torch prints to stdout).
"""

from __future__ import annotations

import io
import math
import os
import tempfile
import threading
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from ridgeline.format.proto import projector_pb2
from ridgeline.writer.values import check_tag, is_torch_tensor, to_numpy, to_step

__all__ = [
    "CONFIG_FILE",
    "embedding_info",
    "embedding_subdir",
    "encode_tag",
    "metadata_tsv",
    "sprite_png",
    "tensors_tsv",
    "write_embedding",
]

METHOD = "add_embedding"
CONFIG_FILE = "projector_config.pbtxt"
TENSORS_FILE = "tensors.tsv"
METADATA_FILE = "metadata.tsv"
SPRITE_FILE = "sprite.png"

# Serialises read-modify-write of projector_config.pbtxt between writers of one process.
_config_lock = threading.Lock()


def write_embedding(
    log_dir: str | os.PathLike[str],
    mat: Any,
    metadata: Any = None,
    label_img: Any = None,
    global_step: Any = None,
    tag: str = "default",
    metadata_header: Sequence[Any] | None = None,
) -> None:
    """Write one embedding's files under ``log_dir`` and list it in ``projector_config.pbtxt``.

    ``mat`` is (N, D): one row per point. ``metadata`` has N labels, or N rows of values when ``metadata_header``
    names the columns. ``label_img`` is (N, C, H, W) with C of 1 or 3, floats in [0, 1] (or uint8). ``global_step``
    defaults to 0.
    """
    array = embedding_matrix(mat)
    rows = array.shape[0]
    step = 0 if global_step is None else to_step(global_step, method=METHOD)
    check_tag(tag, method=METHOD)
    metadata_bytes = None if metadata is None else metadata_tsv(metadata, rows, metadata_header)
    sprite = None if label_img is None else sprite_png(label_img, rows)
    tensors_bytes = tensors_tsv(array)

    log_dir = os.fspath(log_dir)
    subdir = embedding_subdir(step, tag)
    save_path = os.path.join(log_dir, *subdir.split("/"))
    if os.path.isdir(save_path):
        warnings.warn(
            f"{METHOD}: {save_path} exists and is overwritten; did you pass a new global_step?",
            UserWarning,
            stacklevel=3,
        )
    elif os.path.exists(save_path):
        raise NotADirectoryError(f"{METHOD}: {save_path} exists but is a file, not a directory")
    os.makedirs(save_path, exist_ok=True)

    _write_file(os.path.join(save_path, TENSORS_FILE), tensors_bytes)
    if metadata_bytes is not None:
        _write_file(os.path.join(save_path, METADATA_FILE), metadata_bytes)
    if sprite is not None:
        _write_file(os.path.join(save_path, SPRITE_FILE), sprite[0])

    info = embedding_info(
        subdir,
        step,
        tag,
        has_metadata=metadata_bytes is not None,
        sprite_size=None if sprite is None else sprite[1],
    )
    _add_to_config(log_dir, info)


def encode_tag(tag: str) -> str:
    """``tag`` as one path component: ``%``, ``/`` and ``\\`` percent-encoded (as torch does), ``.``/``..`` too."""
    encoded = tag.replace("%", "%25").replace("/", "%2f").replace("\\", "%5c")
    if encoded in (".", ".."):
        encoded = encoded.replace(".", "%2e")
    return encoded


def embedding_subdir(step: int, tag: str) -> str:
    """The embedding's directory relative to the log directory, always with ``/``: ``00010/my%2ftag``."""
    return f"{str(step).zfill(5)}/{encode_tag(tag)}"


def embedding_info(
    subdir: str, step: int, tag: str, *, has_metadata: bool, sprite_size: tuple[int, int] | None
) -> projector_pb2.EmbeddingInfo:
    """The config entry for files in ``subdir``; ``sprite_size`` is one image's (width, height)."""
    info = projector_pb2.EmbeddingInfo(
        tensor_name=f"{tag}:{str(step).zfill(5)}", tensor_path=f"{subdir}/{TENSORS_FILE}"
    )
    if has_metadata:
        info.metadata_path = f"{subdir}/{METADATA_FILE}"
    if sprite_size is not None:
        info.sprite.image_path = f"{subdir}/{SPRITE_FILE}"
        info.sprite.single_image_dim.extend(sprite_size)
    return info


def embedding_matrix(mat: Any) -> np.ndarray:
    """``mat`` as a 2-D numpy array of real numbers."""
    array = to_numpy(mat, method=METHOD, argument="mat")
    if array.ndim != 2:
        raise ValueError(
            f"{METHOD}: mat must be 2-D (one row per point, one column per dimension), got shape {array.shape}"
        )
    if array.dtype.kind == "c":
        raise TypeError(f"{METHOD}: mat must hold real numbers, got dtype {array.dtype}")
    return array


def tensors_tsv(array: np.ndarray) -> bytes:
    """One line per row, values tab-separated, each written as Python writes the number (as torch does)."""
    return "".join("\t".join(map(str, row)) + "\n" for row in array.tolist()).encode("utf-8")


def metadata_tsv(metadata: Any, rows: int, metadata_header: Sequence[Any] | None = None) -> bytes:
    """metadata.tsv: one label per line, or (with ``metadata_header``) a header line and tab-separated columns.

    Labels are written with ``str()``; numpy scalars keep their short form (``0.1``, not ``0.10000000149011612``).
    """
    if isinstance(metadata, str | bytes):
        raise TypeError(
            f"{METHOD}: metadata must be a list with one label per row, got a single {type(metadata).__name__}"
        )
    if is_torch_tensor(metadata):
        metadata = to_numpy(metadata, method=METHOD, argument="metadata")
    if isinstance(metadata, np.ndarray) and metadata.ndim == 0:
        raise TypeError(f"{METHOD}: metadata must be a list with one label per row, got a 0-d array")
    try:
        labels = list(metadata)
    except TypeError as error:
        raise TypeError(
            f"{METHOD}: metadata must be a list with one label per row, got {type(metadata).__name__}"
        ) from error
    if len(labels) != rows:
        raise ValueError(f"{METHOD}: metadata has {len(labels)} labels but mat has {rows} rows; they must match")

    if metadata_header is None or len(metadata_header) == 0:  # torch: `if not metadata_header`
        lines = [str(label) for label in labels]
    else:
        if isinstance(metadata_header, str | bytes) or not isinstance(metadata_header, Sequence | np.ndarray):
            raise TypeError(
                f"{METHOD}: metadata_header must be a list of column names, got {type(metadata_header).__name__}"
            )
        columns = len(metadata_header)
        lines = ["\t".join(str(name) for name in metadata_header)]
        for index, label in enumerate(labels):
            values = _metadata_row(label, columns, index)
            lines.append("\t".join(str(value) for value in values))
    return ("\n".join(lines) + "\n").encode("utf-8")


def _metadata_row(label: Any, columns: int, index: int) -> list[Any]:
    single = isinstance(label, str | bytes) or np.ndim(label) == 0
    values = [label] if single else list(label)  # a single value fits a one-column header
    if len(values) != columns:
        raise ValueError(
            f"{METHOD}: metadata row {index} has {len(values)} values but metadata_header names {columns} columns"
        )
    return values


def sprite_png(label_img: Any, rows: int) -> tuple[bytes, tuple[int, int]]:
    """The sprite as PNG bytes and one image's (width, height).

    The N images are tiled row by row, ceil(sqrt(N)) to a row, on a black square as wide as a row of images
    (taller when the images do not fit), as torch draws it. Float values are read as [0, 1]; uint8 as 0..255.
    """
    from PIL import Image

    images = to_numpy(label_img, method=METHOD, argument="label_img")
    if images.ndim != 4:
        raise ValueError(f"{METHOD}: label_img must be 4-D (N, C, H, W), got shape {images.shape}")
    count, channels, height, width = images.shape
    if count != rows:
        raise ValueError(f"{METHOD}: label_img has {count} images but mat has {rows} rows; they must match")
    if channels not in (1, 3):
        raise ValueError(f"{METHOD}: label_img must have 1 or 3 channels (N, C, H, W), got shape {images.shape}")
    if count == 0 or height == 0 or width == 0:
        raise ValueError(f"{METHOD}: label_img must hold at least one non-empty image, got shape {images.shape}")
    if images.dtype.kind == "c":
        raise TypeError(f"{METHOD}: label_img must hold real numbers, got dtype {images.dtype}")

    per_row = math.ceil(count**0.5)
    grid_rows = math.ceil(count / per_row)
    side = width * per_row
    canvas = np.zeros((max(side, height * grid_rows), side, 3), dtype=np.uint8)
    pixels = _to_uint8(images)
    if channels == 1:
        pixels = np.repeat(pixels, 3, axis=1)
    for index in range(count):
        top, left = (index // per_row) * height, (index % per_row) * width
        canvas[top : top + height, left : left + width] = pixels[index].transpose(1, 2, 0)

    buffer = io.BytesIO()
    Image.fromarray(canvas).save(buffer, format="PNG")
    return buffer.getvalue(), (width, height)


def _to_uint8(images: np.ndarray) -> np.ndarray:
    """Pixel values as torch computes them: ``uint8(clip(x * 255, 0, 255))``, truncating; NaN becomes 0."""
    if images.dtype == np.uint8:
        return images
    with np.errstate(over="ignore"):
        scaled = np.nan_to_num(images.astype(np.float64) * 255, nan=0.0)
    return np.clip(scaled, 0, 255).astype(np.uint8)


def _add_to_config(log_dir: str, info: projector_pb2.EmbeddingInfo) -> None:
    """Add ``info`` to the log directory's projector config (replacing an entry for the same files)."""
    from google.protobuf import text_format

    path = os.path.join(log_dir, CONFIG_FILE)
    with _config_lock:
        config = projector_pb2.ProjectorConfig()
        if os.path.exists(path):
            try:
                with open(path, encoding="utf-8") as file:
                    text_format.Parse(file.read(), config)
            except (OSError, UnicodeDecodeError, text_format.ParseError) as error:
                warnings.warn(
                    f"{METHOD}: {path} could not be read ({error}); it is rewritten with this embedding only",
                    UserWarning,
                    stacklevel=4,
                )
                config = projector_pb2.ProjectorConfig()
        for existing in config.embeddings:
            if existing.tensor_path == info.tensor_path:
                existing.CopyFrom(info)
                break
        else:
            config.embeddings.append(info)
        _write_file(path, text_format.MessageToString(config).encode("utf-8"), atomic=True)


def _write_file(path: str, data: bytes, *, atomic: bool = False) -> None:
    if not atomic:
        with open(path, "wb") as file:
            file.write(data)
        return
    directory, name = os.path.split(path)
    descriptor, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
