"""The hparams plugin's records (HParamsPluginData in a SummaryMetadata's plugin content) decoded into
:class:`~ridgeline.store.payloads.HParams`."""

from __future__ import annotations

from typing import Any, Literal

from ridgeline.store.payloads import DecodeError, HParamInfo, HParams, HParamValue, MetricInfo, parse_message

_HP_TYPES: dict[int, Literal["unset", "string", "bool", "float64"]] = {0: "unset", 1: "string", 2: "bool", 3: "float64"}
_DATASETS: dict[int, Literal["unknown", "training", "validation"]] = {0: "unknown", 1: "training", 2: "validation"}
_STATUSES: dict[int, Literal["unknown", "success", "failure", "running"]] = {
    0: "unknown",
    1: "success",
    2: "failure",
    3: "running",
}


def python_value(value: Any) -> HParamValue:
    """A google.protobuf.Value as a Python value."""
    which = value.WhichOneof("kind")
    if which == "number_value":
        return float(value.number_value)
    if which == "string_value":
        return str(value.string_value)
    if which == "bool_value":
        return bool(value.bool_value)
    if which == "list_value":
        return [python_value(item) for item in value.list_value.values]
    if which == "struct_value":
        return {key: python_value(item) for key, item in value.struct_value.fields.items()}
    return None


def hparams_from_content(content: bytes) -> HParams:
    """The hparams plugin's record from its SummaryMetadata plugin content (an HParamsPluginData)."""
    from ridgeline.format.proto import hparams_pb2  # on first use: a start that meets no hparams never imports it

    data = parse_message(hparams_pb2.HParamsPluginData, content, "HParamsPluginData")
    which = data.WhichOneof("data")
    if which == "experiment":
        experiment = data.experiment
        infos = tuple(
            HParamInfo(
                name=info.name,
                display_name=info.display_name,
                description=info.description,
                type=_HP_TYPES.get(info.type, "unset"),
                domain_discrete=tuple(python_value(v) for v in info.domain_discrete.values)
                if info.HasField("domain_discrete")
                else None,
                domain_interval=(info.domain_interval.min_value, info.domain_interval.max_value)
                if info.HasField("domain_interval")
                else None,
            )
            for info in experiment.hparam_infos
        )
        metrics = tuple(
            MetricInfo(
                group=metric.name.group,
                tag=metric.name.tag,
                display_name=metric.display_name,
                description=metric.description,
                dataset_type=_DATASETS.get(metric.dataset_type, "unknown"),
            )
            for metric in experiment.metric_infos
        )
        return HParams(
            what="experiment",
            hparams={},
            hparam_infos=infos,
            metric_infos=metrics,
            experiment_name=experiment.name,
            description=experiment.description,
            time_created_secs=experiment.time_created_secs or None,
        )
    if which == "session_start_info":
        start = data.session_start_info
        return HParams(
            what="session_start",
            hparams={name: python_value(value) for name, value in start.hparams.items()},
            group_name=start.group_name,
            model_uri=start.model_uri,
            monitor_url=start.monitor_url,
            start_time_secs=start.start_time_secs or None,
        )
    if which == "session_end_info":
        end = data.session_end_info
        return HParams(
            what="session_end",
            hparams={},
            status=_STATUSES.get(end.status, "unknown"),
            end_time_secs=end.end_time_secs or None,
        )
    raise DecodeError("the hparams plugin data holds neither an experiment, a session start nor a session end")
