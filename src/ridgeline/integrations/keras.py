"""``RidgelineCallback``: a Keras 3 callback writing through :class:`ridgeline.SummaryWriter`, on any backend.

``keras.callbacks.TensorBoard`` needs TensorFlow installed whatever the backend (keras#19121), and in Keras 3 its
projector setup points at ``.weights.h5`` checkpoints the projector cannot read (keras#20210). This callback needs
neither: it writes what that callback writes, in its layout, through ridgeline's writer (torch, JAX or NumPy backend):

- ``<log_dir>/train`` and ``<log_dir>/validation``: ``epoch_<metric>`` every epoch (``val_`` metrics in validation),
  ``epoch_learning_rate``, ``batch_<metric>`` every ``update_freq`` batches, weight histograms
  (``<weight path>/histogram``) every ``histogram_freq`` epochs, the model's config as a graph (tag ``keras``);
- ``<log_dir>``: the hyperparameters (``hparams=``, plus the optimizer's and fit's) with the run's end status, the
  model summary as text, and every ``Embedding`` layer's vectors for the projector every ``embeddings_freq`` epochs.

    import os
import warnings
    os.environ["KERAS_BACKEND"] = "torch"          # before keras is imported
    import keras
    from ridgeline.integrations.keras import RidgelineCallback

    model.fit(x, y, validation_split=0.2, epochs=5, callbacks=[RidgelineCallback("runs/keras")])
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from ridgeline.format.proto import summary_pb2, tensor_pb2, types_pb2
from ridgeline.format.tags import GRAPH_KERAS_MODEL_PLUGIN
from ridgeline.integrations._common import (
    STATUS_SUCCESS,
    end_session,
    flatten_hparams,
    require,
    scalar,
    start_session,
    write_summary,
)
from ridgeline.writer.summary_writer import SummaryWriter
from ridgeline.writer.values import is_torch_tensor

keras = require("keras", "keras", "ridgeline.integrations.keras")

__all__ = ["RidgelineCallback"]


class RidgelineCallback(keras.callbacks.Callback):  # type: ignore[misc,name-defined]
    """Logs a Keras ``fit`` for ridgeline.

    Args:
        log_dir: the run's directory (``train/`` and ``validation/`` go under it).
        update_freq: ``"epoch"`` (default), ``"batch"`` or a number of batches between ``batch_<metric>`` points.
        histogram_freq: epochs between weight histograms; 0 for none.
        embeddings_freq: epochs between snapshots of the ``Embedding`` layers' vectors; 0 for none.
        embeddings_metadata: a label per row, per ``Embedding`` layer name (``{"tokens": ["the", "a", ...]}``).
        hparams: the run's hyperparameters; the optimizer's learning rate and name, ``epochs`` and
            ``batch_size`` are added.
        write_graph: record the model's config (layers and connections) for the graphs dashboard.
        **writer_kwargs: passed on to :class:`ridgeline.SummaryWriter` (``flush_secs``, ``max_queue``, ...).
    """

    def __init__(
        self,
        log_dir: str | os.PathLike[str] = "logs",
        *,
        update_freq: str | int = "epoch",
        histogram_freq: int = 0,
        embeddings_freq: int = 0,
        embeddings_metadata: Mapping[str, Sequence[Any]] | None = None,
        hparams: Mapping[str, Any] | None = None,
        write_graph: bool = True,
        **writer_kwargs: Any,
    ) -> None:
        super().__init__()
        if not isinstance(log_dir, str | os.PathLike):
            raise TypeError(f"RidgelineCallback: log_dir must be a path, got {type(log_dir).__name__}")
        if update_freq == "batch":
            update_freq = 1
        if update_freq != "epoch" and (
            isinstance(update_freq, bool) or not isinstance(update_freq, int) or update_freq < 1
        ):
            raise ValueError(
                f"RidgelineCallback: update_freq must be 'epoch', 'batch' or a positive integer, got {update_freq!r}"
            )
        for name, freq in (("histogram_freq", histogram_freq), ("embeddings_freq", embeddings_freq)):
            if isinstance(freq, bool) or not isinstance(freq, int) or freq < 0:
                raise ValueError(f"RidgelineCallback: {name} must be an integer >= 0, got {freq!r}")
        if hparams is not None and not isinstance(hparams, Mapping):
            raise TypeError(f"RidgelineCallback: hparams must be a dict, got {type(hparams).__name__}")
        self.log_dir = os.fspath(log_dir)
        self.update_freq = update_freq
        self.histogram_freq = histogram_freq
        self.embeddings_freq = embeddings_freq
        self.embeddings_metadata = dict(embeddings_metadata or {})
        self.hparams = dict(hparams or {})
        self.write_graph = write_graph
        self._writer_kwargs = writer_kwargs
        self._writers: dict[str, SummaryWriter] = {}
        self._batch = 0  # batches trained in this fit: the step of batch_<metric>

    def _writer(self, part: str) -> SummaryWriter:
        """The run's writer (``""``) or its train/validation sub-run's."""
        writer = self._writers.get(part)
        if writer is None:
            writer = self._writers[part] = SummaryWriter(
                os.path.join(self.log_dir, part) if part else self.log_dir,
                per_rank=False,
                record_run_metadata=not part,
                **self._writer_kwargs,
            )
        return writer

    # --- Keras' events ----------------------------------------------------------------------------------------
    def on_train_begin(self, logs: Mapping[str, Any] | None = None) -> None:
        self._batch = 0
        unknown = set(self.embeddings_metadata) - {layer.name for layer in self._embedding_layers()}
        if unknown:
            raise ValueError(
                f"RidgelineCallback: embeddings_metadata names {sorted(unknown)}, which are not Embedding layers "
                f"of the model (it has {sorted(layer.name for layer in self._embedding_layers())})"
            )
        run = self._writer("")
        start_session(run, self._hparams())
        lines: list[str] = []
        self.model.summary(print_fn=lambda line, *args, **kwargs: lines.append(line))
        run.add_text("model_summary", "```\n" + "\n".join(lines) + "\n```")
        if self.write_graph:
            with warnings.catch_warnings():
                # Keras serialises a torch tensor with np.array(tensor), which numpy 2 warns about: Keras' to fix.
                warnings.filterwarnings("ignore", "__array__ implementation doesn't accept a copy", DeprecationWarning)
                config = self.model.to_json()
            write_summary(self._writer("train"), _keras_model_summary("keras", config), 0)

    def on_train_batch_end(self, batch: int, logs: Mapping[str, Any] | None = None) -> None:
        self._batch += 1
        if self.update_freq == "epoch" or not logs or (self._batch - 1) % int(self.update_freq):
            return
        train = self._writer("train")
        for name, value in logs.items():
            number = scalar(value)
            if number is not None:
                train.add_scalar(f"batch_{name}", number, self._batch - 1)

    def on_epoch_end(self, epoch: int, logs: Mapping[str, Any] | None = None) -> None:
        logs = dict(logs or {})
        learning_rate = self._learning_rate()
        if learning_rate is not None and "learning_rate" not in logs:
            logs["learning_rate"] = learning_rate
        for name, value in logs.items():
            number = scalar(value)
            if number is None:
                continue
            part, metric = ("validation", name.removeprefix("val_")) if name.startswith("val_") else ("train", name)
            self._writer(part).add_scalar(f"epoch_{metric}", number, epoch)
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            train = self._writer("train")
            for weight in self.model.weights:
                train.add_histogram(f"{weight.path.replace(':', '_')}/histogram", _numpy(weight), epoch)
        if self.embeddings_freq and epoch % self.embeddings_freq == 0:
            for layer in self._embedding_layers():
                vectors = _numpy(layer.embeddings)
                labels = self.embeddings_metadata.get(layer.name)
                self._writer("").add_embedding(vectors, metadata=labels, global_step=epoch, tag=layer.name)

    def on_train_end(self, logs: Mapping[str, Any] | None = None) -> None:
        writers, self._writers = self._writers, {}
        for part, writer in writers.items():
            if not part:
                end_session(writer, STATUS_SUCCESS)
            writer.close()

    # --- helpers ----------------------------------------------------------------------------------------------
    def _embedding_layers(self) -> list[Any]:
        return [layer for layer in self.model.layers if isinstance(layer, keras.layers.Embedding)]

    def _optimizer(self) -> Any:
        optimizer = getattr(self.model, "optimizer", None)
        return getattr(optimizer, "inner_optimizer", optimizer)  # a LossScaleOptimizer wraps the real one

    def _learning_rate(self) -> float | None:
        optimizer = self._optimizer()
        if optimizer is None or not hasattr(optimizer, "learning_rate"):
            return None
        return scalar(_numpy(optimizer.learning_rate))

    def _hparams(self) -> dict[str, Any]:
        found: dict[str, Any] = {}
        optimizer = self._optimizer()
        if optimizer is not None:
            found["optimizer"] = type(optimizer).__name__
            learning_rate = self._learning_rate()
            if learning_rate is not None:
                found["learning_rate"] = learning_rate
        params = self.params or {}
        for key in ("epochs", "batch_size", "steps"):
            if params.get(key) is not None:
                found[key] = params[key]
        return flatten_hparams({**found, **self.hparams})


def _numpy(variable: Any) -> Any:
    """A Keras variable's value as numpy. A torch tensor is converted by torch itself: Keras' ``convert_to_numpy``
    goes through ``np.array(tensor)``, which warns on numpy 2 with torch's ``__array__``."""
    value = getattr(variable, "value", variable)
    if is_torch_tensor(value):
        return value.detach().cpu().numpy()
    return keras.ops.convert_to_numpy(value)


def _keras_model_summary(tag: str, model_json: str) -> summary_pb2.Summary:
    """What ``tf.summary`` writes for a Keras model: its JSON config as a string tensor of the graph plugin."""
    json.loads(model_json)  # Keras gives JSON; a broken one must not reach the file
    metadata = summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name=GRAPH_KERAS_MODEL_PLUGIN)
    )
    tensor = tensor_pb2.TensorProto(dtype=types_pb2.DT_STRING, string_val=[model_json.encode("utf-8")])
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, metadata=metadata, tensor=tensor)])
