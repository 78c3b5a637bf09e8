"""``RidgelineTracker``: an ``accelerate`` tracker writing through :class:`ridgeline.SummaryWriter`.

    from accelerate import Accelerator
    from ridgeline.integrations.accelerate import RidgelineTracker

    accelerator = Accelerator(log_with=RidgelineTracker("exp1", "runs"))
    accelerator.init_trackers("exp1", config={"lr": 1e-3})   # the run's hyperparameters
    accelerator.log({"train/loss": loss}, step=step)
    accelerator.end_training()

``per_rank=True`` has every process write its own run (``<logging_dir>/<run_name>/rank{R}``). accelerate calls
trackers from the main process only (``init_trackers``, ``log`` and ``end_training`` do nothing elsewhere,
whatever a tracker asks), so the other processes talk to the tracker itself::

    tracker = RidgelineTracker("exp1", "runs", per_rank=True)
    accelerator = Accelerator(log_with=tracker)
    accelerator.init_trackers("exp1", config=config)
    if not accelerator.is_main_process:
        tracker.store_init_configuration(config)       # the other runs get the hyperparameters too
    ...
    tracker.log({"train/loss": loss.item()}, step=step)  # every process, into its own run
    accelerator.end_training()
    tracker.finish()                                    # a second call on the main process does nothing

tests/integrations/test_accelerate_ranks.py runs this under ``torchrun --nproc_per_node=2`` (gloo, CPU).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from ridgeline.integrations._common import STATUS_SUCCESS, end_session, flatten_hparams, require, scalar, start_session
from ridgeline.writer.summary_writer import SummaryWriter

require("accelerate", "transformers", "ridgeline.integrations.accelerate")

from accelerate.tracking import GeneralTracker  # noqa: E402  (after the check that names the extra)

__all__ = ["RidgelineTracker"]


class RidgelineTracker(GeneralTracker):  # type: ignore[misc]
    """Args: the run's name and the folder it goes under (as ``TensorBoardTracker``), ``per_rank``, and keyword
    arguments for :class:`ridgeline.SummaryWriter`."""

    name = "ridgeline"
    requires_logging_directory = True

    def __init__(
        self, run_name: str, logging_dir: str | os.PathLike[str], *, per_rank: bool = False, **writer_kwargs: Any
    ) -> None:
        super().__init__()
        self.run_name = run_name
        self.logging_dir = os.path.join(os.fspath(logging_dir), run_name)
        self.main_process_only = not per_rank
        self._per_rank = per_rank
        self._writer_kwargs = writer_kwargs
        self.writer: SummaryWriter | None = None

    def start(self) -> None:
        if self.writer is None:
            rank = int(os.environ.get("RANK", os.environ.get("LOCAL_RANK", "0"))) if self._per_rank else None
            self.writer = SummaryWriter(self.logging_dir, rank=rank, per_rank=self._per_rank, **self._writer_kwargs)

    @property
    def tracker(self) -> SummaryWriter:
        self.start()
        assert self.writer is not None
        return self.writer

    def store_init_configuration(self, values: Mapping[str, Any]) -> None:
        start_session(self.tracker, flatten_hparams(values))

    def log(self, values: Mapping[str, Any], step: int | None = None, **kwargs: Any) -> None:
        for tag, value in values.items():
            number = scalar(value)
            if number is not None:
                self.tracker.add_scalar(tag, number, step)
            elif isinstance(value, str):
                self.tracker.add_text(tag, value, step)
            elif isinstance(value, Mapping):
                self.tracker.add_scalars(tag, {k: float(v) for k, v in value.items()}, step)

    def finish(self) -> None:
        if self.writer is not None:
            end_session(self.writer, STATUS_SUCCESS)
            self.writer.close()
