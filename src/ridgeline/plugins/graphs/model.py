"""A graph record as the graphs page draws it: nodes with readable attributes and output shapes, edges labelled
with the tensor shape (or dtype) they carry, and the name-scope tree that the page collapses and expands.

Pure functions over the parsed protos (and Keras' JSON config); no I/O. Node names are kept whole — a scope is
every ``/``-separated prefix of a node name, exactly as TensorBoard groups them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ridgeline.format.proto import graph_pb2, tensor_shape_pb2, types_pb2
from ridgeline.store.payloads import DecodeError, Graph

# Attributes shown as the node's output shapes rather than in its attribute table.
_SHAPE_ATTRS = ("_output_shapes",)
# How long one attribute's text may get before it is cut (a constant tensor's content can be megabytes).
_MAX_ATTR_CHARS = 2000


def shape_text(shape: tensor_shape_pb2.TensorShapeProto) -> str:
    """``1×3×32×32``; ``?`` for an unknown dimension, ``scalar`` for rank 0, ``?`` for an unknown rank."""
    if shape.unknown_rank:
        return "?"
    if not shape.dim:
        return "scalar"
    return "×".join("?" if dim.size < 0 else str(dim.size) for dim in shape.dim)


def dtype_text(dtype: int) -> str:
    """``float32`` for DT_FLOAT, ``int64`` for DT_INT64, ...; the number when the enum does not know it."""
    try:
        name = types_pb2.DataType.Name(dtype)  # type: ignore[arg-type]
    except ValueError:
        return f"dtype {dtype}"
    name = name.removeprefix("DT_").lower().removesuffix("_ref")
    return {"float": "float32", "double": "float64", "half": "float16"}.get(name, name)


def attr_text(value: graph_pb2.AttrValue) -> str:
    """One attribute as a line a person reads: strings decoded, dtypes and shapes by name, lists in brackets."""
    which = value.WhichOneof("value")
    if which == "s":
        text = value.s.decode("utf-8", "replace")
    elif which in ("i", "f", "b"):
        text = _scalar(getattr(value, which))
    elif which == "type":
        text = dtype_text(value.type)
    elif which == "shape":
        text = shape_text(value.shape)
    elif which == "tensor":
        dims = shape_text(value.tensor.tensor_shape)
        text = f"tensor {dtype_text(value.tensor.dtype)} {dims}"
    elif which == "func":
        text = f"function {value.func.name}"
    elif which == "placeholder":
        text = f"${value.placeholder}"
    elif which == "list":
        text = "[" + ", ".join(_list_items(value.list)) + "]"
    else:
        text = ""
    return text if len(text) <= _MAX_ATTR_CHARS else text[:_MAX_ATTR_CHARS] + f"… ({len(text)} characters)"


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(float(f"{value:.7g}"))
    return str(value)


def _list_items(values: graph_pb2.AttrValue.ListValue) -> list[str]:
    items: list[str] = [item.decode("utf-8", "replace") for item in values.s]
    items += [_scalar(item) for item in values.i]
    items += [_scalar(item) for item in values.f]
    items += [_scalar(item) for item in values.b]
    items += [dtype_text(item) for item in values.type]
    items += [shape_text(item) for item in values.shape]
    items += [f"tensor {dtype_text(t.dtype)} {shape_text(t.tensor_shape)}" for t in values.tensor]
    items += [f"function {f.name}" for f in values.func]
    return items


def _dtype_of(node: graph_pb2.NodeDef) -> str | None:
    for key in ("dtype", "T", "out_type", "DstT"):
        if key in node.attr and node.attr[key].WhichOneof("value") == "type":
            return dtype_text(node.attr[key].type)
    return None


def _parse_input(text: str) -> tuple[str, int, bool]:
    """``name``, ``name:2``, ``^name`` (a control dependency) -> (source, output index, is control)."""
    if text.startswith("^"):
        return text[1:], 0, True
    name, colon, index = text.rpartition(":")
    if colon and index.isdigit():
        return name, int(index), False
    return text, 0, False


def from_graph_defs(graphs: Iterable[graph_pb2.GraphDef]) -> dict[str, Any]:
    """Nodes, edges and scopes of one or more GraphDefs (a RunMetadata's function graphs are merged, as in
    TensorBoard). An input naming a node that is not in the graph (torch's add_graph writes such inputs for a
    module's ``self``) becomes no edge; their count is reported as ``missing_inputs``."""
    nodes: list[dict[str, Any]] = []
    index: dict[str, dict[str, Any]] = {}
    inputs: list[tuple[str, list[str]]] = []
    for graph in graphs:
        for node in graph.node:
            if node.name in index:
                continue
            shapes: list[str] = []
            attrs: dict[str, str] = {}
            for key in sorted(node.attr):
                value = node.attr[key]
                if key in _SHAPE_ATTRS and value.WhichOneof("value") == "list":
                    shapes = [shape_text(shape) for shape in value.list.shape]
                else:
                    attrs[key] = attr_text(value)
            item = {
                "name": node.name,
                "op": node.op,
                "device": node.device,
                "attrs": attrs,
                "shapes": shapes,
                "dtype": _dtype_of(node),
            }
            index[node.name] = item
            nodes.append(item)
            inputs.append((node.name, list(node.input)))
    edges: list[dict[str, Any]] = []
    missing = 0
    for target, names in inputs:
        for text in names:
            source, output, control = _parse_input(text)
            origin = index.get(source)
            if origin is None:
                missing += 1
                continue
            shapes = origin["shapes"]
            label = shapes[output] if output < len(shapes) else origin["dtype"]
            edges.append({"source": source, "target": target, "output": output, "control": control, "shape": label})
    return {
        "nodes": nodes,
        "edges": edges,
        "scopes": scopes_of(item["name"] for item in nodes),
        "missing_inputs": missing,
    }


def scopes_of(names: Iterable[str]) -> list[dict[str, Any]]:
    """Every name scope (each ``/``-separated prefix of a node name) with its parent and how many nodes it holds
    at any depth, parents before children. A node whose name is also a scope's name (TF's ``dense`` beside
    ``dense/kernel``) stays a node; the page draws it inside its own scope's box."""
    counts: dict[str, int] = {}
    for name in names:
        parts = name.split("/")
        for depth in range(1, len(parts)):
            prefix = "/".join(parts[:depth])
            counts[prefix] = counts.get(prefix, 0) + 1
    ordered = sorted(counts, key=lambda scope: (scope.count("/"), scope))
    return [{"name": scope, "parent": scope.rpartition("/")[0] or None, "nodes": counts[scope]} for scope in ordered]


def from_keras(config: dict[str, Any]) -> dict[str, Any]:
    """A Keras model config (what ``tf.summary.graph`` / Keras' TensorBoard callback writes) as layers and the
    connections of their inbound nodes; a layer's output shape comes from its ``batch_input_shape`` or
    ``batch_shape`` when the config has it."""
    model = config.get("config", {})
    layers = model.get("layers", []) if isinstance(model, dict) else []
    if not isinstance(layers, list):
        raise DecodeError("the Keras model config has no list of layers")
    nodes: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []
    names = {layer.get("name") or layer.get("config", {}).get("name") for layer in layers if isinstance(layer, dict)}
    sequential = config.get("class_name") == "Sequential"
    previous: str | None = None
    for layer in layers:
        if not isinstance(layer, dict):
            continue
        layer_config = layer.get("config", {}) if isinstance(layer.get("config"), dict) else {}
        name = str(layer.get("name") or layer_config.get("name") or f"layer_{len(nodes)}")
        shape = layer_config.get("batch_input_shape") or layer_config.get("batch_shape")
        attrs = {
            key: str(value)
            for key, value in sorted(layer_config.items())
            if key != "name" and not isinstance(value, dict)
        }
        nodes.append(
            {
                "name": name,
                "op": str(layer.get("class_name", "")),
                "device": "",
                "attrs": attrs,
                "shapes": ["×".join("?" if d is None else str(d) for d in shape)] if isinstance(shape, list) else [],
                "dtype": layer_config.get("dtype") if isinstance(layer_config.get("dtype"), str) else None,
            }
        )
        sources = list(_keras_inbound(layer.get("inbound_nodes")))
        if sequential and not sources and previous is not None:
            sources = [previous]  # a Sequential model lists its layers in order, without inbound nodes
        for source in sources:
            if source in names:
                edges.append({"source": source, "target": name, "output": 0, "control": False, "shape": None})
        previous = name
    return {"nodes": nodes, "edges": edges, "scopes": [], "missing_inputs": 0}


def _keras_inbound(inbound: Any) -> Iterable[str]:
    """Layer names in Keras' inbound_nodes, both the [[["name", 0, 0, {}]]] form and Keras 3's
    [{"args": [{"config": {"keras_history": ["name", 0, 0]}}]}] form."""
    if isinstance(inbound, dict):
        history = inbound.get("keras_history")
        if isinstance(history, list) and history and isinstance(history[0], str):
            yield history[0]
            return
        for value in inbound.values():
            yield from _keras_inbound(value)
    elif isinstance(inbound, list):
        if len(inbound) >= 3 and isinstance(inbound[0], str) and isinstance(inbound[1], int):
            yield inbound[0]
            return
        for value in inbound:
            yield from _keras_inbound(value)


def build(graph: Graph) -> dict[str, Any]:
    """The drawable graph of any graph record; DecodeError when it holds none (step statistics only) or cannot
    be parsed."""
    if graph.format in ("graph_def", "meta_graph_def"):
        return from_graph_defs([graph.graph_def()])
    if graph.format == "keras_model":
        return from_keras(graph.keras_model())
    functions = graph.function_graphs()
    if not functions:
        raise DecodeError("this record holds step statistics (RunMetadata) but no graph to draw")
    return from_graph_defs(functions)
