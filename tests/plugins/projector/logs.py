"""Log directories for the projector's tests, written by the real writers: torch's and tensorboardX's
``add_embedding`` and ridgeline's, with several steps, multi-column metadata and sprites; and the bad cases
(metadata row counts that disagree, a sprite too small, NaN/Inf, one row, one dimension, a truncated tensor file,
a config pointing outside the log directory), each with its files written by hand where no writer produces them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

import ridgeline

POINTS = 120
DIMENSIONS = 12
STEPS = (0, 5, 10)
CLASSES = ("cat", "dog", "bird", "fish")


def clusters(step: int, points: int = POINTS, dimensions: int = DIMENSIONS, seed: int = 0) -> np.ndarray:
    """Four well-separated clusters that spread apart as the step grows (the same points at every step)."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(0, 5, (len(CLASSES), dimensions))
    noise = np.random.default_rng(seed + 1).normal(0, 1, (points, dimensions))
    return (centres[labels(points)] * (1 + step / 10) + noise).astype(np.float32)


def labels(points: int = POINTS) -> np.ndarray:
    return np.arange(points) % len(CLASSES)


def metadata_rows(points: int = POINTS) -> list[list[str]]:
    return [[CLASSES[c], str(i), f"{i / points:.4f}"] for i, c in enumerate(labels(points))]


HEADER = ["label", "index", "score"]


def images(points: int = POINTS, size: int = 6) -> np.ndarray:
    rng = np.random.default_rng(3)
    return rng.random((points, 3, size, size)).astype(np.float32)


def write_ridgeline(root: Path) -> Path:
    """run "ridgeline": tag "features" at STEPS (multi-column metadata, sprites), tag "plain" at one step."""
    with ridgeline.SummaryWriter(root / "ridgeline") as writer:
        writer.add_scalar("loss", 1.0, 0)
        for step in STEPS:
            writer.add_embedding(
                clusters(step),
                metadata=metadata_rows(),
                metadata_header=HEADER,
                label_img=images(),
                global_step=step,
                tag="features",
            )
        writer.add_embedding(clusters(0)[:, :4], metadata=[CLASSES[c] for c in labels()], global_step=3, tag="plain")
    return root / "ridgeline"


def write_torch(root: Path) -> Path:
    import torch
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(root / "torch"))
    writer.add_scalar("loss", 1.0, 0)
    for step in (1, 2):
        writer.add_embedding(
            torch.tensor(clusters(step)),
            metadata=metadata_rows(),
            metadata_header=HEADER,
            label_img=torch.tensor(images()),
            global_step=step,
            tag="layer/out",
        )
    writer.close()
    return root / "torch"


def write_tensorboardx(root: Path) -> Path:
    from tensorboardX import SummaryWriter

    writer = SummaryWriter(str(root / "tbx"))
    writer.add_scalar("loss", 1.0, 0)
    writer.add_embedding(
        clusters(0), metadata=[CLASSES[c] for c in labels()], label_img=images(), global_step=4, tag="emb"
    )
    writer.close()
    return root / "tbx"


def _config(run: Path, *entries: str) -> None:
    run.mkdir(parents=True, exist_ok=True)
    (run / "projector_config.pbtxt").write_text("\n".join(f"embeddings {{ {entry} }}" for entry in entries))


def _tsv(matrix: np.ndarray) -> str:
    return "".join("\t".join(repr(float(v)) for v in row) + "\n" for row in matrix)


def write_bad(root: Path) -> Path:
    """run "bad": one embedding per bad case, named after it; its files are written by hand."""
    run = root / "bad"
    with ridgeline.SummaryWriter(run) as writer:
        writer.add_scalar("loss", 1.0, 0)
    matrix = clusters(0, points=20, dimensions=4)
    files = {
        "good.tsv": _tsv(matrix),
        "short_meta.tsv": "\n".join(["label\tindex"] + [f"{CLASSES[c]}\t{i}" for i, c in enumerate(labels(19))]) + "\n",
        "single_header.tsv": "label\n" + "".join(f"{CLASSES[c]}\n" for c in labels(20)),
        "nan.tsv": _tsv(np.vstack([matrix[:18], [[np.nan, 1, 2, 3], [np.inf, 0, 0, 0]]])),
        "one_row.tsv": _tsv(matrix[:1]),
        "one_dim.tsv": _tsv(matrix[:, :1]),
        "truncated.tsv": _tsv(matrix)[:-20],
        "words.tsv": _tsv(matrix[:3]) + "1.0\tnot-a-number\t2\t3\n",
    }
    for name, text in files.items():
        (run / name).write_text(text)
    # A sprite holding 4 images of 8x8 for 20 points.
    from PIL import Image

    Image.new("RGB", (16, 16), (200, 30, 30)).save(run / "small_sprite.png")
    _config(
        run,
        'tensor_name: "short_meta" tensor_path: "good.tsv" metadata_path: "short_meta.tsv"',
        'tensor_name: "single_header" tensor_path: "good.tsv" metadata_path: "single_header.tsv"',
        'tensor_name: "small_sprite" tensor_path: "good.tsv" '
        'sprite { image_path: "small_sprite.png" single_image_dim: [8, 8] }',
        'tensor_name: "nan" tensor_path: "nan.tsv"',
        'tensor_name: "one_row" tensor_path: "one_row.tsv"',
        'tensor_name: "one_dim" tensor_path: "one_dim.tsv"',
        'tensor_name: "truncated" tensor_path: "truncated.tsv"',
        'tensor_name: "words" tensor_path: "words.tsv"',
        'tensor_name: "missing" tensor_path: "missing.tsv"',
        'tensor_name: "raw" tensor_path: "raw.bytes" tensor_shape: [20, 4]',
        'tensor_name: "raw_short" tensor_path: "raw_short.bytes" tensor_shape: [20, 4]',
    )
    (run / "raw.bytes").write_bytes(matrix.astype("<f4").tobytes())
    (run / "raw_short.bytes").write_bytes(matrix.astype("<f4").tobytes()[:-12])
    # A run whose config leads outside the log directory: refused, and the other runs still answer.
    outside = root / "outside"
    with ridgeline.SummaryWriter(outside) as writer:
        writer.add_scalar("loss", 1.0, 0)
    _config(outside, 'tensor_name: "escape" tensor_path: "../../secret.tsv"')
    return run
