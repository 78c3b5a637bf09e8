"""Log directories for the hparams dashboard's tests, written by the real writers.

- ``write_torch_sweep``: torch's ``SummaryWriter.add_hparams`` (each trial a ``<timestamp>`` sub-run holding the
  hparam metrics; the training curves in the run above it). ``augment`` is a bool declared with
  ``hparam_domain_discrete`` (torch stores 1.0/0.0, the domain {0, 1} says it is a bool); ``ema`` is a bool
  without a domain (stays 1/0: nothing tells it from an integer); ``batch`` is 32 in one trial and "auto" in
  another (mixed types); a trial's loss ends in NaN.
- ``write_tf2_sweep``: the TF2 hparams plugin's protos (tensorboard's ``summary_v2``, as Keras' ``hp.KerasCallback``
  writes them): the experiment config at the root, one run per trial with its metrics in ``<trial>/validation``.
- ``write_ridgeline_sweep``: ``ridgeline.SummaryWriter(hparams=)`` runs with no experiment config: the metrics are
  the scalar tags the trials share.
"""

from __future__ import annotations

import math
from pathlib import Path

import ridgeline

WALL = 1_700_000_000.0

TORCH_TRIALS = [
    {"lr": 0.1, "batch": 32, "optimizer": "adam", "augment": True, "ema": True},
    {"lr": 0.01, "batch": "auto", "optimizer": "sgd", "augment": False, "ema": False},
    {"lr": 0.001, "batch": 128, "optimizer": "adam", "augment": True, "ema": True},
]
TORCH_METRICS = [
    {"hparam/accuracy": 0.5, "hparam/loss": 0.9},
    {"hparam/accuracy": 0.75, "hparam/loss": math.nan},
    {"hparam/accuracy": 0.625, "hparam/loss": 0.25},
]


def write_torch_sweep(root: Path) -> list[str]:
    """One torch writer per trial under ``root/lr_<lr>``; returns the trial runs' parent names."""
    from torch.utils.tensorboard import SummaryWriter

    parents = []
    for index, (hparams, metrics) in enumerate(zip(TORCH_TRIALS, TORCH_METRICS, strict=True)):
        name = f"lr_{hparams['lr']}"
        parents.append(name)
        writer = SummaryWriter(str(root / name))
        for step in range(20):
            writer.add_scalar("train/loss", 2.0 / (step + 1 + index), step, walltime=WALL + step)
        writer.add_hparams(
            hparams, metrics, hparam_domain_discrete={"augment": [True, False]}, run_name=f"{WALL + index}"
        )
        writer.close()
    return parents


def write_tf2_sweep(root: Path) -> None:
    from tensorboard.plugins.hparams import summary_v2 as hp
    from torch.utils.tensorboard import SummaryWriter
    from torch.utils.tensorboard.writer import FileWriter

    units = hp.HParam("units", hp.Discrete([16, 32]))
    dropout = hp.HParam("dropout", hp.RealInterval(0.1, 0.5))
    optimizer = hp.HParam("optimizer", hp.Discrete(["adam", "sgd"]), display_name="Optimizer")
    batch_norm = hp.HParam("batch_norm", hp.Discrete([True, False]))
    metrics = [
        hp.Metric("epoch_accuracy", group="validation", display_name="val accuracy"),
        hp.Metric("epoch_loss", group="validation", display_name="val loss"),
    ]
    config = FileWriter(str(root))
    config.add_summary(hp.hparams_config_pb(hparams=[units, dropout, optimizer, batch_norm], metrics=metrics))
    config.close()
    trials = [
        {units: 16, dropout: 0.1, optimizer: "adam", batch_norm: True},
        {units: 32, dropout: 0.5, optimizer: "sgd", batch_norm: False},
    ]
    for index, values in enumerate(trials):
        trial = root / f"run-{index}"
        start = FileWriter(str(trial))
        start.add_summary(hp.hparams_pb(values, trial_id=f"run-{index}", start_time_secs=WALL))
        start.close()
        for group, offset in (("train", 0.1), ("validation", 0.0)):
            writer = SummaryWriter(str(trial / group))
            for epoch in range(3):
                writer.add_scalar("epoch_accuracy", 0.5 + 0.1 * epoch + offset + 0.05 * index, epoch, walltime=WALL)
                writer.add_scalar("epoch_loss", 1.0 - 0.2 * epoch + offset, epoch, walltime=WALL)
            writer.close()


def write_ridgeline_sweep(root: Path) -> None:
    for name, lr, layers in (("a", 0.5, 2), ("b", 0.05, 4)):
        with ridgeline.SummaryWriter(root / name, hparams={"lr": lr, "layers": layers, "residual": layers > 2}) as w:
            for step in range(10):
                w.add_scalar("loss", 1.0 / (step + 1), step, walltime=WALL + step)
                w.add_scalar("accuracy", step / 10 + lr, step, walltime=WALL + step)
            if name == "a":
                w.add_scalar("only_a", 1.0, 0, walltime=WALL)


def write_bad_hparams(root: Path) -> None:
    """A run whose session start and experiment are corrupt protobuf, a torch trial with a NaN hyperparameter,
    and trials disagreeing on a type (a number in one, a string in another, a bool in a third)."""
    from tensorboard.compat.proto.summary_pb2 import Summary, SummaryMetadata
    from torch.utils.tensorboard import SummaryWriter
    from torch.utils.tensorboard.writer import FileWriter

    def corrupt(tag: str) -> Summary:
        plugin = SummaryMetadata.PluginData(plugin_name="hparams", content=b"\x1a\x05\x0a\xff\xff\xff\xff")
        return Summary(value=[Summary.Value(tag=tag, metadata=SummaryMetadata(plugin_data=plugin))])

    broken = FileWriter(str(root / "broken"))
    broken.add_summary(corrupt("_hparams_/session_start_info"))
    broken.add_summary(corrupt("_hparams_/experiment"))
    broken.close()
    writer = SummaryWriter(str(root / "torch"))
    writer.add_hparams({"lr": math.nan, "width": 64}, {"hparam/score": 1.0}, run_name="nan")
    writer.close()
    for name, width in (("number", 32), ("string", "wide"), ("bool", True)):
        with ridgeline.SummaryWriter(root / name, hparams={"lr": 0.1, "width": width}) as w:
            w.add_scalar("hparam/score", 0.5, 0)
