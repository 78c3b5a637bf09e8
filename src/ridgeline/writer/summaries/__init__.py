"""Value → ``Summary`` builders; the module moves into this package, to be split by kind in the next commit."""

from __future__ import annotations

from ridgeline.writer.summaries._images import (
    DEFAULT_BINS,
    _default_bin_counts,  # noqa: F401 (the tests reach for it here until they are split too)
    audio,
    custom_scalars,
    figure,
    histogram,
    histogram_raw,
    hparams,
    image,
    image_with_boxes,
    images,
    mesh,
    pr_curve,
    pr_curve_raw,
    scalar_tensor,
    session_end,
    session_start,
    tensor,
    text,
    video,
)

__all__ = [
    "DEFAULT_BINS",
    "audio",
    "custom_scalars",
    "figure",
    "histogram",
    "histogram_raw",
    "hparams",
    "image",
    "image_with_boxes",
    "images",
    "mesh",
    "pr_curve",
    "pr_curve_raw",
    "scalar_tensor",
    "session_end",
    "session_start",
    "tensor",
    "text",
    "video",
]
