"""The log directory of the text and PR-curve tests (API and browser), written by the real writers.

- ``torch``: torch's SummaryWriter (``add_text`` with a markdown table and an injection payload,
  ``add_pr_curve`` over three steps, ``add_pr_curve_raw``).
- ``tbx``: tensorboardX's SummaryWriter (``add_text``, ``add_pr_curve`` with 5 thresholds).
- ``ridgeline``: ridgeline's SummaryWriter (``add_text``, ``add_pr_curve``, ``add_pr_curve_raw``; it records its
  run metadata and an annotation, which the text dashboard must not list as tags).
- ``odd``: hand-made summaries no writer makes but files may hold: a 2-D text table, a rank-3 text tensor, text
  with invalid UTF-8, a PR-curve tensor of shape [5, 4] (wrong) next to a good one.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

import ridgeline
from ridgeline.format.proto import plugins_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2, types_pb2

WALL = 1_700_000_000.0
# Script a page must never run: each payload sets a global (window.__pwned) or opens a dialog if executed.
PAYLOAD = (
    "Injected: <script>window.__pwned = 'script'; alert('script')</script> and "
    "<img src=\"x\" onerror=\"window.__pwned = 'onerror'; alert('onerror')\"> end"
)
MARKDOWN = "# Results {step}\n\n| metric | value |\n|---|---|\n| accuracy | 0.{step}5 |\n\n**bold** and `code`"
LONG = "\n\n".join(f"line {i}: " + "lorem ipsum " * 8 for i in range(300))
RAW_PR = {
    "tp": [10.0, 8.0, 5.0, 0.0],
    "fp": [10.0, 5.0, 2.0, 0.0],
    "tn": [0.0, 5.0, 8.0, 10.0],
    "fn": [0.0, 2.0, 5.0, 10.0],
    "precision": [0.5, 0.625, 0.75, 1.0],
    "recall": [1.0, 0.75, 0.5, 0.0],
}


def pr_inputs(step: int, n: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """Labels and predictions that separate better as ``step`` grows (deterministic)."""
    rng = np.random.default_rng(step)
    labels = rng.integers(0, 2, n)
    predictions = np.clip(labels * (0.2 + 0.2 * step) + rng.random(n) * 0.6, 0, 1)
    return labels, predictions


def write_logs(root: Path) -> Path:
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    torch_writer = TorchWriter(str(root / "torch"))
    for step in range(3):
        torch_writer.add_text("notes", MARKDOWN.format(step=step), step, walltime=WALL + step)
        labels, predictions = pr_inputs(step)
        torch_writer.add_pr_curve("pr/cat", labels, predictions, step, walltime=WALL + step)
    torch_writer.add_text("notes", PAYLOAD, 3, walltime=WALL + 3)
    torch_writer.add_text("long", LONG, 0, walltime=WALL)
    torch_writer.add_pr_curve_raw("pr/raw", *RAW_PR.values(), global_step=0, num_thresholds=4, walltime=WALL)
    torch_writer.close()

    import tensorboardX

    tbx = tensorboardX.SummaryWriter(str(root / "tbx"))
    tbx.add_text("notes", "from *tensorboardX*", 0, walltime=WALL)
    tbx.add_pr_curve("pr/cat", *pr_inputs(2), 0, num_thresholds=5, walltime=WALL)
    tbx.close()

    with ridgeline.SummaryWriter(root / "ridgeline") as writer:
        writer.add_text("notes", "hello from **ridgeline**", 0, walltime=WALL)
        writer.add_text("notes", "second note", 5, walltime=WALL + 5)
        writer.add_annotation("an annotation", 1, walltime=WALL + 1)
        labels, predictions = pr_inputs(1)
        writer.add_pr_curve("pr/cat", labels, predictions, 0, walltime=WALL)
        writer.add_pr_curve_raw("pr/raw", *RAW_PR.values(), global_step=0, num_thresholds=4, walltime=WALL)

    with ridgeline.SummaryWriter(root / "odd", record_run_metadata=False) as writer:
        file = writer.file_writer
        assert file is not None
        table = np.array([["**a**", "b"], ["c", "d"]], dtype=object)
        file.add_summary(text_tensor("table", table), 0, WALL)
        file.add_summary(text_tensor("cube", np.array([[["x", "y"], ["z", "w"]]] * 2, dtype=object)), 0, WALL)
        file.add_summary(text_tensor("bad_utf8", np.array([b"caf\xe9 \xff ok"], dtype=object)), 0, WALL)
        file.add_summary(pr_tensor("pr/bad", np.ones((5, 4))), 0, WALL)
        file.add_summary(pr_tensor("pr/bad", np.array([RAW_PR[k] for k in RAW_PR])), 1, WALL + 1)
    return root


def text_tensor(tag: str, cells: np.ndarray) -> summary_pb2.Summary:
    """A text-plugin summary of ``cells`` (str or bytes) with their shape."""
    values = [c if isinstance(c, bytes) else str(c).encode() for c in cells.reshape(-1)]
    return _summary(tag, "text", plugins_pb2.TextPluginData(version=0).SerializeToString(), cells.shape, string=values)


def pr_tensor(tag: str, rows: np.ndarray) -> summary_pb2.Summary:
    """A pr_curves-plugin summary of ``rows`` as a float tensor of their shape (right or wrong)."""
    content = plugins_pb2.PrCurvePluginData(version=0, num_thresholds=rows.shape[-1]).SerializeToString()
    return _summary(tag, "pr_curves", content, rows.shape, floats=rows.reshape(-1).tolist())


def _summary(
    tag: str,
    plugin: str,
    content: bytes,
    shape: tuple[int, ...],
    *,
    string: list[bytes] | None = None,
    floats: list[float] | None = None,
) -> summary_pb2.Summary:
    metadata = summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name=plugin, content=content)
    )
    dims = [tensor_shape_pb2.TensorShapeProto.Dim(size=size) for size in shape]
    tensor = tensor_pb2.TensorProto(tensor_shape=tensor_shape_pb2.TensorShapeProto(dim=dims))
    if string is not None:
        tensor.dtype = types_pb2.DT_STRING
        tensor.string_val.extend(string)
    else:
        tensor.dtype = types_pb2.DT_FLOAT
        tensor.float_val.extend(floats or [])
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, metadata=metadata, tensor=tensor)])
