"""ridgeline.ingest.decode (and payload_decode) against TensorBoard's own reader, on logs of torch, tensorboardX,
ridgeline and TF2.

Every log directory is read twice: by EventDecoder/decode_value, and by TensorBoard's plugin EventAccumulator
(which applies data_compat and dataclass_compat, as TensorBoard's dashboards see the data). Each tag must get the
kind TensorBoard's plugin routing gives it, with the same steps, wall times and values.
"""

from __future__ import annotations

import contextlib
import io
import json
import pickle
import struct
import wave
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from google.protobuf import struct_pb2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from ridgeline.format import records
from ridgeline.format.proto import (
    custom_scalars_pb2,
    event_pb2,
    graph_pb2,
    hparams_pb2,
    plugins_pb2,
    summary_pb2,
    tensor_pb2,
    tensor_shape_pb2,
    types_pb2,
)
from ridgeline.format.tags import GRAPH_TAG, META_GRAPH_TAG, RUN_METADATA_PREFIX
from ridgeline.ingest.decode import SHOWN_WHEN_MALFORMED, DecodedValue, EventDecoder
from ridgeline.ingest.payload_decode import decode_value
from ridgeline.ingest.tensors import make_ndarray
from ridgeline.store.payloads import DecodeError, Graph, Histogram, Images, Tensor

pytest.importorskip("tensorboard")
from tensorboard.backend.event_processing import plugin_event_accumulator
from tensorboard.util import tensor_util

Summary = summary_pb2.Summary
Metadata = summary_pb2.SummaryMetadata
TensorProto = tensor_pb2.TensorProto

# TensorBoard's plugin name -> the kind ridgeline must give the tag.
EXPECTED_KIND = {
    "scalars": "scalars",
    "histograms": "histograms",
    "images": "images",
    "audio": "audio",
    "text": "text",
    "ridgeline_run_metadata": "text",  # ridgeline's run metadata record: text under a name TensorBoard leaves alone
    "pr_curves": "pr_curves",
    "hparams": "hparams",
    "custom_scalars": "custom_scalars",
    "mesh": "meshes",
    "graphs": "graphs",
    "graph_tagged_run_metadata": "graphs",
    "graph_keras_model": "graphs",
    "graph_run_metadata": "graphs",
    "graph_run_metadata_graph": "graphs",
}


# --- reading both ways -----------------------------------------------------------------------------------------


def event_files(run_dir: Path) -> list[Path]:
    return sorted(p for p in run_dir.iterdir() if p.is_file() and "tfevents" in p.name)


def run_dirs(log_dir: Path) -> list[Path]:
    return sorted({p.parent for p in log_dir.rglob("*tfevents*")})


def iter_events(run_dir: Path) -> Iterator[bytes]:
    for path in event_files(run_dir):
        for record in records.iter_records(path.read_bytes()):
            yield record.data


def read_ours(run_dir: Path) -> dict[str, tuple[str, list[tuple[int, float, Any]]]]:
    """tag -> (kind, [(step, wall_time, payload)]) as ridgeline decodes the run."""
    decoder = EventDecoder()
    out: dict[str, tuple[str, list[tuple[int, float, Any]]]] = {}
    for data in iter_events(run_dir):
        event = decoder.decode(data)
        assert event.problems == []
        for value in event.values:
            payload = decode_value(value.kind, data, value.value_index, decoder.metadata(value.tag))
            if value.kind == "scalars":
                assert payload == value.scalar or (np.isnan(payload) and np.isnan(value.scalar))
            kind, points = out.setdefault(value.tag, (value.kind, []))
            assert kind == value.kind, value.tag
            points.append((event.step, event.wall_time, payload))
    return out


def read_tensorboard(run_dir: Path) -> tuple[Any, dict[str, tuple[str, list[Any]]]]:
    """(accumulator, our tag -> (TensorBoard's plugin name, its TensorEvents))."""
    acc = plugin_event_accumulator.EventAccumulator(
        str(run_dir), size_guidance={"tensors": 0}, purge_orphaned_data=False
    ).Reload()
    out = {}
    for tag in acc.Tags()["tensors"]:
        metadata = acc.summary_metadata.get(tag)
        plugin = metadata.plugin_data.plugin_name if metadata is not None else ""
        ours = tag
        if tag == "__run_graph__":
            ours = GRAPH_TAG
        elif plugin == "graph_tagged_run_metadata":
            ours = RUN_METADATA_PREFIX + tag
        out[ours] = (plugin, acc.Tensors(tag))
    return acc, out


def tb_array(tensor_event: Any) -> np.ndarray:
    return tensor_util.make_ndarray(tensor_event.tensor_proto)


