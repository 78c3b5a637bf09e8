"""A torch module and an example input → the ``GraphDef`` that ``add_graph`` writes.

The result equals what ``torch.utils.tensorboard`` produces for the same model (node names, ops, inputs,
attributes, versions and the placeholder run metadata), so TensorBoard's graph dashboard and ours show the same
picture. torch is imported inside :func:`graph` only: importing this module costs nothing.

How a traced graph becomes nodes (the same rules as torch's ``_pytorch_graph``):

- The model is traced with ``torch.jit.trace`` in eval mode, and calls into submodules are inlined.
- Graph inputs that something uses become ``IO Node`` nodes named ``input/<debug name>``; the module itself
  (the ``self`` input, of a class type) is left out.
- Every graph output becomes an ``IO Node`` named ``output/output.<n>`` whose input is the value returned.
- Every operator output becomes a node named ``<scope>/<debug name>``, where the scope is the path of modules
  that produced it written as ``Net/Sequential[features]/Conv2d[0]``. Reads of parameters and buffers
  (``prim::GetAttr``) are nodes too, scoped by the attribute path; reads of submodules are not.
- An input that names a submodule read (which is not a node) is still written the way torch writes it: the
  scope of the last operator that consumed it, then its debug name. TensorBoard ignores such dangling inputs.
- Each node carries ``attr`` (the operator's attributes as text) and, for tensors of known shape,
  ``_output_shapes``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ridgeline.format.proto import graph_pb2, tensor_shape_pb2

if TYPE_CHECKING:
    import torch

__all__ = ["graph"]

METHOD = "add_graph"

#: GraphDef.versions.producer as torch writes it (reverse engineered by torch from TensorFlow's files).
PRODUCER_VERSION = 22
#: torch always reports the graph as run on the CPU; the value is only shown in TensorBoard.
DEVICE = "/device:CPU:0"

IO_OP = "IO Node"
_GETATTR_KIND = "prim::GetAttr"
_CLASS_TYPE_KIND = "ClassType"


@dataclass
class _Operator:
    """One operator of the traced graph, before its outputs become nodes."""

    kind: str
    scope: str
    inputs: list[str]
    outputs: list[tuple[str, list[int] | None]]  # (debug name, shape when it is a tensor of known shape)
    attributes: str


@dataclass
class _Node:
    """One future ``NodeDef``, still named by debug names."""

    name: str
    op: str
    inputs: list[str]
    shape: list[int] | None
    attributes: str = ""
    prefix: str = ""  # "input" / "output" for IO nodes, the module scope for operator outputs


def graph(
    model: torch.nn.Module,
    input_to_model: Any = None,
    verbose: bool = False,
    use_strict_trace: bool = True,
) -> tuple[graph_pb2.GraphDef, graph_pb2.RunMetadata]:
    """Trace ``model`` on ``input_to_model`` and describe it as a ``GraphDef`` plus step stats.

    ``input_to_model`` is what ``torch.jit.trace`` takes: a tensor or a tuple of them (``None`` traces a model
    whose ``forward`` takes no arguments). ``use_strict_trace=False`` lets the tracer record mutable containers
    (lists, dicts) as outputs. ``verbose`` prints the traced graph. The model is traced in eval mode; the training
    flag of every submodule is restored afterwards.
    """
    try:
        import torch
    except ImportError as error:
        raise ImportError(f"{METHOD} needs torch: pip install 'ridgeline[torch]'") from error

    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"{METHOD}: model must be a torch.nn.Module, got {type(model).__name__}")

    example_inputs = () if input_to_model is None else input_to_model
    with _eval_mode(model):
        try:
            traced = torch.jit.trace(model, example_inputs, strict=use_strict_trace)
            jit_graph = traced.graph
            torch._C._jit_pass_inline(jit_graph)
        except Exception as error:
            raise RuntimeError(
                f"{METHOD}: torch.jit.trace could not trace {type(model).__name__}: {type(error).__name__}: {error}"
            ) from error

    if verbose:
        print(jit_graph)

    try:
        nodes = _nodes(jit_graph, traced)
    except Exception as error:  # a graph shape these rules do not cover
        raise RuntimeError(
            f"{METHOD}: could not convert the traced graph of {type(model).__name__}: {type(error).__name__}: {error}"
        ) from error

    graph_def = graph_pb2.GraphDef(node=nodes, versions=graph_pb2.VersionDef(producer=PRODUCER_VERSION))
    run_metadata = graph_pb2.RunMetadata(
        step_stats=graph_pb2.StepStats(dev_stats=[graph_pb2.DeviceStepStats(device=DEVICE)])
    )
    return graph_def, run_metadata


@contextlib.contextmanager
def _eval_mode(model: torch.nn.Module) -> Iterator[None]:
    """Put ``model`` in eval mode, then give every submodule back its own training flag.

    (torch restores only the root's flag, onto every submodule: a frozen batchnorm inside a training model would
    come back in training mode.)
    """
    flags = [(module, module.training) for module in model.modules()]
    was_training = model.training
    model.train(False)
    try:
        yield
    finally:
        model.train(was_training)  # through train(), as torch does, for models that override it
        for module, training in flags:
            module.training = training


def _nodes(jit_graph: torch._C.Graph, traced: torch.nn.Module) -> list[graph_pb2.NodeDef]:
    # Keyed by debug name, in torch's order: used graph inputs, graph outputs, then operator outputs. A later
    # node with the same key takes the earlier one's place, as in torch.
    nodes: dict[str, _Node] = {}

    for value in jit_graph.inputs():
        if not value.uses() or value.type().kind() == _CLASS_TYPE_KIND:
            continue
        name = value.debugName()
        nodes[name] = _Node(name=name, op=IO_OP, inputs=[], shape=_io_shape(value), prefix="input")

    operators = _operators(jit_graph)

    for index, value in enumerate(jit_graph.outputs(), start=1):
        name = f"output.{index}"
        nodes[name] = _Node(name=name, op=IO_OP, inputs=[value.debugName()], shape=_io_shape(value), prefix="output")

    readable = _readable_scopes(traced)
    for operator in operators:
        operator.scope = readable(operator.scope)
        for name, shape in operator.outputs:
            nodes[name] = _Node(
                name=name,
                op=operator.kind,
                inputs=operator.inputs,
                shape=shape,
                attributes=operator.attributes,
                prefix=operator.scope,
            )

    # Debug name → node name. Values that are not nodes themselves (submodule reads) take the scope of the last
    # operator that consumed them; nodes take their own prefix.
    scoped: dict[str, str] = {}
    for operator in operators:
        for name in operator.inputs:
            scoped[name] = f"{operator.scope}/{name}"
    for key, node in nodes.items():
        scoped[key] = f"{node.prefix}/{node.name}"

    return [
        node_def(
            name=scoped.get(node.name, node.name),
            op=node.op,
            inputs=[scoped[name] for name in node.inputs],
            shape=node.shape,
            attributes=node.attributes,
        )
        for node in nodes.values()
    ]


def _operators(jit_graph: torch._C.Graph) -> list[_Operator]:
    """The graph's operators in order, each with its raw scope (``__module.features/__module.features.0``)."""
    operators: list[_Operator] = []
    attribute_scopes: dict[str, str] = {}  # debug name of a GetAttr output → its attribute path
    for node in jit_graph.nodes():
        if node.kind() == _GETATTR_KIND:
            output = node.output()
            scope = _getattr_scope(node, attribute_scopes)
            attribute_scopes[output.debugName()] = scope
            if output.type().kind() == _CLASS_TYPE_KIND:
                continue  # a submodule read: the scopes of its operators say where it is
        else:
            scope = node.scopeName()
        operators.append(
            _Operator(
                kind=node.kind(),
                scope=scope,
                inputs=[value.debugName() for value in node.inputs()],
                outputs=[(value.debugName(), _op_shape(value)) for value in node.outputs()],
                attributes=_attributes_text(node),
            )
        )
    return operators


