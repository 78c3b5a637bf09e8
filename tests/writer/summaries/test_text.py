"""text against torch's."""

from __future__ import annotations

import pytest
from torch.utils.tensorboard import summary as torch_summary

from ridgeline.writer import summaries
from tests.writer.summaries.helpers import assert_same


@pytest.mark.parametrize("text", ["hello", "", "**markdown** ünïcode ✓\nline 2"])
def test_text_matches_torch(text: str) -> None:
    assert_same(summaries.text("notes", text), torch_summary.text("notes", text))