def compare(kind: str, tag: str, theirs: Any, ours: Any, acc: Any) -> None:
    if kind == "scalars":
        expected = tb_array(theirs).item()
        assert ours == expected or (np.isnan(ours) and np.isnan(expected)), tag
    elif kind == "histograms":
        expected = tb_array(theirs)
        assert isinstance(ours, Histogram)
        mine = np.stack([ours.lower, ours.upper, ours.count], axis=1)
        np.testing.assert_array_equal(mine.astype(expected.dtype).reshape(expected.shape), expected, err_msg=tag)
    elif kind == "images":
        expected = tb_array(theirs).reshape(-1)
        assert (ours.width, ours.height) == (int(expected[0]), int(expected[1]))
        assert list(ours.encoded) == list(expected[2:])
        assert all(ct in ("image/png", "image/gif", "image/jpeg") for ct in ours.content_types)
    elif kind == "audio":
        assert list(ours.clips) == list(tb_array(theirs).reshape(-1))
        assert ours.content_type == "audio/wav"
    elif kind == "text":
        expected = tb_array(theirs)
        assert ours.text.shape == expected.shape
        assert [s.encode() for s in ours.text.reshape(-1)] == list(expected.reshape(-1))
    elif kind == "pr_curves":
        expected = tb_array(theirs)
        mine = np.stack([ours.tp, ours.fp, ours.tn, ours.fn, ours.precision, ours.recall])
        np.testing.assert_array_equal(mine.astype(expected.dtype), expected, err_msg=tag)
        np.testing.assert_allclose(ours.thresholds, np.linspace(0, 1, expected.shape[1]))
    elif kind == "custom_scalars":
        assert ours.layout == custom_scalars_pb2.Layout.FromString(tb_array(theirs).item())
    elif kind == "meshes":
        expected = tb_array(theirs)
        assert ours.data.dtype == expected.dtype
        np.testing.assert_array_equal(ours.data, expected, err_msg=tag)
        content = plugins_pb2.MeshPluginData.FromString(acc.summary_metadata[tag].plugin_data.content)
        assert ours.content_type == plugins_pb2.MeshPluginData.ContentType.Name(content.content_type)
        assert ours.name == content.name
    elif kind == "tensors":
        expected = tb_array(theirs)
        assert ours.array.dtype == expected.dtype and ours.array.shape == expected.shape
        np.testing.assert_array_equal(ours.array, expected, err_msg=tag)
    elif kind == "graphs":
        assert isinstance(ours, Graph)
        assert ours.data == tb_array(theirs).reshape(-1)[0]
    elif kind == "hparams":
        pass  # compared once per tag below, against TensorBoard's plugin content
    else:
        raise AssertionError(f"unexpected kind {kind}")


