"""add_confusion_matrix: counts written by ridgeline read back equal to sklearn's, through ridgeline's reader and
through TensorBoard's own (which lists the value as a tensor of our plugin); bad arguments refused by name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from sklearn.metrics import confusion_matrix as sklearn_confusion_matrix

import ridgeline
from ridgeline import SummaryWriter
from ridgeline.format.tags import CONFUSION_MATRIX_PLUGIN

RNG = np.random.default_rng(21)
CLASSES = ["cat", "dog", "bird", "fish"]


def _labels(size: int, n: int = len(CLASSES)) -> tuple[np.ndarray, np.ndarray]:
    truth = RNG.integers(0, n, size)
    predicted = np.where(RNG.random(size) < 0.7, truth, RNG.integers(0, n, size))
    return truth, predicted


@pytest.mark.parametrize("container", ["numpy", "list", "torch", "names"])
def test_counts_read_back_equal_sklearns(tmp_path: Path, container: str) -> None:
    steps = {step: _labels(300) for step in (0, 5, 10)}
    with SummaryWriter(tmp_path / "run") as writer:
        for step, (truth, predicted) in steps.items():
            y_true: Any
            y_pred: Any
            if container == "list":
                y_true, y_pred = truth.tolist(), predicted.tolist()
            elif container == "torch":
                y_true, y_pred = torch.from_numpy(truth), torch.from_numpy(predicted).to(torch.int32)
            elif container == "names":
                y_true, y_pred = [CLASSES[i] for i in truth], [CLASSES[i] for i in predicted]
            else:
                y_true, y_pred = truth, predicted
            writer.add_confusion_matrix("val/confusion", y_true, y_pred, CLASSES, step=step)
    logdir = ridgeline.open(tmp_path)
    assert logdir.tags("run") == {"confusion_matrices": ["val/confusion"]}
    entries = logdir.confusion_matrices("run", "val/confusion")
    assert [entry.step for entry in entries] == list(steps)
    for entry, (truth, predicted) in zip(entries, steps.values(), strict=True):
        expected = sklearn_confusion_matrix(truth, predicted, labels=range(len(CLASSES)))
        assert entry.value.counts.dtype == np.int64
        np.testing.assert_array_equal(entry.value.counts, expected)
        assert entry.value.class_names == tuple(CLASSES)


def test_counts_equal_a_plain_loop_for_classes_never_seen(tmp_path: Path) -> None:
    truth, predicted = [0, 0, 2, 2, 2], [0, 2, 2, 2, 0]  # class 1 never occurs, class 3 is not predicted
    with SummaryWriter(tmp_path) as writer:
        writer.add_confusion_matrix("cm", truth, predicted, ["a", "b", "c", "d"])
        writer.add_confusion_matrix("empty", [], [], ["only"], step=1)
    expected = np.zeros((4, 4), dtype=np.int64)
    for t, p in zip(truth, predicted, strict=True):
        expected[t, p] += 1
    logdir = ridgeline.open(tmp_path)
    [entry] = logdir.confusion_matrices(".", "cm")
    assert entry.step == 0
    np.testing.assert_array_equal(entry.value.counts, expected)
    [empty] = logdir.confusion_matrices(".", "empty")
    np.testing.assert_array_equal(empty.value.counts, [[0]])


def test_tensorboard_reads_it_as_a_tensor_of_our_plugin(tmp_path: Path) -> None:
    from tensorboard import context
    from tensorboard.backend.event_processing import plugin_event_accumulator
    from tensorboard.backend.event_processing.data_provider import MultiplexerDataProvider
    from tensorboard.backend.event_processing.plugin_event_multiplexer import EventMultiplexer
    from tensorboard.util import tensor_util

    truth, predicted = _labels(200)
    with SummaryWriter(tmp_path / "run") as writer:
        writer.add_scalar("loss", 1.0, 0)
        writer.add_confusion_matrix("val/confusion", truth, predicted, CLASSES, step=7)
    expected = sklearn_confusion_matrix(truth, predicted, labels=range(len(CLASSES)))

    accumulator = plugin_event_accumulator.EventAccumulator(str(tmp_path / "run"), size_guidance={"tensors": 0})
    accumulator.Reload()
    assert "val/confusion" in accumulator.Tags()["tensors"]
    [event] = accumulator.Tensors("val/confusion")
    assert event.step == 7
    counts = tensor_util.make_ndarray(event.tensor_proto)
    assert counts.dtype == np.int64
    np.testing.assert_array_equal(counts, expected)
    content = accumulator.PluginTagToContent(CONFUSION_MATRIX_PLUGIN)["val/confusion"]
    assert json.loads(content) == {"version": 1, "class_names": CLASSES}

    multiplexer = EventMultiplexer()
    multiplexer.AddRunsFromDirectory(str(tmp_path))
    multiplexer.Reload()
    provider = MultiplexerDataProvider(multiplexer, str(tmp_path))
    ctx = context.RequestContext()
    listed = provider.list_tensors(ctx, experiment_id="", plugin_name=CONFUSION_MATRIX_PLUGIN)
    assert list(listed) == ["run"] and list(listed["run"]) == ["val/confusion"]
    read = provider.read_tensors(ctx, experiment_id="", plugin_name=CONFUSION_MATRIX_PLUGIN, downsample=10)
    [datum] = read["run"]["val/confusion"]
    np.testing.assert_array_equal(datum.numpy, expected)


@pytest.mark.parametrize(
    ("y_true", "y_pred", "class_names", "error", "message"),
    [
        ([0, 1], [0], ["a", "b"], ValueError, "y_true and y_pred must have the same length, got 2 and 1"),
        ([0, 2], [0, 1], ["a", "b"], ValueError, "y_true holds 1 labels outside 0..1"),
        ([0, 1], [0, -1], ["a", "b"], ValueError, "y_pred holds 1 labels outside 0..1"),
        ([0, 1.5], [0, 1], ["a", "b"], TypeError, "y_true must hold integer class indices, got 1.5"),
        ([True, False], [0, 1], ["a", "b"], TypeError, "y_true must hold integer class indices, got booleans"),
        ([0, 1], ["a", "z"], ["a", "b"], ValueError, "y_pred holds 1 labels that are not in class_names"),
        ([[0, 1]], [[0, 1]], ["a", "b"], ValueError, "y_true must be 1-D"),
        ("ab", [0, 1], ["a", "b"], TypeError, "y_true must be a list, numpy array or torch tensor"),
        ([0], [0], [], ValueError, "class_names must name at least one class"),
        ([0], [0], "ab", TypeError, "class_names must be a list of strings"),
        ([0], [0], ["a", 1], TypeError, r"class_names\[1\] must be a string"),
        ([0], [0], ["a", "a"], ValueError, "class_names must be distinct"),
        ([0], [0], ["a", ""], ValueError, r"class_names\[1\] must be a non-empty string"),
    ],
)
def test_bad_arguments_are_named(
    tmp_path: Path, y_true: Any, y_pred: Any, class_names: Any, error: type[Exception], message: str
) -> None:
    with SummaryWriter(tmp_path) as writer:
        with pytest.raises(error, match="^add_confusion_matrix: " + message):
            writer.add_confusion_matrix("cm", y_true, y_pred, class_names)
        with pytest.raises(TypeError, match=r"^add_confusion_matrix: step must be an integer"):
            writer.add_confusion_matrix("cm", [0], [0], ["a"], step="one")
        with pytest.raises(ValueError, match=r"^add_confusion_matrix: tag must be a non-empty string"):
            writer.add_confusion_matrix("", [0], [0], ["a"])
    assert ridgeline.open(tmp_path).tags(".") == {}
