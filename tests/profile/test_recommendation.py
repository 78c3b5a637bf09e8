"""The overview's one-line recommendation: which share of the step time dominates decides it (docs/profile.md).
The browser test shows whatever the server said about a real job, whose shares depend on the machine's load;
these pin the rule itself."""

from __future__ import annotations

import pytest

from ridgeline.profile.overview import recommendation


@pytest.mark.parametrize(
    ("shares", "device", "starts"),
    [
        ({"dataloader": 0.4, "communication": 0.2, "kernel": 0.4}, True, "Data loading takes 40%"),
        ({"communication": 0.5, "kernel": 0.5}, True, "Communication takes 50%"),
        ({"kernel": 0.5, "idle": 0.25, "cpu": 0.25}, True, "The device is idle 50%"),
        ({"kernel": 0.75, "memcpy": 0.25}, True, "Memory copies take 25%"),
        ({"cpu": 0.6, "idle": 0.4}, False, "40% of the step runs no operator"),
    ],
)
def test_the_share_that_dominates_is_named(shares: dict[str, float], device: bool, starts: str) -> None:
    found = recommendation(shares, device)
    assert found is not None and found.startswith(starts)


def test_nothing_is_recommended_when_nothing_dominates() -> None:
    assert recommendation({"kernel": 0.9, "idle": 0.05, "cpu": 0.05}, True) is None
    assert recommendation({"cpu": 0.8, "idle": 0.2}, False) is None
    # A little data loading next to more communication is not the data loader's fault.
    assert recommendation({"dataloader": 0.1, "communication": 0.2, "cpu": 0.7}, False) is None
