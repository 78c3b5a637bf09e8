"""What the summaries tests share: comparing our protos with torch's, and a small matplotlib figure.

torch's protos are re-read as ours (the field numbers match), then both are compared as dicts, with plugin payloads
decoded too (their bytes hold maps, whose order is not fixed). Images are compared by their decoded pixels, and
videos against the frames torch would hand to moviepy (not installed here; we encode the GIF with Pillow).
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np
from google.protobuf.json_format import MessageToDict
from matplotlib.figure import Figure
from PIL import Image, ImageSequence

from ridgeline.format.proto import custom_scalars_pb2, hparams_pb2, plugins_pb2, summary_pb2

PLUGIN_CONTENT: dict[str, Any] = {
    "hparams": hparams_pb2.HParamsPluginData,
    "pr_curves": plugins_pb2.PrCurvePluginData,
    "mesh": plugins_pb2.MeshPluginData,
    "text": plugins_pb2.TextPluginData,
    "scalars": plugins_pb2.ScalarPluginData,
}


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


def make_figure(width: float = 2.0, height: float = 1.5) -> Figure:
    fig = Figure(figsize=(width, height), dpi=40)
    axes = fig.add_subplot()
    axes.plot([0, 1, 2], [2, 0, 1])
    return fig
