"""Hyperparameters: the experiment, session start and session end summaries of the hparams plugin."""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from google.protobuf import struct_pb2

from ridgeline.format.proto import hparams_pb2
from ridgeline.format.tags import (
    HPARAMS_EXPERIMENT_TAG,
    HPARAMS_PLUGIN,
    HPARAMS_SESSION_END_TAG,
    HPARAMS_SESSION_START_TAG,
)
from ridgeline.writer.summaries._common import Summary, _check_str, _metadata
from ridgeline.writer.values import is_torch_tensor, to_float

_HPARAMS_TAGS = (HPARAMS_EXPERIMENT_TAG, HPARAMS_SESSION_START_TAG, HPARAMS_SESSION_END_TAG)


def _hparams_value(tag: str, data: hparams_pb2.HParamsPluginData) -> Summary:
    data.version = 0
    return Summary(value=[Summary.Value(tag=tag, metadata=_metadata(HPARAMS_PLUGIN, data.SerializeToString()))])


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real | np.bool_)


def hparams(
    hparam_dict: Mapping[str, Any],
    metric_dict: Mapping[str, Any],
    hparam_domain_discrete: Mapping[str, Sequence[Any]] | None = None,
    *,
    bools_as_numbers: bool = True,
    method: str = "add_hparams",
) -> tuple[Summary, Summary, Summary]:
    """The three hparams summaries (experiment, session start, session end), as torch writes them.

    Values: numbers, bools, strings, one-element arrays or tensors (numbers without a domain, as torch), or None
    (left out). Like torch, bools are written as the numbers 1.0/0.0 of type FLOAT64; ``bools_as_numbers=False``
    writes them as bool values of type BOOL instead (TensorBoard then shows true/false), for callers that need
    not match torch.
    """
    if not isinstance(hparam_dict, Mapping):
        raise TypeError(f"{method}: hparam_dict must be a dict of name -> value, got {type(hparam_dict).__name__}")
    if not isinstance(metric_dict, Mapping):
        raise TypeError(f"{method}: metric_dict must be a dict of tag -> value, got {type(metric_dict).__name__}")
    domains = hparam_domain_discrete or {}
    if not isinstance(domains, Mapping):
        raise TypeError(
            f"{method}: hparam_domain_discrete must be a dict of name -> list of values, got {type(domains).__name__}"
        )
    for name, listed in domains.items():
        if name not in hparam_dict:
            raise ValueError(f"{method}: hparam_domain_discrete has {name!r}, which is not a key of hparam_dict")
        if isinstance(listed, str) or not isinstance(listed, Sequence):
            raise TypeError(f"{method}: hparam_domain_discrete[{name!r}] must be a list, got {type(listed).__name__}")

    infos = []
    start = hparams_pb2.SessionStartInfo()
    for name, value in hparam_dict.items():
        _check_str(name, method=method, argument="hparam_dict key")
        if value is None:
            continue
        domain: Sequence[Any] | None = domains.get(name)
        info = hparams_pb2.HParamInfo(name=name)
        if isinstance(value, bool | np.bool_) and not bools_as_numbers:
            start.hparams[name].bool_value = bool(value)
            info.type = hparams_pb2.DATA_TYPE_BOOL
            if domain is not None:
                if not all(isinstance(item, bool | np.bool_) for item in domain):
                    raise TypeError(
                        f"{method}: hparam_domain_discrete[{name!r}] must hold bools like "
                        f"hparam_dict[{name!r}], got {list(domain)!r}"
                    )
                info.domain_discrete.CopyFrom(
                    struct_pb2.ListValue(values=[struct_pb2.Value(bool_value=bool(item)) for item in domain])
                )
        # torch's `isinstance(v, (int, float))` comes first and catches bool too: bools become numbers.
        elif _is_number(value):
            start.hparams[name].number_value = float(value)
            info.type = hparams_pb2.DATA_TYPE_FLOAT64
            if domain is not None:
                if not all(_is_number(item) for item in domain):
                    raise TypeError(
                        f"{method}: hparam_domain_discrete[{name!r}] must hold numbers like "
                        f"hparam_dict[{name!r}], got {list(domain)!r}"
                    )
                info.domain_discrete.CopyFrom(
                    struct_pb2.ListValue(values=[struct_pb2.Value(number_value=float(item)) for item in domain])
                )
        elif isinstance(value, str):
            start.hparams[name].string_value = value
            info.type = hparams_pb2.DATA_TYPE_STRING
            if domain is not None:
                if not all(isinstance(item, str) for item in domain):
                    raise TypeError(
                        f"{method}: hparam_domain_discrete[{name!r}] must hold strings like "
                        f"hparam_dict[{name!r}], got {list(domain)!r}"
                    )
                info.domain_discrete.CopyFrom(
                    struct_pb2.ListValue(values=[struct_pb2.Value(string_value=item) for item in domain])
                )
        elif isinstance(value, np.ndarray) or is_torch_tensor(value):
            # torch writes a tensor's value as a number and its domain not at all.
            start.hparams[name].number_value = to_float(value, method=method, argument=f"hparam_dict[{name!r}]")
            info.type = hparams_pb2.DATA_TYPE_FLOAT64
        else:
            raise TypeError(
                f"{method}: hparam_dict[{name!r}] must be a number, bool, string, one-element tensor or None, "
                f"got {type(value).__name__}"
            )
        infos.append(info)

    metrics = []
    for tag in metric_dict:
        _check_str(tag, method=method, argument="metric_dict key")
        metrics.append(hparams_pb2.MetricInfo(name=hparams_pb2.MetricName(tag=tag)))

    experiment = hparams_pb2.Experiment(hparam_infos=infos, metric_infos=metrics)
    end = hparams_pb2.SessionEndInfo(status=hparams_pb2.STATUS_SUCCESS)
    experiment_tag, start_tag, end_tag = _HPARAMS_TAGS
    return (
        _hparams_value(experiment_tag, hparams_pb2.HParamsPluginData(experiment=experiment)),
        _hparams_value(start_tag, hparams_pb2.HParamsPluginData(session_start_info=start)),
        _hparams_value(end_tag, hparams_pb2.HParamsPluginData(session_end_info=end)),
    )