def assert_same_as_tensorboard(log_dir: Path, tb_unreadable: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Every run of ``log_dir`` decodes to what TensorBoard reads; returns {run/tag: (kind, points)}."""
    everything: dict[str, Any] = {}
    runs = run_dirs(log_dir)
    assert runs
    for run_dir in runs:
        ours = read_ours(run_dir)
        acc, theirs = read_tensorboard(run_dir)
        assert set(ours) == set(theirs), run_dir
        for tag, (plugin, tensor_events) in theirs.items():
            kind, points = ours[tag]
            assert kind == EXPECTED_KIND.get(plugin, "tensors"), (tag, plugin)
            assert [(p[0], p[1]) for p in points] == [(e.step, e.wall_time) for e in tensor_events], tag
            everything[f"{run_dir.relative_to(log_dir).as_posix()}/{tag}"] = (kind, points)
            if tag in tb_unreadable:
                continue
            for event, (_, _, payload) in zip(tensor_events, points, strict=True):
                compare(kind, tag, event, payload, acc)
            if kind == "hparams":
                content = acc.PluginTagToContent("hparams")[tag]
                assert_hparams_equal(points[0][2], hparams_pb2.HParamsPluginData.FromString(content))
        graph = acc.SerializedGraph() if acc.Tags()["graph"] else None
        if graph is not None:
            assert ours[GRAPH_TAG][1][-1][2].data == graph
        for tag in acc.Tags()["run_metadata"]:
            run_metadata = ours[RUN_METADATA_PREFIX + tag][1][-1][2].run_metadata()
            assert run_metadata.SerializeToString() == acc.RunMetadata(tag).SerializeToString()
    return everything


def assert_hparams_equal(ours: Any, theirs: hparams_pb2.HParamsPluginData) -> None:
    which = theirs.WhichOneof("data")
    assert ours.what == {"experiment": "experiment", "session_start_info": "session_start"}.get(which, "session_end")
    if which == "session_start_info":
        expected = {}
        for name, value in theirs.session_start_info.hparams.items():
            expected[name] = getattr(value, value.WhichOneof("kind"))
        assert ours.hparams == expected
        assert all(type(ours.hparams[k]) is type(v) for k, v in expected.items())
    elif which == "experiment":
        assert [(i.name, i.type) for i in ours.hparam_infos] == [
            (i.name, ["unset", "string", "bool", "float64"][i.type]) for i in theirs.experiment.hparam_infos
        ]
        assert [m.tag for m in ours.metric_infos] == [m.name.tag for m in theirs.experiment.metric_infos]
    else:
        assert ours.status == ["unknown", "success", "failure", "running"][theirs.session_end_info.status]


# --- writers ---------------------------------------------------------------------------------------------------


def write_with(writer: Any, torch: Any, *, new_style: bool = True, audio: bool = True) -> None:
    rng = np.random.default_rng(0)
    for step in range(4):
        writer.add_scalar("loss", 1.0 / (step + 1), step, walltime=1000.0 + step)
        writer.add_scalar("nan", float("nan") if step == 2 else step, step, walltime=1000.0 + step)
        writer.add_histogram("weights", rng.normal(size=300), step, walltime=1000.0 + step)
    if new_style:
        writer.add_scalar("new_style", 0.25, 1, new_style=True)
    writer.add_histogram("auto_bins", rng.normal(size=50), 0, bins="auto")
    writer.add_histogram_raw("raw", -1.0, 3.0, 6, 7.0, 15.0, [0.0, 1.0, 2.0, 3.0], [1, 2, 0, 3], global_step=0)
    writer.add_histogram_raw("raw_empty", 0.0, 0.0, 0, 0.0, 0.0, [1.0, 2.0], [0, 0], global_step=0)
    writer.add_image("image", rng.random((3, 8, 6)), 0)
    writer.add_images("batch", rng.random((3, 3, 5, 5)), 1)
    if audio:
        writer.add_audio("audio", rng.random(200) * 2 - 1, 0, sample_rate=8000)
    writer.add_text("notes", "**hello**", 0)
    writer.add_text("notes", "again", 1)
    writer.add_pr_curve("pr", rng.integers(0, 2, 40), rng.random(40), 0, num_thresholds=11)
    writer.add_pr_curve_raw("pr_raw", [3, 2, 1], [2, 1, 0], [0, 1, 2], [0, 1, 2], [0.6, 0.66, 1.0], [1, 0.66, 0.33], 0)
    writer.add_custom_scalars({"Losses": {"both": ["Multiline", ["loss", "nan"]], "m": ["Margin", ["a", "b", "c"]]}})
    vertices = torch.tensor([[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    colors = torch.tensor([[[255, 0, 0], [0, 255, 0], [0, 0, 255]]], dtype=torch.uint8)
    faces = torch.tensor([[[0, 1, 2]]], dtype=torch.int32)
    writer.add_mesh("mesh", vertices, colors=colors, faces=faces, config_dict={"camera": {"fov": 75}}, global_step=0)
    writer.add_hparams({"lr": 0.1, "opt": "adam", "wd": True}, {"hp/acc": 0.9}, **hparams_name(writer, "trial"))


def hparams_name(writer: Any, name: str) -> dict[str, str]:
    return {"name": name} if type(writer).__module__.startswith("tensorboardX") else {"run_name": name}


def test_torch_writer(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from torch.utils.tensorboard import SummaryWriter

    with SummaryWriter(str(tmp_path)) as writer:
        write_with(writer, torch)
        writer.add_graph(torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU()), torch.zeros(1, 3))
    everything = assert_same_as_tensorboard(tmp_path)
    assert everything["./weights"][0] == "histograms" and len(everything["./weights"][1]) == 4
    assert everything["./__graph__"][1][0][2].graph_def().node
    assert {kind for kind, _ in everything.values()} >= {"scalars", "histograms", "images", "audio", "text"}


def test_tensorboardx_writer(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    tensorboardX = pytest.importorskip("tensorboardX")

    with tensorboardX.SummaryWriter(str(tmp_path)) as writer:
        write_with(writer, torch, new_style=False, audio=False)  # its add_audio needs soundfile
        writer.add_scalars("group", {"a": 1.0, "b": 2.0}, 0)  # one sub-run per key
    everything = assert_same_as_tensorboard(tmp_path)
    assert [key for key in everything if key.startswith("group")] == ["group/a/group", "group/b/group"]


def test_ridgeline_writer(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from ridgeline import SummaryWriter

    with SummaryWriter(str(tmp_path), hparams={"lr": 0.01, "deep": False, "name": "x"}) as writer:
        write_with(writer, torch)
        writer.add_tensor("t_float", np.arange(6, dtype=np.float32).reshape(2, 3), 0)
        writer.add_tensor("t_int", np.array([[1, -2], [3, 4]], dtype=np.int64), 0)
        writer.add_tensor("t_bool", np.array([True, False]), 0)
        writer.add_tensor("t_complex", np.array([1 + 2j, 3 - 4j], dtype=np.complex64), 0)
        writer.add_tensor("t_half", np.array([0.5, -2.0, 65504.0], dtype=np.float16), 0)
        writer.add_tensor("t_uint8", np.array([0, 7, 255], dtype=np.uint8), 0)
        writer.add_annotation("lr decayed", 3)
    # torch's writers put float32 bit patterns in half_val, and uint8 in uint32_val: TensorBoard cannot read them.
    everything = assert_same_as_tensorboard(tmp_path, tb_unreadable=frozenset({"t_half", "t_uint8"}))
    half = everything["./t_half"][1][0][2].array
    assert half.dtype == np.float16 and half.tolist() == [0.5, -2.0, 65504.0]
    uint8 = everything["./t_uint8"][1][0][2].array
    assert uint8.dtype == np.uint8 and uint8.tolist() == [0, 7, 255]
    start = everything["./_hparams_/session_start_info"][1][0][2]
    assert start.hparams == {"lr": 0.01, "deep": False, "name": "x"}
    assert everything["./_hparams_/session_end_info"][1][0][2].status == "success"
    assert everything["./_ridgeline/run_metadata"][0] == "text"


# --- TF2 / Keras-style summaries, built by hand ----------------------------------------------------------------


def shape(*dims: int) -> tensor_shape_pb2.TensorShapeProto:
    return tensor_shape_pb2.TensorShapeProto(dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=d) for d in dims])


def metadata(plugin: str, content: bytes = b"") -> summary_pb2.SummaryMetadata:
    return Metadata(plugin_data=Metadata.PluginData(plugin_name=plugin, content=content))


def string_tensor(items: list[bytes], dims: tuple[int, ...]) -> tensor_pb2.TensorProto:
    return TensorProto(dtype=types_pb2.DT_STRING, string_val=items, tensor_shape=shape(*dims))


def content_tensor(array: np.ndarray, dtype: int) -> tensor_pb2.TensorProto:
    """As TF writes non-scalar numeric tensors: raw little-endian bytes in tensor_content."""
    return TensorProto(dtype=dtype, tensor_shape=shape(*array.shape), tensor_content=array.tobytes())


def png(width: int, height: int, seed: int) -> bytes:
    pixels = np.random.default_rng(seed).integers(0, 255, (height, width, 3), dtype=np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, format="PNG")
    return buffer.getvalue()


def wav(samples: int, rate: int = 16000) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(np.arange(samples, dtype="<i2").tobytes())
    return buffer.getvalue()


def event(step: int, *values: summary_pb2.Summary.Value, **fields: Any) -> event_pb2.Event:
    if values:
        fields["summary"] = Summary(value=list(values))
    return event_pb2.Event(wall_time=2000.0 + step * 0.5, step=step, **fields)


def scalar_value(tag: str, dtype: int, field: str, number: float, first: bool) -> summary_pb2.Summary.Value:
    """A TF2 scalar: a rank-0 tensor of plugin "scalars", with its metadata on the tag's first value only."""
    tensor = TensorProto(dtype=dtype)
    getattr(tensor, field).append(number)
    return Summary.Value(tag=tag, tensor=tensor, metadata=metadata("scalars") if first else None)


def tf2_events() -> list[event_pb2.Event]:
    """A TF2/Keras-style run: tensor summaries, SummaryMetadata only with the first value of each tag."""
    events = [event(0, file_version="brain.Event:2")]
    for step in range(3):
        first = step == 0
        buckets = np.array([[0.0, 0.5, 2.0 + step], [0.5, 1.0, 1.0], [1.0, 1.0, 3.0]], dtype=np.float64)
        half = int(np.float16(1.5 + step).view(np.uint16))
        histogram = Summary.Value(
            tag="kernel_0",
            tensor=content_tensor(buckets, types_pb2.DT_DOUBLE),
            metadata=metadata("histograms") if first else None,
        )
        events.append(
            event(
                step,
                scalar_value("epoch_loss", types_pb2.DT_FLOAT, "float_val", 0.5**step, first),
                scalar_value("epoch_lr", types_pb2.DT_DOUBLE, "double_val", 1e-3 * step, first),
                scalar_value("count", types_pb2.DT_INT64, "int64_val", step * 10, first),
                scalar_value("half", types_pb2.DT_HALF, "half_val", half, first),
                histogram,
            )
        )
    events.append(event(3, Summary.Value(tag="kernel_0", tensor=content_tensor(np.zeros((0, 3)), types_pb2.DT_DOUBLE))))
    images = string_tensor([b"4", b"3", png(4, 3, 1), png(4, 3, 2)], (4,))
    events.append(event(1, Summary.Value(tag="samples", tensor=images, metadata=metadata("images"))))
    audio_md = metadata(
        "audio", plugins_pb2.AudioPluginData(encoding=plugins_pb2.AudioPluginData.WAV).SerializeToString()
    )
    clips = string_tensor([wav(100), b"first *clip*", wav(50), b""], (2, 2))
    events.append(event(1, Summary.Value(tag="speech", tensor=clips, metadata=audio_md)))
    text_md = metadata("text", plugins_pb2.TextPluginData().SerializeToString())
    events.append(
        event(
            2,
            Summary.Value(tag="text0", tensor=string_tensor(["héllo".encode()], ()), metadata=text_md),
            Summary.Value(tag="text1", tensor=string_tensor([b"a", b"b", b"c"], (3,)), metadata=text_md),
            Summary.Value(tag="text2", tensor=string_tensor([b"1", b"2", b"3", b"4"], (2, 2)), metadata=text_md),
        )
    )
    pr = np.array([[5, 3, 0], [5, 1, 0], [0, 4, 5], [0, 2, 5], [0.5, 0.75, 0], [1, 0.6, 0]], dtype=np.float32)
    pr_md = metadata("pr_curves", plugins_pb2.PrCurvePluginData(num_thresholds=3).SerializeToString())
    events.append(event(2, Summary.Value(tag="pr", tensor=content_tensor(pr, types_pb2.DT_FLOAT), metadata=pr_md)))
    start = hparams_pb2.HParamsPluginData(session_start_info=hparams_pb2.SessionStartInfo(group_name="g"))
    start.session_start_info.hparams["units"].number_value = 64
    start.session_start_info.hparams["act"].string_value = "relu"
    start.session_start_info.hparams["bn"].bool_value = True
    null = TensorProto(dtype=types_pb2.DT_FLOAT, tensor_shape=shape(0))
    hp_md = metadata("hparams", start.SerializeToString())
    events.append(event(0, Summary.Value(tag="_hparams_/session_start_info", tensor=null, metadata=hp_md)))
    mesh_parts = [
        ("VERTEX", np.array([[[0, 0, 0], [1, 0, 0], [0, 1, 0]]], dtype=np.float32), types_pb2.DT_FLOAT),
        ("FACE", np.array([[[0, 1, 2]]], dtype=np.int32), types_pb2.DT_INT32),
        ("COLOR", np.array([[[255, 0, 0], [0, 255, 0], [0, 0, 255]]], dtype=np.uint8), types_pb2.DT_UINT8),
    ]
    mesh_values = []
    for name, array, dtype in mesh_parts:
        content_type = plugins_pb2.MeshPluginData.ContentType.Value(name)
        content = plugins_pb2.MeshPluginData(
            name="cloud", content_type=content_type, shape=array.shape, json_config="{}", components=14
        )
        mesh_md = metadata("mesh", content.SerializeToString())
        mesh_values.append(Summary.Value(tag=f"cloud_{name}", tensor=content_tensor(array, dtype), metadata=mesh_md))
    events.append(event(0, *mesh_values))
    keras = string_tensor([json.dumps({"class_name": "Sequential", "config": {}}).encode()], ())
    events.append(event(0, Summary.Value(tag="keras", tensor=keras, metadata=metadata("graph_keras_model", b"1"))))
    graph = graph_pb2.GraphDef(node=[graph_pb2.NodeDef(name="x", op="Placeholder")])
    events.append(event(0, graph_def=graph.SerializeToString()))
    events.append(
        event(
            0,
            tagged_run_metadata=event_pb2.TaggedRunMetadata(
                tag="step_0", run_metadata=graph_pb2.RunMetadata().SerializeToString()
            ),
        )
    )
    foo = content_tensor(np.arange(4, dtype=np.int16).reshape(2, 2), types_pb2.DT_INT16)
    events.append(event(1, Summary.Value(tag="foo", tensor=foo, metadata=metadata("some_plugin", b"\x01"))))
    events.append(event(1, Summary.Value(tag="bare", tensor=TensorProto(dtype=types_pb2.DT_BOOL, bool_val=[True]))))
    return events


def write_events(path: Path, events: list[event_pb2.Event]) -> list[bytes]:
    data = [e.SerializeToString() for e in events]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(records.frame(d) for d in data))
    return data


