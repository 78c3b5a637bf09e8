"""image, images, image_with_boxes, figure and video against torch's: the same fields and the same pixels."""

from __future__ import annotations

import io
from typing import Any

import matplotlib
import numpy as np
import pytest
import torch
from PIL import Image
from torch.utils.tensorboard import summary as torch_summary
from torch.utils.tensorboard._utils import figure_to_image

from ridgeline.writer import summaries
from tests.writer.summaries.helpers import assert_same, decoded, make_figure, pixels

matplotlib.use("Agg")
import matplotlib.pyplot as plt

RNG = np.random.default_rng(1234)


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
