"""Bad input to every builder: the error names the SummaryWriter method and the argument."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

from ridgeline.writer import summaries
from tests.writer.summaries.helpers import make_figure

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
