"""RidgelineCallback with the real Hugging Face Trainer: a small BERT built from a config (nothing downloaded) trained
for a few steps on random tokens on the CPU, beside transformers' own TensorBoardCallback; and the accelerate
tracker under a real Accelerator."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ridgeline
from ridgeline.analysis.diagnosis import DiagnosisConfig

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("accelerate")

from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402
from transformers.integrations import TensorBoardCallback  # noqa: E402

from ridgeline.integrations.transformers import RidgelineCallback, rewrite_logs  # noqa: E402

pytestmark = pytest.mark.slow


class RandomTokens(torch.utils.data.Dataset):  # type: ignore[misc]
    def __init__(self, size: int, seed: int) -> None:
        generator = torch.Generator().manual_seed(seed)
        self.ids = torch.randint(0, 50, (size, 8), generator=generator)
        self.labels = (self.ids[:, 0] % 2).long()

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, index: int) -> dict[str, Any]:
        return {
            "input_ids": self.ids[index],
            "attention_mask": torch.ones(8, dtype=torch.long),
            "labels": self.labels[index],
        }


def tiny_bert() -> Any:
    config = transformers.BertConfig(
        vocab_size=50,
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=16,
        num_labels=2,
    )
    return transformers.BertForSequenceClassification(config)


def train(tmp_path: Path, callbacks: list[Any]) -> Any:
    transformers.set_seed(0)
    args = transformers.TrainingArguments(
        output_dir=str(tmp_path / "out"),
        max_steps=6,
        per_device_train_batch_size=4,
        per_device_eval_batch_size=8,
        learning_rate=1e-3,
        logging_steps=1,
        eval_strategy="steps",
        eval_steps=3,
        save_strategy="steps",
        save_steps=3,
        report_to="none",
        use_cpu=True,
        disable_tqdm=True,
        seed=0,
    )
    trainer = transformers.Trainer(
        model=tiny_bert(),
        args=args,
        train_dataset=RandomTokens(32, seed=1),
        eval_dataset=RandomTokens(8, seed=2),
        callbacks=callbacks,
    )
    trainer.train()
    return trainer


def test_trainer_run_reads_back_as_the_trainer_logged_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TENSORBOARD_LOGGING_DIR", str(tmp_path / "tb"))
    trainer = train(tmp_path, [RidgelineCallback(tmp_path / "ours", hparams={"data": "random"}), TensorBoardCallback()])

    expected: dict[str, list[tuple[int, float]]] = {}
    for entry in trainer.state.log_history:  # the Trainer's own record of what it logged
        for tag, value in rewrite_logs({k: v for k, v in entry.items() if k != "step"}).items():
            expected.setdefault(tag, []).append((entry["step"], float(np.float32(value))))
    logdir = ridgeline.open(tmp_path / "ours")
    assert logdir.runs() == ["."]
    got = {tag: logdir.scalars(".", tag, all_points=True) for tag in logdir.tags(".")["scalars"]}
    assert {tag: list(zip(s.step.tolist(), s.value.tolist(), strict=True)) for tag, s in got.items()} == expected
    assert len(expected["train/loss"]) == 6 and len(expected["eval/loss"]) == 2

    theirs = EventAccumulator(str(tmp_path / "tb"))
    theirs.Reload()
    assert set(theirs.Tags()["scalars"]) == set(expected)  # the names TensorBoardCallback gives them

    hparams = logdir.hparams(".")
    assert hparams is not None
    assert hparams.hparams["learning_rate"] == pytest.approx(1e-3) and hparams.hparams["max_steps"] == 6
    assert hparams.hparams["model/hidden_size"] == 16 and hparams.hparams["data"] == "random"
    end = logdir.hparams_session_end(".")
    assert end is not None and end.status == "success"
    assert [step for step, _ in logdir.annotations(".")] == [3, 6]
    assert logdir.annotations(".")[0][1] == "checkpoint saved: checkpoint-3"
    assert set(logdir.tags(".")["text"]) == {"args/text_summary", "model_config/text_summary"}

    patterns = DiagnosisConfig().compiled()  # the diagnosis finds the learning rate and the gradient norm
    assert patterns.learning_rate.search("train/learning_rate") and patterns.gradient.search("train/grad_norm")
    assert {"train/learning_rate", "train/grad_norm"} <= set(expected)


def test_per_rank_writes_into_the_process_folder(tmp_path: Path) -> None:
    train(tmp_path, [RidgelineCallback(tmp_path / "ours", per_rank=True)])
    logdir = ridgeline.open(tmp_path / "ours")
    assert logdir.runs() == ["rank0"]
    assert len(logdir.scalars("rank0", "train/loss")) == 6


def test_bad_arguments_name_themselves() -> None:
    with pytest.raises(TypeError, match="log_dir must be a path"):
        RidgelineCallback(3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="hparams must be a dict"):
        RidgelineCallback(hparams=[("lr", 1)])  # type: ignore[arg-type]


def test_accelerate_tracker(tmp_path: Path) -> None:
    from accelerate import Accelerator

    from ridgeline.integrations.accelerate import RidgelineTracker

    accelerator = Accelerator(log_with=RidgelineTracker("exp1", tmp_path), cpu=True)
    accelerator.init_trackers("exp1", config={"lr": 0.01, "optimizer": {"name": "sgd"}})
    for step in range(3):
        accelerator.log({"train/loss": 1.0 / (step + 1), "note": "warming up"}, step=step)
    accelerator.end_training()
    logdir = ridgeline.open(tmp_path)
    assert logdir.runs() == ["exp1"]
    assert logdir.scalars("exp1", "train/loss").value.tolist() == pytest.approx([1.0, 0.5, 1 / 3])
    hparams = logdir.hparams("exp1")
    assert hparams is not None and hparams.hparams == {"lr": 0.01, "optimizer/name": "sgd"}
    end = logdir.hparams_session_end("exp1")
    assert end is not None and end.status == "success"
