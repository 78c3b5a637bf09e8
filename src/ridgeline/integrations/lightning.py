"""``RidgelineLogger``: a Lightning 2.x logger writing through :class:`ridgeline.SummaryWriter`.

A drop-in for ``lightning.pytorch.loggers.TensorBoardLogger``: the same directory scheme
(``save_dir/name/version_N[/sub_dir]``, N one more than the largest existing), the same tags, and what that logger
cannot do: hyperparameters recorded on the run itself with the metrics as they are logged (no ``hp_metric=-1``
placeholder), the run's end status (success or failure) recorded by ``finalize``, every checkpoint saved marked as
an annotation, and, opt-in, every rank writing its own files (``all_ranks=True``: ``.../version_N/rank{R}``).

    from lightning.pytorch import Trainer
    from ridgeline.integrations.lightning import RidgelineLogger

    trainer = Trainer(logger=RidgelineLogger("runs", name="mnist"))
"""

from __future__ import annotations

import os
import warnings
from argparse import Namespace
from collections.abc import Mapping
from typing import Any

from ridgeline.integrations._common import (
    STATUS_FAILURE,
    STATUS_SUCCESS,
    STATUS_UNKNOWN,
    end_session,
    flatten_hparams,
    require,
    scalar,
    start_session,
)
from ridgeline.writer.summary_writer import SummaryWriter

require("lightning", "lightning", "ridgeline.integrations.lightning")

from lightning.pytorch.loggers.logger import Logger  # noqa: E402  (after the check that names the extra)
from lightning.pytorch.utilities.rank_zero import rank_zero_only  # noqa: E402

__all__ = ["RidgelineLogger"]

# Lightning's finalize() statuses: "success" after fit/validate/test, "failed" on an exception, "finished" when
# SLURM's requeue signal stops the run to resume it later (neither success nor failure).
_STATUS = {"success": STATUS_SUCCESS, "failed": STATUS_FAILURE}


