"""Scalars (plugin "scalars") and whole tensors (plugin "tensor") as TensorProto summaries."""

from __future__ import annotations

from typing import Any

import numpy as np

from ridgeline.format.proto import types_pb2
from ridgeline.format.tags import SCALARS_PLUGIN, TENSOR_PLUGIN
from ridgeline.writer.summaries._common import Summary, TensorProto, _metadata, _shape
from ridgeline.writer.values import check_tag, is_torch_tensor, to_float, to_numpy


def scalar_tensor(tag: str, value: Any, double_precision: bool = False, *, method: str = "add_scalar") -> Summary:
    """A scalar as a tensor summary of plugin "scalars" (torch's ``new_style=True``): DT_FLOAT, or DT_DOUBLE."""
    check_tag(tag, method=method)
    number = to_float(value, method=method, argument="scalar_value")
    if double_precision:
        proto = TensorProto(dtype=types_pb2.DT_DOUBLE, double_val=[number])
    else:
        proto = TensorProto(dtype=types_pb2.DT_FLOAT, float_val=[number])
    return Summary(value=[Summary.Value(tag=tag, tensor=proto, metadata=_metadata(SCALARS_PLUGIN))])


# dtype name → (DataType, TensorProto field). Keyed by numpy names; torch's bfloat16 is added by name.
_TENSOR_FIELDS: dict[str, tuple[types_pb2.DataType, str]] = {
    "float16": (types_pb2.DT_HALF, "half_val"),
    "bfloat16": (types_pb2.DT_BFLOAT16, "half_val"),
    "float32": (types_pb2.DT_FLOAT, "float_val"),
    "float64": (types_pb2.DT_DOUBLE, "double_val"),
    "int8": (types_pb2.DT_INT8, "int_val"),
    "int16": (types_pb2.DT_INT16, "int_val"),
    "int32": (types_pb2.DT_INT32, "int_val"),
    "int64": (types_pb2.DT_INT64, "int64_val"),
    "uint8": (types_pb2.DT_UINT8, "uint32_val"),
    "bool": (types_pb2.DT_BOOL, "bool_val"),
    "complex64": (types_pb2.DT_COMPLEX64, "scomplex_val"),
    "complex128": (types_pb2.DT_COMPLEX128, "dcomplex_val"),
}


def tensor(tag: str, tensor: Any, *, method: str = "add_tensor") -> Summary:
    """A whole tensor as a TensorProto (plugin "tensor"), laid out as torch's ``tensor_proto``."""
    check_tag(tag, method=method)
    supported = ", ".join(_TENSOR_FIELDS)
    if is_torch_tensor(tensor):
        name = str(tensor.dtype).removeprefix("torch.")
        if name not in _TENSOR_FIELDS:  # checked first: numpy cannot even hold complex32 or quantized tensors
            raise ValueError(f"{method}: tensor has dtype torch.{name}, which is not one of {supported}")
    array = to_numpy(tensor, method=method, argument="tensor")
    if not is_torch_tensor(tensor):
        name = array.dtype.name
        if name not in _TENSOR_FIELDS:
            raise ValueError(f"{method}: tensor has dtype {name}, which is not one of {supported}")
    size_in_bytes = array.size * (2 if name == "bfloat16" else array.itemsize)
    if size_in_bytes >= 1 << 31:
        raise ValueError(f"{method}: tensor takes {size_in_bytes} bytes; a protobuf message holds under 2 GiB")
    data_type, field = _TENSOR_FIELDS[name]
    flat = np.ascontiguousarray(array).reshape(-1)
    if field == "half_val":
        # torch stores the float32 bit pattern of each half/bfloat16 value (not its 16 bits) in half_val.
        elements = flat.astype(np.float32).view(np.int32).tolist()
    elif array.dtype.kind == "c":
        elements = flat.view(np.float32 if array.dtype == np.complex64 else np.float64).tolist()  # re, im, ...
    else:
        elements = flat.tolist()
    proto = TensorProto(dtype=data_type, tensor_shape=_shape(array.shape))
    getattr(proto, field).extend(elements)
    return Summary(value=[Summary.Value(tag=tag, metadata=_metadata(TENSOR_PLUGIN), tensor=proto)])
