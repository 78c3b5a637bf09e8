"""summaries.py against torch.utils.tensorboard.summary: the same inputs must give the same decoded protos.

torch's protos are re-read as ours (the field numbers match), then both are compared as dicts, with plugin payloads
decoded too (their bytes hold maps, whose order is not fixed). Images are compared by their decoded pixels, and
videos against the frames torch would hand to moviepy (not installed here; we encode the GIF with Pillow).
"""

from __future__ import annotations

import io
import subprocess
import sys
import tempfile
import time
from typing import Any

import matplotlib
import numpy as np
import pytest
import torch
from google.protobuf.json_format import MessageToDict
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from PIL import Image, ImageSequence
from torch.utils.tensorboard import summary as torch_summary
from torch.utils.tensorboard._utils import figure_to_image

from ridgeline.format.proto import custom_scalars_pb2, hparams_pb2, plugins_pb2, summary_pb2
from ridgeline.writer import summaries
from ridgeline.writer.summaries import DEFAULT_BINS

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

RNG = np.random.default_rng(1234)

PLUGIN_CONTENT: dict[str, Any] = {
    "hparams": hparams_pb2.HParamsPluginData,
    "pr_curves": plugins_pb2.PrCurvePluginData,
    "mesh": plugins_pb2.MeshPluginData,
    "text": plugins_pb2.TextPluginData,
    "scalars": plugins_pb2.ScalarPluginData,
}


def torch_default_bins() -> list[float]:
    from torch.utils.tensorboard import SummaryWriter

    with tempfile.TemporaryDirectory() as log_dir:
        writer = SummaryWriter(log_dir)
        bins = writer.default_bins
        writer.close()
    return bins


TORCH_BINS = torch_default_bins()


def as_ours(theirs: Any) -> summary_pb2.Summary:
    return summary_pb2.Summary.FromString(theirs.SerializeToString())


def pixels(encoded: bytes) -> list[np.ndarray]:
    """Every frame of a PNG or GIF, as RGB(A) arrays."""
    picture = Image.open(io.BytesIO(encoded))
    mode = "RGBA" if "A" in picture.mode or "transparency" in picture.info else "RGB"
    return [np.asarray(frame.convert(mode)) for frame in ImageSequence.Iterator(picture)]


def decoded(summary: summary_pb2.Summary) -> tuple[list[dict[str, Any]], list[list[np.ndarray]]]:
    """(the values as dicts with plugin payloads decoded and image bytes removed, the images' frames)."""
    values, frames = [], []
    for value in summary.value:
        as_dict = MessageToDict(value, preserving_proto_field_name=True)
        plugin = value.metadata.plugin_data
        if plugin.content:
            content = PLUGIN_CONTENT[plugin.plugin_name].FromString(plugin.content)
            as_dict["metadata"]["plugin_data"]["content"] = MessageToDict(content, preserving_proto_field_name=True)
        if plugin.plugin_name == "custom_scalars":
            layout = custom_scalars_pb2.Layout.FromString(value.tensor.string_val[0])
            as_dict["tensor"]["string_val"] = MessageToDict(layout, preserving_proto_field_name=True)
        if value.HasField("image"):
            as_dict["image"].pop("encoded_image_string", None)
            encoded = value.image.encoded_image_string
            frames.append(pixels(encoded) if encoded else [])
        values.append(as_dict)
    return values, frames


def assert_same(ours: summary_pb2.Summary, theirs: Any) -> None:
    our_values, our_frames = decoded(ours)
    their_values, their_frames = decoded(as_ours(theirs))
    assert our_values == their_values
    assert len(our_frames) == len(their_frames)
    for mine, its in zip(our_frames, their_frames, strict=True):
        assert len(mine) == len(its)
        for a, b in zip(mine, its, strict=True):
            np.testing.assert_array_equal(a, b)


# --- scalars -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [0.0, 1.5, -3, 1e300, float("nan"), float("inf"), np.float32(2.5), True])
@pytest.mark.parametrize("double", [False, True])
def test_scalar_tensor_matches_torch(value: Any, double: bool) -> None:
    theirs = torch_summary.scalar("loss", value, new_style=True, double_precision=double)
    assert_same(summaries.scalar_tensor("loss", value, double), theirs)


def test_scalar_tensor_takes_tensors() -> None:
    theirs = torch_summary.scalar("x", torch.tensor([0.25]), new_style=True)
    assert_same(summaries.scalar_tensor("x", torch.tensor([0.25])), theirs)


# --- histograms ----------------------------------------------------------------------------------------------


def test_default_bins_are_torchs() -> None:
    assert DEFAULT_BINS.dtype == np.float64
    assert DEFAULT_BINS.tolist() == TORCH_BINS
    assert not DEFAULT_BINS.flags.writeable


HISTOGRAM_INPUTS = {
    "normal32": RNG.standard_normal(5000).astype(np.float32),
    "wide64": RNG.standard_normal(3000) * 10.0 ** RNG.uniform(-25, 25, 3000),
    "ints": RNG.integers(-50, 50, (20, 30)),
    "bools": RNG.random(100) > 0.3,
    "one": np.array([3.0]),
    "constant": np.full(17, -2.5),
    "zeros": np.array([0.0, -0.0, 0.0]),
    "on_edges": np.concatenate([DEFAULT_BINS[700:720], -DEFAULT_BINS[700:720], DEFAULT_BINS[[0, -1]]]),
    "with_nan_inf": np.array([1.0, np.nan, 2.0, np.inf, -np.inf, -1e25, 1e25, 0.5]),
    "float16": RNG.standard_normal(300).astype(np.float16),
}


@pytest.mark.parametrize("name", list(HISTOGRAM_INPUTS))
@pytest.mark.parametrize("max_bins", [None, 1, 3, 64, 5000])
def test_histogram_default_bins_match_torch(name: str, max_bins: int | None) -> None:
    values = HISTOGRAM_INPUTS[name]
    theirs = torch_summary.histogram("h", values, TORCH_BINS, max_bins=max_bins)
    assert_same(summaries.histogram("h", values, max_bins=max_bins), theirs)
    assert_same(summaries.histogram("h", values, DEFAULT_BINS, max_bins=max_bins), theirs)
    assert_same(summaries.histogram("h", values, list(TORCH_BINS), max_bins=max_bins), theirs)


