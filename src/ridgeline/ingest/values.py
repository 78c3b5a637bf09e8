"""What stored summary values decode to, and the building blocks shared by every decoder.

The payload types are frozen dataclasses; those holding numpy arrays compare by identity (``eq=False``), since
array equality has no single truth value. :func:`make_ndarray` turns a TensorProto into a numpy array the way
TensorBoard's ``tensor_util.make_ndarray`` does (and TensorFlow where TensorBoard fails); every inconsistency
raises :class:`DecodeError`, the one exception decoding raises.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import numpy as np
from google.protobuf import message

from ridgeline.format import wire
from ridgeline.format.proto import custom_scalars_pb2, graph_pb2, hparams_pb2, tensor_pb2, types_pb2


class DecodeError(ValueError):
    """A stored value that cannot be decoded into what its kind promises (the caller records a Problem)."""


# --- payload types -------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class Histogram:
    """Bucket i spans [lower[i], upper[i]] and holds count[i] values (float64 arrays of equal length, maybe 0).

    ``min``/``max``/``num``/``sum``/``sum_squares`` are known for legacy HistogramProto values only.
    """

    lower: np.ndarray
    upper: np.ndarray
    count: np.ndarray
    min: float | None = None
    max: float | None = None
    num: float | None = None
    sum: float | None = None
    sum_squares: float | None = None


@dataclass(frozen=True, slots=True)
class Images:
    """Encoded images (PNG, JPEG, GIF, ...) of one value, all ``width`` x ``height``; MIME types from magic bytes."""

    width: int
    height: int
    encoded: tuple[bytes, ...]
    content_types: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Audio:
    """Encoded clips with one label each ("" when none); ``sample_rate`` in Hz when stored or in a WAV header."""

    clips: tuple[bytes, ...]
    labels: tuple[str, ...]
    sample_rate: float | None
    content_type: str


@dataclass(frozen=True, slots=True, eq=False)
class Text:
    """``text``: an object array of ``str``, of any rank (TensorBoard shows rank 0 as text, rank 1-2 as a table)."""

    text: np.ndarray


@dataclass(frozen=True, slots=True, eq=False)
class PrCurve:
    """One precision-recall curve: float64 arrays of length n, thresholds evenly spaced in [0, 1] as TensorBoard's."""

    thresholds: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    tn: np.ndarray
    fn: np.ndarray
    precision: np.ndarray
    recall: np.ndarray


HParamValue = bool | float | str | None | list[Any] | dict[str, Any]


@dataclass(frozen=True, slots=True)
class HParamInfo:
    name: str
    display_name: str
    description: str
    type: Literal["unset", "string", "bool", "float64"]
    domain_discrete: tuple[HParamValue, ...] | None
    domain_interval: tuple[float, float] | None


@dataclass(frozen=True, slots=True)
class MetricInfo:
    group: str
    tag: str
    display_name: str
    description: str
    dataset_type: Literal["unknown", "training", "validation"]


@dataclass(frozen=True, slots=True, eq=False)
class HParams:
    """One hparams plugin record: an experiment, a session start or a session end.

    ``hparams`` (session start) maps names to bool, float or str (None for a null value; lists and dicts for
    struct values, which TensorBoard does not show). ``status`` (session end) is "unknown", "success",
    "failure" or "running". Times are seconds since the epoch, None when not recorded (0).
    """

    what: Literal["experiment", "session_start", "session_end"]
    hparams: dict[str, HParamValue]
    hparam_infos: tuple[HParamInfo, ...] = ()
    metric_infos: tuple[MetricInfo, ...] = ()
    experiment_name: str = ""
    description: str = ""
    time_created_secs: float | None = None
    group_name: str = ""
    model_uri: str = ""
    monitor_url: str = ""
    start_time_secs: float | None = None
    status: Literal["unknown", "success", "failure", "running"] | None = None
    end_time_secs: float | None = None


@dataclass(frozen=True, slots=True, eq=False)
class CustomScalarsLayout:
    layout: custom_scalars_pb2.Layout


MeshContent = Literal["UNDEFINED", "VERTEX", "FACE", "COLOR"]


