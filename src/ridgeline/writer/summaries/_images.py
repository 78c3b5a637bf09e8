"""Images: arrays in any layout, batches as grids, boxes drawn on, matplotlib figures, and videos as GIFs."""

from __future__ import annotations

import io
import sys
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from ridgeline.format.proto import summary_pb2
from ridgeline.writer.summaries._common import Summary, _finite_positive, _real_array
from ridgeline.writer.values import check_tag

if TYPE_CHECKING:
    from PIL import Image as PILImage


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