@pytest.mark.parametrize(
    "bins", [1, 10, np.int64(30), "auto", "fd", "doane", "scott", "stone", "rice", "sturges", "sqrt"]
)
def test_histogram_numpy_bin_rules_match_torch(bins: Any) -> None:
    values = RNG.standard_normal(2000) * 3 + 1
    assert_same(summaries.histogram("h", values, bins), torch_summary.histogram("h", values, bins))
    assert_same(
        summaries.histogram("h", values, bins, max_bins=4), torch_summary.histogram("h", values, bins, max_bins=4)
    )


@pytest.mark.parametrize(
    "bins",
    [[0, 1], [-3.0, -1.0, 0.0, 0.5, 2.0], np.linspace(-2, 2, 41), np.array([-1, 0, 0, 1], np.float32), [0, 1, 2, 2]],
)
def test_histogram_explicit_edges_match_torch(bins: Any) -> None:
    values = np.concatenate([RNG.standard_normal(1000), [-1.0, 0.0, 1.0, 2.0, np.nan, 5.0, -5.0]])
    assert_same(summaries.histogram("h", values, bins), torch_summary.histogram("h", values, bins))


@pytest.mark.parametrize(
    "values",
    [
        torch.randn(4, 50),
        torch.randn(100, dtype=torch.float64),
        torch.randn(64).half(),
        torch.randn(64).bfloat16(),  # values within float16's range: torch's bfloat16 → float16 hop is exact
        torch.arange(10),
    ],
)
def test_histogram_takes_tensors(values: torch.Tensor) -> None:
    theirs = torch_summary.histogram("h", values, TORCH_BINS)
    assert_same(summaries.histogram("h", values), theirs)


finite_or_not = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, width=64),
    st.sampled_from([*DEFAULT_BINS[::37].tolist(), DEFAULT_BINS[0], DEFAULT_BINS[-1], 0.0, -0.0]),
    st.sampled_from(DEFAULT_BINS.tolist()).map(lambda e: float(np.nextafter(e, np.inf))),
    st.sampled_from(DEFAULT_BINS.tolist()).map(lambda e: float(np.nextafter(e, -np.inf))),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values=st.lists(finite_or_not, min_size=1, max_size=300))
def test_default_bin_counts_equal_numpy(values: list[float]) -> None:
    array = np.array(values, dtype=np.float64)
    expected = np.histogram(array, bins=DEFAULT_BINS)[0]
    np.testing.assert_array_equal(summaries._default_bin_counts(array), expected)


def test_default_bin_counts_across_chunks() -> None:
    array = np.concatenate(
        [RNG.standard_normal(70_000) * 10.0 ** RNG.uniform(-14, 22, 70_000), DEFAULT_BINS, -DEFAULT_BINS]
    )
    RNG.shuffle(array)
    np.testing.assert_array_equal(summaries._default_bin_counts(array), np.histogram(array, bins=DEFAULT_BINS)[0])


@settings(max_examples=60, deadline=None)
@given(
    values=hnp.arrays(np.float64, st.integers(1, 200), elements=st.floats(-10, 10) | st.just(np.nan) | st.just(1.0)),
    edges=st.lists(st.integers(-12, 12), min_size=2, max_size=12, unique=True).map(
        lambda ints: sorted(i * 0.75 for i in ints)
    ),
    max_bins=st.none() | st.integers(1, 12),
)
def test_histogram_random_edges_match_torch(values: np.ndarray, edges: list[float], max_bins: int | None) -> None:
    try:
        theirs = torch_summary.histogram("h", values, edges, max_bins=max_bins)
    except ValueError:  # nothing inside the edges: torch fails too (with "please file a bug report")
        with pytest.raises(ValueError, match="add_histogram: no value of values lies within the bins"):
            summaries.histogram("h", values, edges, max_bins=max_bins)
        return
    assert_same(summaries.histogram("h", values, edges, max_bins=max_bins), theirs)


def test_histogram_is_faster_than_torch_on_a_million_values() -> None:
    values = RNG.standard_normal(1_000_000).astype(np.float32)
    ours, theirs = [], []
    for _ in range(5):  # interleaved, best of 5: load on the machine hits both alike
        start = time.perf_counter()
        summaries.histogram("h", values)
        ours.append(time.perf_counter() - start)
        start = time.perf_counter()
        torch_summary.histogram("h", values, TORCH_BINS)
        theirs.append(time.perf_counter() - start)
    assert min(ours) < min(theirs)


def test_histogram_raw_matches_torch() -> None:
    limits, counts = [0.5, 1.0, 2.0], [3, 0, 7]
    theirs = torch_summary.histogram_raw("r", -1, 2.0, 10, 5.5, 20.25, limits, counts)
    assert_same(summaries.histogram_raw("r", -1, 2.0, 10, 5.5, 20.25, limits, counts), theirs)
    assert_same(summaries.histogram_raw("r", -1, 2.0, 10, 5.5, 20.25, np.array(limits), torch.tensor(counts)), theirs)


# --- images --------------------------------------------------------------------------------------------------

