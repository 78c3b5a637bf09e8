"""A value's payload decoded on demand: :func:`decode_value` turns value ``value_index`` of a serialized Event into
the payload type of its kind (:mod:`ridgeline.store.payloads`), and the checks of each kind's dtype and shape
that classification (:mod:`ridgeline.ingest.decode`) runs too, so that a value it accepts decodes.

Legacy values (``simple_value``, ``histo``, ``image``, ``audio``) are converted as TensorBoard's ``data_compat``
converts them; tensors as its ``dataclass_compat`` and plugins read them. Raises :class:`DecodeError` only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, overload

import numpy as np

from ridgeline.format import tags
from ridgeline.format.proto import event_pb2, plugins_pb2, summary_pb2, tensor_pb2, types_pb2
from ridgeline.ingest.hparams import hparams_from_content
from ridgeline.ingest.tensors import REAL_DTYPES, dtype_name, make_ndarray, tensor_shape
from ridgeline.store.base import Kind
from ridgeline.store.media import audio_content_type, image_content_type, wav_sample_rate
from ridgeline.store.payloads import (
    MAX_HISTOGRAM_BUCKETS,
    OCTET_STREAM,
    Audio,
    ConfusionMatrix,
    CustomScalarsLayout,
    DecodedPayload,
    DecodeError,
    Graph,
    GraphFormat,
    Histogram,
    HParams,
    Images,
    Mesh,
    MeshContent,
    PrCurve,
    Tensor,
    Text,
    check_image_size,
    load_json_object,
    parse_message,
)

__all__ = ["check_tensor", "decode_value", "legacy_histogram", "tensor_scalar"]

_Meta = summary_pb2.SummaryMetadata | None
_GRAPH_FORMATS: dict[str, GraphFormat] = {
    tags.GRAPHS_PLUGIN: "graph_def",
    tags.GRAPH_RUN_METADATA_PLUGIN: "run_metadata",
    tags.GRAPH_RUN_METADATA_GRAPH_PLUGIN: "run_metadata_graph",
    tags.GRAPH_KERAS_MODEL_PLUGIN: "keras_model",
    tags.GRAPH_TAGGED_RUN_METADATA_PLUGIN: "run_metadata",
}
_MESH_CONTENT = plugins_pb2.MeshPluginData.ContentType
_MESH_CONTENT_NAMES: dict[int, MeshContent] = {0: "UNDEFINED", 1: "VERTEX", 2: "FACE", 3: "COLOR"}
_ALL_MESH_PARTS = (1 << _MESH_CONTENT.VERTEX) | (1 << _MESH_CONTENT.FACE) | (1 << _MESH_CONTENT.COLOR)


@overload
def decode_value(kind: Literal["scalars"], data: bytes, value_index: int, metadata: _Meta = None) -> float: ...
@overload
def decode_value(kind: Literal["histograms"], data: bytes, value_index: int, metadata: _Meta = None) -> Histogram: ...
@overload
def decode_value(kind: Literal["images"], data: bytes, value_index: int, metadata: _Meta = None) -> Images: ...
@overload
def decode_value(kind: Literal["audio"], data: bytes, value_index: int, metadata: _Meta = None) -> Audio: ...
@overload
def decode_value(kind: Literal["text"], data: bytes, value_index: int, metadata: _Meta = None) -> Text: ...
@overload
def decode_value(kind: Literal["tensors"], data: bytes, value_index: int, metadata: _Meta = None) -> Tensor: ...
@overload
def decode_value(kind: Literal["pr_curves"], data: bytes, value_index: int, metadata: _Meta = None) -> PrCurve: ...
@overload
def decode_value(kind: Literal["hparams"], data: bytes, value_index: int, metadata: _Meta = None) -> HParams: ...
@overload
def decode_value(
    kind: Literal["custom_scalars"], data: bytes, value_index: int, metadata: _Meta = None
) -> CustomScalarsLayout: ...
@overload
def decode_value(kind: Literal["meshes"], data: bytes, value_index: int, metadata: _Meta = None) -> Mesh: ...
@overload
def decode_value(kind: Literal["graphs"], data: bytes, value_index: int, metadata: _Meta = None) -> Graph: ...
@overload
def decode_value(
    kind: Literal["confusion_matrices"], data: bytes, value_index: int, metadata: _Meta = None
) -> ConfusionMatrix: ...
@overload
def decode_value(kind: Kind, data: bytes, value_index: int, metadata: _Meta = None) -> DecodedPayload: ...
def decode_value(
    kind: Kind, data: bytes, value_index: int, metadata: summary_pb2.SummaryMetadata | None = None
) -> DecodedPayload:
    """The payload of value ``value_index`` of the serialized Event ``data``, decoded as ``kind``.

    ``metadata``: the tag's first metadata (:meth:`EventDecoder.metadata`), used when the value carries none
    (hparams, meshes, graphs and audio read their plugin content from it). Raises DecodeError only.
    """
    try:
        return _decode_value(kind, bytes(data), value_index, metadata)
    except DecodeError:
        raise
    except Exception as error:  # a last guard: nothing but DecodeError leaves this function
        raise DecodeError(f"cannot decode value {value_index} as {kind}: {type(error).__name__}: {error}") from None


def _decode_value(
    kind: Kind, data: bytes, value_index: int, metadata: summary_pb2.SummaryMetadata | None
) -> DecodedPayload:
    event = parse_message(event_pb2.Event, data, "Event")
    if value_index == -1:
        return _event_graph(kind, event)
    values = event.summary.value
    if not 0 <= value_index < len(values):
        raise DecodeError(f"the event has no value {value_index} (it has {len(values)})")
    value = values[value_index]
    which = value.WhichOneof("value")
    metadata = _own_or(value, metadata)
    if kind == "hparams":
        if metadata is None:
            raise DecodeError("an hparams value needs its SummaryMetadata, and has none")
        return hparams_from_content(metadata.plugin_data.content)
    if which == "simple_value" and kind == "scalars":
        return float(value.simple_value)
    if which == "histo" and kind == "histograms":
        return legacy_histogram(value.histo)
    if which == "image" and kind == "images":
        image = value.image
        check_image_size(image.width, image.height)
        encoded = image.encoded_image_string
        return Images(image.width, image.height, (encoded,), (image_content_type(encoded),))
    if which == "audio" and kind == "audio":
        audio = value.audio
        clip = audio.encoded_audio_string
        rate = float(audio.sample_rate) if audio.sample_rate else wav_sample_rate(clip)
        return Audio((clip,), ("",), rate, audio.content_type or audio_content_type(clip))
    if which != "tensor":
        raise DecodeError(f"value {value_index} (tag {value.tag!r}) holds {which or 'nothing'}, not {kind}")
    tensor = value.tensor
    check_tensor(kind, tensor)
    if kind == "scalars":
        return tensor_scalar(tensor)
    if kind == "tensors":
        return Tensor(make_ndarray(tensor))
    if kind == "histograms":
        buckets = make_ndarray(tensor).astype(np.float64)
        return Histogram(buckets[:, 0].copy(), buckets[:, 1].copy(), buckets[:, 2].copy())
    if kind == "images":
        return _tensor_images(make_ndarray(tensor).reshape(-1))
    if kind == "audio":
        return _tensor_audio(make_ndarray(tensor), metadata)
    if kind == "text":
        strings = make_ndarray(tensor)
        text = np.empty(strings.shape, dtype=object)
        text.reshape(-1)[:] = [item.decode("utf-8", "replace") for item in strings.reshape(-1)]
        return Text(text)
    if kind == "pr_curves":
        rows = make_ndarray(tensor).astype(np.float64)
        tp, fp, tn, fn, precision, recall = (row.copy() for row in rows)
        return PrCurve(np.linspace(0.0, 1.0, rows.shape[1]), tp, fp, tn, fn, precision, recall)
    if kind == "custom_scalars":
        from ridgeline.format.proto import custom_scalars_pb2  # on first use, as hparams_pb2 and graph_pb2

        encoded = make_ndarray(tensor).reshape(-1)[0]
        return CustomScalarsLayout(parse_message(custom_scalars_pb2.Layout, encoded, "custom scalars Layout"))
    if kind == "meshes":
        return _tensor_mesh(make_ndarray(tensor), metadata)
    if kind == "graphs":
        plugin = metadata.plugin_data.plugin_name if metadata is not None else ""
        graph_format = _GRAPH_FORMATS.get(plugin)
        if graph_format is None:
            raise DecodeError(f"a graphs tensor needs the metadata of a graph plugin, got plugin {plugin!r}")
        return Graph(graph_format, bytes(make_ndarray(tensor).reshape(-1)[0]))
    if kind == "confusion_matrices":
        return _confusion_matrix(make_ndarray(tensor), metadata)
    raise DecodeError(f"unknown kind {kind!r}")


def _own_or(
    value: summary_pb2.Summary.Value, metadata: summary_pb2.SummaryMetadata | None
) -> summary_pb2.SummaryMetadata | None:
    return value.metadata if value.HasField("metadata") else metadata


def _event_graph(kind: Kind, event: event_pb2.Event) -> Graph:
    what = event.WhichOneof("what")
    if kind != "graphs":
        raise DecodeError(f"value_index -1 names an event's graph, not {kind}")
    if what == "graph_def":
        return Graph("graph_def", event.graph_def)
    if what == "meta_graph_def":
        return Graph("meta_graph_def", event.meta_graph_def)
    if what == "tagged_run_metadata":
        return Graph("run_metadata", event.tagged_run_metadata.run_metadata)
    raise DecodeError(f"the event holds {what or 'nothing'}, not a graph")


# --- per kind ------------------------------------------------------------------------------------------------


def _count(shape: tuple[int, ...]) -> int:
    count = 1
    for size in shape:
        count *= size
    return count


def check_tensor(kind: Kind, tensor: tensor_pb2.TensorProto) -> tuple[int, ...]:
    """The shape of a ``kind`` tensor after checking its dtype and shape (no element is read)."""
    shape = tensor_shape(tensor)
    dtype = tensor.dtype
    string = dtype == types_pb2.DT_STRING
    if kind in ("images", "audio", "text", "custom_scalars", "graphs"):
        if not string:
            raise DecodeError(f"a {kind} tensor must hold strings (DT_STRING), got {dtype_name(dtype)}")
        if kind == "images" and _count(shape) < 2:
            raise DecodeError(f"an images tensor holds width, height, images...; got shape {list(shape)}")
        if kind == "images":
            _image_size(tensor.string_val[0] if tensor.string_val else b"", tensor.string_val[1:2])
        if kind == "custom_scalars" and _count(shape) != 1:
            raise DecodeError(f"a custom_scalars tensor holds one Layout, got shape {list(shape)}")
        if kind == "graphs" and _count(shape) < 1:
            raise DecodeError(f"a graphs tensor holds a serialized graph, got shape {list(shape)}")
        return shape
    if kind == "tensors":
        return shape
    if dtype not in REAL_DTYPES:
        raise DecodeError(f"a {kind} tensor must hold real numbers, got {dtype_name(dtype)}")
    if kind == "scalars" and _count(shape) != 1:
        raise DecodeError(f"a scalars tensor must hold one number, got shape {list(shape)}")
    if kind == "histograms" and (len(shape) != 2 or shape[1] != 3):
        raise DecodeError(f"a histograms tensor must have shape [k, 3] (left, right, count), got {list(shape)}")
    if kind == "histograms" and shape[0] > MAX_HISTOGRAM_BUCKETS:
        raise DecodeError(f"a histogram of {shape[0]} buckets is over the limit of {MAX_HISTOGRAM_BUCKETS}")
    if kind == "pr_curves" and (len(shape) != 2 or shape[0] != 6):
        raise DecodeError(f"a pr_curves tensor must have shape [6, n] (TP, FP, TN, FN, P, R), got {list(shape)}")
    if kind == "meshes" and (len(shape) != 3 or shape[2] != 3):
        raise DecodeError(f"a mesh tensor must have shape [batch, n, 3], got {list(shape)}")
    if kind == "confusion_matrices" and (len(shape) != 2 or shape[0] != shape[1] or shape[0] == 0):
        raise DecodeError(f"a confusion matrix must have shape [n, n] with n >= 1, got {list(shape)}")
    return shape


def tensor_scalar(tensor: tensor_pb2.TensorProto) -> float:
    check_tensor("scalars", tensor)
    return float(make_ndarray(tensor).reshape(-1)[0])


def legacy_histogram(histo: summary_pb2.HistogramProto) -> Histogram:
    """A HistogramProto as TensorBoard's data_compat converts it: empty buckets at both ends dropped, ``min`` as
    the first left edge and ``max`` as the last right edge (clamped so that no bucket runs backwards)."""
    if len(histo.bucket) > MAX_HISTOGRAM_BUCKETS or len(histo.bucket_limit) > MAX_HISTOGRAM_BUCKETS:
        buckets = max(len(histo.bucket), len(histo.bucket_limit))
        raise DecodeError(f"a histogram of {buckets} buckets is over the limit of {MAX_HISTOGRAM_BUCKETS}")
    counts = np.asarray(histo.bucket, dtype=np.float64)
    limits = np.asarray(histo.bucket_limit, dtype=np.float64)
    stats = {"min": histo.min, "max": histo.max, "num": histo.num, "sum": histo.sum, "sum_squares": histo.sum_squares}
    occupied = np.flatnonzero(counts > 0)
    if occupied.size == 0:
        empty = np.zeros(0, dtype=np.float64)
        return Histogram(empty, empty.copy(), empty.copy(), **stats)
    start, end = int(occupied[0]), int(occupied[-1])
    if limits.size < end:
        raise DecodeError(f"histogram has {counts.size} buckets but only {limits.size} bucket limits")
    inner = limits[start:end]
    lower = np.concatenate([[histo.min], inner])
    upper = np.concatenate([inner, [histo.max]])
    if not lower[0] <= upper[0]:
        lower[0] = upper[0]
    if not upper[-1] >= lower[-1]:
        upper[-1] = lower[-1]
    return Histogram(lower, upper, counts[start : end + 1].copy(), **stats)


def _image_size(width_text: bytes, height_text: Sequence[bytes]) -> tuple[int, int]:
    """The width and height an images tensor starts with (as ASCII decimals), checked."""
    height_bytes = height_text[0] if height_text else b""
    if len(width_text) > 12 or len(height_bytes) > 12:  # no real size needs more digits; int() of 1 MB is slow
        raise DecodeError("an images tensor's width or height is over 12 characters long")
    try:
        width, height = int(width_text.decode("ascii")), int(height_bytes.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        raise DecodeError(
            f"an images tensor starts with width and height, got {width_text!r} and {height_bytes!r}"
        ) from None
    check_image_size(width, height)
    return width, height


def _tensor_images(flat: np.ndarray) -> Images:
    width, height = _image_size(bytes(flat[0]), [bytes(flat[1])])
    encoded = tuple(bytes(item) for item in flat[2:])
    return Images(width, height, encoded, tuple(image_content_type(item) for item in encoded))


def _tensor_audio(array: np.ndarray, metadata: summary_pb2.SummaryMetadata | None) -> Audio:
    # As dataclass_compat: the clips are the first column (of any rank); labels the second when there is one.
    rows = array.reshape(array.shape[0], _count(array.shape[1:])) if array.ndim else array.reshape(1, 1)
    clips = tuple(bytes(item) for item in rows[:, 0]) if rows.shape[1] else ()
    labels = ("",) * len(clips)
    if rows.shape[1] > 1:
        labels = tuple(item.decode("utf-8", "replace") for item in rows[:, 1])
    encoding = plugins_pb2.AudioPluginData.UNKNOWN
    if metadata is not None and metadata.plugin_data.content:
        encoding = parse_message(plugins_pb2.AudioPluginData, metadata.plugin_data.content, "AudioPluginData").encoding
    if encoding == plugins_pb2.AudioPluginData.WAV:
        content_type = "audio/wav"
    else:
        content_type = audio_content_type(clips[0]) if clips else OCTET_STREAM
    rate = wav_sample_rate(clips[0]) if clips else None
    return Audio(clips, labels, rate, content_type)


def _confusion_matrix(array: np.ndarray, metadata: summary_pb2.SummaryMetadata | None) -> ConfusionMatrix:
    """Counts as int64 when they are whole numbers (what add_confusion_matrix writes), float64 otherwise; the
    class names from the plugin content ``{"version": 1, "class_names": [...]}``, one per row."""
    n = array.shape[0]
    content = metadata.plugin_data.content if metadata is not None else b""
    if not content:
        raise DecodeError("a confusion matrix needs its class names (the plugin content), and has none")
    data = load_json_object(content, "the confusion matrix's plugin content")
    names = data.get("class_names")
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        raise DecodeError("a confusion matrix's plugin content must hold class_names, a list of strings")
    if len(names) != n:
        raise DecodeError(f"a {n}x{n} confusion matrix needs {n} class names, its plugin content has {len(names)}")
    counts = array.astype(np.float64)
    if not np.isfinite(counts).all() or (counts < 0).any():
        raise DecodeError("a confusion matrix's counts must be finite and not negative")
    if array.dtype.kind in "iub" or (counts == np.round(counts)).all():
        counts = array.astype(np.int64)
    return ConfusionMatrix(counts, tuple(names))


def _tensor_mesh(array: np.ndarray, metadata: summary_pb2.SummaryMetadata | None) -> Mesh:
    content = metadata.plugin_data.content if metadata is not None else b""
    data = parse_message(plugins_pb2.MeshPluginData, content, "MeshPluginData")
    config: Any = load_json_object(data.json_config, "the mesh's json_config") if data.json_config else {}
    return Mesh(
        data=array,
        content_type=_MESH_CONTENT_NAMES.get(data.content_type, "UNDEFINED"),
        name=data.name,
        components=data.components or _ALL_MESH_PARTS,
        shape=tuple(data.shape),
        config=config,
    )
