"""The demo classifier's graph, as ``torch.utils.tensorboard``'s ``add_graph`` would write it, built without torch.

``ridgeline demo`` must run on a machine without torch, and the Graphs dashboard should still have something to
show: a small CNN (the layers whose weights the demo's histograms follow, ``fixtures.LAYERS``) with torch's node
naming (``Net/Linear[fc1]/input.7``), its ``attr`` text and ``_output_shapes``.
"""

from __future__ import annotations

from ridgeline.format.proto import graph_pb2
from ridgeline.writer.graph import PRODUCER_VERSION, node_def

BATCH = 8

# (name, op, inputs, output shape, attributes): the forward pass of conv1 → relu → pool → flatten → fc1 → fc2.
_NODES: tuple[tuple[str, str, tuple[str, ...], tuple[int, ...], str], ...] = (
    ("input/input.1", "IO Node", (), (BATCH, 3, 32, 32), ""),
    ("Net/Conv2d[conv1]/weight/conv1.weight", "prim::GetAttr", (), (32, 3, 3, 3), "{ name : weight }"),
    ("Net/Conv2d[conv1]/bias/conv1.bias", "prim::GetAttr", (), (32,), "{ name : bias }"),
    (
        "Net/Conv2d[conv1]/input.3",
        "aten::_convolution",
        ("input/input.1", "Net/Conv2d[conv1]/weight/conv1.weight", "Net/Conv2d[conv1]/bias/conv1.bias"),
        (BATCH, 32, 32, 32),
        "{ stride : [1, 1], padding : [1, 1], dilation : [1, 1], groups : 1 }",
    ),
    ("Net/ReLU[relu1]/input.5", "aten::relu", ("Net/Conv2d[conv1]/input.3",), (BATCH, 32, 32, 32), ""),
    (
        "Net/AdaptiveAvgPool2d[pool]/x.1",
        "aten::adaptive_avg_pool2d",
        ("Net/ReLU[relu1]/input.5",),
        (BATCH, 32, 4, 4),
        "{ output_size : [4, 4] }",
    ),
    ("Net/x.3", "aten::flatten", ("Net/AdaptiveAvgPool2d[pool]/x.1",), (BATCH, 512), "{ start_dim : 1 }"),
    ("Net/Linear[fc1]/weight/fc1.weight", "prim::GetAttr", (), (128, 512), "{ name : weight }"),
    ("Net/Linear[fc1]/bias/fc1.bias", "prim::GetAttr", (), (128,), "{ name : bias }"),
    (
        "Net/Linear[fc1]/input.7",
        "aten::linear",
        ("Net/x.3", "Net/Linear[fc1]/weight/fc1.weight", "Net/Linear[fc1]/bias/fc1.bias"),
        (BATCH, 128),
        "",
    ),
    ("Net/ReLU[relu2]/input.9", "aten::relu", ("Net/Linear[fc1]/input.7",), (BATCH, 128), ""),
    ("Net/Dropout[dropout]/input.11", "aten::dropout", ("Net/ReLU[relu2]/input.9",), (BATCH, 128), "{ p : 0.1 }"),
    ("Net/Linear[fc2]/weight/fc2.weight", "prim::GetAttr", (), (10, 128), "{ name : weight }"),
    ("Net/Linear[fc2]/bias/fc2.bias", "prim::GetAttr", (), (10,), "{ name : bias }"),
    (
        "Net/Linear[fc2]/logits",
        "aten::linear",
        ("Net/Dropout[dropout]/input.11", "Net/Linear[fc2]/weight/fc2.weight", "Net/Linear[fc2]/bias/fc2.bias"),
        (BATCH, 10),
        "",
    ),
    ("output/output.1", "IO Node", ("Net/Linear[fc2]/logits",), (BATCH, 10), ""),
)


def demo_graph() -> graph_pb2.GraphDef:
    """The GraphDef of the demo's classifier."""
    graph = graph_pb2.GraphDef()
    graph.versions.producer = PRODUCER_VERSION
    graph.node.extend(
        node_def(name, op, list(inputs), list(shape), attributes) for name, op, inputs, shape, attributes in _NODES
    )
    return graph