IMAGE_CASES = {
    "CHW float32": (RNG.random((3, 12, 17)).astype(np.float32), "CHW"),
    "CHW out of range": ((RNG.standard_normal((3, 6, 5)) * 2).astype(np.float64), "CHW"),
    "HWC uint8": (RNG.integers(0, 256, (9, 7, 3), dtype=np.uint8), "HWC"),
    "HWC rgba": (RNG.random((5, 6, 4)), "HWC"),
    "HWC gray+alpha": (RNG.random((5, 6, 2)), "HWC"),
    "CHW one channel": (RNG.random((1, 8, 8)), "chw"),
    "HW": (RNG.random((10, 4)), "HW"),
    "WH": (RNG.random((10, 4)), "WH"),
    "WCH": (RNG.random((7, 3, 5)), "WCH"),
    "HW bool": (RNG.random((6, 6)) > 0.5, "HW"),
    "HW int": (RNG.integers(-1, 3, (6, 6)), "HW"),
    "float16": (RNG.random((3, 4, 4)).astype(np.float16), "CHW"),
}
BATCH_CASES = {
    "NCHW": (RNG.random((9, 3, 5, 6)).astype(np.float32), "NCHW"),
    "NCHW gray": (RNG.random((3, 1, 4, 4)), "NCHW"),
    "NHWC uint8": (RNG.integers(0, 256, (16, 4, 5, 3), dtype=np.uint8), "NHWC"),
    "one image": (RNG.random((1, 3, 4, 4)), "NCHW"),
    "CHW through add_images": (RNG.random((3, 4, 4)), "CHW"),
}


@pytest.mark.parametrize("case", list(IMAGE_CASES))
def test_image_matches_torch(case: str) -> None:
    array, dataformats = IMAGE_CASES[case]
    theirs = torch_summary.image("img", array, dataformats=dataformats)
    assert_same(summaries.image("img", array, dataformats=dataformats), theirs)


@pytest.mark.parametrize("case", list(BATCH_CASES))
def test_images_match_torch(case: str) -> None:
    array, dataformats = BATCH_CASES[case]
    theirs = torch_summary.image("img", array, dataformats=dataformats)
    assert_same(summaries.images("img", array, dataformats=dataformats), theirs)


def test_image_takes_tensors() -> None:
    tensor = torch.rand(3, 6, 7)
    assert_same(summaries.image("img", tensor), torch_summary.image("img", tensor, dataformats="CHW"))
    batch = torch.rand(2, 3, 4, 4, dtype=torch.float64)
    assert_same(summaries.images("img", batch), torch_summary.image("img", batch, dataformats="NCHW"))


def test_image_nan_is_black() -> None:
    array = np.full((3, 2, 2), np.nan, dtype=np.float32)
    _, frames = decoded(summaries.image("img", array))
    assert not frames[0][0].any()


@pytest.mark.parametrize("rescale", [1, 2, 0.5])
@pytest.mark.parametrize("labels", [None, ["cat", "a dog"], ["", "x"]])
def test_image_with_boxes_matches_torch(rescale: float, labels: list[str] | None) -> None:
    array = RNG.random((3, 40, 50)).astype(np.float32)
    boxes = np.array([[2, 3, 30, 25], [10.5, 12.25, 45.75, 38.5]], dtype=np.float32)
    theirs = torch_summary.image_boxes("b", array, boxes, rescale=rescale, labels=labels)
    ours = summaries.image_with_boxes("b", array, boxes, rescale=rescale, labels=labels)
    assert_same(ours, theirs)


def test_image_with_boxes_hwc_tensor_and_one_label() -> None:
    array = torch.randint(0, 256, (30, 30, 3), dtype=torch.uint8)
    boxes = torch.tensor([[1.0, 1.0, 20.0, 20.0]])
    theirs = torch_summary.image_boxes("b", array, boxes, dataformats="HWC", labels=["only"])
    assert_same(summaries.image_with_boxes("b", array, boxes, dataformats="HWC", labels="only"), theirs)


def test_image_with_boxes_drops_mismatched_labels_like_torch() -> None:
    array = RNG.random((3, 20, 20))
    boxes = np.array([[1, 1, 10, 10], [5, 5, 15, 15]])
    with pytest.warns(UserWarning, match="add_image_with_boxes: got 1 labels for 2 boxes"):
        ours = summaries.image_with_boxes("b", array, boxes, labels=["one"])
    assert_same(ours, torch_summary.image_boxes("b", array, boxes, labels=None))


def make_figure(width: float = 2.0, height: float = 1.5) -> Figure:
    fig = Figure(figsize=(width, height), dpi=40)
    axes = fig.add_subplot()
    axes.plot([0, 1, 2], [2, 0, 1])
    return fig


def test_figure_matches_torch() -> None:
    fig = make_figure()
    ours = summaries.figure("fig", fig, close=False)
    theirs = torch_summary.image("fig", figure_to_image(fig, close=False), dataformats="CHW")
    assert_same(ours, theirs)


def test_figures_match_torch() -> None:
    figs = [make_figure() for _ in range(3)]
    ours = summaries.figure("fig", figs, close=False)
    theirs = torch_summary.image("fig", figure_to_image(figs, close=False), dataformats="NCHW")
    assert_same(ours, theirs)


def test_figure_closes_pyplot_figures() -> None:
    fig = plt.figure(figsize=(1, 1), dpi=20)
    assert plt.fignum_exists(fig.number)
    summaries.figure("fig", fig)
    assert not plt.fignum_exists(fig.number)
    kept = plt.figure(figsize=(1, 1), dpi=20)
    summaries.figure("fig", kept, close=False)
    assert plt.fignum_exists(kept.number)
    plt.close(kept)


# --- video ---------------------------------------------------------------------------------------------------


def torch_video_frames(vid: Any, fps: float, monkeypatch: pytest.MonkeyPatch) -> tuple[np.ndarray, Any]:
    """The uint8 (T, H, W, C) frames torch hands to moviepy, and its Summary.Image fields."""
    captured = {}

    def fake_make_video(tensor: np.ndarray, fps: float) -> Any:
        captured["frames"], captured["fps"] = tensor, fps
        _, height, width, channels = tensor.shape
        return torch_summary.Summary.Image(height=height, width=width, colorspace=channels)

    monkeypatch.setattr(torch_summary, "make_video", fake_make_video)
    theirs = torch_summary.video("v", vid, fps=fps)
    return captured["frames"], theirs