def test_tf2_style_summaries(tmp_path: Path) -> None:
    write_events(tmp_path / "run" / "events.out.tfevents.1.host", tf2_events())
    everything = assert_same_as_tensorboard(tmp_path)
    kinds = {tag.removeprefix("run/"): kind for tag, (kind, _) in everything.items()}
    assert kinds == {
        "epoch_loss": "scalars",
        "epoch_lr": "scalars",
        "count": "scalars",
        "half": "scalars",
        "kernel_0": "histograms",
        "samples": "images",
        "speech": "audio",
        "text0": "text",
        "text1": "text",
        "text2": "text",
        "pr": "pr_curves",
        "_hparams_/session_start_info": "hparams",
        "cloud_VERTEX": "meshes",
        "cloud_FACE": "meshes",
        "cloud_COLOR": "meshes",
        "keras": "graphs",
        "__graph__": "graphs",
        "__run_metadata__/step_0": "graphs",
        "foo": "tensors",
        "bare": "tensors",
    }
    values = {tag.removeprefix("run/"): [p[2] for p in points] for tag, (_, points) in everything.items()}
    assert values["epoch_loss"] == [1.0, 0.5, 0.25]
    assert values["half"] == [1.5, 2.5, 3.5]
    assert values["kernel_0"][-1].lower.shape == (0,)
    samples = values["samples"][0]
    assert isinstance(samples, Images) and len(samples.encoded) == 2 and samples.content_types == ("image/png",) * 2
    speech = values["speech"][0]
    assert speech.labels == ("first *clip*", "") and speech.sample_rate == 16000.0
    assert values["text0"][0].text.shape == () and values["text0"][0].text.item() == "héllo"
    assert values["text2"][0].text.tolist() == [["1", "2"], ["3", "4"]]
    assert values["_hparams_/session_start_info"][0].hparams == {"units": 64.0, "act": "relu", "bn": True}
    assert values["keras"][0].keras_model()["class_name"] == "Sequential"
    assert values["__graph__"][0].graph_def().node[0].name == "x"
    assert values["cloud_FACE"][0].data.dtype == np.int32


