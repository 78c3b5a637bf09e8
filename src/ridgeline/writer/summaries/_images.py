"""Value → ``Summary`` builders: pure functions from what users pass to the protos torch's writer would write.

Each builder produces the same decoded proto as ``torch.utils.tensorboard.summary`` for the same input (images and
GIFs: the same pixels), so files written by ridgeline read exactly like torch's in TensorBoard. Where torch's output
depends on a bug (bools written as numbers in hparams, the float32 bit pattern in ``half_val``, a histogram's
``max_bins`` rounding), the bug is reproduced on purpose and named in a comment.

Errors name the public ``SummaryWriter`` method and the argument, and say what was expected. Every builder takes a
keyword-only ``method`` used for that prefix, so a caller that reaches a builder through another method (the
constructor's ``hparams=``, say) can have errors read right.

Nothing heavy is imported at module level: Pillow, matplotlib and torch are imported where they are used, and a
torch tensor is converted through ``values.to_numpy``, which never imports torch.
"""

from __future__ import annotations

import io
import json
import math
import numbers
import sys
import warnings
import wave
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from google.protobuf import struct_pb2

from ridgeline.format.proto import (
    custom_scalars_pb2,
    hparams_pb2,
    plugins_pb2,
    summary_pb2,
    tensor_pb2,
    tensor_shape_pb2,
    types_pb2,
)
from ridgeline.writer.values import check_tag, is_torch_tensor, to_float, to_numpy

if TYPE_CHECKING:
    from PIL import Image as PILImage

__all__ = [
    "DEFAULT_BINS",
    "audio",
    "custom_scalars",
    "figure",
    "histogram",
    "histogram_raw",
    "hparams",
    "image",
    "image_with_boxes",
    "images",
    "mesh",
    "pr_curve",
    "pr_curve_raw",
    "scalar_tensor",
    "session_end",
    "session_start",
    "tensor",
    "text",
    "video",
]

Summary = summary_pb2.Summary
SummaryMetadata = summary_pb2.SummaryMetadata
TensorProto = tensor_pb2.TensorProto
TensorShapeProto = tensor_shape_pb2.TensorShapeProto


# --- shared pieces ---------------------------------------------------------------------------------------------


def _metadata(plugin_name: str, content: bytes = b"") -> summary_pb2.SummaryMetadata:
    metadata = SummaryMetadata()
    metadata.plugin_data.plugin_name = plugin_name
    if content:
        metadata.plugin_data.content = content
    return metadata


def _shape(dims: Sequence[int]) -> tensor_shape_pb2.TensorShapeProto:
    return TensorShapeProto(dim=[TensorShapeProto.Dim(size=int(size)) for size in dims])


def _real_array(value: Any, *, method: str, argument: str) -> np.ndarray:
    """``value`` as a numpy array of real numbers (bool, integer or float)."""
    array = to_numpy(value, method=method, argument=argument)
    if array.dtype.kind == "c":
        raise TypeError(f"{method}: {argument} must hold real numbers, got an array of dtype {array.dtype}")
    return array