@pytest.mark.parametrize("batch", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("kind", ["uint8", "float32"])
def test_video_matches_torch(batch: int, kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    levels = RNG.integers(0, 4, (batch, 4, 3, 6, 5))  # few colours: GIF's palette keeps them exactly
    vid = (levels * 85).astype(np.uint8) if kind == "uint8" else (levels / 3).astype(np.float32)
    vid[:, 1:] = np.roll(vid[:, :-1], 1, axis=-1)  # frames differ (identical frames get merged by the GIF encoder)
    vid[:, :, 0, 0, 0] = np.arange(4) * 85 if kind == "uint8" else np.arange(4) / 3
    expected, theirs = torch_video_frames(vid, 4, monkeypatch)
    ours = summaries.video("v", vid, fps=4)
    mine, its = ours.value[0].image, theirs.value[0].image
    assert (ours.value[0].tag, mine.height, mine.width, mine.colorspace) == ("v", its.height, its.width, its.colorspace)
    gif = Image.open(io.BytesIO(ours.value[0].image.encoded_image_string))
    assert gif.format == "GIF"
    assert gif.info["loop"] == 0
    assert gif.info["duration"] == 250
    frames = pixels(ours.value[0].image.encoded_image_string)
    assert len(frames) == expected.shape[0]
    for frame, want in zip(frames, expected, strict=True):
        np.testing.assert_array_equal(frame, want)


def test_video_gray_and_tensor(monkeypatch: pytest.MonkeyPatch) -> None:
    vid = torch.randint(0, 2, (2, 3, 1, 4, 4)).float()
    vid[:, :, 0, 0, 0] = torch.arange(3).float() / 2
    expected, theirs = torch_video_frames(vid, 10, monkeypatch)
    ours = summaries.video("v", vid, fps=10)
    assert ours.value[0].image.colorspace == theirs.value[0].image.colorspace == 1
    assert (ours.value[0].image.height, ours.value[0].image.width) == (4, 8)
    frames = [frame[:, :, :1] for frame in pixels(ours.value[0].image.encoded_image_string)]
    np.testing.assert_array_equal(np.stack(frames), expected)


# --- audio ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "samples",
    [
        np.sin(np.linspace(0, 20, 1000)).astype(np.float32),
        np.sin(np.linspace(0, 20, 999)).reshape(1, -1),
        np.array([-1.0, 1.0, 0.0, 0.5]),
        torch.rand(1, 300) * 2 - 1,
        np.array([0, 1, -1, 0]),
    ],
)
@pytest.mark.parametrize("rate", [44100, 8000, 22050.4])
def test_audio_matches_torch(samples: Any, rate: float) -> None:
    assert_same(summaries.audio("a", samples, sample_rate=rate), torch_summary.audio("a", samples, sample_rate=rate))


def test_audio_clips_like_torch_with_a_warning(capsys: pytest.CaptureFixture[str]) -> None:
    samples = np.linspace(-3, 3, 101)
    theirs = torch_summary.audio("a", samples)
    assert "auto clipped" in capsys.readouterr().out
    with pytest.warns(UserWarning, match="add_audio: snd_tensor has samples outside"):
        ours = summaries.audio("a", samples)
    assert_same(ours, theirs)


def test_audio_nan_is_silence() -> None:
    with pytest.warns(UserWarning, match="add_audio: snd_tensor has NaN samples"):
        ours = summaries.audio("a", np.array([np.nan, 0.5]))
    pcm = np.frombuffer(ours.value[0].audio.encoded_audio_string[44:], "<i2")
    np.testing.assert_array_equal(pcm, [0, 16383])


def test_audio_float16_does_not_wrap() -> None:
    ours = summaries.audio("a", np.array([1.0, -1.0], dtype=np.float16))
    pcm = np.frombuffer(ours.value[0].audio.encoded_audio_string[44:], "<i2")
    np.testing.assert_array_equal(pcm, [32767, -32767])


# --- text, tensors -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["hello", "", "**markdown** ünïcode ✓\nline 2"])
def test_text_matches_torch(text: str) -> None:
    assert_same(summaries.text("notes", text), torch_summary.text("notes", text))


TENSOR_DTYPES = [
    torch.float16,
    torch.bfloat16,
    torch.float32,
    torch.float64,
    torch.int8,
    torch.uint8,
    torch.int16,
    torch.int32,
    torch.int64,
    torch.bool,
    torch.complex64,
    torch.complex128,
]


@pytest.mark.parametrize("dtype", TENSOR_DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(), (0,), (5,), (2, 3, 2)])
def test_tensor_matches_torch(dtype: torch.dtype, shape: tuple[int, ...]) -> None:
    values = (torch.randn(shape, dtype=torch.complex128) * 50).to(dtype) if dtype.is_complex else None
    if values is None:
        values = (torch.randn(shape) * 50).to(dtype) if dtype != torch.bool else torch.randn(shape) > 0
    theirs = torch_summary.tensor_proto("t", values)
    assert_same(summaries.tensor("t", values), theirs)
    if dtype != torch.bfloat16:  # numpy has no bfloat16
        assert_same(summaries.tensor("t", values.numpy()), theirs)


@pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental:UserWarning")
def test_tensor_rejects_complex32_as_torch_does() -> None:
    values = torch.zeros(3, dtype=torch.complex32)
    with pytest.raises(ValueError, match="DT_COMPLEX32"):
        torch_summary.tensor_proto("t", values)
    with pytest.raises(ValueError, match=r"add_tensor: tensor has dtype torch.complex32, which is not one of"):
        summaries.tensor("t", values)


def test_tensor_transposed_and_requiring_grad() -> None:
    values = torch.randn(3, 4, requires_grad=True)
    assert_same(summaries.tensor("t", values.t()), torch_summary.tensor_proto("t", values.t()))


# --- precision-recall curves ---------------------------------------------------------------------------------


@pytest.mark.parametrize("num_thresholds", [1, 2, 10, 127, 500])
@pytest.mark.parametrize("weights", [None, 2.5, "array"])
def test_pr_curve_matches_torch(num_thresholds: int, weights: Any) -> None:
    labels = RNG.integers(0, 2, 500)
    predictions = RNG.random(500).astype(np.float32)
    predictions[:3] = [0.0, 1.0, 0.5]
    if isinstance(weights, str):
        weights = RNG.random(500)
    theirs = torch_summary.pr_curve("pr", labels, predictions, num_thresholds, weights)
    assert_same(summaries.pr_curve("pr", labels, predictions, num_thresholds, weights), theirs)