def test_metadata_is_remembered_per_tag() -> None:
    data = [e.SerializeToString() for e in tf2_events()]
    decoder = EventDecoder()
    for item in data:
        decoder.decode(item)
    remembered = decoder.metadata("epoch_loss")
    assert remembered is not None and remembered.plugin_data.plugin_name == "scalars"
    assert decoder.metadata("never") is None
    # A decoder that never saw the first value routes later ones as plain tensors, as TensorBoard would.
    later = EventDecoder().decode(data[2])
    assert {v.kind for v in later.values} == {"tensors"}
    # Restored from a pickle (ingest's cache), it goes on as before.
    restored = pickle.loads(pickle.dumps(decoder))
    assert restored.metadata("kernel_0") == decoder.metadata("kernel_0")
    assert [v.kind for v in restored.decode(data[2]).values] == ["scalars"] * 4 + ["histograms"]
    # Legacy values get the metadata TensorBoard's data_compat gives them.
    legacy = Summary.Value(tag="acc", simple_value=0.5, metadata=Metadata(display_name="Accuracy"))
    decoder.decode(event(0, legacy).SerializeToString())
    assert decoder.metadata("acc") == Metadata(
        plugin_data=Metadata.PluginData(plugin_name="scalars"), display_name="Accuracy"
    )


def test_event_fields() -> None:
    decoder = EventDecoder()
    first = decoder.decode(event(0, file_version="brain.Event:2").SerializeToString())
    assert first.file_version == "brain.Event:2" and not first.session_start and first.values == []
    start = event_pb2.SessionLog(status=event_pb2.SessionLog.START)
    restart = decoder.decode(event(7, session_log=start).SerializeToString())
    assert restart.session_start and restart.step == 7 and restart.wall_time == 2003.5
    stop = decoder.decode(
        event(8, session_log=event_pb2.SessionLog(status=event_pb2.SessionLog.STOP)).SerializeToString()
    )
    assert not stop.session_start
    meta = decoder.decode(event(0, meta_graph_def=b"\x12\x04\n\x02\n\x00").SerializeToString())
    assert [(v.kind, v.tag, v.value_index) for v in meta.values] == [("graphs", META_GRAPH_TAG, -1)]
    graph = decode_value("graphs", event(0, meta_graph_def=b"\x12\x04\n\x02\n\x00").SerializeToString(), -1)
    assert graph.format == "meta_graph_def" and len(graph.graph_def().node) == 1
    old = Summary.Value(node_name="old_style", tensor=TensorProto(dtype=types_pb2.DT_FLOAT, float_val=[1.0]))
    assert decoder.decode(event(0, old).SerializeToString()).values[0].tag == "old_style"
    empty = Summary.Value(tag="nothing")
    obsolete = Summary.Value(tag="obsolete", obsolete_old_style_histogram=b"x")
    assert decoder.decode(event(0, empty, obsolete).SerializeToString()).values == []


def test_legacy_histogram_matches_data_compat() -> None:
    from tensorboard import data_compat
    from tensorboard.compat.proto import summary_pb2 as tb_summary_pb2

    cases = [
        summary_pb2.HistogramProto(min=-1, max=3, bucket_limit=[-2, -1, 0, 1, 2, 3, 4], bucket=[0, 1, 2, 0, 3, 4, 0]),
        summary_pb2.HistogramProto(min=0.5, max=0.5, bucket_limit=[0, 1, 2], bucket=[0, 1, 0]),
        summary_pb2.HistogramProto(min=0, max=0, bucket_limit=[0, 1], bucket=[0, 0]),
        summary_pb2.HistogramProto(min=1e-13, max=1e30, bucket_limit=[1e-12, 1.5, 1.8e308], bucket=[1, 0, 2]),
    ]
    for histo in cases:
        value = Summary.Value(tag="h", histo=histo)
        theirs = data_compat.migrate_value(tb_summary_pb2.Summary.Value.FromString(value.SerializeToString()))
        expected = tensor_util.make_ndarray(theirs.tensor)
        data = event(0, value).SerializeToString()
        ours = decode_value("histograms", data, 0)
        mine = np.stack([ours.lower, ours.upper, ours.count], axis=1).astype(np.float32).reshape(expected.shape)
        np.testing.assert_array_equal(mine, expected)
        assert (ours.min, ours.max, ours.num) == (histo.min, histo.max, histo.num)
    # min above the first bucket's right edge (inconsistent statistics): the bucket starts at its right edge.
    odd = summary_pb2.HistogramProto(min=5, max=6, bucket_limit=[1, 6], bucket=[1, 1])
    ours = decode_value("histograms", event(0, Summary.Value(tag="h", histo=odd)).SerializeToString(), 0)
    assert ours.lower.tolist() == [1, 1] and ours.upper.tolist() == [1, 6]


