"""Compatible both ways: for the same calls, ridgeline writes what torch and tensorboardX write, and TensorBoard
loads ridgeline's files with identical values.

Summaries are compared as decoded protos (images as decoded pixels), never as file bytes: wall times and PNG
encoder settings may differ, values may not.
"""

from __future__ import annotations

import io
import math
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from ridgeline import SummaryWriter
from ridgeline.format.proto import event_pb2, summary_pb2
from ridgeline.format.tags import RUN_END_TAG, RUN_METADATA_TAG
from tests.conftest import read_events

RNG = np.random.default_rng(7)
WEIGHTS = RNG.normal(0, 0.1, size=5000).astype(np.float32)
IMAGE_CHW = RNG.random((3, 10, 14)).astype(np.float32)
IMAGE_HWC_U8 = (RNG.random((9, 7, 3)) * 255).astype(np.uint8)
IMAGE_HW = RNG.random((6, 5))
BATCH_NCHW = RNG.random((5, 3, 8, 8)).astype(np.float32)
BATCH_NHWC_1C = RNG.random((3, 8, 6, 1)).astype(np.float32)
TONE = np.sin(np.linspace(0, 200 * math.pi, 8000)).astype(np.float32) * 0.5
LABELS = RNG.integers(0, 2, size=300)
PREDICTIONS = np.clip(LABELS * 0.6 + RNG.random(300) * 0.5, 0, 1)
VERTICES = RNG.random((1, 4, 3)).astype(np.float32)
COLORS = (RNG.random((1, 4, 3)) * 255).astype(np.uint8)
FACES = np.array([[[0, 1, 2], [1, 2, 3]]], dtype=np.int32)
LAYOUT = {
    "Losses": {"train vs val": ["Multiline", ["loss/train", "loss/val"]]},
    "Bounds": {"acc": ["Margin", ["acc/mean", "acc/low", "acc/high"]]},
}


def log_everything(writer: Any, *, tensorboardx: bool = False) -> None:
    """The same calls, made on any of the three writers.

    Where tensorboardX differs from torch, ridgeline follows torch and those calls are compared with torch only:
    add_scalar has no new_style, add_audio needs soundfile, add_mesh names its parts <tag>_1.. instead of
    <tag>_VERTEX.., add_hparams takes name= and writes the hparams summaries at step 0 whatever global_step says.
    """
    for step, value in enumerate([0.5, 1e-8, -3.25, float("nan"), float("inf"), float("-inf"), 1e39, 12345678.9]):
        writer.add_scalar("scalar/plain", value, step)
    writer.add_scalar("scalar/no_step", 2.0)
    if not tensorboardx:
        writer.add_scalar("scalar/new_style", 0.1, 3, new_style=True)
        writer.add_scalar("scalar/double", 0.1, 3, new_style=True, double_precision=True)
    writer.add_scalars("group", {"a": 1.5, "b": 2.5}, 4)
    writer.add_histogram("hist/default_bins", WEIGHTS, 5)
    writer.add_histogram("hist/auto", WEIGHTS, 5, bins="auto")
    writer.add_histogram("hist/ten", WEIGHTS.astype(np.float64), 5, bins=10)
    writer.add_histogram("hist/max_bins", WEIGHTS, 5, bins=64, max_bins=10)
    writer.add_histogram_raw("hist/raw", -1.0, 1.0, 4, 0.0, 2.0, [-0.5, 0.0, 0.5, 1.0], [1, 1, 1, 1], 6)
    writer.add_image("image/chw", IMAGE_CHW, 7)
    writer.add_image("image/hwc_uint8", IMAGE_HWC_U8, 7, dataformats="HWC")
    writer.add_image("image/hw", IMAGE_HW, 7, dataformats="HW")
    writer.add_images("image/batch", BATCH_NCHW, 8)
    writer.add_images("image/batch_nhwc", BATCH_NHWC_1C, 8, dataformats="NHWC")
    if not tensorboardx:
        writer.add_audio("audio/tone", TONE, 9, sample_rate=8000)
    writer.add_text("text/notes", "**bold** and a table\n\n| a | b |\n|---|---|\n| 1 | 2 |", 10)
    writer.add_pr_curve("pr/default", LABELS, PREDICTIONS, 11)
    writer.add_pr_curve("pr/weighted", LABELS, PREDICTIONS, 11, num_thresholds=20, weights=np.full(300, 0.5))
    writer.add_pr_curve_raw(
        "pr/raw", [4, 2, 0], [3, 1, 0], [0, 2, 3], [0, 2, 4], [0.57, 0.67, 1.0], [1.0, 0.5, 0.0], 12, 3
    )
    writer.add_custom_scalars(LAYOUT)
    if not tensorboardx:
        writer.add_mesh("mesh/tetra", VERTICES, colors=COLORS, faces=FACES, global_step=13)
    if not tensorboardx:
        writer.add_hparams(
            {"lr": 0.01, "batch_size": 32, "optimizer": "adam", "augment": True},
            {"hparam/accuracy": 0.91, "hparam/loss": 0.2},
            run_name="trial",
            global_step=14,
        )


