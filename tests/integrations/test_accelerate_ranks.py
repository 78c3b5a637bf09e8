"""The accelerate tracker under a real 2-process launch (``torchrun``, gloo on the CPU): with ``per_rank=True``
every process writes its own ``rank{R}`` run with its own values and the hyperparameters; without it only the main
process writes (tests/integrations/accelerate_ranks.py is the training script)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import ridgeline

pytest.importorskip("accelerate")
pytest.importorskip("transformers")

pytestmark = pytest.mark.slow
SCRIPT = Path(__file__).with_name("accelerate_ranks.py")
STEPS = 3


def test_every_rank_writes_its_own_run(tmp_path: Path) -> None:
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"):
        env.pop(name, None)
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2"]
    done = subprocess.run(
        [*command, str(SCRIPT), str(tmp_path / "runs")], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr

    logdir = ridgeline.open(tmp_path / "runs")
    assert logdir.runs() == ["main", "ranks/rank0", "ranks/rank1"]
    for rank in (0, 1):
        run = f"ranks/rank{rank}"
        loss = logdir.scalars(run, "train/loss")
        assert loss.step.tolist() == list(range(STEPS))
        assert loss.value.tolist() == pytest.approx([(rank + 1) / (step + 1) for step in range(STEPS)])
        hparams = logdir.hparams(run)
        assert hparams is not None and hparams.hparams == {"lr": 0.01, "optimizer/name": "sgd"}
        end = logdir.hparams_session_end(run)
        assert end is not None and end.status == "success"
    # What accelerator.log logs reaches the main process's trackers only: the mean of both ranks' losses.
    mean = [1.5 / (step + 1) for step in range(STEPS)]
    assert logdir.scalars("main", "train/mean_loss").value.tolist() == pytest.approx(mean)
    assert logdir.scalars("ranks/rank0", "train/mean_loss").value.tolist() == pytest.approx(mean)
    assert "train/mean_loss" not in logdir.tags("ranks/rank1").get("scalars", [])
    assert "train/loss" not in logdir.tags("main").get("scalars", [])