def test_pr_curve_large_weighted_tensors_match_torch() -> None:
    labels = torch.rand(70_000) > 0.4
    predictions = torch.rand(70_000, dtype=torch.float64)
    weights = RNG.random(70_000) * 3
    theirs = torch_summary.pr_curve("pr", labels.numpy(), predictions.numpy(), 50, weights)
    assert_same(summaries.pr_curve("pr", labels, predictions, 50, weights), theirs)


def test_pr_curve_raw_matches_torch() -> None:
    n = 5
    arrays = [RNG.integers(0, 100, n), RNG.integers(0, 100, n), RNG.integers(0, 100, n), RNG.integers(0, 100, n)]
    precision, recall = RNG.random(n), RNG.random(n).astype(np.float32)
    theirs = torch_summary.pr_curve_raw("raw", *arrays, precision, recall, num_thresholds=n)
    assert_same(summaries.pr_curve_raw("raw", *arrays, precision, recall, num_thresholds=n), theirs)
    tensors = [torch.from_numpy(a) for a in [*arrays, precision, recall]]
    assert_same(summaries.pr_curve_raw("raw", *tensors, num_thresholds=n), theirs)
    theirs = torch_summary.pr_curve_raw("raw", *arrays, precision, recall, num_thresholds=300)
    assert_same(summaries.pr_curve_raw("raw", *arrays, precision, recall, num_thresholds=300), theirs)


# --- layouts and experiment metadata -------------------------------------------------------------------------


def test_custom_scalars_matches_torch() -> None:
    layout = {
        "Taiwan": {"twse": ["Multiline", ["twse/0050", "twse/2330"]]},
        "USA": {
            "dow": ["Margin", ["dow/aaa", "dow/bbb", "dow/ccc"]],
            "nasdaq": ("Margin", ("nasdaq/aaa", "nasdaq/bbb", "nasdaq/ccc")),
        },
        "empty": {},
    }
    ours = summaries.custom_scalars(layout)
    assert_same(ours, torch_summary.custom_scalars(layout))
    assert ours.value[0].tensor.HasField("tensor_shape")


@pytest.mark.parametrize(
    ("hparam_dict", "domains"),
    [
        ({"lr": 0.1, "bsize": 32, "opt": "adam", "nesterov": True, "dropout": None}, None),
        (
            {"lr": 0.1, "bsize": 32, "opt": "adam", "nesterov": False},
            {
                "lr": [0.1, 0.01],
                "bsize": [16, 32],
                "opt": ["adam", "sgd"],
                "nesterov": [True, False],
            },
        ),
        ({"scale": torch.tensor([0.5]), "n": 3}, {"n": [1, 2, 3]}),
        ({"x": np.float64(2.5)}, None),
        ({}, None),
    ],
)
def test_hparams_match_torch(hparam_dict: dict[str, Any], domains: dict[str, Any] | None) -> None:
    metrics = {"hparam/accuracy": 0.9, "hparam/loss": 1}
    ours = summaries.hparams(hparam_dict, metrics, domains)
    theirs = torch_summary.hparams(hparam_dict, metrics, domains)
    assert len(ours) == 3
    for mine, its in zip(ours, theirs, strict=True):
        assert_same(mine, its)


def test_hparams_can_write_bools_as_bools() -> None:
    experiment, start, _ = summaries.hparams(
        {"augment": True, "n": 2}, {}, {"augment": [True, False]}, bools_as_numbers=False
    )
    content = hparams_pb2.HParamsPluginData.FromString(start.value[0].metadata.plugin_data.content)
    assert content.session_start_info.hparams["augment"].WhichOneof("kind") == "bool_value"
    assert content.session_start_info.hparams["n"].number_value == 2
    info = hparams_pb2.HParamsPluginData.FromString(experiment.value[0].metadata.plugin_data.content)
    augment = info.experiment.hparam_infos[0]
    assert augment.type == hparams_pb2.DATA_TYPE_BOOL
    assert [v.bool_value for v in augment.domain_discrete.values] == [True, False]
    with pytest.raises(TypeError, match=r"add_hparams: hparam_domain_discrete\['b'\] must hold bools"):
        summaries.hparams({"b": True}, {}, {"b": [1]}, bools_as_numbers=False)


def test_session_start_and_end() -> None:
    hparam_dict = {"lr": 0.01, "optimizer": "adam", "augment": True, "skip": None}
    start = summaries.session_start(hparam_dict)
    _, expected, end = summaries.hparams(hparam_dict, {}, bools_as_numbers=False)
    assert start == expected
    assert summaries.session_end() == end
    timed = summaries.session_start(hparam_dict, start_time_secs=123.5)
    data = hparams_pb2.HParamsPluginData.FromString(timed.value[0].metadata.plugin_data.content)
    assert data.session_start_info.start_time_secs == 123.5
    assert data.session_start_info.hparams["augment"].bool_value is True
    failed = summaries.session_end(hparams_pb2.STATUS_FAILURE, end_time_secs=7)
    assert failed.value[0].tag == "_hparams_/session_end_info"
    data = hparams_pb2.HParamsPluginData.FromString(failed.value[0].metadata.plugin_data.content)
    assert (data.session_end_info.status, data.session_end_info.end_time_secs) == (hparams_pb2.STATUS_FAILURE, 7.0)
    with pytest.raises(ValueError, match=r"^close: status must be one of STATUS_UNKNOWN=0"):
        summaries.session_end(9)
    with pytest.raises(TypeError, match=r"^SummaryWriter: hparam_dict\['a'\] must be a number"):
        summaries.session_start({"a": [1]})


def test_hparams_accept_numpy_scalars_torch_rejects() -> None:
    _, start, _ = summaries.hparams({"n": np.int64(4), "f": np.float32(0.5), "b": np.bool_(True)}, {})
    content = hparams_pb2.HParamsPluginData.FromString(start.value[0].metadata.plugin_data.content)
    assert {k: v.number_value for k, v in content.session_start_info.hparams.items()} == {"n": 4, "f": 0.5, "b": 1}


