"""What stored summary values decode to: the payload types the store hands out for each kind, and
:class:`DecodeError`, the one exception decoding raises (readers above the store catch it).

The payload types are frozen dataclasses; those holding numpy arrays compare by identity (``eq=False``), since
array equality has no single truth value. A :class:`Graph` keeps its serialized bytes and parses them on demand.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import numpy as np

from ridgeline.format import wire

if TYPE_CHECKING:  # protobuf and these messages are imported on first use: a start reads no graph (issue 15)
    from google.protobuf import message

    from ridgeline.format.proto import custom_scalars_pb2, graph_pb2

OCTET_STREAM = "application/octet-stream"  # the content type of media whose encoding is not recognised

# How large a decoded value may be (docs/reliability.md). A value over a limit is refused with a DecodeError,
# which the reader lists as a problem with its file and offset; the rest of the file is read. Every limit is
# far above what a training job logs (TensorBoard's histograms have 30 to ~800 buckets), and each caps the
# memory and time one hostile but valid record can cost.
MAX_HISTOGRAM_BUCKETS = 100_000
MAX_TENSOR_ELEMENTS = 1 << 24  # 16,777,216 elements (128 MiB as float64)
MAX_STRINGS = 1 << 20  # strings in one value (text cells, images of one summary, audio clips)
MAX_IMAGE_SIDE = 1 << 16  # pixels a width or height may state (JPEG's own limit is 65,535)
MAX_JSON_NESTING = 200  # arrays and objects within each other in a stored JSON text (a Keras model config)


class DecodeError(ValueError):
    """A stored value that cannot be decoded into what its kind promises (the caller records a Problem)."""


def check_image_size(width: int, height: int) -> None:
    """Refuse a stated image size no image has (negative, or a side over MAX_IMAGE_SIDE)."""
    for what, size in (("width", width), ("height", height)):
        if not 0 <= size <= MAX_IMAGE_SIDE:
            raise DecodeError(f"image {what} {size} is outside 0..{MAX_IMAGE_SIDE}")


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
        from ridgeline.format.proto import graph_pb2

        if self.format == "graph_def":
            return parse_message(graph_pb2.GraphDef, self.data, "GraphDef")
        if self.format == "meta_graph_def":
            return parse_message(graph_pb2.GraphDef, _last_field(self.data, 2, "MetaGraphDef") or b"", "GraphDef")
        raise DecodeError(f"a {self.format} record holds no GraphDef (use run_metadata/function_graphs/keras_model)")

    def run_metadata(self) -> graph_pb2.RunMetadata:
        """The step statistics of a run_metadata or run_metadata_graph record."""
        if self.format not in ("run_metadata", "run_metadata_graph"):
            raise DecodeError(f"a {self.format} record holds no RunMetadata")
        from ridgeline.format.proto import graph_pb2

        return parse_message(graph_pb2.RunMetadata, self.data, "RunMetadata")

    def function_graphs(self) -> list[graph_pb2.GraphDef]:
        """The pre-optimization graph of each function of a RunMetadata (what TensorBoard merges and draws)."""
        if self.format not in ("run_metadata", "run_metadata_graph"):
            raise DecodeError(f"a {self.format} record holds no function graphs")
        from ridgeline.format.proto import graph_pb2

        graphs = []
        for function in _fields(self.data, 4, "RunMetadata"):
            pre_optimization = _last_field(function, 2, "RunMetadata.FunctionGraphs") or b""
            graphs.append(parse_message(graph_pb2.GraphDef, pre_optimization, "GraphDef"))
        return graphs

    def keras_model(self) -> dict[str, Any]:
        """The Keras model config of a keras_model record."""
        if self.format != "keras_model":
            raise DecodeError(f"a {self.format} record holds no Keras model")
        return load_json_object(self.data, "the Keras model config")


@dataclass(frozen=True, slots=True, eq=False)
class Tensor:
    """A tensor of any other plugin (or none), as a numpy array (strings as an object array of bytes)."""

    array: np.ndarray


@dataclass(frozen=True, slots=True, eq=False)
class ConfusionMatrix:
    """``counts[i, j]``: samples of true class i predicted as class j (an [n, n] int64 array, or float64 when
    another writer stored fractions); ``class_names`` names the n classes in order."""

    counts: np.ndarray
    class_names: tuple[str, ...]


DecodedPayload = (
    float
    | Histogram
    | Images
    | Audio
    | Text
    | Tensor
    | PrCurve
    | HParams
    | CustomScalarsLayout
    | Mesh
    | Graph
    | ConfusionMatrix
)


def load_json_object(data: str | bytes, what: str) -> dict[str, Any]:
    """A stored JSON object, nested at most MAX_JSON_NESTING deep; DecodeError (naming ``what``) otherwise."""
    try:
        value = json.loads(data)
    except (ValueError, UnicodeDecodeError) as error:
        raise DecodeError(f"{what} is not valid JSON: {error}") from None
    except RecursionError:
        raise DecodeError(f"{what} is nested deeper than {MAX_JSON_NESTING} levels") from None
    if not isinstance(value, dict):
        raise DecodeError(f"{what} is a JSON {type(value).__name__}, not an object")
    level: list[Any] = [value]
    for _ in range(MAX_JSON_NESTING):
        level = [item for parent in level for item in (parent.values() if isinstance(parent, dict) else parent)]
        level = [item for item in level if isinstance(item, dict | list)]
        if not level:
            return value
    raise DecodeError(f"{what} is nested deeper than {MAX_JSON_NESTING} levels")


# --- protobuf helpers ----------------------------------------------------------------------------------------

_M = TypeVar("_M", bound="message.Message")


def parse_message(cls: type[_M], data: bytes, what: str) -> _M:
    """``cls`` parsed from ``data``; DecodeError (naming ``what``) when it is no such message."""
    from google.protobuf.message import DecodeError as MessageError  # imported already: ``cls`` is a message

    try:
        return cls.FromString(data)
    except (MessageError, RuntimeError, ValueError) as error:
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