def torch_writer(log_dir: Path) -> Any:
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    return TorchWriter(str(log_dir))


def tensorboardx_writer(log_dir: Path) -> Any:
    from tensorboardX import SummaryWriter as XWriter

    return XWriter(str(log_dir))


def ridgeline_writer(log_dir: Path) -> Any:
    return SummaryWriter(log_dir)


def write(make_writer: Callable[[Path], Any], log_dir: Path) -> Path:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the oracles' own deprecation noise
        writer = make_writer(log_dir)
        log_everything(writer, tensorboardx=make_writer is tensorboardx_writer)
        writer.close()
    return log_dir


def normalised(value: summary_pb2.Summary.Value) -> tuple[bytes, Any]:
    """A comparable form: images as pixels (PNG/GIF settings may differ), everything else as the exact proto."""
    value = summary_pb2.Summary.Value.FromString(value.SerializeToString())
    pixels = None
    if value.HasField("image"):
        pixels = np.asarray(Image.open(io.BytesIO(value.image.encoded_image_string)).convert("RGBA")).tolist()
        value.image.encoded_image_string = b""
    return value.SerializeToString(deterministic=True), pixels


def summaries_by_run(log_dir: Path) -> dict[str, list[tuple[int, str, tuple[bytes, Any]]]]:
    """run (relative directory) -> sorted (step, tag, normalised value), without file-version and run-metadata."""
    runs: dict[str, list[tuple[int, str, tuple[bytes, Any]]]] = {}
    for path in sorted(log_dir.rglob("*tfevents*")):
        run = path.parent.relative_to(log_dir).as_posix()
        for event in read_events(path):
            for value in event.summary.value:
                if value.tag not in (RUN_METADATA_TAG, RUN_END_TAG):
                    runs.setdefault(run, []).append((event.step, value.tag, normalised(value)))
    return {run: sorted(entries, key=lambda e: (e[0], e[1], e[2][0])) for run, entries in runs.items()}


@pytest.fixture(scope="module")
def ridgeline_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write(ridgeline_writer, tmp_path_factory.mktemp("ridgeline"))


def assert_same_summaries(
    ours: Path,
    theirs: Path,
    *,
    skip_tags: frozenset[str] = frozenset(),
    skip_runs: frozenset[str] = frozenset(),
    their_run_names: dict[str, str] | None = None,
) -> None:
    ours_by_run, theirs_by_run = summaries_by_run(ours), summaries_by_run(theirs)
    ours_by_run = {run: entries for run, entries in ours_by_run.items() if run not in skip_runs}
    theirs_by_run = {(their_run_names or {}).get(run, run): entries for run, entries in theirs_by_run.items()}
    ours_by_run = {run: [e for e in entries if e[1] not in skip_tags] for run, entries in ours_by_run.items()}
    assert sorted(ours_by_run) == sorted(theirs_by_run)
    for run, expected in theirs_by_run.items():
        got = ours_by_run[run]
        assert [(s, t) for s, t, _ in got] == [(s, t) for s, t, _ in expected], run
        for (step, tag, ours_value), (_, _, their_value) in zip(got, expected, strict=True):
            assert ours_value[1] == their_value[1], f"{run} {tag}@{step}: pixels differ"
            if ours_value[0] != their_value[0]:
                mine = summary_pb2.Summary.Value.FromString(ours_value[0])
                reference = summary_pb2.Summary.Value.FromString(their_value[0])
                assert mine == reference, f"{run} {tag}@{step}"


def test_same_summaries_as_torch(ridgeline_log: Path, tmp_path: Path) -> None:
    assert_same_summaries(ridgeline_log, write(torch_writer, tmp_path))


def test_same_summaries_as_tensorboardx(ridgeline_log: Path, tmp_path: Path) -> None:
    not_in_tensorboardx = frozenset(
        {"scalar/new_style", "scalar/double", "audio/tone", "mesh/tetra_VERTEX", "mesh/tetra_FACE", "mesh/tetra_COLOR"}
    )
    # add_scalars: tensorboardX puts the sub-runs at <main_tag>/<key>, torch (and ridgeline) at <main_tag>_<key>.
    runs = {"group/a": "group_a", "group/b": "group_b"}
    theirs = write(tensorboardx_writer, tmp_path)
    assert_same_summaries(
        ridgeline_log, theirs, skip_tags=not_in_tensorboardx, skip_runs=frozenset({"trial"}), their_run_names=runs
    )