class RidgelineLogger(Logger):
    """Logs metrics, hyperparameters, the graph, checkpoints and the run's end status for ridgeline.

    Args:
        save_dir: where runs go (``TensorBoardLogger``'s ``save_dir``).
        name: the experiment's folder under save_dir; "" or None for none.
        version: an int (``version_<int>``) or a folder name; default the next free ``version_N``.
        sub_dir: a folder under the version's, for grouping.
        prefix: put before every metric name (joined with ``-``, as Lightning's loggers do).
        log_graph: trace the model with ``example_input_array`` and record its graph (``log_graph``).
        all_ranks: every rank writes, into ``<log_dir>/rank{R}`` (Lightning's own loggers write from rank 0 only).
            Under DDP pass ``version`` too: each process resolves the next free version by itself.
        **writer_kwargs: passed on to :class:`ridgeline.SummaryWriter` (``flush_secs``, ``max_queue``, ...).
    """

    LOGGER_JOIN_CHAR = "-"

    def __init__(
        self,
        save_dir: str | os.PathLike[str],
        name: str | None = "lightning_logs",
        version: int | str | None = None,
        *,
        sub_dir: str | os.PathLike[str] | None = None,
        prefix: str = "",
        log_graph: bool = False,
        all_ranks: bool = False,
        **writer_kwargs: Any,
    ) -> None:
        super().__init__()
        if not isinstance(save_dir, str | os.PathLike):
            raise TypeError(f"RidgelineLogger: save_dir must be a path, got {type(save_dir).__name__}")
        if version is not None and (isinstance(version, bool) or not isinstance(version, int | str)):
            raise TypeError(f"RidgelineLogger: version must be an int, a string or None, got {version!r}")
        for reserved in ("log_dir", "rank", "per_rank", "hparams"):
            if reserved in writer_kwargs:
                raise TypeError(f"RidgelineLogger: {reserved}= is set by the logger, not passed to the writer")
        self._save_dir = os.fspath(save_dir)
        self._name = name or ""
        self._version = version
        self._sub_dir = None if sub_dir is None else os.fspath(sub_dir)
        self._prefix = prefix
        self._log_graph = log_graph
        self._all_ranks = all_ranks
        self._writer_kwargs = writer_kwargs
        self._writer: SummaryWriter | None = None
        self._hparams: dict[str, Any] = {}
        self._last_step = 0

    # --- where ------------------------------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @property
    def version(self) -> int | str:
        if self._version is None:
            self._version = self._next_version()
        return self._version

    @property
    def save_dir(self) -> str:
        return self._save_dir

    @property
    def root_dir(self) -> str:
        """``save_dir/name``: where the versions are."""
        return os.path.join(self._save_dir, self._name)

    @property
    def log_dir(self) -> str:
        """This run's directory, ``save_dir/name/version_N[/sub_dir]`` (rank folders go under it)."""
        version = self.version if isinstance(self.version, str) else f"version_{self.version}"
        log_dir = os.path.join(self.root_dir, version)
        if self._sub_dir is not None:
            log_dir = os.path.join(log_dir, self._sub_dir)
        return os.path.expanduser(os.path.expandvars(log_dir))

    def _next_version(self) -> int:
        try:
            names = os.listdir(self.root_dir)
        except OSError:
            return 0
        versions = [
            int(n.removeprefix("version_"))
            for n in names
            if n.startswith("version_")
            and n.removeprefix("version_").isdigit()
            and os.path.isdir(os.path.join(self.root_dir, n))
        ]
        return max(versions) + 1 if versions else 0

    # --- the writer -------------------------------------------------------------------------------------------
    def _writes(self) -> bool:
        return self._all_ranks or _rank() == 0

    @property
    def experiment(self) -> Any:
        """The run's :class:`ridgeline.SummaryWriter` (a no-op stand-in on ranks that do not write)."""
        if not self._writes():
            from lightning.fabric.loggers.logger import _DummyExperiment

            return _DummyExperiment()
        if self._writer is None:
            self._writer = SummaryWriter(
                self.log_dir,
                rank=_rank() if self._all_ranks else None,
                per_rank=self._all_ranks,
                hparams=self._hparams or None,
                **self._writer_kwargs,
            )
        return self._writer

    # --- what Lightning hands over ----------------------------------------------------------------------------
    def log_metrics(self, metrics: Mapping[str, Any], step: int | None = None) -> None:
        if not self._writes():
            return
        writer = self.experiment
        if step is not None:
            self._last_step = step
        for key, value in metrics.items():
            tag = f"{self._prefix}{self.LOGGER_JOIN_CHAR}{key}" if self._prefix else key
            if isinstance(value, Mapping):
                writer.add_scalars(tag, {k: _number(tag, v) for k, v in value.items()}, step)
            else:
                writer.add_scalar(tag, _number(tag, value), step)

    def log_hyperparams(self, params: Mapping[str, Any] | Namespace, *args: Any, **kwargs: Any) -> None:
        """Record the hyperparameters on the run (the hparams dashboard reads its metrics from the run's own
        scalars). ``metrics=`` given too are logged as scalars at ``step=``."""
        if not self._writes():
            return
        values = vars(params) if isinstance(params, Namespace) else dict(params or {})
        merged = {**self._hparams, **flatten_hparams(values)}
        metrics = kwargs.get("metrics", args[0] if args else None)
        if merged != self._hparams or self._writer is None:
            self._hparams = merged
            if self._writer is None:
                _ = self.experiment  # created with hparams=: the session starts in the writer's first records
            else:
                start_session(self._writer, merged)
        if metrics is not None:
            step = kwargs.get("step", args[1] if len(args) > 1 else None)
            self.log_metrics(metrics if isinstance(metrics, Mapping) else {"hp_metric": metrics}, step)

    def log_graph(self, model: Any, input_array: Any = None) -> None:
        """The model's graph, traced with ``input_array`` (default its ``example_input_array``); only with
        ``log_graph=True``, as ``TensorBoardLogger``."""
        if not self._log_graph or not self._writes():
            return
        example = getattr(model, "example_input_array", None) if input_array is None else input_array
        if example is None:
            warnings.warn(
                "RidgelineLogger: no graph recorded: set model.example_input_array or pass input_array to log_graph",
                stacklevel=2,
            )
            return
        self.experiment.add_graph(model, example)

    def after_save_checkpoint(self, checkpoint_callback: Any) -> None:
        """An annotation at the step the checkpoint was saved, naming its file (and its score when monitored)."""
        if not self._writes():
            return
        path = getattr(checkpoint_callback, "last_model_path", "") or getattr(
            checkpoint_callback, "best_model_path", ""
        )
        text = f"checkpoint saved: {os.path.basename(path) or 'checkpoint'}"
        monitor, best = (
            getattr(checkpoint_callback, "monitor", None),
            getattr(checkpoint_callback, "best_model_score", None),
        )
        best_value = scalar(best) if best is not None else None
        if monitor and best_value is not None:
            text += f" (best {monitor} = {best_value:.6g})"
        self.experiment.add_annotation(text, self._last_step)

    def save(self) -> None:
        if self._writer is not None:
            self._writer.flush()

    def finalize(self, status: str) -> None:
        """Record how the run ended (``success`` or ``failed``, as Lightning says) and close its files."""
        if self._writer is None:
            return
        end_session(self._writer, _STATUS.get(status, STATUS_UNKNOWN))
        self._writer.close()

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_writer"] = None  # spawned processes open their own files
        return state


def _rank() -> int:
    """The global rank Lightning set for this process (0 outside distributed runs)."""
    rank: int = getattr(rank_zero_only, "rank", 0)
    return rank


def _number(tag: str, value: Any) -> float:
    number = scalar(value)
    if number is None:
        raise ValueError(
            f"RidgelineLogger.log_metrics: {tag!r} must be a number or a one-element tensor, got {value!r}"
        )
    return number