@dataclass(frozen=True, slots=True, eq=False)
class Mesh:
    """One part of a mesh: ``data`` is [batch, n, 3] as stored (vertices, faces or colours per ``content_type``).

    ``name`` is the mesh's tag (the summary tags carry a _VERTEX/_FACE/_COLOR suffix); ``components`` is the
    bitmask (1 << content type) of the parts the mesh has; ``config`` the parsed ``json_config``.
    """

    data: np.ndarray
    content_type: MeshContent
    name: str
    components: int
    shape: tuple[int, ...]
    config: dict[str, Any]


GraphFormat = Literal["graph_def", "meta_graph_def", "run_metadata", "run_metadata_graph", "keras_model"]


@dataclass(frozen=True, slots=True)
class Graph:
    """A serialized graph record, parsed only on demand.

    ``format``: "graph_def" (Event.graph_def, or a GraphDef tensor), "meta_graph_def" (Event.meta_graph_def),
    "run_metadata" (Event.tagged_run_metadata or plugin graph_run_metadata), "run_metadata_graph" (TF2
    ``trace_export``: a RunMetadata with function graphs) or "keras_model" (Keras' model config as JSON).
    """

    format: GraphFormat
    data: bytes

    def graph_def(self) -> graph_pb2.GraphDef:
        """The GraphDef of a graph_def or meta_graph_def record."""
        if self.format == "graph_def":
            return parse_message(graph_pb2.GraphDef, self.data, "GraphDef")
        if self.format == "meta_graph_def":
            return parse_message(graph_pb2.GraphDef, _last_field(self.data, 2, "MetaGraphDef") or b"", "GraphDef")
        raise DecodeError(f"a {self.format} record holds no GraphDef (use run_metadata/function_graphs/keras_model)")

    def run_metadata(self) -> graph_pb2.RunMetadata:
        """The step statistics of a run_metadata or run_metadata_graph record."""
        if self.format not in ("run_metadata", "run_metadata_graph"):
            raise DecodeError(f"a {self.format} record holds no RunMetadata")
        return parse_message(graph_pb2.RunMetadata, self.data, "RunMetadata")

    def function_graphs(self) -> list[graph_pb2.GraphDef]:
        """The pre-optimization graph of each function of a RunMetadata (what TensorBoard merges and draws)."""
        if self.format not in ("run_metadata", "run_metadata_graph"):
            raise DecodeError(f"a {self.format} record holds no function graphs")
        graphs = []
        for function in _fields(self.data, 4, "RunMetadata"):
            pre_optimization = _last_field(function, 2, "RunMetadata.FunctionGraphs") or b""
            graphs.append(parse_message(graph_pb2.GraphDef, pre_optimization, "GraphDef"))
        return graphs

    def keras_model(self) -> dict[str, Any]:
        """The Keras model config of a keras_model record."""
        if self.format != "keras_model":
            raise DecodeError(f"a {self.format} record holds no Keras model")
        try:
            config = json.loads(self.data)
        except (ValueError, UnicodeDecodeError) as error:
            raise DecodeError(f"the Keras model config is not valid JSON: {error}") from None
        if not isinstance(config, dict):
            raise DecodeError(f"the Keras model config is a JSON {type(config).__name__}, not an object")
        return config


@dataclass(frozen=True, slots=True, eq=False)
class Tensor:
    """A tensor of any other plugin (or none), as a numpy array (strings as an object array of bytes)."""

    array: np.ndarray


DecodedPayload = (
    float | Histogram | Images | Audio | Text | Tensor | PrCurve | HParams | CustomScalarsLayout | Mesh | Graph
)


# --- protobuf helpers ----------------------------------------------------------------------------------------

_M = TypeVar("_M", bound=message.Message)


def parse_message(cls: type[_M], data: bytes, what: str) -> _M:
    """``cls`` parsed from ``data``; DecodeError (naming ``what``) when it is no such message."""
    try:
        return cls.FromString(data)
    except (message.DecodeError, RuntimeError, ValueError) as error:
        raise DecodeError(f"malformed {what} ({len(data)} bytes): {error}") from None


def _fields(data: bytes, number: int, what: str) -> list[bytes]:
    try:
        return wire.fields(data, number, what)
    except wire.WireError as error:
        raise DecodeError(str(error)) from None


def _last_field(data: bytes, number: int, what: str) -> bytes | None:
    try:
        return wire.last_field(data, number, what)
    except wire.WireError as error:
        raise DecodeError(str(error)) from None


# --- tensors -------------------------------------------------------------------------------------------------