def test_tensorboard_loads_identical_values(ridgeline_log: Path) -> None:
    from tensorboard.backend.event_processing import event_accumulator as ea
    from tensorboard.plugins.hparams import plugin_data_pb2
    from tensorboard.plugins.pr_curve import plugin_data_pb2 as pr_data
    from tensorboard.util import tensor_util

    keep_all = dict.fromkeys(ea.DEFAULT_SIZE_GUIDANCE, 0)
    run = ea.EventAccumulator(str(ridgeline_log), size_guidance=keep_all)
    run.Reload()

    plain = [(e.step, e.value) for e in run.Scalars("scalar/plain")]
    expected = [0.5, 1e-8, -3.25, math.nan, math.inf, -math.inf, math.inf, 12345678.9]
    assert [s for s, _ in plain] == list(range(8))
    for (_, got), want in zip(plain, expected, strict=True):
        float32 = np.float32(want) if abs(want) < 3.5e38 or not math.isfinite(want) else np.float32(math.inf)
        assert (math.isnan(got) and math.isnan(want)) or got == float(float32)
    assert [(e.step, e.value) for e in run.Scalars("scalar/no_step")] == [(0, 2.0)]
    assert tensor_util.make_ndarray(run.Tensors("scalar/double")[0].tensor_proto) == 0.1

    histogram = run.Histograms("hist/default_bins")[0].histogram_value
    assert histogram.num == WEIGHTS.size
    assert histogram.min == float(WEIGHTS.min()) and histogram.max == float(WEIGHTS.max())
    assert sum(histogram.bucket) == WEIGHTS.size
    assert math.isclose(histogram.sum, float(WEIGHTS.astype(np.float64).sum()))

    image = run.Images("image/chw")[0]
    pixels = np.asarray(Image.open(io.BytesIO(image.encoded_image_string)))
    assert (image.height, image.width) == (10, 14)
    assert np.array_equal(pixels, (IMAGE_CHW.transpose(1, 2, 0) * 255).clip(0, 255).astype(np.uint8))
    hwc = np.asarray(Image.open(io.BytesIO(run.Images("image/hwc_uint8")[0].encoded_image_string)))
    assert np.array_equal(hwc, IMAGE_HWC_U8)

    audio = run.Audio("audio/tone")[0]
    assert (audio.sample_rate, audio.length_frames, audio.content_type) == (8000, TONE.size, "audio/wav")

    text = run.Tensors("text/notes/text_summary")[0]
    assert text.tensor_proto.string_val[0].decode().startswith("**bold** and a table")

    pr = run.Tensors("pr/default")[0]
    assert (
        pr_data.PrCurvePluginData.FromString(run.SummaryMetadata("pr/default").plugin_data.content).num_thresholds
        == 127
    )
    counts = tensor_util.make_ndarray(pr.tensor_proto)
    assert counts.shape == (6, 127)
    assert counts[0, 0] == LABELS.sum()  # true positives at threshold 0: every positive
    assert counts[1, 0] == (LABELS == 0).sum()

    trial = ea.EventAccumulator(str(ridgeline_log / "trial"), size_guidance=keep_all)
    trial.Reload()
    start = plugin_data_pb2.HParamsPluginData.FromString(
        trial.PluginTagToContent("hparams")["_hparams_/session_start_info"]
    )
    assert start.session_start_info.hparams["optimizer"].string_value == "adam"
    assert start.session_start_info.hparams["lr"].number_value == 0.01
    assert [(e.step, e.value) for e in trial.Scalars("hparam/accuracy")] == [(14, pytest.approx(0.91))]

    group = ea.EventAccumulator(str(ridgeline_log / "group_a"), size_guidance=keep_all)
    group.Reload()
    assert [(e.step, e.value) for e in group.Scalars("group")] == [(4, 1.5)]


def test_graph_loads_in_tensorboard(tmp_path: Path) -> None:
    import torch
    from tensorboard.backend.event_processing import event_accumulator as ea

    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    with SummaryWriter(tmp_path) as writer:
        writer.add_graph(model, torch.zeros(1, 4))
    run = ea.EventAccumulator(str(tmp_path))
    run.Reload()
    assert run.Tags()["graph"] is True
    ops = {node.op for node in run.Graph().node}
    assert "aten::linear" in ops and "aten::relu" in ops
    graph_events = [e for e in read_events(next(tmp_path.glob("*tfevents*"))) if e.WhichOneof("what") == "graph_def"]
    assert len(graph_events) == 1 and isinstance(graph_events[0], event_pb2.Event)
