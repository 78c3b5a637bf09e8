"""RidgelineLogger with the real Lightning: a tiny model fitted for a few steps on the CPU beside Lightning's own
TensorBoardLogger, then what ridgeline reads back compared with what TensorBoard reads from that logger's files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ridgeline

pytest.importorskip("lightning")
torch = pytest.importorskip("torch")

import lightning.pytorch as pl  # noqa: E402
from lightning.pytorch.callbacks import ModelCheckpoint  # noqa: E402
from lightning.pytorch.loggers import TensorBoardLogger  # noqa: E402
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402

from ridgeline.integrations.lightning import RidgelineLogger  # noqa: E402

pytestmark = [
    pytest.mark.slow,
    # Lightning's advice about dataloader workers and small batches, not ours to act on in a test.
    pytest.mark.filterwarnings("ignore::UserWarning:lightning.*"),
    pytest.mark.filterwarnings("ignore::lightning.fabric.utilities.warnings.PossibleUserWarning"),
    # Lightning 2.6 on torch 2.13: its pytree helper uses a spelling torch deprecated.
    pytest.mark.filterwarnings("ignore:`isinstance\\(treespec, LeafSpec\\)` is deprecated:FutureWarning"),
]


class Regression(pl.LightningModule):
    def __init__(self, lr: float = 0.05, hidden: int = 8, fail_at: int | None = None) -> None:
        super().__init__()
        self.save_hyperparameters()
        self.net = torch.nn.Sequential(torch.nn.Linear(4, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 1))
        self.example_input_array = torch.zeros(2, 4)

    def forward(self, x: Any) -> Any:
        return self.net(x)

    def training_step(self, batch: Any, batch_idx: int) -> Any:
        if self.hparams.fail_at is not None and self.global_step >= self.hparams.fail_at:
            raise RuntimeError("the data loader broke")
        x, y = batch
        loss = torch.nn.functional.mse_loss(self(x), y)
        self.log("train/loss", loss)
        return loss

    def validation_step(self, batch: Any, batch_idx: int) -> None:
        x, y = batch
        self.log("val/loss", torch.nn.functional.mse_loss(self(x), y))

    def configure_optimizers(self) -> Any:
        return torch.optim.SGD(self.parameters(), lr=self.hparams.lr)


def loader() -> Any:
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(32, 4, generator=generator)
    y = x.sum(dim=1, keepdim=True)
    return torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=4)


def fit(loggers: list[Any], model: Regression, root: Path, **trainer: Any) -> pl.Trainer:
    pl.seed_everything(0, verbose=False)
    run = pl.Trainer(
        default_root_dir=root,
        logger=loggers,
        max_epochs=2,
        limit_train_batches=4,
        limit_val_batches=2,
        log_every_n_steps=1,
        enable_progress_bar=False,
        enable_model_summary=False,
        accelerator="cpu",
        devices=1,
        **trainer,
    )
    run.fit(model, loader(), loader())
    return run


def tensorboard_scalars(log_dir: str) -> dict[str, list[tuple[int, float]]]:
    accumulator = EventAccumulator(log_dir)
    accumulator.Reload()
    return {
        tag: [(event.step, event.value) for event in accumulator.Scalars(tag)] for tag in accumulator.Tags()["scalars"]
    }


def test_fit_logs_what_tensorboardlogger_logs_and_the_run_records_its_hparams_and_end(tmp_path: Path) -> None:
    ours = RidgelineLogger(tmp_path / "ours", name="exp", log_graph=True)
    theirs = TensorBoardLogger(tmp_path / "tb", name="exp")
    checkpoints = ModelCheckpoint(dirpath=tmp_path / "ckpt", monitor="val/loss", save_top_k=1)
    fit([ours, theirs], Regression(), tmp_path, callbacks=[checkpoints])

    assert ours.log_dir == str(tmp_path / "ours" / "exp" / "version_0")
    logdir = ridgeline.open(tmp_path / "ours" / "exp")
    assert logdir.runs() == ["version_0"]
    expected = tensorboard_scalars(theirs.log_dir)
    assert expected.pop("hp_metric") == [(0, -1.0)]  # the placeholder we do not write
    assert set(logdir.tags("version_0")["scalars"]) == set(expected) == {"train/loss", "val/loss", "epoch"}
    for tag, points in expected.items():
        series = logdir.scalars("version_0", tag, all_points=True)  # "epoch" comes twice at an epoch's last step
        assert list(zip(series.step.tolist(), series.value.tolist(), strict=True)) == points, tag
    assert len(expected["train/loss"]) == 8  # 2 epochs x 4 steps, every one of them

    hparams = logdir.hparams("version_0")
    assert hparams is not None and hparams.hparams == {"lr": 0.05, "hidden": 8.0}  # fail_at=None: left out
    end = logdir.hparams_session_end("version_0")
    assert end is not None and end.status == "success"
    annotations = logdir.annotations("version_0")
    assert len(annotations) == 2 and all(text.startswith("checkpoint saved: epoch=") for _, text in annotations)
    assert "best val/loss = " in annotations[-1][1]
    assert logdir.graph("version_0") is not None


def test_versions_count_up_like_tensorboardlogger(tmp_path: Path) -> None:
    (tmp_path / "exp" / "version_3").mkdir(parents=True)
    (tmp_path / "exp" / "version_x").mkdir()
    (tmp_path / "exp" / "version_9").write_text("a file, not a version")
    ours, theirs = RidgelineLogger(tmp_path, name="exp"), TensorBoardLogger(tmp_path, name="exp")
    assert ours.version == theirs.version == 4
    assert RidgelineLogger(tmp_path, name="", version="trial-a").log_dir == str(tmp_path / "trial-a")
    assert RidgelineLogger(tmp_path, version=2, sub_dir="fold1").log_dir == str(
        tmp_path / "lightning_logs" / "version_2" / "fold1"
    )


def test_a_failed_fit_is_recorded_as_failed(tmp_path: Path) -> None:
    ours = RidgelineLogger(tmp_path, name="exp")
    with pytest.raises(RuntimeError, match="the data loader broke"):
        fit([ours], Regression(fail_at=3), tmp_path)
    logdir = ridgeline.open(tmp_path / "exp")
    end = logdir.hparams_session_end("version_0")
    assert end is not None and end.status == "failure"
    assert logdir.scalars("version_0", "train/loss").step.tolist() == [0, 1, 2]


def test_all_ranks_writes_into_a_folder_per_rank(tmp_path: Path) -> None:
    ours = RidgelineLogger(tmp_path, name="exp", all_ranks=True)
    fit([ours], Regression(), tmp_path)
    logdir = ridgeline.open(tmp_path / "exp")
    assert logdir.runs() == ["version_0/rank0"]
    assert len(logdir.scalars("version_0/rank0", "train/loss")) == 8


def test_bad_arguments_name_themselves(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="save_dir must be a path"):
        RidgelineLogger(3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="log_dir= is set by the logger"):
        RidgelineLogger(tmp_path, log_dir="x")
    ours = RidgelineLogger(tmp_path)
    with pytest.raises(ValueError, match="'acc' must be a number"):
        ours.log_metrics({"acc": "high"}, 0)


def test_metrics_given_with_hparams_are_logged_as_scalars(tmp_path: Path) -> None:
    ours = RidgelineLogger(tmp_path, name="")
    ours.log_metrics({"loss": 2.0}, step=0)  # the writer exists before the hyperparameters come
    ours.log_hyperparams({"optimizer": {"name": "adam", "betas": (0.9, 0.99)}}, metrics={"best": 0.5}, step=3)
    ours.finalize("success")
    logdir = ridgeline.open(tmp_path)
    hparams = logdir.hparams("version_0")
    assert hparams is not None and hparams.hparams == {"optimizer/name": "adam", "optimizer/betas": "(0.9, 0.99)"}
    assert logdir.scalars("version_0", "best").value.tolist() == [0.5]
    assert np.array_equal(logdir.scalars("version_0", "best").step, [3])
