"""pr_curve and pr_curve_raw against torch's."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
from torch.utils.tensorboard import summary as torch_summary

from ridgeline.writer import summaries
from tests.writer.summaries.helpers import assert_same

RNG = np.random.default_rng(1234)


@pytest.mark.parametrize("num_thresholds", [1, 2, 10, 127, 500])
@pytest.mark.parametrize("weights", [None, 2.5, "array"])
def test_pr_curve_matches_torch(num_thresholds: int, weights: Any) -> None:
    labels = RNG.integers(0, 2, 500)
    predictions = RNG.random(500).astype(np.float32)
    predictions[:3] = [0.0, 1.0, 0.5]
    if isinstance(weights, str):
        weights = RNG.random(500)
    theirs = torch_summary.pr_curve("pr", labels, predictions, num_thresholds, weights)
    assert_same(summaries.pr_curve("pr", labels, predictions, num_thresholds, weights), theirs)


def test_pr_curve_large_weighted_tensors_match_torch() -> None:
    labels = torch.rand(70_000) > 0.4
    predictions = torch.rand(70_000, dtype=torch.float64)
    weights = RNG.random(70_000) * 3
    theirs = torch_summary.pr_curve("pr", labels.numpy(), predictions.numpy(), 50, weights)
    assert_same(summaries.pr_curve("pr", labels, predictions, 50, weights), theirs)


def test_pr_curve_raw_matches_torch() -> None:
    n = 5
    arrays = [RNG.integers(0, 100, n), RNG.integers(0, 100, n), RNG.integers(0, 100, n), RNG.integers(0, 100, n)]
    precision, recall = RNG.random(n), RNG.random(n).astype(np.float32)
    theirs = torch_summary.pr_curve_raw("raw", *arrays, precision, recall, num_thresholds=n)
    assert_same(summaries.pr_curve_raw("raw", *arrays, precision, recall, num_thresholds=n), theirs)
    tensors = [torch.from_numpy(a) for a in [*arrays, precision, recall]]
    assert_same(summaries.pr_curve_raw("raw", *tensors, num_thresholds=n), theirs)
    theirs = torch_summary.pr_curve_raw("raw", *arrays, precision, recall, num_thresholds=300)
    assert_same(summaries.pr_curve_raw("raw", *arrays, precision, recall, num_thresholds=300), theirs)
