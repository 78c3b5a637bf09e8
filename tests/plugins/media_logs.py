"""A log directory for the images and audio dashboards, written by the real writers: torch's SummaryWriter
(add_image, add_images NCHW and NHWC, add_image_with_boxes, add_figure, add_audio; its add_video needs moviepy),
ridgeline's (add_image, add_images, add_video as a GIF, add_audio), TensorFlow 2's tensor form (several PNGs in
one value, clips with labels) built with the format layer, and bad values written by hand: bytes that are no
image, a PNG cut after its header, an empty 0x0 image, a WAV clip with no audio in it."""

from __future__ import annotations

import io
import math
import wave
from pathlib import Path

import numpy as np

import ridgeline
from ridgeline.format.proto import plugins_pb2, summary_pb2, tensor_pb2, types_pb2

WALL = 1_700_000_000.0
STEPS = (0, 10, 20)
TF2_IMAGES = 3  # images in each TF2-style batch value
RATE = 8000
LABELS = ("first **clip**", "second clip")


def png(width: int, height: int, shade: int) -> bytes:
    from PIL import Image

    pixels = np.full((height, width, 3), shade, dtype=np.uint8)
    pixels[:, : width // 2, 0] = 255 - shade
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, format="PNG")
    return buffer.getvalue()


def wav(seconds: float, frequency: float) -> bytes:
    t = np.arange(int(RATE * seconds)) / RATE
    samples = (np.sin(2 * math.pi * frequency * t) * 0.5 * 32767).astype("<i2")
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes(samples.tobytes())
    return buffer.getvalue()


def _strings(tag: str, plugin: str, content: bytes, items: list[bytes], shape: list[int]) -> summary_pb2.Summary:
    tensor = tensor_pb2.TensorProto(dtype=types_pb2.DT_STRING, string_val=items)
    for size in shape:
        tensor.tensor_shape.dim.add(size=size)
    summary = summary_pb2.Summary()
    value = summary.value.add(tag=tag, tensor=tensor)
    value.metadata.plugin_data.plugin_name = plugin
    value.metadata.plugin_data.content = content
    return summary


def _image(tag: str, width: int, height: int, data: bytes) -> summary_pb2.Summary:
    summary = summary_pb2.Summary()
    summary.value.add(tag=tag, image=summary_pb2.Summary.Image(width=width, height=height, encoded_image_string=data))
    return summary


def write_torch(directory: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import torch
    from matplotlib import pyplot
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(directory))
    for i, step in enumerate(STEPS):
        wall = WALL + step
        writer.add_image("images/single", torch.full((3, 24, 40), i / 3), step, walltime=wall)
        writer.add_images("images/batch_nchw", torch.rand(4, 3, 8, 8), step, walltime=wall)
        writer.add_images("images/batch_nhwc", torch.rand(2, 8, 8, 3), step, walltime=wall, dataformats="NHWC")
        t = torch.arange(RATE // 4) / RATE
        writer.add_audio(
            "audio/tone",
            (torch.sin(2 * math.pi * 440 * (i + 1) * t) * 0.5).unsqueeze(0),
            step,
            sample_rate=RATE,
            walltime=wall,
        )
    boxes = torch.tensor([[2.0, 2.0, 20.0, 12.0], [10.0, 4.0, 30.0, 20.0]])
    writer.add_image_with_boxes("plots/boxes", torch.zeros(3, 24, 40), boxes, 0, walltime=WALL)
    figure = pyplot.figure(figsize=(2, 1.5))
    pyplot.plot([0, 1, 2], [2, 0, 1])
    writer.add_figure("plots/figure", figure, 0, walltime=WALL)
    writer.close()


def write_ridgeline(directory: Path) -> None:
    writer = ridgeline.SummaryWriter(str(directory))
    for i, step in enumerate(STEPS):
        wall = WALL + step
        writer.add_image("images/single", np.full((3, 16, 16), i / 3), step, walltime=wall)
        writer.add_images("images/batch_nchw", np.random.default_rng(i).random((3, 3, 8, 8)), step, walltime=wall)
        writer.add_audio("audio/tone", np.sin(np.arange(RATE // 8) / 7.0) * 0.5, step, sample_rate=RATE, walltime=wall)
        tf2 = [b"12", b"10", *(png(12, 10, 40 * k + 20 * i) for k in range(TF2_IMAGES))]
        content = plugins_pb2.ImagePluginData(converted_to_tensor=True).SerializeToString()
        writer._write_summary("tf2", _strings("tf2/images", "images", content, tf2, [len(tf2)]), step, wall)
        clips = [item for k, label in enumerate(LABELS) for item in (wav(0.1, 300.0 * (k + 1)), label.encode())]
        content = plugins_pb2.AudioPluginData(encoding=plugins_pb2.AudioPluginData.WAV).SerializeToString()
        writer._write_summary("tf2", _strings("tf2/audio", "audio", content, clips, [len(LABELS), 2]), step, wall)
    writer.add_video("video/clip", np.random.default_rng(0).random((1, 4, 3, 8, 8)), 0, walltime=WALL)
    writer._write_summary("bad", _image("bad/not_an_image", 10, 10, b"these bytes are no image"), 0, WALL)
    writer._write_summary("bad", _image("bad/corrupt_png", 12, 10, png(12, 10, 90)[:40]), 0, WALL)
    writer._write_summary("bad", _image("bad/zero_sized", 0, 0, b""), 0, WALL)
    content = plugins_pb2.AudioPluginData(encoding=plugins_pb2.AudioPluginData.WAV).SerializeToString()
    broken = [b"RIFF\x00\x00\x00\x00WAVE but nothing a player can decode", b"broken"]
    writer._write_summary("bad", _strings("bad/audio", "audio", content, broken, [1, 2]), 0, WALL)
    writer.close()


def write_media_logs(root: Path) -> Path:
    write_torch(root / "torch")
    write_ridgeline(root / "ridgeline")
    return root
