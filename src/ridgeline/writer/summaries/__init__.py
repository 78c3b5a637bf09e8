"""Value → ``Summary`` builders: pure functions from what users pass to the protos torch's writer would write.

Each builder produces the same decoded proto as ``torch.utils.tensorboard.summary`` for the same input (images and
GIFs: the same pixels), so files written by ridgeline read exactly like torch's in TensorBoard. Where torch's output
depends on a bug (bools written as numbers in hparams, the float32 bit pattern in ``half_val``, a histogram's
``max_bins`` rounding), the bug is reproduced on purpose and named in a comment.

Errors name the public ``SummaryWriter`` method and the argument, and say what was expected. Every builder takes a
keyword-only ``method`` used for that prefix, so a caller that reaches a builder through another method (the
constructor's ``hparams=``, say) can have errors read right.

Nothing heavy is imported at module level: Pillow, matplotlib and torch are imported where they are used, and a
torch tensor is converted through ``values.to_numpy``, which never imports torch.

The builders live in one private module per kind (``_scalars``, ``_histograms``, ``_images`` with video, ``_audio``,
``_text``, ``_pr_curves``, ``_confusion_matrix``, ``_custom_scalars``, ``_hparams``, ``_mesh``; shared pieces in
``_common``) and are imported from here. The modules are private so that none shadows the builder of its name
(``summaries.text`` is the function ``text``).
"""

from __future__ import annotations

from ridgeline.writer.summaries._audio import audio
from ridgeline.writer.summaries._confusion_matrix import confusion_matrix
from ridgeline.writer.summaries._custom_scalars import custom_scalars
from ridgeline.writer.summaries._histograms import DEFAULT_BINS, histogram, histogram_raw
from ridgeline.writer.summaries._hparams import hparams, session_end, session_start
from ridgeline.writer.summaries._images import figure, image, image_with_boxes, images, video
from ridgeline.writer.summaries._mesh import mesh
from ridgeline.writer.summaries._pr_curves import pr_curve, pr_curve_raw
from ridgeline.writer.summaries._scalars import scalar_tensor, tensor
from ridgeline.writer.summaries._text import text

__all__ = [
    "DEFAULT_BINS",
    "audio",
    "confusion_matrix",
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
