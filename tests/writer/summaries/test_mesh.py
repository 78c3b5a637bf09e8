"""mesh against torch's."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from torch.utils.tensorboard import summary as torch_summary

from ridgeline.writer import summaries
from tests.writer.summaries.helpers import assert_same


@pytest.mark.parametrize("parts", ["v", "vc", "vf", "vcf"])
@pytest.mark.parametrize("config", [None, {"camera": {"cls": "PerspectiveCamera", "fov": 75}, "a": [1, 2]}])
def test_mesh_matches_torch(parts: str, config: dict[str, Any] | None) -> None:
    vertices = torch.tensor([[[1, 1, 1], [-1, -1, 1], [1, -1, -1], [-1, 1, -1]]], dtype=torch.float)
    colors = torch.tensor([[[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 0, 255]]], dtype=torch.int)
    faces = torch.tensor([[[0, 2, 3], [0, 3, 1], [0, 1, 2], [1, 3, 2]]], dtype=torch.int)
    args = (vertices, colors if "c" in parts else None, faces if "f" in parts else None, config)
    assert_same(summaries.mesh("m", *args), torch_summary.mesh("m", *args))
    named = {"display_name": "My mesh", "description": "*four* points"}
    assert_same(summaries.mesh("m", *args, **named), torch_summary.mesh("m", *args, **named))
    numpy_args = (vertices.numpy(), None if args[1] is None else args[1].numpy(), args[2], config)
    assert_same(summaries.mesh("m", *numpy_args), torch_summary.mesh("m", *args))
