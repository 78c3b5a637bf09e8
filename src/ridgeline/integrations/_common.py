"""What the framework adapters share: hyperparameters flattened to what the hparams dashboard holds, numbers
taken out of tensors, a run's session started and ended on a writer that already exists, framework imports that
fail with the extra to install."""

from __future__ import annotations

import importlib
import math
import numbers
import time
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from ridgeline.format.proto import event_pb2, hparams_pb2, summary_pb2
from ridgeline.writer import summaries
from ridgeline.writer.summary_writer import SummaryWriter
from ridgeline.writer.values import is_torch_tensor

STATUS_SUCCESS = hparams_pb2.STATUS_SUCCESS
STATUS_FAILURE = hparams_pb2.STATUS_FAILURE
STATUS_UNKNOWN = hparams_pb2.STATUS_UNKNOWN


def require(module: str, extra: str, integration: str) -> ModuleType:
    """``import module``, or an ImportError that says which extra brings it."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(f"{integration} needs the {module!r} package: pip install 'ridgeline[{extra}]'") from error


def flatten_hparams(params: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested mappings as ``outer/inner`` keys; values the hparams dashboard holds (numbers, bools, strings, None)
    kept, one-element tensors and arrays as numbers, anything else (lists, dtypes, objects) as its ``str``."""
    flat: dict[str, Any] = {}
    for key, value in params.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(flatten_hparams(value, prefix=name + "/"))
        elif value is None or isinstance(value, bool | str):
            flat[name] = value
        elif isinstance(value, numbers.Real):
            flat[name] = value if math.isfinite(float(value)) else str(value)
        elif (is_torch_tensor(value) or hasattr(value, "ndim")) and getattr(value, "ndim", 1) == 0:
            number = scalar(value)
            flat[name] = number if number is not None and math.isfinite(number) else str(value)
        else:
            flat[name] = str(value)
    return flat


def scalar(value: Any) -> float | None:
    """``value`` as a float when it is one number (Python, numpy or a one-element tensor), else None."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if is_torch_tensor(value) or hasattr(value, "item"):
        try:
            if getattr(value, "ndim", 0) == 0 or getattr(value, "size", 1) in (1, (1,)):
                return float(value.item())
        except (TypeError, ValueError, RuntimeError):
            return None
    return None


def start_session(writer: SummaryWriter, hparams: Mapping[str, Any]) -> None:
    """Record ``hparams`` on the run itself, as ``SummaryWriter(hparams=...)`` does for a writer made with them:
    frameworks hand their hyperparameters over after the writer exists. Closing the writer records the end."""
    start = summaries.session_start(hparams, start_time_secs=time.time(), method="log_hyperparams")
    writer._write_summary("log_hyperparams", start, None, None)
    writer._session_open = True


def end_session(writer: SummaryWriter, status: hparams_pb2.Status) -> None:
    """Record how the run ended (``STATUS_SUCCESS``, ``STATUS_FAILURE``, ...), with or without hyperparameters."""
    writer._session_open = True  # the writer records an end only for a session it started
    writer._end_session(status)


def write_summary(writer: SummaryWriter, summary: summary_pb2.Summary, step: int | None) -> None:
    """A summary built here (a Keras model's graph) queued on the run's event file."""
    writer._get_file_writer().add_event(event_pb2.Event(summary=summary), step)
