"""Log directories with histograms for the histograms/distributions API and browser tests, written by the real
writers: torch's SummaryWriter (legacy HistogramProto), ridgeline's, and TF2-style ``[k, 3]`` tensor summaries
framed by hand (as Keras writes them), plus the bad cases: one bucket, empty counts, an undecodable value.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

import ridgeline
from ridgeline.format import records
from ridgeline.format.proto import event_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2, types_pb2

WALL = 1_700_000_000.0
TORCH_TAGS = ("weights/fc1", "weights/fc2", "grad/fc1")
STEPS = 40


def values_at(step: int, layer: int, size: int = 500) -> np.ndarray:
    rng = np.random.default_rng(1000 * layer + step)
    return rng.normal(loc=step / STEPS * (layer + 1), scale=1.0 + step / STEPS, size=size)


def tf2_buckets(step: int) -> np.ndarray:
    """A TF2 histogram: 30 equal buckets over the values, as ``tf.summary.histogram`` writes them."""
    counts, edges = np.histogram(values_at(step, 3), bins=30)
    return np.column_stack((edges[:-1], edges[1:], counts)).astype(np.float64)


def _tensor(array: np.ndarray) -> tensor_pb2.TensorProto:
    dims = [tensor_shape_pb2.TensorShapeProto.Dim(size=d) for d in array.shape]
    return tensor_pb2.TensorProto(
        dtype=types_pb2.DT_DOUBLE,
        tensor_shape=tensor_shape_pb2.TensorShapeProto(dim=dims),
        tensor_content=array.tobytes(),
    )


def write_tf2_run(directory: Path, steps: int = STEPS) -> None:
    """Keras-style: tensor summaries with the histograms plugin's metadata on the first value only; the last
    step's value is a truncated tensor (undecodable)."""
    meta = summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="histograms"))
    events = [event_pb2.Event(wall_time=WALL, step=0, file_version="brain.Event:2")]
    for step in range(steps):
        value = summary_pb2.Summary.Value(tag="dense/kernel_0", tensor=_tensor(tf2_buckets(step)))
        if step == 0:
            value.metadata.CopyFrom(meta)
        events.append(event_pb2.Event(wall_time=WALL + step, step=step, summary=summary_pb2.Summary(value=[value])))
    broken = tensor_pb2.TensorProto(
        dtype=types_pb2.DT_DOUBLE,
        tensor_shape=tensor_shape_pb2.TensorShapeProto(
            dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=d) for d in (2, 3)]
        ),
        tensor_content=b"\x00" * 7,
    )
    bad = summary_pb2.Summary.Value(tag="dense/kernel_0", tensor=broken)
    events.append(event_pb2.Event(wall_time=WALL + steps, step=steps, summary=summary_pb2.Summary(value=[bad])))
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "events.out.tfevents.1.keras"
    path.write_bytes(b"".join(records.frame(e.SerializeToString()) for e in events))


def write_histogram_logs(root: Path) -> Path:
    """``torch`` (three tags), ``ridgeline`` (the same tags, plus ``odd/single`` with one bucket and
    ``odd/empty`` with no count) and ``keras`` (``dense/kernel_0`` as [k, 3] tensors, its last step corrupt)."""
    from torch.utils.tensorboard import SummaryWriter

    torch_writer = SummaryWriter(str(root / "torch"))
    ours = ridgeline.SummaryWriter(str(root / "ridgeline"))
    for step in range(STEPS):
        for layer, tag in enumerate(TORCH_TAGS):
            torch_writer.add_histogram(tag, values_at(step, layer), step, walltime=WALL + step)
            ours.add_histogram(tag, values_at(step, layer) + 1.0, step, walltime=WALL + step)
        ours.add_histogram("odd/single", np.full(10, 2.5), step, walltime=WALL + step)
        ours.add_histogram_raw(
            "odd/empty", min=0.0, max=0.0, num=0, sum=0.0, sum_squares=0.0,
            bucket_limits=[0.0, 1.0], bucket_counts=[0.0, 0.0], global_step=step, walltime=WALL + step,
        )  # fmt: skip
    torch_writer.close()
    ours.close()
    write_tf2_run(root / "keras")
    return root
