"""The log directory of tests/browser/test_first_hour_*.py: what a newcomer logs with torch's own SummaryWriter
(issue 16) — a sweep over decimal learning rates, each run with its curves, ``add_scalars`` (one sub-run per
curve) and ``add_hparams`` (a timestamped sub-run holding the hyperparameters), and runs with long names that
differ only at the end."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

LEARNING_RATES = (0.0001, 0.001, 0.01, 0.1)
WALL = 1_790_000_000.0
# torch names each add_hparams trial after time.time(); fixed here so the tests can name them.
TRIAL = "1796175606.5"
LONG_NAMES = tuple(f"sweep_05_transformer-base_adamw_warmup1000_cosine_seed{seed}" for seed in (1, 2, 3))


def sweep_run(lr: float) -> str:
    return f"adam_lr{lr}"


def write_torch_sweep(root: Path, *, long_names: bool = False) -> Path:
    """One torch writer per learning rate under ``root/adam_lr<lr>``: ``loss/train`` and ``acc/val`` for 30
    steps, ``add_scalars("loss", {"train", "val"})`` and ``add_hparams({"lr", "optimizer"}, {"hparam/accuracy"})``.
    With ``long_names``, three more runs named :data:`LONG_NAMES` (curves only)."""
    from torch.utils.tensorboard import SummaryWriter

    for index, lr in enumerate(LEARNING_RATES):
        writer = SummaryWriter(str(root / sweep_run(lr)))
        for step in range(30):
            loss = (1.0 + index) / (step + 1)
            writer.add_scalar("loss/train", loss, step, walltime=WALL + step)
            writer.add_scalar("acc/val", 1 - loss / 4, step, walltime=WALL + step)
            writer.add_scalars("loss", {"train": loss, "val": loss * 1.2}, step, walltime=WALL + step)
        writer.add_hparams({"lr": lr, "optimizer": "adam"}, {"hparam/accuracy": 0.9 - lr}, run_name=TRIAL)
        writer.close()
    if long_names:
        for index, name in enumerate(LONG_NAMES):
            writer = SummaryWriter(str(root / name))
            for step in range(30):
                writer.add_scalar("loss/train", (2.0 + index) / (step + 1), step, walltime=WALL + step)
            writer.close()
    return root


def serve_sweep(tmp_path_factory: pytest.TempPathFactory, *, long_names: bool = False) -> Iterator[str]:
    """:func:`write_torch_sweep` served by a real server for a module's tests: yields its URL."""
    from tests.browser.helpers import serve_logdir

    logdir = write_torch_sweep(tmp_path_factory.mktemp("torch_sweep"), long_names=long_names)
    served = serve_logdir(logdir, tmp_path_factory.mktemp("server"))
    yield served.url
    served.stop()