def _getattr_scope(node: torch._C.Node, attribute_scopes: dict[str, str]) -> str:
    """``__module.<name>`` for an attribute of the model, ``<parent scope>/<parent alias>.<name>`` below that."""
    name = node.s("name")
    parent = node.input().node()
    if parent.kind() != _GETATTR_KIND:
        return f"__module.{name}"
    parent_scope = attribute_scopes[parent.output().debugName()]
    return f"{parent_scope}/{parent_scope.split('/')[-1]}.{name}"


def _readable_scopes(traced: torch.nn.Module) -> Callable[[str], str]:
    """A function turning ``__module.features/__module.features.0`` into ``Net/Sequential[features]/Conv2d[0]``."""
    root = _module_type_name(traced)
    aliases = {
        path: f"{_module_type_name(module)}[{path.split('.')[-1]}]"
        for path, module in traced.named_modules(prefix="__module")
    }

    def readable(scope: str) -> str:
        parts = [aliases.get(alias, alias.split(".")[-1]) for alias in scope.split("/")]
        return f"{root}/{'/'.join(parts)}" if any(parts) else root

    return readable


def _module_type_name(module: torch.nn.Module) -> str:
    import torch

    if isinstance(module, torch.jit.TracedModule):
        return module._name
    return getattr(module, "original_name", "Module")


def _attributes_text(node: torch._C.Node) -> str:
    """The node's attributes as torch shows them: a dict's text with quotes turned into spaces."""
    values = {name: getattr(node, node.kindOf(name))(name) for name in node.attributeNames()}
    # torch replaces the quotes because they upset TensorBoard's display; the text must match torch's.
    return str(values).replace("'", " ")


def _io_shape(value: torch._C.Value) -> list[int] | None:
    """The shape of a graph input or output, as torch records it.

    ``None`` (no ``_output_shapes``) for a tensor of unknown shape, ``[1]`` for a value that is not a tensor.
    """
    try:
        sizes = value.type().sizes()  # type: ignore[attr-defined]  # only TensorType has sizes(): caught below
    except (RuntimeError, AttributeError):
        return [1]
    return None if sizes is None else list(sizes)


def _op_shape(value: torch._C.Value) -> list[int] | None:
    return list(value.type().sizes()) if value.isCompleteTensor() else None  # type: ignore[attr-defined]


def node_def(name: str, op: str, inputs: list[str], shape: list[int] | None, attributes: str) -> graph_pb2.NodeDef:
    """One node as torch writes it: its attributes as text under ``attr``, its output shape (when known) under
    ``_output_shapes``, no device."""
    attr = {"attr": graph_pb2.AttrValue(s=attributes.encode("utf-8"))}
    if shape is not None:
        dims = [tensor_shape_pb2.TensorShapeProto.Dim(size=size) for size in shape]
        shapes = graph_pb2.AttrValue.ListValue(shape=[tensor_shape_pb2.TensorShapeProto(dim=dims)])
        attr["_output_shapes"] = graph_pb2.AttrValue(list=shapes)
    return graph_pb2.NodeDef(name=name, op=op, input=inputs, attr=attr)
