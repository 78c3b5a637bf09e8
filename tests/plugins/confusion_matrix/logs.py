"""The log directory of the confusion matrix tests (API and browser), written by ridgeline's writer and by hand.

- ``model_a``: ``add_confusion_matrix("eval/confusion", ...)`` at steps 0, 5 and 10 over three classes, getting
  more diagonal; and ``add_confusion_matrix("eval/other", ...)`` at step 10 over two classes.
- ``model_b``: ``eval/confusion`` at steps 0 and 10 only.
- ``odd``: hand-made values of the plugin that no writer makes: a [2, 3] tensor at step 0 (wrong shape) before a
  good one at step 1.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ridgeline import SummaryWriter
from ridgeline.format.proto import summary_pb2, tensor_pb2, tensor_shape_pb2, types_pb2
from ridgeline.format.tags import CONFUSION_MATRIX_PLUGIN
from ridgeline.writer.summaries._confusion_matrix import confusion_matrix_content

WALL = 1_700_000_000.0
CLASSES = ["cat", "dog", "bird"]
STEPS = {"model_a": [0, 5, 10], "model_b": [0, 10]}


def labels(run: str, step: int, size: int = 90) -> tuple[np.ndarray, np.ndarray]:
    """True and predicted classes (deterministic per run and step): right more often as ``step`` grows."""
    rng = np.random.default_rng([sum(map(ord, run)), step])
    truth = rng.integers(0, len(CLASSES), size)
    right = rng.random(size) < 0.4 + 0.05 * step
    return truth, np.where(right, truth, rng.integers(0, len(CLASSES), size))


def expected_counts(truth: np.ndarray, predicted: np.ndarray, classes: int) -> np.ndarray:
    """The confusion matrix counted one sample at a time (independently of the writer's bincount)."""
    counts = np.zeros((classes, classes), dtype=np.int64)
    for t, p in zip(truth.tolist(), predicted.tolist(), strict=True):
        counts[t, p] += 1
    return counts


def other_labels() -> tuple[list[int], list[int]]:
    return [0, 0, 0, 1, 1], [0, 0, 1, 1, 1]


def _hand_made(values: np.ndarray) -> summary_pb2.Summary:
    metadata = summary_pb2.SummaryMetadata()
    metadata.plugin_data.plugin_name = CONFUSION_MATRIX_PLUGIN
    metadata.plugin_data.content = confusion_matrix_content(CLASSES)
    shape = tensor_shape_pb2.TensorShapeProto(
        dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=size) for size in values.shape]
    )
    tensor = tensor_pb2.TensorProto(dtype=types_pb2.DT_INT64, tensor_shape=shape, int64_val=values.reshape(-1).tolist())
    value = summary_pb2.Summary.Value(tag="eval/confusion", metadata=metadata, tensor=tensor)
    return summary_pb2.Summary(value=[value])


def write_logs(root: Path) -> Path:
    for run, steps in STEPS.items():
        with SummaryWriter(root / run) as writer:
            for step in steps:
                truth, predicted = labels(run, step)
                writer.add_confusion_matrix("eval/confusion", truth, predicted, CLASSES, step, walltime=WALL + step)
            if run == "model_a":
                truth_list, predicted_list = other_labels()
                writer.add_confusion_matrix("eval/other", truth_list, predicted_list, ["no", "yes"], 10, WALL)
    with SummaryWriter(root / "odd", record_run_metadata=False) as writer:
        writer._write_summary("test", _hand_made(np.arange(6).reshape(2, 3)), 0, WALL)
        writer._write_summary("test", _hand_made(np.eye(3, dtype=np.int64) * 4), 1, WALL + 1)
    return root
