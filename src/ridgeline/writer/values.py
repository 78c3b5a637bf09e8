"""Turning what users pass (Python numbers, numpy arrays, torch tensors, lists) into numpy, with clear errors.

torch is never imported here: a tensor is recognised by its type's module, and converted through its own
methods. Every error names the writer method and the argument, and says what was expected.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1


def is_torch_tensor(value: object) -> bool:
    module = type(value).__module__
    return module.startswith("torch") and hasattr(value, "detach")


def to_numpy(value: Any, *, method: str, argument: str) -> np.ndarray:
    """``value`` as a numpy array (never a copy of an ndarray that was passed in)."""
    if isinstance(value, np.ndarray):
        array = value
    elif is_torch_tensor(value):
        tensor = value.detach()
        if str(tensor.dtype) == "torch.bfloat16":  # numpy has no bfloat16
            tensor = tensor.float()
        array = tensor.cpu().numpy()
    elif isinstance(value, numbers.Number | np.generic | list | tuple):
        try:
            array = np.asarray(value)
        except ValueError as error:  # ragged nested lists
            raise TypeError(
                f"{method}: {argument} must be a rectangular array, got a ragged {type(value).__name__}"
            ) from error
    else:
        raise TypeError(
            f"{method}: {argument} must be a number, numpy array or torch tensor, got {type(value).__name__}"
        )
    if array.dtype == object or array.dtype.kind in "USV":
        raise TypeError(f"{method}: {argument} must hold numbers, got an array of dtype {array.dtype}")
    return array


def to_float(value: Any, *, method: str, argument: str) -> float:
    """A single real number: a Python number, a numpy scalar, or a one-element array or tensor."""
    if isinstance(value, float | int) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, bool | np.bool_):
        return float(value)
    if isinstance(value, numbers.Real | np.integer | np.floating):
        return float(value)
    array = to_numpy(value, method=method, argument=argument)
    if array.size != 1:
        raise ValueError(f"{method}: {argument} must be a single number, got an array of shape {array.shape}")
    if array.dtype.kind == "c":
        raise TypeError(f"{method}: {argument} must be a real number, got a complex value")
    return float(array.reshape(()))


def to_step(value: Any, *, method: str, argument: str = "global_step") -> int:
    """A step: an integer in int64 range (numpy integers and one-element integer tensors included)."""
    if type(value) is int:
        step = value
    elif isinstance(value, bool):
        raise TypeError(f"{method}: {argument} must be an integer, got bool")
    elif isinstance(value, numbers.Integral | np.integer):
        step = int(value)
    elif isinstance(value, float | np.floating):
        if not math.isfinite(value) or value != int(value):
            raise ValueError(f"{method}: {argument} must be an integer, got {value!r}")
        step = int(value)
    elif isinstance(value, np.ndarray) or is_torch_tensor(value):
        array = to_numpy(value, method=method, argument=argument)
        if array.size != 1 or array.dtype.kind not in "iu":
            raise TypeError(f"{method}: {argument} must be an integer, got {type(value).__name__} {array.dtype}")
        step = int(array.reshape(()))
    else:
        raise TypeError(f"{method}: {argument} must be an integer, got {type(value).__name__}")
    if not INT64_MIN <= step <= INT64_MAX:
        raise ValueError(f"{method}: {argument} must fit in a signed 64-bit integer, got {step}")
    return step


def check_tag(tag: Any, *, method: str, argument: str = "tag") -> str:
    if not isinstance(tag, str):
        raise TypeError(f"{method}: {argument} must be a non-empty string, got {type(tag).__name__}")
    if not tag:
        raise ValueError(f"{method}: {argument} must be a non-empty string, got ''")
    return tag
