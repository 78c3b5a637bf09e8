"""A log directory for the search tests, written by the real writers: torch's SummaryWriter (scalars, text,
``add_hparams``, which writes each trial as a sub-run named after a timestamp) and ridgeline's (hparams=, run
metadata, an annotation). Wall times are fixed local times so the date entries are known in advance."""

from __future__ import annotations

import time
from pathlib import Path

import ridgeline


def local(year: int, month: int, day: int, hour: int, minute: int) -> float:
    return time.mktime((year, month, day, hour, minute, 0, 0, 0, -1))


NOV5 = local(2024, 11, 5, 14, 30)  # resnet-a: 20241105143000 .. 20241105143002
DEC1 = local(2024, 12, 1, 9, 0)  # resnet-b
JAN15 = local(2025, 1, 15, 18, 45)  # vgg-c
NOV20 = local(2024, 11, 20, 8, 0)  # ridge (its run metadata record is written at creation: its end is "now")

TORCH_RUNS = {
    "resnet-a": (
        NOV5,
        {"lr": 0.001, "batch_size": 64, "dropout": 0.2},
        ["train_loss", "train_acc", "val/acc"],
        "epoch 1 fine\nnan detected at step 7",
    ),
    "resnet-b": (DEC1, {"lr": 0.003, "batch_size": 32, "dropout": 0.2}, ["train_loss", "val/loss"], "all good"),
    "vgg-c": (JAN15, {"lr": 0.01, "batch_size": 64, "dropout": 0.5}, ["train_loss"], "Loss went NaN"),
}


def write_search_logs(root: Path) -> Path:
    from torch.utils.tensorboard import SummaryWriter

    for name, (start, hparams, tags, text) in TORCH_RUNS.items():
        writer = SummaryWriter(str(root / name))
        for step in range(3):
            for tag in tags:
                writer.add_scalar(tag, 1.0 / (step + 1), step, walltime=start + step)
        writer.add_text("notes", text, 2, walltime=start + 2)
        writer.add_hparams(hparams, {"hparam/acc": 0.9})
        writer.close()
    writer = ridgeline.SummaryWriter(str(root / "ridge"), hparams={"lr": 0.0005, "optimizer": "adam", "augment": True})
    writer.add_scalar("val/acc", 0.5, 0, walltime=NOV20)
    writer.add_annotation("learning rate dropped to 1e-4", step=50, walltime=NOV20 + 50)
    writer.close()
    return root