_DT = types_pb2
_NUMPY_DTYPES: dict[int, np.dtype[Any]] = {
    _DT.DT_FLOAT: np.dtype("f4"),
    _DT.DT_DOUBLE: np.dtype("f8"),
    _DT.DT_INT32: np.dtype("i4"),
    _DT.DT_UINT8: np.dtype("u1"),
    _DT.DT_INT16: np.dtype("i2"),
    _DT.DT_INT8: np.dtype("i1"),
    _DT.DT_STRING: np.dtype(object),
    _DT.DT_COMPLEX64: np.dtype("c8"),
    _DT.DT_INT64: np.dtype("i8"),
    _DT.DT_BOOL: np.dtype("?"),
    _DT.DT_QINT8: np.dtype("i1"),
    _DT.DT_QUINT8: np.dtype("u1"),
    _DT.DT_QINT32: np.dtype("i4"),
    _DT.DT_BFLOAT16: np.dtype("f4"),  # numpy has no bfloat16: widened exactly to float32
    _DT.DT_QINT16: np.dtype("i2"),
    _DT.DT_QUINT16: np.dtype("u2"),
    _DT.DT_UINT16: np.dtype("u2"),
    _DT.DT_COMPLEX128: np.dtype("c16"),
    _DT.DT_HALF: np.dtype("f2"),
    _DT.DT_UINT32: np.dtype("u4"),
    _DT.DT_UINT64: np.dtype("u8"),
}
_SMALL_INTS = {_DT.DT_INT32, _DT.DT_UINT8, _DT.DT_INT16, _DT.DT_INT8, _DT.DT_QINT8, _DT.DT_QUINT8, _DT.DT_QINT32}
_SMALL_INTS |= {_DT.DT_QINT16, _DT.DT_QUINT16, _DT.DT_UINT16}
_FIELDS: dict[int, str] = {_DT.DT_FLOAT: "float_val", _DT.DT_DOUBLE: "double_val", _DT.DT_INT64: "int64_val"}
_FIELDS |= {_DT.DT_STRING: "string_val", _DT.DT_BOOL: "bool_val", _DT.DT_UINT32: "uint32_val"}
_FIELDS |= {_DT.DT_UINT64: "uint64_val", _DT.DT_COMPLEX64: "scomplex_val", _DT.DT_COMPLEX128: "dcomplex_val"}
_FIELDS |= {_DT.DT_HALF: "half_val", _DT.DT_BFLOAT16: "half_val"}
_FIELDS |= dict.fromkeys(_SMALL_INTS, "int_val")
_MAX_FILLED = 1 << 24  # elements a tensor may be padded out to from fewer stored values
REAL_DTYPES = frozenset(_NUMPY_DTYPES) - {_DT.DT_STRING, _DT.DT_COMPLEX64, _DT.DT_COMPLEX128}


def dtype_name(dtype: int) -> str:
    try:
        return types_pb2.DataType.Name(dtype)  # type: ignore[arg-type]
    except ValueError:
        return f"data type {dtype}"


def tensor_shape(tensor: tensor_pb2.TensorProto) -> tuple[int, ...]:
    """The shape of ``tensor``, checked: known rank, no negative (unknown) dimension."""
    if tensor.tensor_shape.unknown_rank:
        raise DecodeError("tensor has an unknown rank")
    shape = tuple(dim.size for dim in tensor.tensor_shape.dim)
    if any(size < 0 for size in shape):
        raise DecodeError(f"tensor has an unknown or negative dimension: shape {list(shape)}")
    extent = 1
    for size in shape:
        extent *= max(size, 1)
    if extent >= 1 << 62:  # more than numpy can index, even when another dimension is 0
        raise DecodeError(f"tensor shape {list(shape)} is too large")
    return shape


def make_ndarray(tensor: tensor_pb2.TensorProto) -> np.ndarray:
    """``tensor`` as a numpy array, like TensorBoard's ``tensor_util.make_ndarray``, with TensorFlow's rules where
    TensorBoard has none: fewer stored values than elements are padded with the last one (zeros when none),
    uint32/uint64 values are read, quantized types become plain integers, bfloat16 becomes float32, and
    half_val written as float32 bit patterns (as torch's ``tensor_proto`` does) is read as such."""
    try:
        with np.errstate(all="ignore"):  # values that overflow a narrower type become inf, as in a C cast
            return _make_ndarray(tensor)
    except DecodeError:
        raise
    except (ValueError, TypeError, OverflowError, MemoryError) as error:
        raise DecodeError(f"tensor cannot be read: {type(error).__name__}: {error}") from None