def session_start(
    hparam_dict: Mapping[str, Any], *, start_time_secs: float | None = None, method: str = "SummaryWriter"
) -> Summary:
    """The session-start summary alone, for a run that records its own hyperparameters (``SummaryWriter(hparams=)``).

    Values as in ``hparams``, except that bools stay bools: nothing here needs to match torch, which has no such
    argument. TensorBoard builds the experiment from the sessions it finds when no experiment summary is written.
    """
    start = hparams(hparam_dict, {}, bools_as_numbers=False, method=method)[1]
    if start_time_secs is not None:
        data = hparams_pb2.HParamsPluginData.FromString(start.value[0].metadata.plugin_data.content)
        data.session_start_info.start_time_secs = to_float(start_time_secs, method=method, argument="start_time_secs")
        start = _hparams_value(_HPARAMS_TAGS[1], data)
    return start


def session_end(
    status: hparams_pb2.Status = hparams_pb2.STATUS_SUCCESS,
    *,
    end_time_secs: float | None = None,
    method: str = "close",
) -> Summary:
    """The session-end summary: how (``hparams_pb2.Status``) and, optionally, when a run ended."""
    if isinstance(status, bool) or status not in hparams_pb2.Status.values():
        choices = ", ".join(f"{name}={number}" for name, number in hparams_pb2.Status.items())
        raise ValueError(f"{method}: status must be one of {choices}, got {status!r}")
    end = hparams_pb2.SessionEndInfo(status=status)
    if end_time_secs is not None:
        end.end_time_secs = to_float(end_time_secs, method=method, argument="end_time_secs")
    return _hparams_value(_HPARAMS_TAGS[2], hparams_pb2.HParamsPluginData(session_end_info=end))
