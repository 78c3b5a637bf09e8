"""TensorProto -> numpy: :func:`make_ndarray` does what TensorBoard's ``tensor_util.make_ndarray`` does (and
TensorFlow where TensorBoard fails); every inconsistency raises :class:`~ridgeline.store.payloads.DecodeError`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ridgeline.format.proto import tensor_pb2, types_pb2
from ridgeline.store.payloads import MAX_STRINGS, MAX_TENSOR_ELEMENTS, DecodeError

_DT = types_pb2
_NUMPY_DTYPES: dict[int, np.dtype[Any]] = {
    _DT.DT_FLOAT: np.dtype("f4"),
    _DT.DT_DOUBLE: np.dtype("f8"),
    _DT.DT_INT32: np.dtype("i4"),
    _DT.DT_UINT8: np.dtype("u1"),
    _DT.DT_INT16: np.dtype("i2"),
    _DT.DT_INT8: np.dtype("i1"),
    _DT.DT_STRING: np.dtype(object),
    _DT.DT_COMPLEX64: np.dtype("c8"),
    _DT.DT_INT64: np.dtype("i8"),
    _DT.DT_BOOL: np.dtype("?"),
    _DT.DT_QINT8: np.dtype("i1"),
    _DT.DT_QUINT8: np.dtype("u1"),
    _DT.DT_QINT32: np.dtype("i4"),
    _DT.DT_BFLOAT16: np.dtype("f4"),  # numpy has no bfloat16: widened exactly to float32
    _DT.DT_QINT16: np.dtype("i2"),
    _DT.DT_QUINT16: np.dtype("u2"),
    _DT.DT_UINT16: np.dtype("u2"),
    _DT.DT_COMPLEX128: np.dtype("c16"),
    _DT.DT_HALF: np.dtype("f2"),
    _DT.DT_UINT32: np.dtype("u4"),
    _DT.DT_UINT64: np.dtype("u8"),
}
_SMALL_INTS = {_DT.DT_INT32, _DT.DT_UINT8, _DT.DT_INT16, _DT.DT_INT8, _DT.DT_QINT8, _DT.DT_QUINT8, _DT.DT_QINT32}
_SMALL_INTS |= {_DT.DT_QINT16, _DT.DT_QUINT16, _DT.DT_UINT16}
_FIELDS: dict[int, str] = {_DT.DT_FLOAT: "float_val", _DT.DT_DOUBLE: "double_val", _DT.DT_INT64: "int64_val"}
_FIELDS |= {_DT.DT_STRING: "string_val", _DT.DT_BOOL: "bool_val", _DT.DT_UINT32: "uint32_val"}
_FIELDS |= {_DT.DT_UINT64: "uint64_val", _DT.DT_COMPLEX64: "scomplex_val", _DT.DT_COMPLEX128: "dcomplex_val"}
_FIELDS |= {_DT.DT_HALF: "half_val", _DT.DT_BFLOAT16: "half_val"}
_FIELDS |= dict.fromkeys(_SMALL_INTS, "int_val")
REAL_DTYPES = frozenset(_NUMPY_DTYPES) - {_DT.DT_STRING, _DT.DT_COMPLEX64, _DT.DT_COMPLEX128}


def dtype_name(dtype: int) -> str:
    try:
        return types_pb2.DataType.Name(dtype)  # type: ignore[arg-type]
    except ValueError:
        return f"data type {dtype}"


def tensor_shape(tensor: tensor_pb2.TensorProto) -> tuple[int, ...]:
    """The shape of ``tensor``, checked: known rank, no negative (unknown) dimension, at most
    MAX_TENSOR_ELEMENTS elements (MAX_STRINGS for strings), and no more stored values than that either."""
    if tensor.tensor_shape.unknown_rank:
        raise DecodeError("tensor has an unknown rank")
    shape = tuple(dim.size for dim in tensor.tensor_shape.dim)
    if any(size < 0 for size in shape):
        raise DecodeError(f"tensor has an unknown or negative dimension: shape {list(shape)}")
    extent = 1
    for size in shape:
        extent *= max(size, 1)
    if extent >= 1 << 62:  # more than numpy can index, even when another dimension is 0
        raise DecodeError(f"tensor shape {list(shape)} is too large")
    limit = MAX_STRINGS if tensor.dtype == types_pb2.DT_STRING else MAX_TENSOR_ELEMENTS
    count = 1
    for size in shape:
        count *= size
    if count > limit:
        raise DecodeError(f"tensor of shape {list(shape)} has {count} elements, over the limit of {limit}")
    stored = _stored_count(tensor)
    if stored > limit:  # a repeated field longer than the shape allows: refused before it is converted
        raise DecodeError(f"tensor of shape {list(shape)} stores {stored} values, over the limit of {limit}")
    return shape


def _stored_count(tensor: tensor_pb2.TensorProto) -> int:
    field = _FIELDS.get(tensor.dtype)
    if field is None:
        return 0
    stored = len(getattr(tensor, field))
    if tensor.dtype in _SMALL_INTS:
        stored = max(stored, len(tensor.uint32_val))
    if tensor.dtype in (_DT.DT_COMPLEX64, _DT.DT_COMPLEX128):
        stored //= 2
    return stored


def make_ndarray(tensor: tensor_pb2.TensorProto) -> np.ndarray:
    """``tensor`` as a numpy array, like TensorBoard's ``tensor_util.make_ndarray``, with TensorFlow's rules where
    TensorBoard has none: fewer stored values than elements are padded with the last one (zeros when none),
    uint32/uint64 values are read, quantized types become plain integers, bfloat16 becomes float32, and
    half_val written as float32 bit patterns (as torch's ``tensor_proto`` does) is read as such."""
    try:
        with np.errstate(all="ignore"):  # values that overflow a narrower type become inf, as in a C cast
            return _make_ndarray(tensor)
    except DecodeError:
        raise
    except (ValueError, TypeError, OverflowError, MemoryError) as error:
        raise DecodeError(f"tensor cannot be read: {type(error).__name__}: {error}") from None


def _make_ndarray(tensor: tensor_pb2.TensorProto) -> np.ndarray:
    dtype = _NUMPY_DTYPES.get(tensor.dtype)
    if dtype is None:
        raise DecodeError(f"tensor has unsupported dtype {dtype_name(tensor.dtype)}")
    shape = tensor_shape(tensor)
    count = 1
    for size in shape:
        count *= size
    if tensor.tensor_content:
        return _from_content(tensor, dtype, shape, count)
    field = _FIELDS[tensor.dtype]
    stored: Sequence[Any] = getattr(tensor, field)
    if tensor.dtype in _SMALL_INTS and not stored:
        stored = tensor.uint32_val  # torch writes uint8 there
    values = _values(tensor.dtype, dtype, stored)
    if values.size > count and values.size != 1:
        raise DecodeError(f"tensor of shape {list(shape)} holds {values.size} values, more than its {count} elements")
    if values.size < count:  # count is at most MAX_TENSOR_ELEMENTS (tensor_shape)
        fill = values[-1] if values.size else (b"" if dtype.kind == "O" else 0)
        padded = np.full(count, fill, dtype=dtype)
        padded[: values.size] = values
        values = padded
    return values[:count].reshape(shape)


def _values(data_type: int, dtype: np.dtype[Any], stored: Sequence[Any]) -> np.ndarray:
    if data_type == _DT.DT_STRING:
        array = np.empty(len(stored), dtype=object)
        array[:] = list(stored)
        return array
    if data_type in (_DT.DT_COMPLEX64, _DT.DT_COMPLEX128):
        if len(stored) % 2:
            raise DecodeError(f"{dtype_name(data_type)} tensor holds an odd number ({len(stored)}) of real parts")
        parts = np.fromiter(stored, dtype=np.float64, count=len(stored))
        return (parts[0::2] + 1j * parts[1::2]).astype(dtype)
    if data_type in (_DT.DT_HALF, _DT.DT_BFLOAT16):
        bits = np.fromiter(stored, dtype=np.int64, count=len(stored))
        if bits.size and (bits.min() < 0 or bits.max() > 0xFFFF):  # float32 bit patterns (torch)
            return (bits & 0xFFFFFFFF).astype(np.uint32).view(np.float32).astype(dtype)
        return _from_bits16(data_type, bits.astype(np.uint16))
    if data_type in _SMALL_INTS:  # int32 on the wire: cast (wrapping) as TensorFlow's C++ does
        return np.fromiter(stored, dtype=np.int64, count=len(stored)).astype(dtype)
    return np.fromiter(stored, dtype=dtype, count=len(stored))


def _from_bits16(data_type: int, bits: np.ndarray) -> np.ndarray:
    if data_type == _DT.DT_HALF:
        return bits.view(np.float16)
    return (bits.astype(np.uint32) << 16).view(np.float32)


def _from_content(
    tensor: tensor_pb2.TensorProto, dtype: np.dtype[Any], shape: tuple[int, ...], count: int
) -> np.ndarray:
    content = tensor.tensor_content
    if dtype.kind == "O":
        raise DecodeError("a DT_STRING tensor cannot use tensor_content")
    wire = np.dtype("<u2") if tensor.dtype == _DT.DT_BFLOAT16 else dtype.newbyteorder("<")  # little-endian bytes
    if len(content) != count * wire.itemsize:
        raise DecodeError(
            f"{dtype_name(tensor.dtype)} tensor of shape {list(shape)} needs {count * wire.itemsize} bytes of "
            f"tensor_content, got {len(content)}"
        )
    array = np.frombuffer(content, dtype=wire).copy()
    if tensor.dtype == _DT.DT_BFLOAT16:
        array = _from_bits16(tensor.dtype, array)
    return array.astype(dtype, copy=False).reshape(shape)