def _positive_int(value: Any, *, method: str, argument: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{method}: {argument} must be an integer, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{method}: {argument} must be at least {minimum}, got {value}")
    return int(value)


def _finite_positive(value: Any, *, method: str, argument: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{method}: {argument} must be a positive number, got {type(value).__name__}")
    number = float(value)
    if not math.isfinite(number) or number <= 0:
        raise ValueError(f"{method}: {argument} must be a positive finite number, got {value!r}")
    return number


def _check_str(value: Any, *, method: str, argument: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{method}: {argument} must be a string, got {type(value).__name__}")
    return value


# --- scalars -------------------------------------------------------------------------------------------------


def scalar_tensor(tag: str, value: Any, double_precision: bool = False, *, method: str = "add_scalar") -> Summary:
    """A scalar as a tensor summary of plugin "scalars" (torch's ``new_style=True``): DT_FLOAT, or DT_DOUBLE."""
    check_tag(tag, method=method)
    number = to_float(value, method=method, argument="scalar_value")
    if double_precision:
        proto = TensorProto(dtype=types_pb2.DT_DOUBLE, double_val=[number])
    else:
        proto = TensorProto(dtype=types_pb2.DT_FLOAT, float_val=[number])
    return Summary(value=[Summary.Value(tag=tag, tensor=proto, metadata=_metadata("scalars"))])


# --- histograms ----------------------------------------------------------------------------------------------


def _tensorflow_bins() -> np.ndarray:
    # Built by repeated multiplication, exactly as torch's SummaryWriter does, so every edge has the same bits.
    edge = 1e-12
    positive: list[float] = []
    while edge < 1e20:
        positive.append(edge)
        edge *= 1.1
    edges = np.array([-e for e in reversed(positive)] + [0.0] + positive, dtype=np.float64)
    edges.flags.writeable = False
    return edges


DEFAULT_BINS: np.ndarray = _tensorflow_bins()
"""torch's default histogram edges: ±1e-12·1.1^k up to 1e20 and 0 (1549 edges, 1548 bins)."""

_NUM_POSITIVE = (DEFAULT_BINS.size - 1) // 2
# Sentinel-padded edges: with r = the number of edges <= x, _BELOW[r] = edges[r - 1] and _ABOVE[r] = edges[r].
_BELOW = np.concatenate([[-np.inf], DEFAULT_BINS])
_ABOVE = np.concatenate([DEFAULT_BINS, [np.inf]])
_LOG_FIRST = math.log(1e-12)
_INV_LOG_RATIO = 1.0 / math.log(1.1)
_CHUNK = 1 << 16
_NUMPY_BIN_RULES = frozenset({"auto", "fd", "doane", "scott", "stone", "rice", "sturges", "sqrt"})


def _default_bin_counts(values: np.ndarray) -> np.ndarray:
    """Counts per DEFAULT_BINS bin, equal to ``np.histogram(values, DEFAULT_BINS)[0]`` but several times faster.

    np.histogram sorts the data to place it among 1549 uneven edges. Here the edges are geometric, so a logarithm
    gives each value's edge index to within one; comparing with the true edges then corrects it exactly, and only
    the few values that moved are compared again. Bins are [e_i, e_i+1), the last one closed, as in numpy.
    """
    finite = np.isfinite(values)
    if not finite.all():
        values = values[finite]  # NaN and ±inf lie outside every bin
    num_edges = DEFAULT_BINS.size
    totals = np.zeros(num_edges + 1, dtype=np.intp)
    for start in range(0, values.size, _CHUNK):  # chunks stay in cache and reuse memory
        chunk = values[start : start + _CHUNK]
        with np.errstate(divide="ignore"):  # log(0) = -inf, clipped below
            approx = np.abs(chunk)
            np.log(approx, out=approx)
        approx -= _LOG_FIRST
        approx *= _INV_LOG_RATIO
        np.floor(approx, out=approx)
        approx += 1
        np.clip(approx, 0, _NUM_POSITIVE, out=approx)
        # magnitude: about how many positive edges are <= |x|; rank: how many edges are <= x.
        magnitude = approx.astype(np.intp)
        rank = magnitude + (_NUM_POSITIVE + 1)  # x >= 0: 0 and the negative edges, then `magnitude` more
        magnitude *= 2
        magnitude += 1
        magnitude *= chunk < 0  # x < 0: NUM_POSITIVE - magnitude edges lie at or below x
        rank -= magnitude
        # step: +1 where x lies at or above edges[rank] (rank too small), -1 below edges[rank - 1] (too large).
        step = np.greater_equal(chunk, _ABOVE.take(rank)).view(np.int8)
        step -= np.less(chunk, _BELOW.take(rank)).view(np.int8)
        moving = np.flatnonzero(step)
        while moving.size:
            rank[moving] += step[moving]
            x, r = chunk[moving], rank[moving]
            again = (x >= _ABOVE[r]).view(np.int8) - (x < _BELOW[r]).view(np.int8)
            still = again != 0
            moving = moving[still]
            step[moving] = again[still]
        totals += np.bincount(rank, minlength=num_edges + 1)
    counts = totals[1:num_edges].copy()  # rank 0: below the first edge; rank num_edges: at or above the last
    counts[-1] += np.count_nonzero(values == DEFAULT_BINS[-1])  # the last bin is closed
    return counts


def _bin_edges(bins: Any, *, method: str) -> np.ndarray:
    edges = _real_array(bins, method=method, argument="bins")
    if edges.ndim != 1 or edges.size < 2:
        raise ValueError(f"{method}: bins must be a 1-D sequence of at least 2 bin edges, got shape {edges.shape}")
    edges = edges.astype(np.float64)
    if not np.isfinite(edges).all():
        raise ValueError(f"{method}: bins must hold finite bin edges, got {float(edges[~np.isfinite(edges)][0])}")
    decreasing = np.flatnonzero(edges[1:] < edges[:-1])
    if decreasing.size:
        i = int(decreasing[0])
        raise ValueError(
            f"{method}: bins must be increasing bin edges, "
            f"got bins[{i}] = {edges[i]!r} > bins[{i + 1}] = {edges[i + 1]!r}"
        )
    return edges


def histogram(
    tag: str, values: Any, bins: Any = "tensorflow", max_bins: int | None = None, *, method: str = "add_histogram"
) -> Summary:
    """A HistogramProto of ``values``, the same as torch's ``make_histogram``.

    ``bins``: "tensorflow" (DEFAULT_BINS), a bin count, a numpy bin rule ("auto", "fd", ...), or increasing edges.
    """
    check_tag(tag, method=method)
    array = _real_array(values, method=method, argument="values")
    if array.size == 0:
        raise ValueError(f"{method}: values is empty; a histogram needs at least one value")
    if max_bins is not None:
        max_bins = _positive_int(max_bins, method=method, argument="max_bins")
    flat = array.astype(np.float64).reshape(-1)  # the same float64 copy torch sums, so the sums have the same bits

    if isinstance(bins, str) and bins == "tensorflow":
        counts, limits = _default_bin_counts(flat), DEFAULT_BINS
    elif isinstance(bins, bool | float | np.floating):
        raise TypeError(
            f"{method}: bins must be 'tensorflow', a numpy bin rule, an integer count or a sequence of bin edges, "
            f"got {type(bins).__name__} {bins!r}"
        )
    elif isinstance(bins, str | numbers.Integral):
        if isinstance(bins, str) and bins not in _NUMPY_BIN_RULES:
            choices = ", ".join(sorted(_NUMPY_BIN_RULES))
            raise ValueError(f"{method}: bins must be 'tensorflow', {choices}, a bin count or bin edges; got {bins!r}")
        if not isinstance(bins, str):
            _positive_int(bins, method=method, argument="bins")
        if not np.isfinite(flat).all():
            raise ValueError(
                f"{method}: values must all be finite when bins={bins!r} (the range is taken from the data); "
                "NaN and ±inf are only skipped with explicit bin edges or bins='tensorflow'"
            )
        try:
            counts, limits = np.histogram(flat, bins=bins)
        except ValueError as error:  # e.g. 'auto' asked for more bins than numpy allows
            raise ValueError(f"{method}: numpy cannot bin these values with bins={bins!r}: {error}") from error
    else:
        edges = bins if bins is DEFAULT_BINS else _bin_edges(bins, method=method)
        if edges is DEFAULT_BINS or (edges.size == DEFAULT_BINS.size and np.array_equal(edges, DEFAULT_BINS)):
            counts, limits = _default_bin_counts(flat), DEFAULT_BINS
        else:
            # Measured: for arbitrary edges numpy's blocked sort is faster than searchsorted + bincount.
            counts, limits = np.histogram(flat, bins=edges)

    num_bins = counts.size
    if max_bins is not None and num_bins > max_bins:
        # torch pads to a multiple of `group` using num_bins % group (not % max_bins), so a few more than
        # max_bins bins can remain; kept as is so the buckets match torch's.
        group = num_bins // max_bins
        remainder = num_bins % group
        if remainder:
            counts = np.concatenate([counts, np.zeros(group - remainder, dtype=counts.dtype)])
        counts = counts.reshape(-1, group).sum(axis=1)
        limits = np.concatenate([limits[:-1:group], limits[-1:]])

    occupied = np.flatnonzero(counts)
    if occupied.size:
        first, last = int(occupied[0]), int(occupied[-1])
    elif counts.size == 1:
        first, last = 1, 0  # torch's output for one empty bin: a single empty bucket at the right edge
    else:
        raise ValueError(
            f"{method}: no value of values lies within the bins [{float(limits[0])!r}, {float(limits[-1])!r}] "
            "(NaN and ±inf are never counted)"
        )
    # TensorBoard keeps only right edges: one empty bucket on the left records where the first bin starts.
    proto = summary_pb2.HistogramProto(
        min=float(flat.min()),
        max=float(flat.max()),
        num=float(flat.size),
        sum=float(flat.sum()),
        sum_squares=float(flat.dot(flat)),
        bucket_limit=limits[first : last + 2].tolist(),
        bucket=[0.0, *counts[first : last + 1].tolist()],
    )
    return Summary(value=[Summary.Value(tag=tag, histo=proto)])


def histogram_raw(
    tag: str,
    min: Any,  # torch's argument names, builtins shadowed here only
    max: Any,
    num: Any,
    sum: Any,
    sum_squares: Any,
    bucket_limits: Any,
    bucket_counts: Any,
    *,
    method: str = "add_histogram_raw",
) -> Summary:
    """A HistogramProto from statistics computed elsewhere; bucket i counts values in (limit[i-1], limit[i]]."""
    check_tag(tag, method=method)
    stats = {
        name: to_float(value, method=method, argument=name)
        for name, value in (("min", min), ("max", max), ("num", num), ("sum", sum), ("sum_squares", sum_squares))
    }
    limits = _real_array(bucket_limits, method=method, argument="bucket_limits")
    counts = _real_array(bucket_counts, method=method, argument="bucket_counts")
    if limits.ndim != 1 or counts.ndim != 1:
        raise ValueError(
            f"{method}: bucket_limits and bucket_counts must be 1-D, got shapes {limits.shape} and {counts.shape}"
        )
    if limits.size != counts.size:
        raise ValueError(
            f"{method}: bucket_limits and bucket_counts must have the same length, got {limits.size} and {counts.size}"
        )
    proto = summary_pb2.HistogramProto(
        bucket_limit=limits.astype(np.float64).tolist(), bucket=counts.astype(np.float64).tolist(), **stats
    )
    return Summary(value=[Summary.Value(tag=tag, histo=proto)])


# --- images --------------------------------------------------------------------------------------------------

_LAYOUTS = {4: "NCHW", 3: "HWC", 2: "HW"}


def _to_hwc(array: np.ndarray, dataformats: Any, *, method: str, argument: str) -> np.ndarray:
    """An image array laid out as ``dataformats`` → one HWC image; a batch becomes a grid of 8 columns."""
    if not isinstance(dataformats, str):
        raise TypeError(f"{method}: dataformats must be a string such as 'CHW', got {type(dataformats).__name__}")
    layout = dataformats.upper()
    canonical = _LAYOUTS.get(len(layout))
    if canonical is None or sorted(layout) != sorted(canonical):
        raise ValueError(
            f"{method}: dataformats must name each axis once, as an ordering of NCHW, CHW or HW "
            f"(e.g. 'NHWC', 'HWC'), got {dataformats!r}"
        )
    if array.ndim != len(layout):
        raise ValueError(
            f"{method}: {argument} must have {len(layout)} dimensions for dataformats={dataformats!r}, "
            f"got shape {array.shape}"
        )
    hwc = array.transpose([layout.index(axis) for axis in canonical])
    if len(layout) == 2:
        return np.stack([hwc, hwc, hwc], axis=2)
    if len(layout) == 3:
        channels = hwc.shape[2]
        if channels not in (1, 2, 3, 4):
            raise ValueError(
                f"{method}: {argument} must have 1, 2, 3 or 4 channels (gray, gray+alpha, RGB, RGBA), "
                f"got {channels} (shape {array.shape}, dataformats={dataformats!r})"
            )
        return np.concatenate([hwc, hwc, hwc], axis=2) if channels == 1 else hwc
    count, channels, height, width = hwc.shape
    if count == 0:
        raise ValueError(f"{method}: {argument} holds no image (shape {array.shape}, dataformats={dataformats!r})")
    if channels not in (1, 3):
        raise ValueError(
            f"{method}: a batch of images must have 1 or 3 channels, got {channels} "
            f"(shape {array.shape}, dataformats={dataformats!r})"
        )
    columns = min(count, 8)
    rows = -(-count // columns)
    grid = np.zeros((rows * height, columns * width, 3), dtype=hwc.dtype)  # empty cells stay black
    for i in range(count):
        row, column = divmod(i, columns)
        grid[row * height : (row + 1) * height, column * width : (column + 1) * width, :] = hwc[i].transpose(1, 2, 0)
    return grid


def _to_uint8(array: np.ndarray) -> np.ndarray:
    """uint8 stays as is; anything else is taken to be in [0, 1]: ×255 in float32, clipped, truncated (as torch)."""
    if array.dtype == np.uint8:
        return array
    scaled = array.astype(np.float32)
    scaled *= 255
    np.clip(scaled, 0, 255, out=scaled)
    nan = np.isnan(scaled)
    if nan.any():
        scaled[nan] = 0  # what the cast gives on x86, without numpy's "invalid value" warning
    return scaled.astype(np.uint8)


def _check_image_size(hwc: np.ndarray, *, method: str, argument: str, shape: tuple[int, ...]) -> None:
    if hwc.shape[0] == 0 or hwc.shape[1] == 0:
        raise ValueError(f"{method}: {argument} must have a non-zero height and width, got shape {shape}")


def _encode_png(pixels: np.ndarray, *, rescale: float = 1, draw: Any = None) -> summary_pb2.Summary.Image:
    from PIL import Image

    height, width, channels = pixels.shape
    picture = Image.fromarray(np.ascontiguousarray(pixels))
    if draw is not None:
        draw(picture)
    size = (int(width * rescale), int(height * rescale))
    if size != picture.size:
        picture = picture.resize(size, Image.Resampling.LANCZOS)
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG")
    # torch records the size before rescaling.
    return Summary.Image(height=height, width=width, colorspace=channels, encoded_image_string=buffer.getvalue())


def _image_value(tag: str, img_tensor: Any, dataformats: Any, *, method: str) -> Summary:
    check_tag(tag, method=method)
    array = _real_array(img_tensor, method=method, argument="img_tensor")
    hwc = _to_hwc(array, dataformats, method=method, argument="img_tensor")
    _check_image_size(hwc, method=method, argument="img_tensor", shape=array.shape)
    return Summary(value=[Summary.Value(tag=tag, image=_encode_png(_to_uint8(hwc)))])


def image(tag: str, img_tensor: Any, dataformats: str = "CHW", *, method: str = "add_image") -> Summary:
    """A PNG image: uint8 in [0, 255] as is, any other dtype in [0, 1] scaled by 255; 1 channel becomes RGB."""
    return _image_value(tag, img_tensor, dataformats, method=method)


def images(tag: str, img_tensor: Any, dataformats: str = "NCHW", *, method: str = "add_images") -> Summary:
    """A batch of images as one PNG grid of up to 8 columns (any layout ``image`` takes works here too)."""
    return _image_value(tag, img_tensor, dataformats, method=method)


def image_with_boxes(
    tag: str,
    img_tensor: Any,
    box_tensor: Any,
    rescale: float = 1,
    dataformats: str = "CHW",
    labels: Any = None,
    *,
    method: str = "add_image_with_boxes",
) -> Summary:
    """An image with red (xmin, ymin, xmax, ymax) boxes, optionally labelled, drawn as torch draws them."""
    check_tag(tag, method=method)
    array = _real_array(img_tensor, method=method, argument="img_tensor")
    hwc = _to_hwc(array, dataformats, method=method, argument="img_tensor")
    _check_image_size(hwc, method=method, argument="img_tensor", shape=array.shape)
    boxes = _real_array(box_tensor, method=method, argument="box_tensor")
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise ValueError(
            f"{method}: box_tensor must have shape (N, 4), rows of (xmin, ymin, xmax, ymax); got shape {boxes.shape}"
        )
    scale = _finite_positive(rescale, method=method, argument="rescale")
    if int(hwc.shape[0] * scale) < 1 or int(hwc.shape[1] * scale) < 1:
        raise ValueError(f"{method}: rescale={rescale!r} shrinks the {hwc.shape[1]}x{hwc.shape[0]} image to nothing")
    names: list[str | None] | None = None
    if labels is not None:
        if isinstance(labels, str):
            labels = [labels]
        try:
            labels = list(labels)
        except TypeError:
            raise TypeError(
                f"{method}: labels must be a list of strings, one per box, got {type(labels).__name__}"
            ) from None
        if len(labels) != boxes.shape[0]:
            # torch drops the labels silently; keep its output, but say so.
            warnings.warn(
                f"{method}: got {len(labels)} labels for {boxes.shape[0]} boxes; the boxes are drawn without labels",
                UserWarning,
                stacklevel=3,
            )
        else:
            names = [None if label is None else str(label) for label in labels]

    def draw(picture: PILImage.Image) -> None:
        _draw_boxes(picture, boxes, names)

    return Summary(value=[Summary.Value(tag=tag, image=_encode_png(_to_uint8(hwc), rescale=scale, draw=draw))])


def _draw_boxes(picture: PILImage.Image, boxes: np.ndarray, labels: list[str | None] | None) -> None:
    from PIL import ImageDraw, ImageFont

    pen = ImageDraw.Draw(picture)
    font = ImageFont.load_default() if labels is not None and any(labels) else None
    for i in range(boxes.shape[0]):
        # numpy scalars, not Python floats: the label arithmetic below then rounds exactly as torch's does.
        left, top, right, bottom = boxes[i, 0], boxes[i, 1], boxes[i, 2], boxes[i, 3]
        pen.line([(left, top), (left, bottom), (right, bottom), (right, top), (left, top)], width=2, fill="Red")
        label = None if labels is None else labels[i]
        if label and font is not None:
            x0, y0, x1, y1 = font.getbbox(label)
            text_width, text_height = x1 - x0, y1 - y0
            margin = np.ceil(0.05 * text_height)
            pen.rectangle([(left, bottom - text_height - 2 * margin), (left + text_width, bottom)], fill="Red")
            pen.text((left + margin, bottom - text_height - margin), label, fill="black", font=font)


def _render_figure(fig: Any, close: bool, *, method: str) -> np.ndarray:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    if not isinstance(fig, Figure):
        raise TypeError(f"{method}: figure must be a matplotlib Figure or a list of them, got {type(fig).__name__}")
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    pixels = np.array(canvas.buffer_rgba())[:, :, :3]
    if close:
        # A figure made through pyplot is registered there and must be closed there; if pyplot was never
        # imported, no figure can be registered with it, and importing it now would only cost time.
        pyplot = sys.modules.get("matplotlib.pyplot")
        if pyplot is not None:
            pyplot.close(fig)
    return pixels


def figure(tag: str, figure: Any, close: bool = True, *, method: str = "add_figure") -> Summary:
    """A matplotlib figure rendered with Agg as an RGB image; a list of figures becomes a grid."""
    check_tag(tag, method=method)
    if isinstance(figure, list | tuple):
        if not figure:
            raise ValueError(f"{method}: figure is an empty list; pass a Figure or a non-empty list of Figures")
        rendered = [_render_figure(item, close, method=method) for item in figure]
        sizes = {pixels.shape[:2] for pixels in rendered}
        if len(sizes) > 1:
            listed = ", ".join(f"{w}x{h}" for h, w in (pixels.shape[:2] for pixels in rendered))
            raise ValueError(f"{method}: all figures in the list must render to the same size, got {listed} pixels")
        hwc = _to_hwc(np.stack(rendered), "NHWC", method=method, argument="figure")
    else:
        hwc = _render_figure(figure, close, method=method)
    _check_image_size(hwc, method=method, argument="figure", shape=hwc.shape)
    return Summary(value=[Summary.Value(tag=tag, image=_encode_png(hwc))])


# --- video ---------------------------------------------------------------------------------------------------


def _video_frames(array: np.ndarray, *, method: str) -> np.ndarray:
    """(N, T, C, H, W) → (T, H', W', C) uint8: the N videos side by side on a grid, as torch's _prepare_video."""
    if array.ndim != 5:
        raise ValueError(f"{method}: vid_tensor must have 5 dimensions (N, T, C, H, W), got shape {array.shape}")
    count, frames, channels, height, width = array.shape
    if 0 in array.shape:
        raise ValueError(f"{method}: vid_tensor must not have an empty dimension, got shape {array.shape}")
    if channels not in (1, 3, 4):
        raise ValueError(f"{method}: vid_tensor must have 1, 3 or 4 channels (axis 2), got shape {array.shape}")
    if array.dtype == np.uint8:
        array = array.astype(np.float32) / 255  # torch goes through [0, 1] even for uint8; the rounding is kept
    # The batch is padded to a power of two and laid out in 2^floor(log2(N)/2) rows.
    padded = count if count & (count - 1) == 0 else 1 << count.bit_length()
    rows = 1 << ((count.bit_length() - 1) // 2)
    columns = padded // rows
    grid = np.zeros((frames, rows * height, columns * width, channels), dtype=np.float32)
    for i in range(count):
        row, column = divmod(i, columns)
        grid[:, row * height : (row + 1) * height, column * width : (column + 1) * width, :] = array[i].transpose(
            0, 2, 3, 1
        )
    return _to_uint8(grid)


def _encode_gif(frames: np.ndarray, fps: float) -> bytes:
    """An endlessly looping animated GIF (what torch gets from moviepy, here without moviepy)."""
    from PIL import Image

    pictures = [Image.fromarray(frame[:, :, 0] if frame.shape[2] == 1 else frame) for frame in frames]
    buffer = io.BytesIO()
    pictures[0].save(buffer, format="GIF", save_all=True, append_images=pictures[1:], duration=1000.0 / fps, loop=0)
    return buffer.getvalue()


def video(tag: str, vid_tensor: Any, fps: float = 4, *, method: str = "add_video") -> Summary:
    """An animated GIF from (N, T, C, H, W): uint8 in [0, 255] or floats in [0, 1]; N videos play on a grid."""
    check_tag(tag, method=method)
    rate = _finite_positive(fps, method=method, argument="fps")
    array = _real_array(vid_tensor, method=method, argument="vid_tensor")
    frames = _video_frames(array, method=method)
    _, height, width, channels = frames.shape
    picture = Summary.Image(
        height=height, width=width, colorspace=channels, encoded_image_string=_encode_gif(frames, rate)
    )
    return Summary(value=[Summary.Value(tag=tag, image=picture)])


# --- audio ---------------------------------------------------------------------------------------------------

_INT16_MAX = 32767


def audio(tag: str, snd_tensor: Any, sample_rate: float = 44100, *, method: str = "add_audio") -> Summary:
    """Mono 16-bit PCM WAV from samples in [-1, 1] (shape (L,) or (1, L)); louder samples are clipped."""
    check_tag(tag, method=method)
    rate = _finite_positive(sample_rate, method=method, argument="sample_rate")
    if not 1 <= round(rate) < 2**31:
        raise ValueError(f"{method}: sample_rate must be between 1 and 2**31 - 1 Hz, got {sample_rate!r}")
    raw = _real_array(snd_tensor, method=method, argument="snd_tensor")
    samples = raw.squeeze()
    if samples.ndim == 0:
        samples = samples.reshape(1)
    if samples.ndim != 1:
        raise ValueError(f"{method}: snd_tensor must be mono, of shape (L,) or (1, L); got shape {raw.shape}")
    if samples.size == 0:
        raise ValueError(f"{method}: snd_tensor is empty")
    if samples.dtype.kind in "biu" or samples.dtype == np.float16:
        # Integers are the same in float64. float16 is widened: in float16 itself, as torch computes it,
        # 1.0 * 32767 rounds to 32768 and wraps to -32768.
        samples = samples.astype(np.float64 if samples.dtype.kind in "biu" else np.float32)
    nan = np.isnan(samples)
    if nan.any():
        samples = np.where(nan, samples.dtype.type(0), samples)
        warnings.warn(f"{method}: snd_tensor has NaN samples; they were written as 0", UserWarning, stacklevel=3)
    if np.abs(samples).max() > 1:
        warnings.warn(f"{method}: snd_tensor has samples outside [-1, 1]; they were clipped", UserWarning, stacklevel=3)
        samples = samples.clip(-1, 1)
    pcm = (samples * _INT16_MAX).astype("<i2")  # same dtype arithmetic and truncation as torch
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(sample_rate)
        wav.writeframes(pcm.tobytes())
    sound = Summary.Audio(
        sample_rate=rate,
        num_channels=1,
        length_frames=pcm.size,
        encoded_audio_string=buffer.getvalue(),
        content_type="audio/wav",
    )
    return Summary(value=[Summary.Value(tag=tag, audio=sound)])


# --- text, tensors -------------------------------------------------------------------------------------------


def text(tag: str, text_string: str, *, method: str = "add_text") -> Summary:
    """A string for the text dashboard (Markdown). Like torch, the tag gets "/text_summary" appended."""
    check_tag(tag, method=method)
    _check_str(text_string, method=method, argument="text_string")
    proto = TensorProto(dtype=types_pb2.DT_STRING, string_val=[text_string.encode("utf-8")], tensor_shape=_shape([1]))
    metadata = _metadata("text", plugins_pb2.TextPluginData(version=0).SerializeToString())
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=metadata, tensor=proto)])


# dtype name → (DataType, TensorProto field). Keyed by numpy names; torch's bfloat16 is added by name.
_TENSOR_FIELDS: dict[str, tuple[int, str]] = {
    "float16": (types_pb2.DT_HALF, "half_val"),
    "bfloat16": (types_pb2.DT_BFLOAT16, "half_val"),
    "float32": (types_pb2.DT_FLOAT, "float_val"),
    "float64": (types_pb2.DT_DOUBLE, "double_val"),
    "int8": (types_pb2.DT_INT8, "int_val"),
    "int16": (types_pb2.DT_INT16, "int_val"),
    "int32": (types_pb2.DT_INT32, "int_val"),
    "int64": (types_pb2.DT_INT64, "int64_val"),
    "uint8": (types_pb2.DT_UINT8, "uint32_val"),
    "bool": (types_pb2.DT_BOOL, "bool_val"),
    "complex64": (types_pb2.DT_COMPLEX64, "scomplex_val"),
    "complex128": (types_pb2.DT_COMPLEX128, "dcomplex_val"),
}


def tensor(tag: str, tensor: Any, *, method: str = "add_tensor") -> Summary:
    """A whole tensor as a TensorProto (plugin "tensor"), laid out as torch's ``tensor_proto``."""
    check_tag(tag, method=method)
    supported = ", ".join(_TENSOR_FIELDS)
    if is_torch_tensor(tensor):
        name = str(tensor.dtype).removeprefix("torch.")
        if name not in _TENSOR_FIELDS:  # checked first: numpy cannot even hold complex32 or quantized tensors
            raise ValueError(f"{method}: tensor has dtype torch.{name}, which is not one of {supported}")
    array = to_numpy(tensor, method=method, argument="tensor")
    if not is_torch_tensor(tensor):
        name = array.dtype.name
        if name not in _TENSOR_FIELDS:
            raise ValueError(f"{method}: tensor has dtype {name}, which is not one of {supported}")
    size_in_bytes = array.size * (2 if name == "bfloat16" else array.itemsize)
    if size_in_bytes >= 1 << 31:
        raise ValueError(f"{method}: tensor takes {size_in_bytes} bytes; a protobuf message holds under 2 GiB")
    data_type, field = _TENSOR_FIELDS[name]
    flat = np.ascontiguousarray(array).reshape(-1)
    if field == "half_val":
        # torch stores the float32 bit pattern of each half/bfloat16 value (not its 16 bits) in half_val.
        elements = flat.astype(np.float32).view(np.int32).tolist()
    elif array.dtype.kind == "c":
        elements = flat.view(np.float32 if array.dtype == np.complex64 else np.float64).tolist()  # re, im, ...
    else:
        elements = flat.tolist()
    proto = TensorProto(dtype=data_type, tensor_shape=_shape(array.shape))
    getattr(proto, field).extend(elements)
    return Summary(value=[Summary.Value(tag=tag, metadata=_metadata("tensor"), tensor=proto)])


# --- precision-recall curves ---------------------------------------------------------------------------------

_MAX_THRESHOLDS = 127  # torch clamps num_thresholds to 127
_MINIMUM_COUNT = 1e-7


def _pr_curve_value(tag: str, data: np.ndarray, num_thresholds: int) -> Summary:
    content = plugins_pb2.PrCurvePluginData(version=0, num_thresholds=num_thresholds).SerializeToString()
    proto = TensorProto(dtype=types_pb2.DT_FLOAT, float_val=data.reshape(-1).tolist(), tensor_shape=_shape(data.shape))
    return Summary(value=[Summary.Value(tag=tag, metadata=_metadata("pr_curves", content), tensor=proto)])


def pr_curve(
    tag: str,
    labels: Any,
    predictions: Any,
    num_thresholds: int = 127,
    weights: Any = None,
    *,
    method: str = "add_pr_curve",
) -> Summary:
    """A precision-recall curve: rows TP, FP, TN, FN, precision, recall at ``min(num_thresholds, 127)`` thresholds."""
    check_tag(tag, method=method)
    thresholds = min(_positive_int(num_thresholds, method=method, argument="num_thresholds"), _MAX_THRESHOLDS)
    truth = _real_array(labels, method=method, argument="labels")
    scores = _real_array(predictions, method=method, argument="predictions")
    if truth.shape != scores.shape:
        raise ValueError(
            f"{method}: labels and predictions must have the same shape, got {truth.shape} and {scores.shape}"
        )
    outside = ~((scores >= 0) & (scores <= 1))  # NaN included
    if outside.any():
        raise ValueError(
            f"{method}: predictions must be probabilities in [0, 1], got {np.count_nonzero(outside)} outside it "
            f"(the first is {scores[outside][0].item()!r})"
        )
    if weights is None:
        weight: Any = 1.0
    else:
        weight = _real_array(weights, method=method, argument="weights")
        if weight.ndim and weight.shape != truth.shape:
            raise ValueError(
                f"{method}: weights must be a number or have the shape of labels {truth.shape}, got {weight.shape}"
            )
    # Same arithmetic, in the same dtypes, as TensorBoard's and torch's compute_curve.
    buckets = np.floor(scores * (thresholds - 1)).astype(np.int32)
    positive = truth.astype(np.float64)
    bucket_range = (0, thresholds - 1)
    tp_buckets = np.histogram(buckets, bins=thresholds, range=bucket_range, weights=positive * weight)[0]
    fp_buckets = np.histogram(buckets, bins=thresholds, range=bucket_range, weights=(1.0 - positive) * weight)[0]
    tp = np.cumsum(tp_buckets[::-1])[::-1]  # predicted positive at threshold i: bucket >= i
    fp = np.cumsum(fp_buckets[::-1])[::-1]
    tn = fp[0] - fp
    fn = tp[0] - tp
    precision = tp / np.maximum(_MINIMUM_COUNT, tp + fp)
    recall = tp / np.maximum(_MINIMUM_COUNT, tp + fn)
    return _pr_curve_value(tag, np.stack((tp, fp, tn, fn, precision, recall)), thresholds)


def pr_curve_raw(
    tag: str,
    true_positive_counts: Any,
    false_positive_counts: Any,
    true_negative_counts: Any,
    false_negative_counts: Any,
    precision: Any,
    recall: Any,
    num_thresholds: int = 127,
    weights: Any = None,
    *,
    method: str = "add_pr_curve_raw",
) -> Summary:
    """A precision-recall curve from six equally long 1-D arrays computed elsewhere (``weights`` is unused, as in
    torch)."""
    check_tag(tag, method=method)
    thresholds = min(_positive_int(num_thresholds, method=method, argument="num_thresholds"), _MAX_THRESHOLDS)
    named = {
        "true_positive_counts": true_positive_counts,
        "false_positive_counts": false_positive_counts,
        "true_negative_counts": true_negative_counts,
        "false_negative_counts": false_negative_counts,
        "precision": precision,
        "recall": recall,
    }
    rows = []
    for argument, value in named.items():
        row = _real_array(value, method=method, argument=argument)
        if row.ndim != 1:
            raise ValueError(f"{method}: {argument} must be 1-D (one value per threshold), got shape {row.shape}")
        rows.append(row.astype(np.float64))
    lengths = {row.size for row in rows}
    if len(lengths) > 1:
        listed = ", ".join(f"{argument}={row.size}" for argument, row in zip(named, rows, strict=True))
        raise ValueError(f"{method}: the six arrays must have the same length, got {listed}")
    return _pr_curve_value(tag, np.stack(rows), thresholds)


# --- layouts and experiment metadata -------------------------------------------------------------------------


def custom_scalars(layout: Mapping[str, Any], *, method: str = "add_custom_scalars") -> Summary:
    """The custom scalars layout: {category: {chart title: ["Multiline", [tag regexes]] or ["Margin", [v, lo, hi]]}}."""
    if not isinstance(layout, Mapping):
        raise TypeError(
            f"{method}: layout must be a dict of category -> {{chart title: [kind, tags]}}, got {type(layout).__name__}"
        )
    categories = []
    for category, charts in layout.items():
        _check_str(category, method=method, argument="layout key (a category title)")
        if not isinstance(charts, Mapping):
            raise TypeError(
                f"{method}: layout[{category!r}] must be a dict of chart title -> [kind, tags], "
                f"got {type(charts).__name__}"
            )
        protos = []
        for title, spec in charts.items():
            where = f"layout[{category!r}][{title!r}]"
            _check_str(title, method=method, argument=f"layout[{category!r}] key (a chart title)")
            if isinstance(spec, str) or not isinstance(spec, Sequence) or len(spec) != 2:
                raise ValueError(
                    f"{method}: {where} must be ['Multiline', [tags]] or ['Margin', [value, lower, upper]], "
                    f"got {spec!r}"
                )
            kind, tags = spec
            if isinstance(tags, str) or not isinstance(tags, Sequence) or not all(isinstance(t, str) for t in tags):
                raise TypeError(f"{method}: {where}[1] must be a list of tag strings, got {tags!r}")
            if kind == "Margin":
                if len(tags) != 3:
                    raise ValueError(
                        f"{method}: {where} is a Margin chart and needs 3 tags (value, lower, upper), got {len(tags)}"
                    )
                series = custom_scalars_pb2.MarginChartContent.Series(value=tags[0], lower=tags[1], upper=tags[2])
                chart = custom_scalars_pb2.Chart(
                    title=title, margin=custom_scalars_pb2.MarginChartContent(series=[series])
                )
            elif kind == "Multiline":
                chart = custom_scalars_pb2.Chart(
                    title=title, multiline=custom_scalars_pb2.MultilineChartContent(tag=tags)
                )
            else:
                raise ValueError(f"{method}: {where}[0] must be 'Multiline' or 'Margin', got {kind!r}")
            protos.append(chart)
        categories.append(custom_scalars_pb2.Category(title=category, chart=protos))
    encoded = custom_scalars_pb2.Layout(category=categories).SerializeToString()
    # torch sets an empty (present) tensor_shape: a scalar string tensor.
    proto = TensorProto(dtype=types_pb2.DT_STRING, string_val=[encoded], tensor_shape=TensorShapeProto())
    return Summary(
        value=[Summary.Value(tag="custom_scalars__config__", tensor=proto, metadata=_metadata("custom_scalars"))]
    )


_HPARAMS_TAGS = ("_hparams_/experiment", "_hparams_/session_start_info", "_hparams_/session_end_info")


def _hparams_value(tag: str, data: hparams_pb2.HParamsPluginData) -> Summary:
    data.version = 0
    return Summary(value=[Summary.Value(tag=tag, metadata=_metadata("hparams", data.SerializeToString()))])


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real | np.bool_)


def hparams(
    hparam_dict: Mapping[str, Any],
    metric_dict: Mapping[str, Any],
    hparam_domain_discrete: Mapping[str, Sequence[Any]] | None = None,
    *,
    bools_as_numbers: bool = True,
    method: str = "add_hparams",
) -> tuple[Summary, Summary, Summary]:
    """The three hparams summaries (experiment, session start, session end), as torch writes them.

    Values: numbers, bools, strings, one-element arrays or tensors (numbers without a domain, as torch), or None
    (left out). Like torch, bools are written as the numbers 1.0/0.0 of type FLOAT64; ``bools_as_numbers=False``
    writes them as bool values of type BOOL instead (TensorBoard then shows true/false), for callers that need
    not match torch.
    """
    if not isinstance(hparam_dict, Mapping):
        raise TypeError(f"{method}: hparam_dict must be a dict of name -> value, got {type(hparam_dict).__name__}")
    if not isinstance(metric_dict, Mapping):
        raise TypeError(f"{method}: metric_dict must be a dict of tag -> value, got {type(metric_dict).__name__}")
    domains = hparam_domain_discrete or {}
    if not isinstance(domains, Mapping):
        raise TypeError(
            f"{method}: hparam_domain_discrete must be a dict of name -> list of values, got {type(domains).__name__}"
        )
    for name, domain in domains.items():
        if name not in hparam_dict:
            raise ValueError(f"{method}: hparam_domain_discrete has {name!r}, which is not a key of hparam_dict")
        if isinstance(domain, str) or not isinstance(domain, Sequence):
            raise TypeError(f"{method}: hparam_domain_discrete[{name!r}] must be a list, got {type(domain).__name__}")

    infos = []
    start = hparams_pb2.SessionStartInfo()
    for name, value in hparam_dict.items():
        _check_str(name, method=method, argument="hparam_dict key")
        if value is None:
            continue
        domain = domains.get(name)
        info = hparams_pb2.HParamInfo(name=name)
        if isinstance(value, bool | np.bool_) and not bools_as_numbers:
            start.hparams[name].bool_value = bool(value)
            info.type = hparams_pb2.DATA_TYPE_BOOL
            if domain is not None:
                if not all(isinstance(item, bool | np.bool_) for item in domain):
                    raise TypeError(
                        f"{method}: hparam_domain_discrete[{name!r}] must hold bools like "
                        f"hparam_dict[{name!r}], got {list(domain)!r}"
                    )
                info.domain_discrete.CopyFrom(
                    struct_pb2.ListValue(values=[struct_pb2.Value(bool_value=bool(item)) for item in domain])
                )
        # torch's `isinstance(v, (int, float))` comes first and catches bool too: bools become numbers.
        elif _is_number(value):
            start.hparams[name].number_value = float(value)
            info.type = hparams_pb2.DATA_TYPE_FLOAT64
            if domain is not None:
                if not all(_is_number(item) for item in domain):
                    raise TypeError(
                        f"{method}: hparam_domain_discrete[{name!r}] must hold numbers like "
                        f"hparam_dict[{name!r}], got {list(domain)!r}"
                    )
                info.domain_discrete.CopyFrom(
                    struct_pb2.ListValue(values=[struct_pb2.Value(number_value=float(item)) for item in domain])
                )
        elif isinstance(value, str):
            start.hparams[name].string_value = value
            info.type = hparams_pb2.DATA_TYPE_STRING
            if domain is not None:
                if not all(isinstance(item, str) for item in domain):
                    raise TypeError(
                        f"{method}: hparam_domain_discrete[{name!r}] must hold strings like "
                        f"hparam_dict[{name!r}], got {list(domain)!r}"
                    )
                info.domain_discrete.CopyFrom(
                    struct_pb2.ListValue(values=[struct_pb2.Value(string_value=item) for item in domain])
                )
        elif isinstance(value, np.ndarray) or is_torch_tensor(value):
            # torch writes a tensor's value as a number and its domain not at all.
            start.hparams[name].number_value = to_float(value, method=method, argument=f"hparam_dict[{name!r}]")
            info.type = hparams_pb2.DATA_TYPE_FLOAT64
        else:
            raise TypeError(
                f"{method}: hparam_dict[{name!r}] must be a number, bool, string, one-element tensor or None, "
                f"got {type(value).__name__}"
            )
        infos.append(info)

    metrics = []
    for tag in metric_dict:
        _check_str(tag, method=method, argument="metric_dict key")
        metrics.append(hparams_pb2.MetricInfo(name=hparams_pb2.MetricName(tag=tag)))

    experiment = hparams_pb2.Experiment(hparam_infos=infos, metric_infos=metrics)
    end = hparams_pb2.SessionEndInfo(status=hparams_pb2.STATUS_SUCCESS)
    experiment_tag, start_tag, end_tag = _HPARAMS_TAGS
    return (
        _hparams_value(experiment_tag, hparams_pb2.HParamsPluginData(experiment=experiment)),
        _hparams_value(start_tag, hparams_pb2.HParamsPluginData(session_start_info=start)),
        _hparams_value(end_tag, hparams_pb2.HParamsPluginData(session_end_info=end)),
    )


def session_start(
    hparam_dict: Mapping[str, Any], *, start_time_secs: float | None = None, method: str = "SummaryWriter"
) -> Summary:
    """The session-start summary alone, for a run that records its own hyperparameters (``SummaryWriter(hparams=)``).

    Values as in ``hparams``, except that bools stay bools: nothing here needs to match torch, which has no such
    argument. TensorBoard builds the experiment from the sessions it finds when no experiment summary is written.
    """
    start = hparams(hparam_dict, {}, bools_as_numbers=False, method=method)[1]
    if start_time_secs is not None:
        data = hparams_pb2.HParamsPluginData.FromString(start.value[0].metadata.plugin_data.content)
        data.session_start_info.start_time_secs = to_float(start_time_secs, method=method, argument="start_time_secs")
        start = _hparams_value(_HPARAMS_TAGS[1], data)
    return start


def session_end(
    status: int = hparams_pb2.STATUS_SUCCESS, *, end_time_secs: float | None = None, method: str = "close"
) -> Summary:
    """The session-end summary: how (``hparams_pb2.Status``) and, optionally, when a run ended."""
    if isinstance(status, bool) or status not in hparams_pb2.Status.values():
        choices = ", ".join(f"{name}={number}" for name, number in hparams_pb2.Status.items())
        raise ValueError(f"{method}: status must be one of {choices}, got {status!r}")
    end = hparams_pb2.SessionEndInfo(status=status)
    if end_time_secs is not None:
        end.end_time_secs = to_float(end_time_secs, method=method, argument="end_time_secs")
    return _hparams_value(_HPARAMS_TAGS[2], hparams_pb2.HParamsPluginData(session_end_info=end))


# --- meshes --------------------------------------------------------------------------------------------------

_MESH = plugins_pb2.MeshPluginData


def mesh(
    tag: str,
    vertices: Any,
    colors: Any,
    faces: Any,
    config_dict: Mapping[str, Any] | None,
    display_name: str | None = None,
    description: str | None = None,
    *,
    method: str = "add_mesh",
) -> Summary:
    """A mesh or point cloud: one tensor summary per part present, tagged ``<tag>_VERTEX``, ``_FACE``, ``_COLOR``."""
    check_tag(tag, method=method)
    if vertices is None:
        raise ValueError(f"{method}: vertices is required, an array of shape (B, N, 3)")
    for argument, value in (("display_name", display_name), ("description", description)):
        if value is not None:
            _check_str(value, method=method, argument=argument)
    try:
        config = "{}" if config_dict is None else json.dumps(config_dict, sort_keys=True)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{method}: config_dict must be JSON-serialisable: {error}") from error

    parts = []
    for argument, value, content_type in (
        ("vertices", vertices, _MESH.VERTEX),
        ("faces", faces, _MESH.FACE),
        ("colors", colors, _MESH.COLOR),
    ):
        if value is None:
            continue
        array = _real_array(value, method=method, argument=argument)
        if array.ndim != 3 or array.shape[2] != 3:
            raise ValueError(f"{method}: {argument} must have shape (B, N, 3), got {array.shape}")
        parts.append((array, content_type))
    components = 0
    for _, content_type in parts:
        components |= 1 << content_type

    values = []
    for array, content_type in parts:
        data = _MESH(
            version=0,
            name=tag,
            content_type=content_type,
            components=components,
            shape=list(array.shape),
            json_config=config,
        )
        metadata = _metadata("mesh", data.SerializeToString())
        if display_name is not None:
            metadata.display_name = display_name
        if description is not None:
            metadata.summary_description = description
        proto = TensorProto(
            dtype=types_pb2.DT_FLOAT, float_val=array.reshape(-1).tolist(), tensor_shape=_shape(array.shape)
        )
        values.append(
            Summary.Value(tag=f"{tag}_{_MESH.ContentType.Name(content_type)}", tensor=proto, metadata=metadata)
        )
    return Summary(value=values)
