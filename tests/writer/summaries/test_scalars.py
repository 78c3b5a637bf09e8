"""scalar_tensor and tensor against torch's scalar(new_style=True) and tensor_proto."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
from torch.utils.tensorboard import summary as torch_summary

from ridgeline.writer import summaries
from tests.writer.summaries.helpers import assert_same


@pytest.mark.parametrize("value", [0.0, 1.5, -3, 1e300, float("nan"), float("inf"), np.float32(2.5), True])
@pytest.mark.parametrize("double", [False, True])
def test_scalar_tensor_matches_torch(value: Any, double: bool) -> None:
    theirs = torch_summary.scalar("loss", value, new_style=True, double_precision=double)
    assert_same(summaries.scalar_tensor("loss", value, double), theirs)


def test_scalar_tensor_takes_tensors() -> None:
    theirs = torch_summary.scalar("x", torch.tensor([0.25]), new_style=True)
    assert_same(summaries.scalar_tensor("x", torch.tensor([0.25])), theirs)


TENSOR_DTYPES = [
    torch.float16,
    torch.bfloat16,
    torch.float32,
    torch.float64,
    torch.int8,
    torch.uint8,
    torch.int16,
    torch.int32,
    torch.int64,
    torch.bool,
    torch.complex64,
    torch.complex128,
]


@pytest.mark.parametrize("dtype", TENSOR_DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(), (0,), (5,), (2, 3, 2)])
def test_tensor_matches_torch(dtype: torch.dtype, shape: tuple[int, ...]) -> None:
    values = (torch.randn(shape, dtype=torch.complex128) * 50).to(dtype) if dtype.is_complex else None
    if values is None:
        values = (torch.randn(shape) * 50).to(dtype) if dtype != torch.bool else torch.randn(shape) > 0
    theirs = torch_summary.tensor_proto("t", values)
    assert_same(summaries.tensor("t", values), theirs)
    if dtype != torch.bfloat16:  # numpy has no bfloat16
        assert_same(summaries.tensor("t", values.numpy()), theirs)


@pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental:UserWarning")
def test_tensor_rejects_complex32_as_torch_does() -> None:
    values = torch.zeros(3, dtype=torch.complex32)
    with pytest.raises(ValueError, match="DT_COMPLEX32"):
        torch_summary.tensor_proto("t", values)
    with pytest.raises(ValueError, match=r"add_tensor: tensor has dtype torch.complex32, which is not one of"):
        summaries.tensor("t", values)


def test_tensor_transposed_and_requiring_grad() -> None:
    values = torch.randn(3, 4, requires_grad=True)
    assert_same(summaries.tensor("t", values.t()), torch_summary.tensor_proto("t", values.t()))