def _make_ndarray(tensor: tensor_pb2.TensorProto) -> np.ndarray:
    dtype = _NUMPY_DTYPES.get(tensor.dtype)
    if dtype is None:
        raise DecodeError(f"tensor has unsupported dtype {dtype_name(tensor.dtype)}")
    shape = tensor_shape(tensor)
    count = 1
    for size in shape:
        count *= size
    if tensor.tensor_content:
        return _from_content(tensor, dtype, shape, count)
    field = _FIELDS[tensor.dtype]
    stored: Sequence[Any] = getattr(tensor, field)
    if tensor.dtype in _SMALL_INTS and not stored:
        stored = tensor.uint32_val  # torch writes uint8 there
    values = _values(tensor.dtype, dtype, stored)
    if values.size > count and values.size != 1:
        raise DecodeError(f"tensor of shape {list(shape)} holds {values.size} values, more than its {count} elements")
    if values.size < count:
        if count > _MAX_FILLED:
            raise DecodeError(f"tensor of shape {list(shape)} holds only {values.size} values; refusing to fill it")
        fill = values[-1] if values.size else (b"" if dtype.kind == "O" else 0)
        padded = np.full(count, fill, dtype=dtype)
        padded[: values.size] = values
        values = padded
    return values[:count].reshape(shape)


def _values(data_type: int, dtype: np.dtype[Any], stored: Sequence[Any]) -> np.ndarray:
    if data_type == _DT.DT_STRING:
        array = np.empty(len(stored), dtype=object)
        array[:] = list(stored)
        return array
    if data_type in (_DT.DT_COMPLEX64, _DT.DT_COMPLEX128):
        if len(stored) % 2:
            raise DecodeError(f"{dtype_name(data_type)} tensor holds an odd number ({len(stored)}) of real parts")
        parts = np.fromiter(stored, dtype=np.float64, count=len(stored))
        return (parts[0::2] + 1j * parts[1::2]).astype(dtype)
    if data_type in (_DT.DT_HALF, _DT.DT_BFLOAT16):
        bits = np.fromiter(stored, dtype=np.int64, count=len(stored))
        if bits.size and (bits.min() < 0 or bits.max() > 0xFFFF):  # float32 bit patterns (torch)
            return (bits & 0xFFFFFFFF).astype(np.uint32).view(np.float32).astype(dtype)
        return _from_bits16(data_type, bits.astype(np.uint16))
    if data_type in _SMALL_INTS:  # int32 on the wire: cast (wrapping) as TensorFlow's C++ does
        return np.fromiter(stored, dtype=np.int64, count=len(stored)).astype(dtype)
    return np.fromiter(stored, dtype=dtype, count=len(stored))


def _from_bits16(data_type: int, bits: np.ndarray) -> np.ndarray:
    if data_type == _DT.DT_HALF:
        return bits.view(np.float16)
    return (bits.astype(np.uint32) << 16).view(np.float32)


def _from_content(
    tensor: tensor_pb2.TensorProto, dtype: np.dtype[Any], shape: tuple[int, ...], count: int
) -> np.ndarray:
    content = tensor.tensor_content
    if dtype.kind == "O":
        raise DecodeError("a DT_STRING tensor cannot use tensor_content")
    wire = np.dtype("<u2") if tensor.dtype == _DT.DT_BFLOAT16 else dtype.newbyteorder("<")  # little-endian bytes
    if len(content) != count * wire.itemsize:
        raise DecodeError(
            f"{dtype_name(tensor.dtype)} tensor of shape {list(shape)} needs {count * wire.itemsize} bytes of "
            f"tensor_content, got {len(content)}"
        )
    array = np.frombuffer(content, dtype=wire).copy()
    if tensor.dtype == _DT.DT_BFLOAT16:
        array = _from_bits16(tensor.dtype, array)
    return array.astype(dtype, copy=False).reshape(shape)


# --- content types -------------------------------------------------------------------------------------------

_IMAGE_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"BM", "image/bmp"),
)
OCTET_STREAM = "application/octet-stream"