@pytest.mark.parametrize("parts", ["v", "vc", "vf", "vcf"])
@pytest.mark.parametrize("config", [None, {"camera": {"cls": "PerspectiveCamera", "fov": 75}, "a": [1, 2]}])
def test_mesh_matches_torch(parts: str, config: dict[str, Any] | None) -> None:
    vertices = torch.tensor([[[1, 1, 1], [-1, -1, 1], [1, -1, -1], [-1, 1, -1]]], dtype=torch.float)
    colors = torch.tensor([[[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 0, 255]]], dtype=torch.int)
    faces = torch.tensor([[[0, 2, 3], [0, 3, 1], [0, 1, 2], [1, 3, 2]]], dtype=torch.int)
    args = (vertices, colors if "c" in parts else None, faces if "f" in parts else None, config)
    assert_same(summaries.mesh("m", *args), torch_summary.mesh("m", *args))
    named = {"display_name": "My mesh", "description": "*four* points"}
    assert_same(summaries.mesh("m", *args, **named), torch_summary.mesh("m", *args, **named))
    numpy_args = (vertices.numpy(), None if args[1] is None else args[1].numpy(), args[2], config)
    assert_same(summaries.mesh("m", *numpy_args), torch_summary.mesh("m", *args))


# --- errors --------------------------------------------------------------------------------------------------

