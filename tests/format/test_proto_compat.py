"""Our .proto files must agree with TensorBoard's on every field number and type, or files would not interoperate.

TensorBoard's own generated modules are the oracle: every field we declare must exist there under the same
number, name, type and cardinality, recursively, and every enum value we declare must have the same number.
"""

from __future__ import annotations

import importlib

import pytest
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor

from ridgeline.format.proto import (
    custom_scalars_pb2,
    event_pb2,
    graph_pb2,
    hparams_pb2,
    plugins_pb2,
    projector_pb2,
    summary_pb2,
    tensor_pb2,
    types_pb2,
)

PAIRS = [
    (event_pb2.Event, "tensorboard.compat.proto.event_pb2", "Event"),
    (summary_pb2.Summary, "tensorboard.compat.proto.summary_pb2", "Summary"),
    (summary_pb2.HistogramProto, "tensorboard.compat.proto.summary_pb2", "HistogramProto"),
    (tensor_pb2.TensorProto, "tensorboard.compat.proto.tensor_pb2", "TensorProto"),
    (graph_pb2.GraphDef, "tensorboard.compat.proto.graph_pb2", "GraphDef"),
    (graph_pb2.RunMetadata, "tensorboard.compat.proto.config_pb2", "RunMetadata"),
    (hparams_pb2.HParamsPluginData, "tensorboard.plugins.hparams.plugin_data_pb2", "HParamsPluginData"),
    (plugins_pb2.ScalarPluginData, "tensorboard.plugins.scalar.plugin_data_pb2", "ScalarPluginData"),
    (plugins_pb2.HistogramPluginData, "tensorboard.plugins.histogram.plugin_data_pb2", "HistogramPluginData"),
    (plugins_pb2.ImagePluginData, "tensorboard.plugins.image.plugin_data_pb2", "ImagePluginData"),
    (plugins_pb2.AudioPluginData, "tensorboard.plugins.audio.plugin_data_pb2", "AudioPluginData"),
    (plugins_pb2.TextPluginData, "tensorboard.plugins.text.plugin_data_pb2", "TextPluginData"),
    (plugins_pb2.PrCurvePluginData, "tensorboard.plugins.pr_curve.plugin_data_pb2", "PrCurvePluginData"),
    (plugins_pb2.MeshPluginData, "tensorboard.plugins.mesh.plugin_data_pb2", "MeshPluginData"),
    (custom_scalars_pb2.Layout, "tensorboard.plugins.custom_scalar.layout_pb2", "Layout"),
    (projector_pb2.ProjectorConfig, "tensorboard.plugins.projector.projector_config_pb2", "ProjectorConfig"),
]


def assert_enum_compatible(ours: EnumDescriptor, theirs: EnumDescriptor, path: str) -> None:
    their_values = {v.name: v.number for v in theirs.values}
    for value in ours.values:
        assert their_values.get(value.name) == value.number, f"{path}.{value.name}"


def assert_message_compatible(ours: Descriptor, theirs: Descriptor, path: str, seen: set[str]) -> None:
    if ours.full_name in seen:
        return
    seen.add(ours.full_name)
    their_fields = {f.number: f for f in theirs.fields}
    for field in ours.fields:
        where = f"{path}.{field.name}"
        assert field.number in their_fields, f"{where}: TensorBoard has no field {field.number}"
        their = their_fields[field.number]
        assert (field.name, field.type) == (their.name, their.type), where
        assert field.is_repeated == their.is_repeated, where
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            assert_message_compatible(field.message_type, their.message_type, where, seen)
        elif field.type == FieldDescriptor.TYPE_ENUM:
            assert_enum_compatible(field.enum_type, their.enum_type, where)


@pytest.mark.parametrize(("ours", "module", "name"), PAIRS, ids=[p[2] for p in PAIRS])
def test_fields_match_tensorboard(ours: type, module: str, name: str) -> None:
    theirs = getattr(importlib.import_module(module), name)
    assert_message_compatible(ours.DESCRIPTOR, theirs.DESCRIPTOR, name, set())


def test_data_types_match_tensorflow() -> None:
    from tensorboard.compat.proto import types_pb2 as tb_types

    assert_enum_compatible(types_pb2.DataType.DESCRIPTOR, tb_types.DataType.DESCRIPTOR, "DataType")


def test_hparams_enums_match_tensorboard() -> None:
    from tensorboard.plugins.hparams import api_pb2

    for name in ("DataType", "DatasetType", "Status"):
        ours = hparams_pb2.DESCRIPTOR.enum_types_by_name[name]
        assert_enum_compatible(ours, api_pb2.DESCRIPTOR.enum_types_by_name[name], name)