def test_tensor_conversion_matches_tensorboard() -> None:
    from tensorboard.compat.proto import tensor_pb2 as tb_tensor_pb2

    cases = [
        TensorProto(dtype=types_pb2.DT_FLOAT, float_val=[1.5], tensor_shape=shape(2, 3)),
        TensorProto(dtype=types_pb2.DT_DOUBLE, double_val=[1, 2, 3], tensor_shape=shape(3)),
        TensorProto(dtype=types_pb2.DT_INT32, int_val=[-1, 2], tensor_shape=shape(2, 1)),
        TensorProto(dtype=types_pb2.DT_INT8, int_val=[-128, 127], tensor_shape=shape(2)),
        TensorProto(dtype=types_pb2.DT_INT64, int64_val=[2**40], tensor_shape=shape()),
        TensorProto(dtype=types_pb2.DT_BOOL, bool_val=[True, False], tensor_shape=shape(2)),
        TensorProto(dtype=types_pb2.DT_HALF, half_val=[0x3C00, 0xC000], tensor_shape=shape(2)),
        TensorProto(dtype=types_pb2.DT_COMPLEX64, scomplex_val=[1, 2, 3, 4], tensor_shape=shape(2)),
        TensorProto(dtype=types_pb2.DT_COMPLEX128, dcomplex_val=[1, -2], tensor_shape=shape(3)),
        TensorProto(dtype=types_pb2.DT_STRING, string_val=[b"a", b"b\x00"], tensor_shape=shape(2)),
        content_tensor(np.arange(6, dtype=np.float32).reshape(3, 2), types_pb2.DT_FLOAT),
        content_tensor(np.arange(4, dtype=np.float16), types_pb2.DT_HALF),
        content_tensor(np.array([1, 2**60], dtype=np.int64), types_pb2.DT_INT64),
        content_tensor(np.array([True, False, True]), types_pb2.DT_BOOL),
        content_tensor(np.array([1 + 1j], dtype=np.complex128), types_pb2.DT_COMPLEX128),
        TensorProto(dtype=types_pb2.DT_FLOAT, tensor_shape=shape(0, 3)),
    ]
    for proto in cases:
        expected = tensor_util.make_ndarray(tb_tensor_pb2.TensorProto.FromString(proto.SerializeToString()))
        ours = make_ndarray(proto)
        assert ours.dtype == expected.dtype and ours.shape == expected.shape, proto
        np.testing.assert_array_equal(ours, expected)
    # Beyond TensorBoard: bfloat16 (as float32), uint32/uint64 values, TF's padding with the last value.
    bf16 = TensorProto(dtype=types_pb2.DT_BFLOAT16, half_val=[0x3FC0], tensor_shape=shape(1))
    assert make_ndarray(bf16).tolist() == [1.5] and make_ndarray(bf16).dtype == np.float32
    torch_bf16 = TensorProto(dtype=types_pb2.DT_BFLOAT16, half_val=[struct.unpack("<i", struct.pack("<f", -1.5))[0]])
    assert make_ndarray(torch_bf16).tolist() == -1.5
    assert make_ndarray(TensorProto(dtype=types_pb2.DT_UINT64, uint64_val=[2**64 - 1])).tolist() == 2**64 - 1
    padded = TensorProto(dtype=types_pb2.DT_INT32, int_val=[1, 2], tensor_shape=shape(4))
    assert make_ndarray(padded).tolist() == [1, 2, 2, 2]
    assert make_ndarray(TensorProto(dtype=types_pb2.DT_FLOAT, tensor_shape=shape(2))).tolist() == [0, 0]


# --- problems and DecodeError ----------------------------------------------------------------------------------


def tensor_value(tag: str, tensor: tensor_pb2.TensorProto, plugin: str | None = None, content: bytes = b"") -> bytes:
    value = Summary.Value(tag=tag, tensor=tensor)
    if plugin is not None:
        value.metadata.CopyFrom(metadata(plugin, content))
    return event(0, value).SerializeToString()


BAD_VALUES = [
    ("scalars", TensorProto(dtype=types_pb2.DT_FLOAT, float_val=[1, 2], tensor_shape=shape(2)), "scalars"),
    ("scalars", TensorProto(dtype=types_pb2.DT_STRING, string_val=[b"1"]), "scalars"),
    ("histograms", TensorProto(dtype=types_pb2.DT_DOUBLE, double_val=[1, 2], tensor_shape=shape(2)), "histograms"),
    ("histograms", TensorProto(dtype=types_pb2.DT_DOUBLE, tensor_shape=shape(1, 3), tensor_content=b"\x00" * 7), None),
    ("images", TensorProto(dtype=types_pb2.DT_FLOAT, float_val=[1], tensor_shape=shape(3)), "images"),
    ("images", TensorProto(dtype=types_pb2.DT_STRING, string_val=[b"x", b"3", b"i"], tensor_shape=shape(3)), None),
    ("images", TensorProto(dtype=types_pb2.DT_STRING, string_val=[b"4"], tensor_shape=shape(1)), None),
    ("text", TensorProto(dtype=types_pb2.DT_INT32, int_val=[1]), "text"),
    ("pr_curves", TensorProto(dtype=types_pb2.DT_FLOAT, float_val=[0] * 6, tensor_shape=shape(3, 2)), "pr_curves"),
    ("custom_scalars", TensorProto(dtype=types_pb2.DT_STRING, string_val=[b"\xff\xff"]), None),
    ("custom_scalars", TensorProto(dtype=types_pb2.DT_STRING, string_val=[b"", b""], tensor_shape=shape(2)), None),
    ("meshes", TensorProto(dtype=types_pb2.DT_FLOAT, float_val=[0] * 6, tensor_shape=shape(2, 3)), "mesh"),
    ("tensors", TensorProto(dtype=types_pb2.DT_VARIANT, tensor_shape=shape(1)), None),
    ("tensors", TensorProto(dtype=types_pb2.DT_FLOAT, float_val=[1, 2, 3], tensor_shape=shape(2)), None),
    ("tensors", TensorProto(dtype=types_pb2.DT_FLOAT, float_val=[1], tensor_shape=shape(1 << 40)), None),
    ("tensors", TensorProto(dtype=types_pb2.DT_FLOAT, tensor_shape=shape(-1)), None),
    ("tensors", TensorProto(dtype=types_pb2.DT_STRING, tensor_content=b"ab", tensor_shape=shape(2)), None),
    ("tensors", TensorProto(dtype=types_pb2.DT_COMPLEX64, scomplex_val=[1, 2, 3], tensor_shape=shape(2)), None),
]


