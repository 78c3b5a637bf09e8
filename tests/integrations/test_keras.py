"""ridgeline.integrations.keras.RidgelineCallback with the real Keras 3 on the torch backend (no TensorFlow
installed): a tiny model with an Embedding layer fitted for a few epochs on random data, and what ridgeline reads
back compared with the History that ``fit`` returns."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import ridgeline

os.environ.setdefault("KERAS_BACKEND", "torch")  # before keras is imported: TensorFlow is not installed
keras = pytest.importorskip("keras")

from ridgeline.integrations.keras import RidgelineCallback  # noqa: E402

pytestmark = pytest.mark.slow

WORDS = [f"w{i}" for i in range(20)]


def fit(log_dir: Path, epochs: int = 3, **callback: object) -> tuple[keras.Model, keras.callbacks.History]:
    keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    x = rng.integers(0, 20, size=(64, 6))
    y = (x[:, 0] % 2).astype("int64")
    model = keras.Sequential(
        [
            keras.Input(shape=(6,), dtype="int64"),
            keras.layers.Embedding(20, 4, name="tokens"),
            keras.layers.GlobalAveragePooling1D(),
            keras.layers.Dense(2, activation="softmax", name="head"),
        ]
    )
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    history = model.fit(
        x,
        y,
        batch_size=16,
        epochs=epochs,
        validation_split=0.25,
        verbose=0,
        callbacks=[RidgelineCallback(log_dir, **callback)],  # type: ignore[arg-type]
    )
    return model, history


def test_fit_reads_back_as_its_history(tmp_path: Path) -> None:
    assert keras.backend.backend() == "torch"
    model, history = fit(
        tmp_path,
        update_freq="batch",
        histogram_freq=1,
        embeddings_freq=2,
        embeddings_metadata={"tokens": WORDS},
        hparams={"dropout": 0.0},
    )
    logdir = ridgeline.open(tmp_path)
    assert logdir.runs() == [".", "train", "validation"]
    for name, values in history.history.items():  # what Keras itself recorded, epoch by epoch
        run, metric = ("validation", name.removeprefix("val_")) if name.startswith("val_") else ("train", name)
        series = logdir.scalars(run, f"epoch_{metric}")
        assert series.step.tolist() == [0, 1, 2], name
        assert series.value.tolist() == np.asarray(values, dtype=np.float32).tolist(), name
    assert logdir.scalars("train", "epoch_learning_rate").value.tolist() == pytest.approx([0.1] * 3)
    assert logdir.scalars("train", "batch_loss").step.tolist() == list(range(9))  # 3 batches of 16 an epoch

    weights = sorted(logdir.tags("train")["histograms"])
    assert weights == sorted(f"{w.path}/histogram" for w in model.weights)
    head = logdir.histograms("train", "sequential/head/kernel/histogram")
    assert [entry.step for entry in head] == [0, 1, 2] and head[-1].value.num == 8  # the 4x2 kernel

    embeddings = {(ref.tag, ref.step): ref for ref in logdir.embeddings(".")}
    assert set(embeddings) == {("tokens", 0), ("tokens", 2)}
    last = embeddings[("tokens", 2)]
    final = model.get_layer("tokens").embeddings.value.detach().numpy()  # the torch backend: a torch tensor
    assert np.allclose(last.tensors(), final)
    assert [row[0] for row in last.metadata().rows] == WORDS

    hparams = logdir.hparams(".")
    assert hparams is not None
    assert hparams.hparams == {
        "optimizer": "SGD",
        "learning_rate": pytest.approx(0.1),
        "epochs": 3.0,
        "steps": 3.0,
        "dropout": 0.0,
    }
    end = logdir.hparams_session_end(".")
    assert end is not None and end.status == "success"
    graph = logdir.graphs("train", "keras")
    assert len(graph) == 1 and graph[0].value.format == "keras_model"
    (summary,) = logdir.text(".", "model_summary/text_summary")
    assert "tokens (Embedding)" in str(summary.value.text)


def test_epoch_only_by_default(tmp_path: Path) -> None:
    fit(tmp_path, epochs=2)
    logdir = ridgeline.open(tmp_path)
    assert "batch_loss" not in logdir.tags("train")["scalars"]
    assert "histograms" not in logdir.tags("train") and logdir.embeddings(".") == []


def test_bad_arguments_name_themselves(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="update_freq must be 'epoch', 'batch' or a positive integer"):
        RidgelineCallback(tmp_path, update_freq=0)
    with pytest.raises(ValueError, match="histogram_freq must be an integer >= 0"):
        RidgelineCallback(tmp_path, histogram_freq=-1)
    with pytest.raises(ValueError, match=r"embeddings_metadata names \['words'\]"):
        fit(tmp_path, embeddings_metadata={"words": WORDS})
