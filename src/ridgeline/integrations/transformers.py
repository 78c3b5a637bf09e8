"""``RidgelineCallback``: a Hugging Face ``Trainer`` callback writing through :class:`ridgeline.SummaryWriter`.

It logs what ``transformers``' own ``TensorBoardCallback`` logs, under the same names (``train/loss``,
``train/learning_rate``, ``train/grad_norm``, ``eval/loss``: names the diagnosis recognises), and what that callback
cannot: the ``TrainingArguments`` and the model's config as the run's hyperparameters (the hparams dashboard),
evaluation metrics reported outside a log call, every checkpoint saved as an annotation, and, opt-in, one run per
process under ``accelerate``/``torchrun`` (``per_rank=True``: ``<log_dir>/rank{R}``).

    from transformers import Trainer
    from ridgeline.integrations.transformers import RidgelineCallback

    trainer = Trainer(model=model, args=args, train_dataset=data, callbacks=[RidgelineCallback("runs/bert")])

Pass ``report_to="none"`` in ``TrainingArguments`` to keep the Trainer from adding its own TensorBoard callback.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ridgeline.integrations._common import STATUS_SUCCESS, end_session, flatten_hparams, require, scalar
from ridgeline.writer.summary_writer import SummaryWriter

require("transformers", "transformers", "ridgeline.integrations.transformers")

from transformers import TrainerCallback  # noqa: E402  (after the check that names the extra)

__all__ = ["RidgelineCallback", "rewrite_logs"]


def rewrite_logs(logs: Mapping[str, Any]) -> dict[str, Any]:
    """The Trainer's log keys as ``TensorBoardCallback`` names them: ``eval_x`` -> ``eval/x``, ``test_x`` ->
    ``test/x``, everything else ``train/x``."""
    renamed = {}
    for key, value in logs.items():
        for prefix in ("eval", "test"):
            if key.startswith(prefix + "_"):
                renamed[f"{prefix}/{key.removeprefix(prefix + '_')}"] = value
                break
        else:
            renamed["train/" + key] = value
    return renamed


class RidgelineCallback(TrainerCallback):  # type: ignore[misc]
    """Logs a ``Trainer``'s run for ridgeline.

    Args:
        log_dir: the run's directory. Default: as ``TensorBoardCallback``, the ``TENSORBOARD_LOGGING_DIR``
            environment variable, else ``<output_dir>/runs/<date>_<host>``.
        per_rank: every process writes, into ``<log_dir>/rank{R}`` (default: the main process only).
        hparams: more hyperparameters to record beside the arguments' and the model config's.
        **writer_kwargs: passed on to :class:`ridgeline.SummaryWriter` (``flush_secs``, ``max_queue``, ...).
    """

    def __init__(
        self,
        log_dir: str | os.PathLike[str] | None = None,
        *,
        per_rank: bool = False,
        hparams: Mapping[str, Any] | None = None,
        **writer_kwargs: Any,
    ) -> None:
        if log_dir is not None and not isinstance(log_dir, str | os.PathLike):
            raise TypeError(f"RidgelineCallback: log_dir must be a path, got {type(log_dir).__name__}")
        if hparams is not None and not isinstance(hparams, Mapping):
            raise TypeError(f"RidgelineCallback: hparams must be a dict, got {type(hparams).__name__}")
        self.log_dir = None if log_dir is None else os.fspath(log_dir)
        self.per_rank = per_rank
        self._extra_hparams = dict(hparams or {})
        self._writer_kwargs = writer_kwargs
        self.writer: SummaryWriter | None = None
        self._default_dir: str | None = None
        self._written: set[tuple[str, int]] = set()  # (tag, step) already logged at the current step

    def _writes(self, args: Any, state: Any) -> bool:
        return bool(self.per_rank or state.is_world_process_zero)

    def _open(self, args: Any, state: Any, model: Any = None) -> SummaryWriter:
        if self.writer is None:
            if self._default_dir is None:  # chosen once: a writer opened again (evaluate after train) adds to the run
                self._default_dir = os.environ.get("TENSORBOARD_LOGGING_DIR") or _default_log_dir(args.output_dir)
            log_dir = self.log_dir or self._default_dir
            if getattr(state, "is_hyper_param_search", False) and getattr(state, "trial_name", None):
                log_dir = os.path.join(log_dir, state.trial_name)
            self.writer = SummaryWriter(
                os.path.expanduser(log_dir),
                rank=args.process_index if self.per_rank else None,
                per_rank=self.per_rank,
                hparams=self._hparams(args, model),
                **self._writer_kwargs,
            )
        return self.writer

    def _hparams(self, args: Any, model: Any) -> dict[str, Any]:
        hparams = flatten_hparams(args.to_sanitized_dict())
        config = getattr(model, "config", None)
        if config is not None:
            hparams.update(flatten_hparams(config.to_diff_dict(), prefix="model/"))
        hparams.update(flatten_hparams(self._extra_hparams))
        return hparams

    # --- the Trainer's events ---------------------------------------------------------------------------------
    def on_train_begin(self, args: Any, state: Any, control: Any, model: Any = None, **kwargs: Any) -> None:
        if not self._writes(args, state):
            return
        writer = self._open(args, state, model)
        writer.add_text("args", args.to_json_string())
        config = getattr(model, "config", None)
        if config is not None:
            writer.add_text("model_config", config.to_json_string())

    def on_log(self, args: Any, state: Any, control: Any, logs: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        if not self._writes(args, state) or not logs:
            return
        self._log(args, state, rewrite_logs(logs), kwargs.get("model"), again=True)

    def on_evaluate(
        self, args: Any, state: Any, control: Any, metrics: Mapping[str, Any] | None = None, **kwargs: Any
    ) -> None:
        """Evaluation metrics the Trainer did not log already (``Trainer.evaluate`` logs them just before)."""
        if not self._writes(args, state) or not metrics:
            return
        self._log(args, state, rewrite_logs(metrics), kwargs.get("model"), again=False)

    def on_save(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if not self._writes(args, state):
            return
        text = f"checkpoint saved: checkpoint-{state.global_step}"
        if state.best_metric is not None and args.metric_for_best_model:
            text += f" (best {args.metric_for_best_model} = {state.best_metric:.6g})"
        self._open(args, state).add_annotation(text, state.global_step)

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if self.writer is not None:
            end_session(self.writer, STATUS_SUCCESS)
            self.writer.close()
            self.writer = None

    def _log(self, args: Any, state: Any, values: Mapping[str, Any], model: Any, *, again: bool) -> None:
        """Write ``values`` at the current step; with ``again=False`` not those already written at it."""
        writer = self._open(args, state, model)
        step = int(state.global_step)
        self._written = {(tag, at) for tag, at in self._written if at == step}
        for tag, value in values.items():
            if not again and (tag, step) in self._written:
                continue
            number = scalar(value)
            if number is not None:
                writer.add_scalar(tag, number, step)
            elif isinstance(value, str):
                writer.add_text(tag, value, step)
            else:
                continue
            self._written.add((tag, step))


def _default_log_dir(output_dir: str | None) -> str:
    """``TensorBoardCallback``'s default: ``<output_dir>/runs/<Mon>DD_HH-MM-SS_<host>``."""
    stamp = datetime.now().strftime("%b%d_%H-%M-%S") + "_" + socket.gethostname()
    return os.path.join(output_dir or "trainer_output", "runs", stamp)