IMG = np.zeros((3, 4, 4))
BOXES = np.zeros((1, 4))
VID = np.zeros((1, 2, 3, 4, 4))
ERRORS: list[tuple[Any, tuple[Any, ...], dict[str, Any], type[Exception], str]] = [
    # builder, args, kwargs, error, message (regex)
    (summaries.scalar_tensor, ("", 1.0), {}, ValueError, r"add_scalar: tag must be a non-empty string"),
    (summaries.scalar_tensor, ("x", "1.0"), {}, TypeError, r"add_scalar: scalar_value must be"),
    (summaries.scalar_tensor, ("x", [1.0, 2.0]), {}, ValueError, r"add_scalar: scalar_value must be a single number"),
    (summaries.histogram, (3, [1.0]), {}, TypeError, r"add_histogram: tag must be a non-empty string"),
    (summaries.histogram, ("h", []), {}, ValueError, r"add_histogram: values is empty"),
    (summaries.histogram, ("h", np.zeros((0, 3))), {}, ValueError, r"add_histogram: values is empty"),
    (summaries.histogram, ("h", "abc"), {}, TypeError, r"add_histogram: values must be"),
    (summaries.histogram, ("h", np.array([1j])), {}, TypeError, r"add_histogram: values must hold real numbers"),
    (summaries.histogram, ("h", [1.0], "bogus"), {}, ValueError, r"add_histogram: bins must be 'tensorflow', auto"),
    (summaries.histogram, ("h", [1.0], 0), {}, ValueError, r"add_histogram: bins must be at least 1, got 0"),
    (summaries.histogram, ("h", [1.0], 2.5), {}, TypeError, r"add_histogram: bins must be .* got float 2.5"),
    (summaries.histogram, ("h", [1.0], True), {}, TypeError, r"add_histogram: bins must be .* got bool"),
    (summaries.histogram, ("h", [1.0], [0.0]), {}, ValueError, r"add_histogram: bins must be a 1-D sequence of at"),
    (summaries.histogram, ("h", [1.0], [[0.0, 1.0]]), {}, ValueError, r"add_histogram: bins must be a 1-D"),
    (summaries.histogram, ("h", [1.0], [0, np.inf]), {}, ValueError, r"add_histogram: bins must hold finite"),
    (summaries.histogram, ("h", [1.0], [0, np.nan]), {}, ValueError, r"add_histogram: bins must hold finite"),
    (
        summaries.histogram,
        ("h", [1.0], [0, 2, 1]),
        {},
        ValueError,
        r"add_histogram: bins must be increasing.*bins\[1\]",
    ),
    (summaries.histogram, ("h", [1.0], ["a", "b"]), {}, TypeError, r"add_histogram: bins must hold numbers"),
    (summaries.histogram, ("h", [np.nan], 10), {}, ValueError, r"add_histogram: values must all be finite when bins"),
    (summaries.histogram, ("h", [1.0, np.inf], "auto"), {}, ValueError, r"add_histogram: values must all be finite"),
    (summaries.histogram, ("h", [np.nan, 1e30]), {}, ValueError, r"add_histogram: no value of values lies within"),
    (summaries.histogram, ("h", [5.0], [0, 1, 2]), {}, ValueError, r"add_histogram: no value of values lies within"),
    (summaries.histogram, ("h", [1.0]), {"max_bins": 0}, ValueError, r"add_histogram: max_bins must be at least 1"),
    (summaries.histogram, ("h", [1.0]), {"max_bins": 2.0}, TypeError, r"add_histogram: max_bins must be an integer"),
    (
        summaries.histogram_raw,
        ("h", 0, 1, 2, 1, 1, [1, 2], [1]),
        {},
        ValueError,
        r"add_histogram_raw: bucket_limits and bucket_counts must have the same length, got 2 and 1",
    ),
    (summaries.histogram_raw, ("h", 0, 1, 2, 1, 1, [[1]], [[1]]), {}, ValueError, r"add_histogram_raw: .* must be 1-D"),
    (summaries.histogram_raw, ("h", "0", 1, 2, 1, 1, [1], [1]), {}, TypeError, r"add_histogram_raw: min must be"),
    (summaries.histogram_raw, ("h", 0, 1, [2, 3], 1, 1, [1], [1]), {}, ValueError, r"add_histogram_raw: num must be"),
    (
        summaries.image,
        ("i", np.zeros((3, 4))),
        {},
        ValueError,
        r"add_image: img_tensor must have 3 dimensions for dataformats='CHW', got shape \(3, 4\)",
    ),
    (summaries.image, ("i", IMG), {"dataformats": "CCW"}, ValueError, r"add_image: dataformats must name each axis"),
    (summaries.image, ("i", IMG), {"dataformats": "XYZ"}, ValueError, r"add_image: dataformats must name each axis"),
    (summaries.image, ("i", IMG), {"dataformats": 3}, TypeError, r"add_image: dataformats must be a string"),
    (summaries.image, ("i", np.zeros((5, 4, 4))), {}, ValueError, r"add_image: img_tensor must have 1, 2, 3 or 4 chan"),
    (summaries.image, ("i", np.zeros((3, 0, 4))), {}, ValueError, r"add_image: img_tensor must have a non-zero height"),
    (summaries.image, ("i", IMG.astype(complex)), {}, TypeError, r"add_image: img_tensor must hold real numbers"),
    (summaries.image, ("i", None), {}, TypeError, r"add_image: img_tensor must be a number, numpy array or torch"),
    (
        summaries.images,
        ("i", np.zeros((2, 4, 4, 4))),
        {},
        ValueError,
        r"add_images: a batch of images must have 1 or 3 channels, got 4",
    ),
    (summaries.images, ("i", np.zeros((0, 3, 4, 4))), {}, ValueError, r"add_images: img_tensor holds no image"),
    (summaries.images, ("i", IMG), {}, ValueError, r"add_images: img_tensor must have 4 dimensions for dataformats="),
    (
        summaries.image_with_boxes,
        ("b", IMG, np.zeros(4)),
        {},
        ValueError,
        r"add_image_with_boxes: box_tensor must have shape \(N, 4\)",
    ),
    (summaries.image_with_boxes, ("b", IMG, np.zeros((2, 3))), {}, ValueError, r"add_image_with_boxes: box_tensor"),
    (summaries.image_with_boxes, ("b", IMG, BOXES), {"rescale": 0}, ValueError, r"add_image_with_boxes: rescale must"),
    (summaries.image_with_boxes, ("b", IMG, BOXES), {"rescale": 0.01}, ValueError, r"add_image_with_boxes: rescale="),
    (summaries.image_with_boxes, ("b", IMG, BOXES), {"labels": 5}, TypeError, r"add_image_with_boxes: labels must"),
    (summaries.figure, ("f", "not a figure"), {}, TypeError, r"add_figure: figure must be a matplotlib Figure"),
    (summaries.figure, ("f", []), {}, ValueError, r"add_figure: figure is an empty list"),
    (
        summaries.figure,
        ("f", [make_figure(), make_figure(3, 1)]),
        {},
        ValueError,
        r"add_figure: all figures in the list must render to the same size, got 80x60, 120x40",
    ),
    (summaries.video, ("v", np.zeros((2, 3, 4, 4))), {}, ValueError, r"add_video: vid_tensor must have 5 dimensions"),
    (summaries.video, ("v", np.zeros((1, 0, 3, 4, 4))), {}, ValueError, r"add_video: vid_tensor must not have an emp"),
    (summaries.video, ("v", np.zeros((1, 2, 2, 4, 4))), {}, ValueError, r"add_video: vid_tensor must have 1, 3 or 4"),
    (summaries.video, ("v", VID), {"fps": 0}, ValueError, r"add_video: fps must be a positive finite number"),
    (summaries.video, ("v", VID), {"fps": "4"}, TypeError, r"add_video: fps must be a positive number"),
    (summaries.audio, ("a", np.zeros((2, 10))), {}, ValueError, r"add_audio: snd_tensor must be mono, of shape"),
    (summaries.audio, ("a", np.zeros(0)), {}, ValueError, r"add_audio: snd_tensor is empty"),
    (summaries.audio, ("a", np.zeros(3)), {"sample_rate": -1}, ValueError, r"add_audio: sample_rate must be a pos"),
    (summaries.audio, ("a", np.zeros(3)), {"sample_rate": True}, TypeError, r"add_audio: sample_rate must be a pos"),
    (summaries.audio, ("a", np.zeros(3)), {"sample_rate": 2**40}, ValueError, r"add_audio: sample_rate must be betw"),
    (summaries.audio, ("a", np.zeros(3, complex)), {}, TypeError, r"add_audio: snd_tensor must hold real numbers"),
    (summaries.text, ("t", b"bytes"), {}, TypeError, r"add_text: text_string must be a string, got bytes"),
    (summaries.text, (None, "x"), {}, TypeError, r"add_text: tag must be a non-empty string"),
    (summaries.tensor, ("t", np.zeros(3, np.uint16)), {}, ValueError, r"add_tensor: tensor has dtype uint16, which is"),
    (
        summaries.tensor,
        ("t", torch.zeros(3, dtype=torch.uint16)),
        {},
        ValueError,
        r"add_tensor: tensor has dtype torch.uint16, which is",
    ),
    (summaries.tensor, ("t", "abc"), {}, TypeError, r"add_tensor: tensor must be"),
    (
        summaries.pr_curve,
        ("p", [0, 1], [0.5]),
        {},
        ValueError,
        r"add_pr_curve: labels and predictions must have the same shape, got \(2,\) and \(1,\)",
    ),
    (
        summaries.pr_curve,
        ("p", [0, 1], [0.5, 1.5]),
        {},
        ValueError,
        r"add_pr_curve: predictions must be probabilities in \[0, 1\], got 1 outside it \(the first is 1.5\)",
    ),
    (summaries.pr_curve, ("p", [0, 1], [0.5, np.nan]), {}, ValueError, r"add_pr_curve: predictions must be probab"),
    (
        summaries.pr_curve,
        ("p", [0, 1], [0.5, 0.5]),
        {"num_thresholds": 0},
        ValueError,
        r"add_pr_curve: num_thresholds must be at least 1",
    ),
    (
        summaries.pr_curve,
        ("p", [0, 1], [0.5, 0.5]),
        {"num_thresholds": 12.0},
        TypeError,
        r"add_pr_curve: num_thresholds must be an integer",
    ),
    (
        summaries.pr_curve,
        ("p", [0, 1], [0.5, 0.5]),
        {"weights": [1, 2, 3]},
        ValueError,
        r"add_pr_curve: weights must be a number or have the shape of labels",
    ),
    (
        summaries.pr_curve_raw,
        ("p", [1], [1], [1], [1], [1], [1, 2]),
        {},
        ValueError,
        r"add_pr_curve_raw: the six arrays must have the same length, got .*recall=2",
    ),
    (
        summaries.pr_curve_raw,
        ("p", [[1]], [1], [1], [1], [1], [1]),
        {},
        ValueError,
        r"add_pr_curve_raw: true_positive_counts must be 1-D",
    ),
    (summaries.custom_scalars, ([],), {}, TypeError, r"add_custom_scalars: layout must be a dict"),
    (summaries.custom_scalars, ({"c": []},), {}, TypeError, r"add_custom_scalars: layout\['c'\] must be a dict"),
    (
        summaries.custom_scalars,
        ({"c": {"t": ["Multiline"]}},),
        {},
        ValueError,
        r"add_custom_scalars: layout\['c'\]\['t'\] must be \['Multiline', \[tags\]\]",
    ),
    (
        summaries.custom_scalars,
        ({"c": {"t": ["Margin", ["a", "b"]]}},),
        {},
        ValueError,
        r"add_custom_scalars: layout\['c'\]\['t'\] is a Margin chart and needs 3 tags",
    ),
    (
        summaries.custom_scalars,
        ({"c": {"t": ["multiline", ["a"]]}},),
        {},
        ValueError,
        r"add_custom_scalars: layout\['c'\]\['t'\]\[0\] must be 'Multiline' or 'Margin'",
    ),
    (
        summaries.custom_scalars,
        ({"c": {"t": ["Multiline", "a"]}},),
        {},
        TypeError,
        r"add_custom_scalars: layout\['c'\]\['t'\]\[1\] must be a list of tag strings",
    ),
    (summaries.custom_scalars, ({1: {}},), {}, TypeError, r"add_custom_scalars: layout key \(a category title\)"),
    (summaries.hparams, ([], {}), {}, TypeError, r"add_hparams: hparam_dict must be a dict"),
    (summaries.hparams, ({}, None), {}, TypeError, r"add_hparams: metric_dict must be a dict"),
    (summaries.hparams, ({"a": [1]}, {}), {}, TypeError, r"add_hparams: hparam_dict\['a'\] must be a number, bool"),
    (summaries.hparams, ({1: 2}, {}), {}, TypeError, r"add_hparams: hparam_dict key must be a string"),
    (summaries.hparams, ({"a": 1}, {2: 1}), {}, TypeError, r"add_hparams: metric_dict key must be a string"),
    (
        summaries.hparams,
        ({"a": 1}, {}, {"b": [1]}),
        {},
        ValueError,
        r"add_hparams: hparam_domain_discrete has 'b', which is not a key of hparam_dict",
    ),
    (summaries.hparams, ({"a": 1}, {}, {"a": 1}), {}, TypeError, r"add_hparams: hparam_domain_discrete\['a'\] must be"),
    (
        summaries.hparams,
        ({"a": 1}, {}, {"a": ["x"]}),
        {},
        TypeError,
        r"add_hparams: hparam_domain_discrete\['a'\] must hold numbers",
    ),
    (
        summaries.hparams,
        ({"a": "x"}, {}, {"a": [1]}),
        {},
        TypeError,
        r"add_hparams: hparam_domain_discrete\['a'\] must hold strings",
    ),
    (summaries.hparams, ({"a": 1}, {}, ["a"]), {}, TypeError, r"add_hparams: hparam_domain_discrete must be a dict"),
    (summaries.hparams, ({"a": np.zeros(3)}, {}), {}, ValueError, r"add_hparams: hparam_dict\['a'\] must be a single"),
    (summaries.mesh, ("m", None, None, None, None), {}, ValueError, r"add_mesh: vertices is required"),
    (
        summaries.mesh,
        ("m", np.zeros((4, 3)), None, None, None),
        {},
        ValueError,
        r"add_mesh: vertices must have shape \(B, N, 3\), got \(4, 3\)",
    ),
    (
        summaries.mesh,
        ("m", np.zeros((1, 4, 3)), np.zeros((1, 4, 4)), None, None),
        {},
        ValueError,
        r"add_mesh: colors must have shape \(B, N, 3\)",
    ),
    (
        summaries.mesh,
        ("m", np.zeros((1, 4, 3)), None, None, {"a": object()}),
        {},
        TypeError,
        r"add_mesh: config_dict must be JSON-serialisable",
    ),
    (
        summaries.mesh,
        ("m", np.zeros((1, 4, 3)), None, None, None),
        {"display_name": 3},
        TypeError,
        r"add_mesh: display_name must be a string",
    ),
]


@pytest.mark.parametrize(
    ("builder", "args", "kwargs", "error", "message"),
    ERRORS,
    ids=[f"{i}-{case[0].__name__}" for i, case in enumerate(ERRORS)],
)
def test_bad_input_names_method_and_argument(
    builder: Any, args: tuple[Any, ...], kwargs: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        builder(*args, **kwargs)


def test_method_prefix_can_be_chosen() -> None:
    with pytest.raises(TypeError, match=r"^SummaryWriter: hparam_dict\['a'\] must be"):
        summaries.hparams({"a": object()}, {}, method="SummaryWriter")
    with pytest.raises(ValueError, match=r"^add_scalars: tag must be"):
        summaries.scalar_tensor("", 1.0, method="add_scalars")


def test_no_heavy_imports() -> None:
    code = (
        "import sys, ridgeline.writer.summaries\n"
        "heavy = [m for m in ('torch', 'matplotlib', 'PIL', 'tensorboard') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_histogram_one_empty_bin_matches_torch() -> None:
    values = np.array([5.0, np.nan])
    assert_same(summaries.histogram("h", values, [0, 1]), torch_summary.histogram("h", values, [0, 1]))
