"""hparams against torch's, and session_start / session_end, which torch does not have."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
from torch.utils.tensorboard import summary as torch_summary

from ridgeline.format.proto import hparams_pb2
from ridgeline.writer import summaries
from tests.writer.summaries.helpers import assert_same


@pytest.mark.parametrize(
    ("hparam_dict", "domains"),
    [
        ({"lr": 0.1, "bsize": 32, "opt": "adam", "nesterov": True, "dropout": None}, None),
        (
            {"lr": 0.1, "bsize": 32, "opt": "adam", "nesterov": False},
            {
                "lr": [0.1, 0.01],
                "bsize": [16, 32],
                "opt": ["adam", "sgd"],
                "nesterov": [True, False],
            },
        ),
        ({"scale": torch.tensor([0.5]), "n": 3}, {"n": [1, 2, 3]}),
        ({"x": np.float64(2.5)}, None),
        ({}, None),
    ],
)
def test_hparams_match_torch(hparam_dict: dict[str, Any], domains: dict[str, Any] | None) -> None:
    metrics = {"hparam/accuracy": 0.9, "hparam/loss": 1}
    ours = summaries.hparams(hparam_dict, metrics, domains)
    theirs = torch_summary.hparams(hparam_dict, metrics, domains)
    assert len(ours) == 3
    for mine, its in zip(ours, theirs, strict=True):
        assert_same(mine, its)


def test_hparams_can_write_bools_as_bools() -> None:
    experiment, start, _ = summaries.hparams(
        {"augment": True, "n": 2}, {}, {"augment": [True, False]}, bools_as_numbers=False
    )
    content = hparams_pb2.HParamsPluginData.FromString(start.value[0].metadata.plugin_data.content)
    assert content.session_start_info.hparams["augment"].WhichOneof("kind") == "bool_value"
    assert content.session_start_info.hparams["n"].number_value == 2
    info = hparams_pb2.HParamsPluginData.FromString(experiment.value[0].metadata.plugin_data.content)
    augment = info.experiment.hparam_infos[0]
    assert augment.type == hparams_pb2.DATA_TYPE_BOOL
    assert [v.bool_value for v in augment.domain_discrete.values] == [True, False]
    with pytest.raises(TypeError, match=r"add_hparams: hparam_domain_discrete\['b'\] must hold bools"):
        summaries.hparams({"b": True}, {}, {"b": [1]}, bools_as_numbers=False)


def test_session_start_and_end() -> None:
    hparam_dict = {"lr": 0.01, "optimizer": "adam", "augment": True, "skip": None}
    start = summaries.session_start(hparam_dict)
    _, expected, end = summaries.hparams(hparam_dict, {}, bools_as_numbers=False)
    assert start == expected
    assert summaries.session_end() == end
    timed = summaries.session_start(hparam_dict, start_time_secs=123.5)
    data = hparams_pb2.HParamsPluginData.FromString(timed.value[0].metadata.plugin_data.content)
    assert data.session_start_info.start_time_secs == 123.5
    assert data.session_start_info.hparams["augment"].bool_value is True
    failed = summaries.session_end(hparams_pb2.STATUS_FAILURE, end_time_secs=7)
    assert failed.value[0].tag == "_hparams_/session_end_info"
    data = hparams_pb2.HParamsPluginData.FromString(failed.value[0].metadata.plugin_data.content)
    assert (data.session_end_info.status, data.session_end_info.end_time_secs) == (hparams_pb2.STATUS_FAILURE, 7.0)
    with pytest.raises(ValueError, match=r"^close: status must be one of STATUS_UNKNOWN=0"):
        summaries.session_end(9)
    with pytest.raises(TypeError, match=r"^SummaryWriter: hparam_dict\['a'\] must be a number"):
        summaries.session_start({"a": [1]})


def test_hparams_accept_numpy_scalars_torch_rejects() -> None:
    _, start, _ = summaries.hparams({"n": np.int64(4), "f": np.float32(0.5), "b": np.bool_(True)}, {})
    content = hparams_pb2.HParamsPluginData.FromString(start.value[0].metadata.plugin_data.content)
    assert {k: v.number_value for k, v in content.session_start_info.hparams.items()} == {"n": 4, "f": 0.5, "b": 1}