def image_content_type(data: bytes) -> str:
    """The MIME type of an encoded image from its first bytes (application/octet-stream when unknown)."""
    for magic, mime in _IMAGE_MAGIC:
        if data.startswith(magic):
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    head = data[:256].lstrip()
    if head.startswith(b"<svg") or (head.startswith(b"<?xml") and b"<svg" in data[:1024]):
        return "image/svg+xml"
    return OCTET_STREAM


def audio_content_type(data: bytes) -> str:
    if data[:4] == b"RIFF" and data[8:12] == b"WAVE":
        return "audio/wav"
    if data.startswith(b"OggS"):
        return "audio/ogg"
    if data.startswith(b"fLaC"):
        return "audio/flac"
    if data.startswith(b"ID3") or data[:2] in (b"\xff\xfb", b"\xff\xf3", b"\xff\xf2"):
        return "audio/mpeg"
    return OCTET_STREAM


def wav_sample_rate(data: bytes) -> float | None:
    """The sample rate in a RIFF/WAVE header's fmt chunk, or None when ``data`` is not such a file."""
    if data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        return None
    pos = 12
    while pos + 8 <= len(data):
        chunk, size = data[pos : pos + 4], struct.unpack_from("<I", data, pos + 4)[0]
        if chunk == b"fmt ":
            if size < 8 or pos + 16 > len(data):
                return None
            return float(struct.unpack_from("<I", data, pos + 12)[0])
        pos += 8 + size + (size & 1)
    return None


# --- hparams -------------------------------------------------------------------------------------------------

_HP_TYPES: dict[int, Literal["unset", "string", "bool", "float64"]] = {0: "unset", 1: "string", 2: "bool", 3: "float64"}
_DATASETS: dict[int, Literal["unknown", "training", "validation"]] = {0: "unknown", 1: "training", 2: "validation"}
_STATUSES: dict[int, Literal["unknown", "success", "failure", "running"]] = {
    0: "unknown",
    1: "success",
    2: "failure",
    3: "running",
}


def python_value(value: Any) -> HParamValue:
    """A google.protobuf.Value as a Python value."""
    which = value.WhichOneof("kind")
    if which == "number_value":
        return float(value.number_value)
    if which == "string_value":
        return str(value.string_value)
    if which == "bool_value":
        return bool(value.bool_value)
    if which == "list_value":
        return [python_value(item) for item in value.list_value.values]
    if which == "struct_value":
        return {key: python_value(item) for key, item in value.struct_value.fields.items()}
    return None


def hparams_from_content(content: bytes) -> HParams:
    """The hparams plugin's record from its SummaryMetadata plugin content (an HParamsPluginData)."""
    data = parse_message(hparams_pb2.HParamsPluginData, content, "HParamsPluginData")
    which = data.WhichOneof("data")
    if which == "experiment":
        experiment = data.experiment
        infos = tuple(
            HParamInfo(
                name=info.name,
                display_name=info.display_name,
                description=info.description,
                type=_HP_TYPES.get(info.type, "unset"),
                domain_discrete=tuple(python_value(v) for v in info.domain_discrete.values)
                if info.HasField("domain_discrete")
                else None,
                domain_interval=(info.domain_interval.min_value, info.domain_interval.max_value)
                if info.HasField("domain_interval")
                else None,
            )
            for info in experiment.hparam_infos
        )
        metrics = tuple(
            MetricInfo(
                group=metric.name.group,
                tag=metric.name.tag,
                display_name=metric.display_name,
                description=metric.description,
                dataset_type=_DATASETS.get(metric.dataset_type, "unknown"),
            )
            for metric in experiment.metric_infos
        )
        return HParams(
            what="experiment",
            hparams={},
            hparam_infos=infos,
            metric_infos=metrics,
            experiment_name=experiment.name,
            description=experiment.description,
            time_created_secs=experiment.time_created_secs or None,
        )
    if which == "session_start_info":
        start = data.session_start_info
        return HParams(
            what="session_start",
            hparams={name: python_value(value) for name, value in start.hparams.items()},
            group_name=start.group_name,
            model_uri=start.model_uri,
            monitor_url=start.monitor_url,
            start_time_secs=start.start_time_secs or None,
        )
    if which == "session_end_info":
        end = data.session_end_info
        return HParams(
            what="session_end",
            hparams={},
            status=_STATUSES.get(end.status, "unknown"),
            end_time_secs=end.end_time_secs or None,
        )
    raise DecodeError("the hparams plugin data holds neither an experiment, a session start nor a session end")
