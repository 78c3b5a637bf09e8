"""The ``add_*`` calls of ``SummaryWriter`` that turn their arguments into one summary and queue it: tensors,
distributions, media, text, curves, the custom scalars layout and annotations.

They share nothing with the writer but :meth:`SummaryMethods._write_summary`, which ``SummaryWriter`` provides,
so they live apart from its files, scalars fast path and lifecycle (``ridgeline.writer.summary_writer``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ridgeline.format.proto import summary_pb2
from ridgeline.format.tags import ANNOTATION_TAG
from ridgeline.writer import summaries
from ridgeline.writer.run_metadata import text_summary
from ridgeline.writer.values import check_tag, to_step


class SummaryMethods:
    """Mixed into ``SummaryWriter``; each method checks its arguments, builds its summary and queues it."""

    def _write_summary(
        self, method: str, summary: summary_pb2.Summary, global_step: Any, walltime: float | None
    ) -> None:
        raise NotImplementedError  # SummaryWriter's

    def add_tensor(self, tag: str, tensor: Any, global_step: Any = None, walltime: float | None = None) -> None:
        """Record a whole tensor (a TensorProto summary)."""
        check_tag(tag, method="add_tensor")
        self._write_summary("add_tensor", summaries.tensor(tag, tensor), global_step, walltime)

    # --- distributions -------------------------------------------------------------------------------------
    def add_histogram(
        self,
        tag: str,
        values: Any,
        global_step: Any = None,
        bins: Any = "tensorflow",
        walltime: float | None = None,
        max_bins: int | None = None,
    ) -> None:
        """A histogram of ``values``; the default bins are TensorBoard's exponential ones."""
        check_tag(tag, method="add_histogram")
        self._write_summary(
            "add_histogram", summaries.histogram(tag, values, bins, max_bins=max_bins), global_step, walltime
        )

    def add_histogram_raw(
        self,
        tag: str,
        min: float,
        max: float,
        num: int,
        sum: float,
        sum_squares: float,
        bucket_limits: Sequence[float],
        bucket_counts: Sequence[float],
        global_step: Any = None,
        walltime: float | None = None,
    ) -> None:
        """A histogram computed elsewhere."""
        check_tag(tag, method="add_histogram_raw")
        summary = summaries.histogram_raw(tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts)
        self._write_summary("add_histogram_raw", summary, global_step, walltime)

    # --- media ---------------------------------------------------------------------------------------------
    def add_image(
        self,
        tag: str,
        img_tensor: Any,
        global_step: Any = None,
        walltime: float | None = None,
        dataformats: str = "CHW",
    ) -> None:
        """One image: float in [0, 1] or uint8, shaped as ``dataformats`` says (CHW, HWC, HW, ...)."""
        check_tag(tag, method="add_image")
        self._write_summary(
            "add_image", summaries.image(tag, img_tensor, dataformats=dataformats), global_step, walltime
        )

    def add_images(
        self,
        tag: str,
        img_tensor: Any,
        global_step: Any = None,
        walltime: float | None = None,
        dataformats: str = "NCHW",
    ) -> None:
        """A batch of images (NCHW or NHWC), shown as one grid."""
        check_tag(tag, method="add_images")
        self._write_summary(
            "add_images", summaries.images(tag, img_tensor, dataformats=dataformats), global_step, walltime
        )

    def add_image_with_boxes(
        self,
        tag: str,
        img_tensor: Any,
        box_tensor: Any,
        global_step: Any = None,
        walltime: float | None = None,
        rescale: float = 1,
        dataformats: str = "CHW",
        labels: Sequence[str] | None = None,
    ) -> None:
        """An image with bounding boxes (N×4, xmin ymin xmax ymax) drawn on it."""
        check_tag(tag, method="add_image_with_boxes")
        summary = summaries.image_with_boxes(
            tag, img_tensor, box_tensor, rescale=rescale, dataformats=dataformats, labels=labels
        )
        self._write_summary("add_image_with_boxes", summary, global_step, walltime)

    def add_figure(
        self, tag: str, figure: Any, global_step: Any = None, close: bool = True, walltime: float | None = None
    ) -> None:
        """A matplotlib figure (or a list of them) rendered to an image. Needs matplotlib."""
        check_tag(tag, method="add_figure")
        self._write_summary("add_figure", summaries.figure(tag, figure, close=close), global_step, walltime)

    def add_video(
        self, tag: str, vid_tensor: Any, global_step: Any = None, fps: float = 4, walltime: float | None = None
    ) -> None:
        """A video (N, T, C, H, W), stored as an animated GIF. Unlike torch, needs no moviepy."""
        check_tag(tag, method="add_video")
        self._write_summary("add_video", summaries.video(tag, vid_tensor, fps=fps), global_step, walltime)

    def add_audio(
        self,
        tag: str,
        snd_tensor: Any,
        global_step: Any = None,
        sample_rate: int = 44100,
        walltime: float | None = None,
    ) -> None:
        """A mono clip with values in [-1, 1], stored as 16-bit WAV."""
        check_tag(tag, method="add_audio")
        self._write_summary(
            "add_audio", summaries.audio(tag, snd_tensor, sample_rate=sample_rate), global_step, walltime
        )

    def add_text(self, tag: str, text_string: str, global_step: Any = None, walltime: float | None = None) -> None:
        """Markdown text (stored under ``<tag>/text_summary``, as torch does)."""
        check_tag(tag, method="add_text")
        self._write_summary("add_text", summaries.text(tag, text_string), global_step, walltime)

    def add_mesh(
        self,
        tag: str,
        vertices: Any,
        colors: Any = None,
        faces: Any = None,
        config_dict: Mapping[str, Any] | None = None,
        global_step: Any = None,
        walltime: float | None = None,
    ) -> None:
        """A 3D mesh or point cloud: vertices (B, N, 3), optional colors (B, N, 3) and faces (B, F, 3)."""
        check_tag(tag, method="add_mesh")
        self._write_summary(
            "add_mesh", summaries.mesh(tag, vertices, colors, faces, config_dict), global_step, walltime
        )

    def add_pr_curve(
        self,
        tag: str,
        labels: Any,
        predictions: Any,
        global_step: Any = None,
        num_thresholds: int = 127,
        weights: Any = None,
        walltime: float | None = None,
    ) -> None:
        """A precision-recall curve from binary labels and predicted probabilities in [0, 1]."""
        check_tag(tag, method="add_pr_curve")
        summary = summaries.pr_curve(tag, labels, predictions, num_thresholds=num_thresholds, weights=weights)
        self._write_summary("add_pr_curve", summary, global_step, walltime)

    def add_pr_curve_raw(
        self,
        tag: str,
        true_positive_counts: Any,
        false_positive_counts: Any,
        true_negative_counts: Any,
        false_negative_counts: Any,
        precision: Any,
        recall: Any,
        global_step: Any = None,
        num_thresholds: int = 127,
        weights: Any = None,
        walltime: float | None = None,
    ) -> None:
        """A precision-recall curve from counts computed elsewhere."""
        check_tag(tag, method="add_pr_curve_raw")
        summary = summaries.pr_curve_raw(
            tag,
            true_positive_counts,
            false_positive_counts,
            true_negative_counts,
            false_negative_counts,
            precision,
            recall,
            num_thresholds=num_thresholds,
            weights=weights,
        )
        self._write_summary("add_pr_curve_raw", summary, global_step, walltime)

    def add_confusion_matrix(
        self,
        tag: str,
        y_true: Any,
        y_pred: Any,
        class_names: Sequence[str],
        step: Any = None,
        walltime: float | None = None,
    ) -> None:
        """*ridgeline only.* The confusion matrix of ``y_pred`` against ``y_true`` (class indices or names, 1-D,
        equal length), stored as its counts: rows are the true classes, columns the predicted ones. TensorBoard
        lists it as a tensor; ridgeline's confusion matrix dashboard draws it (docs/confusion_matrix.md)."""
        check_tag(tag, method="add_confusion_matrix")
        checked = None if step is None else to_step(step, method="add_confusion_matrix", argument="step")
        summary = summaries.confusion_matrix(tag, y_true, y_pred, class_names)
        self._write_summary("add_confusion_matrix", summary, checked, walltime)

    def add_custom_scalars(self, layout: Mapping[str, Any]) -> None:
        """The custom scalars layout.

        ``{category: {chart title: ["Multiline", [tag regexes]] or ["Margin", [value, lower, upper]]}}``
        """
        self._write_summary("add_custom_scalars", summaries.custom_scalars(layout), None, None)

    def add_custom_scalars_multilinechart(
        self, tags: Sequence[str], category: str = "default", title: str = "untitled"
    ) -> None:
        self.add_custom_scalars({category: {title: ["Multiline", list(tags)]}})

    def add_custom_scalars_marginchart(
        self, tags: Sequence[str], category: str = "default", title: str = "untitled"
    ) -> None:
        if len(tags) != 3:
            raise ValueError(
                f"add_custom_scalars_marginchart: tags must hold 3 tags (value, lower, upper), got {len(tags)}"
            )
        self.add_custom_scalars({category: {title: ["Margin", list(tags)]}})

    def add_annotation(self, text: str, step: Any = None, walltime: float | None = None) -> None:
        """Mark a moment of the run ("lr decayed to 1e-4"); ridgeline draws it on every chart of the run."""
        check_tag(text, method="add_annotation", argument="text")
        self._write_summary("add_annotation", text_summary(ANNOTATION_TAG, text), step, walltime)
