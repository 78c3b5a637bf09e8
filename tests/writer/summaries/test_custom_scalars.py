"""custom_scalars against torch's."""

from __future__ import annotations

from torch.utils.tensorboard import summary as torch_summary

from ridgeline.writer import summaries
from tests.writer.summaries.helpers import assert_same


def test_custom_scalars_matches_torch() -> None:
    layout = {
        "Taiwan": {"twse": ["Multiline", ["twse/0050", "twse/2330"]]},
        "USA": {
            "dow": ["Margin", ["dow/aaa", "dow/bbb", "dow/ccc"]],
            "nasdaq": ("Margin", ("nasdaq/aaa", "nasdaq/bbb", "nasdaq/ccc")),
        },
        "empty": {},
    }
    ours = summaries.custom_scalars(layout)
    assert_same(ours, torch_summary.custom_scalars(layout))
    assert ours.value[0].tensor.HasField("tensor_shape")
