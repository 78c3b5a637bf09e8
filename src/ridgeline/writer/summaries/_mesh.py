"""Meshes and point clouds: vertices, faces and colours as tensor summaries of the mesh plugin."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ridgeline.format.proto import plugins_pb2, types_pb2
from ridgeline.format.tags import MESH_PLUGIN
from ridgeline.writer.summaries._common import Summary, TensorProto, _check_str, _metadata, _real_array, _shape
from ridgeline.writer.values import check_tag

_MESH = plugins_pb2.MeshPluginData


def mesh(
    tag: str,
    vertices: Any,
    colors: Any,
    faces: Any,
    config_dict: Mapping[str, Any] | None,
    display_name: str | None = None,
    description: str | None = None,
    *,
    method: str = "add_mesh",
) -> Summary:
    """A mesh or point cloud: one tensor summary per part present, tagged ``<tag>_VERTEX``, ``_FACE``, ``_COLOR``."""
    check_tag(tag, method=method)
    if vertices is None:
        raise ValueError(f"{method}: vertices is required, an array of shape (B, N, 3)")
    for argument, value in (("display_name", display_name), ("description", description)):
        if value is not None:
            _check_str(value, method=method, argument=argument)
    try:
        config = "{}" if config_dict is None else json.dumps(config_dict, sort_keys=True)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{method}: config_dict must be JSON-serialisable: {error}") from error

    parts = []
    for argument, value, content_type in (
        ("vertices", vertices, _MESH.VERTEX),
        ("faces", faces, _MESH.FACE),
        ("colors", colors, _MESH.COLOR),
    ):
        if value is None:
            continue
        array = _real_array(value, method=method, argument=argument)
        if array.ndim != 3 or array.shape[2] != 3:
            raise ValueError(f"{method}: {argument} must have shape (B, N, 3), got {array.shape}")
        parts.append((array, content_type))
    components = 0
    for _, content_type in parts:
        components |= 1 << content_type

    values = []
    for array, content_type in parts:
        data = _MESH(
            version=0,
            name=tag,
            content_type=content_type,
            components=components,
            shape=list(array.shape),
            json_config=config,
        )
        metadata = _metadata(MESH_PLUGIN, data.SerializeToString())
        if display_name is not None:
            metadata.display_name = display_name
        if description is not None:
            metadata.summary_description = description
        proto = TensorProto(
            dtype=types_pb2.DT_FLOAT, float_val=array.reshape(-1).tolist(), tensor_shape=_shape(array.shape)
        )
        values.append(
            Summary.Value(tag=f"{tag}_{_MESH.ContentType.Name(content_type)}", tensor=proto, metadata=metadata)
        )
    return Summary(value=values)