@pytest.mark.parametrize(("kind", "tensor", "plugin"), BAD_VALUES)
def test_bad_values_raise_decode_error(kind: str, tensor: tensor_pb2.TensorProto, plugin: str | None) -> None:
    data = tensor_value("bad", tensor, {"meshes": "mesh"}.get(kind, kind))
    with pytest.raises(DecodeError):
        decode_value(kind, data, 0, metadata({"meshes": "mesh"}.get(kind, kind)))  # type: ignore[arg-type]
    if plugin is not None:
        # Found at classification already (dtype and shape): a problem, and the value is skipped, except for the
        # kinds whose cards explain a bad value at its step (it is kept; decode_value raises for it).
        decoded = EventDecoder().decode(tensor_value("bad", tensor, plugin))
        kept = [DecodedValue(kind, "bad", 0)] if kind in SHOWN_WHEN_MALFORMED else []  # type: ignore[arg-type]
        assert decoded.values == kept and len(decoded.problems) == 1 and "'bad'" in decoded.problems[0]


def test_decode_value_errors() -> None:
    data = tensor_value("x", TensorProto(dtype=types_pb2.DT_FLOAT, float_val=[1.0]), "scalars")
    assert decode_value("scalars", data, 0) == 1.0
    assert isinstance(decode_value("tensors", data, 0), Tensor)
    for kind, index, message in [
        ("scalars", 1, "no value 1"),
        ("scalars", -1, "not scalars"),
        ("graphs", -1, "not a graph"),
        ("hparams", 0, "hparams plugin data holds neither"),
        ("graphs", 0, "must hold strings"),
    ]:
        with pytest.raises(DecodeError, match=message):
            decode_value(kind, data, index, metadata("scalars"))  # type: ignore[arg-type]
    keras_like = tensor_value("k", TensorProto(dtype=types_pb2.DT_STRING, string_val=[b"{}"]), "text")
    with pytest.raises(DecodeError, match="graph plugin"):
        decode_value("graphs", keras_like, 0)
    image = event(0, Summary.Value(tag="i", image=Summary.Image(encoded_image_string=b"x"))).SerializeToString()
    with pytest.raises(DecodeError, match="holds image, not histograms"):
        decode_value("histograms", image, 0)
    with pytest.raises(DecodeError, match="malformed Event"):
        decode_value("scalars", b"\xff\xff\xff", 0)
    with pytest.raises(DecodeError):
        Graph("graph_def", b"\xff").graph_def()
    with pytest.raises(DecodeError):
        Graph("keras_model", b"[1]").keras_model()


def test_malformed_events_are_problems() -> None:
    for data in (
        b"\xff\xff\xff",
        b"\x0a\x05ab",
        event(0, Summary.Value(tag="ok", simple_value=1)).SerializeToString()[:-2],
    ):
        decoded = EventDecoder().decode(data)
        assert decoded.values == [] and len(decoded.problems) == 1 and "malformed Event" in decoded.problems[0]
    histo = summary_pb2.HistogramProto(bucket_limit=[1.0], bucket=[1, 2, 3])
    decoded = EventDecoder().decode(event(0, Summary.Value(tag="h", histo=histo)).SerializeToString())
    assert decoded.values == [] and "bucket limits" in decoded.problems[0]


# --- fuzzing: decode() never raises, decode_value() raises DecodeError only ------------------------------------

CORPUS = [e.SerializeToString() for e in tf2_events()]
KINDS = ["scalars", "histograms", "images", "audio", "text", "tensors", "pr_curves", "hparams", "custom_scalars"]
KINDS += ["meshes", "graphs"]


def decode_everything(data: bytes, hint: bytes | None = None) -> None:
    decoder = EventDecoder()
    if hint is not None:
        decoder.decode(hint)
    decoded = decoder.decode(data)
    assert isinstance(decoded.problems, list)
    indices = {-1, 0, *(v.value_index for v in decoded.values)}
    for kind in KINDS:
        for index in indices:
            for md in (None, decoder.metadata("x"), *(decoder.metadata(v.tag) for v in decoded.values)):
                with contextlib.suppress(DecodeError):
                    decode_value(kind, data, index, md)  # type: ignore[call-overload]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300))
def test_random_bytes(data: bytes) -> None:
    decode_everything(data)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(range(len(CORPUS))), st.data())
def test_mutated_events(index: int, draw: st.DataObject) -> None:
    data = bytearray(CORPUS[index])
    for _ in range(draw.draw(st.integers(1, 4))):
        action = draw.draw(st.sampled_from(["flip", "cut", "insert", "delete"]))
        position = draw.draw(st.integers(0, max(len(data) - 1, 0)))
        if action == "flip" and data:
            data[position] ^= 1 << draw.draw(st.integers(0, 7))
        elif action == "cut":
            del data[position:]
        elif action == "insert":
            data[position:position] = draw.draw(st.binary(min_size=1, max_size=8))
        elif data:
            del data[position : position + draw.draw(st.integers(1, 8))]
    decode_everything(bytes(data), hint=CORPUS[index])


DTYPES = st.sampled_from([*types_pb2.DataType.values(), 99])  # 99: no such type


