"""Run by tests/integrations/test_accelerate_ranks.py under ``torchrun --nproc_per_node=2``: two CPU processes in
one gloo process group, each logging through a per-rank RidgelineTracker, beside a main-process-only one.

Usage: ``torchrun --standalone --nproc_per_node=2 accelerate_ranks.py LOGDIR``
"""

from __future__ import annotations

import sys

import torch
from accelerate import Accelerator

from ridgeline.integrations.accelerate import RidgelineTracker

CONFIG = {"lr": 0.01, "optimizer": {"name": "sgd"}}
STEPS = 3


def main(logdir: str) -> None:
    per_rank = RidgelineTracker("ranks", logdir, per_rank=True)
    main_only = RidgelineTracker("main", logdir)
    accelerator = Accelerator(cpu=True, log_with=[per_rank, main_only])
    accelerator.init_trackers("ranks", config=CONFIG)  # accelerate calls trackers on the main process only
    if not accelerator.is_main_process:
        per_rank.store_init_configuration(CONFIG)
    rank = accelerator.process_index
    for step in range(STEPS):
        loss = torch.tensor((rank + 1) / (step + 1))
        mean = accelerator.reduce(loss, "mean")  # a real all-reduce between the two processes
        per_rank.log({"train/loss": loss.item()}, step=step)  # every process, into its own rank{R} run
        accelerator.log({"train/mean_loss": mean.item()}, step=step)  # the main process's trackers only
    accelerator.end_training()
    per_rank.finish()  # end_training finishes the trackers of the main process only


if __name__ == "__main__":
    main(sys.argv[1])