@st.composite
def tensors(draw: st.DrawFn) -> tensor_pb2.TensorProto:
    proto = TensorProto(dtype=draw(DTYPES))
    dims = draw(st.lists(st.sampled_from([-1, 0, 1, 2, 3, 6, 1 << 33]), max_size=3))
    proto.tensor_shape.CopyFrom(shape(*dims))
    proto.tensor_shape.unknown_rank = draw(st.booleans()) and draw(st.booleans())
    small = st.integers(-(2**31), 2**31 - 1)
    field = draw(st.sampled_from(["float_val", "double_val", "int_val", "int64_val", "string_val", "half_val"]))
    field2 = draw(
        st.sampled_from(["bool_val", "scomplex_val", "dcomplex_val", "uint32_val", "uint64_val", "tensor_content"])
    )
    values = {
        "float_val": st.floats(width=32),
        "double_val": st.floats(),
        "int_val": small,
        "half_val": small,
        "int64_val": st.integers(-(2**63), 2**63 - 1),
        "string_val": st.binary(max_size=20),
        "bool_val": st.booleans(),
        "scomplex_val": st.floats(width=32),
        "dcomplex_val": st.floats(),
        "uint32_val": st.integers(0, 2**32 - 1),
        "uint64_val": st.integers(0, 2**64 - 1),
    }
    getattr(proto, field).extend(draw(st.lists(values[field], max_size=8)))
    if field2 == "tensor_content":
        proto.tensor_content = draw(st.binary(max_size=48))
    else:
        getattr(proto, field2).extend(draw(st.lists(values[field2], max_size=8)))
    return proto


PLUGINS = ["scalars", "histograms", "images", "audio", "text", "pr_curves", "hparams", "custom_scalars", "mesh"]
PLUGINS += ["graph_keras_model", "graph_run_metadata_graph", "graphs", "other", ""]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tensors(), st.sampled_from(PLUGINS), st.binary(max_size=16))
def test_random_tensors(tensor: tensor_pb2.TensorProto, plugin: str, content: bytes) -> None:
    data = tensor_value("x", tensor, plugin, content)
    with contextlib.suppress(DecodeError):
        make_ndarray(tensor)
    decode_everything(data)


def test_hparams_values() -> None:
    start = hparams_pb2.HParamsPluginData(session_start_info=hparams_pb2.SessionStartInfo(start_time_secs=12.5))
    hparams = start.session_start_info.hparams
    hparams["n"].number_value = 3
    hparams["s"].string_value = "x"
    hparams["b"].bool_value = False
    hparams["none"].null_value = struct_pb2.NULL_VALUE
    hparams["list"].list_value.values.add().number_value = 1
    data = event(
        0, Summary.Value(tag="_hparams_/session_start_info", metadata=metadata("hparams", start.SerializeToString()))
    )
    raw = data.SerializeToString()
    decoded = EventDecoder().decode(raw)
    assert [(v.kind, v.value_index) for v in decoded.values] == [("hparams", 0)]
    ours = decode_value("hparams", raw, 0)
    assert ours.hparams == {"n": 3.0, "s": "x", "b": False, "none": None, "list": [1.0]}
    assert ours.start_time_secs == 12.5 and ours.what == "session_start"
    interval = hparams_pb2.Interval(min_value=0, max_value=1)
    info = hparams_pb2.HParamInfo(name="lr", type=hparams_pb2.DATA_TYPE_FLOAT64, domain_interval=interval)
    metric_name = hparams_pb2.MetricName(group="val", tag="acc")
    metric = hparams_pb2.MetricInfo(name=metric_name, dataset_type=hparams_pb2.DATASET_VALIDATION)
    experiment = hparams_pb2.Experiment(hparam_infos=[info], metric_infos=[metric])
    content = hparams_pb2.HParamsPluginData(experiment=experiment).SerializeToString()
    value = Summary.Value(tag="_hparams_/experiment", metadata=metadata("hparams", content))
    ours = decode_value("hparams", event(0, value).SerializeToString(), 0)
    assert ours.hparam_infos[0].domain_interval == (0.0, 1.0) and ours.hparam_infos[0].type == "float64"
    assert (ours.metric_infos[0].group, ours.metric_infos[0].dataset_type) == ("val", "validation")
    # A value without its own metadata is read with the tag's (passed in).
    bare = event(0, Summary.Value(tag="_hparams_/experiment")).SerializeToString()
    assert decode_value("hparams", bare, 0, metadata("hparams", content)).what == "experiment"


def test_trace_export_graphs() -> None:
    """TF2's trace_export: a RunMetadata whose function_graphs hold the pre-optimization graphs."""

    def field(number: int, payload: bytes) -> bytes:
        assert len(payload) < 128
        return bytes([number << 3 | 2, len(payload)]) + payload

    graphs = [graph_pb2.GraphDef(node=[graph_pb2.NodeDef(name=f"f{i}", op="Add")]) for i in range(2)]
    run_metadata = graph_pb2.RunMetadata().SerializeToString() + b"".join(
        field(4, field(1, b"") + field(2, graph.SerializeToString())) for graph in graphs
    )
    content = b"1"
    value = Summary.Value(
        tag="trace", tensor=string_tensor([run_metadata], ()), metadata=metadata("graph_run_metadata_graph", content)
    )
    data = event(0, value).SerializeToString()
    decoder = EventDecoder()
    assert [(v.kind, v.tag) for v in decoder.decode(data).values] == [("graphs", "trace")]
    graph = decode_value("graphs", data, 0, decoder.metadata("trace"))
    assert graph.format == "run_metadata_graph" and graph.function_graphs() == graphs
    assert graph.run_metadata() == graph_pb2.RunMetadata.FromString(run_metadata)
    with pytest.raises(DecodeError, match="holds no GraphDef"):
        graph.graph_def()
    with pytest.raises(DecodeError, match="truncated"):
        Graph("run_metadata", run_metadata[:-3]).function_graphs()
