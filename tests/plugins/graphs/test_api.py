"""GET /api/graphs on graphs written by torch's ``SummaryWriter.add_graph`` and ridgeline's, a TF-style GraphDef
(control inputs, output indices, dtypes), a large graph and a corrupt record, in process."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

import ridgeline
from ridgeline.format.proto import event_pb2, graph_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2, types_pb2
from tests.plugins.conftest import Api, in_process

pytest.importorskip("torch")
from tests.plugins.graphs.graph_logs import LONG_MODULE, big_graph, write_event_file, write_graph_logs


def shape(*dims: int) -> tensor_shape_pb2.TensorShapeProto:
    return tensor_shape_pb2.TensorShapeProto(dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=d) for d in dims])


def tf_graph() -> graph_pb2.GraphDef:
    """What TF1 writes: typed attrs, ``name:1`` output indices and ``^name`` control inputs."""
    float32 = graph_pb2.AttrValue(type=types_pb2.DT_FLOAT)
    shapes = graph_pb2.AttrValue(list=graph_pb2.AttrValue.ListValue(shape=[shape(-1, 784)]))
    split_shapes = graph_pb2.AttrValue(list=graph_pb2.AttrValue.ListValue(shape=[shape(-1, 392), shape(-1, 392)]))
    return graph_pb2.GraphDef(
        node=[
            graph_pb2.NodeDef(name="x", op="Placeholder", attr={"dtype": float32, "_output_shapes": shapes}),
            graph_pb2.NodeDef(name="init", op="NoOp"),
            graph_pb2.NodeDef(
                name="split/Split",
                op="Split",
                input=["x", "^init"],
                device="/device:CPU:0",
                attr={"T": float32, "num_split": graph_pb2.AttrValue(i=2), "_output_shapes": split_shapes},
            ),
            graph_pb2.NodeDef(name="dense/MatMul", op="MatMul", input=["split/Split:1"], attr={"T": float32}),
            graph_pb2.NodeDef(name="dense/Relu", op="Relu", input=["dense/MatMul"], attr={"T": float32}),
        ]
    )


KERAS_FUNCTIONAL = {
    "class_name": "Functional",
    "config": {
        "name": "mlp",
        "layers": [
            {
                "class_name": "InputLayer",
                "name": "pixels",
                "config": {"batch_input_shape": [None, 784], "dtype": "float32", "name": "pixels"},
                "inbound_nodes": [],
            },
            {
                "class_name": "Dense",
                "name": "hidden",
                "config": {"name": "hidden", "units": 64, "activation": "relu"},
                "inbound_nodes": [[["pixels", 0, 0, {}]]],
            },
            {
                "class_name": "Dense",
                "name": "logits",
                "config": {"name": "logits", "units": 10},
                "inbound_nodes": [[["hidden", 0, 0, {}]]],
            },
        ],
    },
}
KERAS_SEQUENTIAL = {
    "class_name": "Sequential",
    "config": {
        "name": "seq",
        "layers": [
            {"class_name": "InputLayer", "config": {"batch_input_shape": [None, 8], "name": "seq_input"}},
            {"class_name": "Dense", "config": {"name": "dense", "units": 4}},
        ],
    },
}


def plugin_value(tag: str, plugin: str, payload: bytes) -> summary_pb2.Summary.Value:
    """A TF2 graph summary: the payload as a string tensor, with the graph plugin's metadata."""
    tensor = tensor_pb2.TensorProto(dtype=types_pb2.DT_STRING, string_val=[payload])
    meta = summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name=plugin))
    return summary_pb2.Summary.Value(tag=tag, tensor=tensor, metadata=meta)


def length_delimited(field: int, payload: bytes) -> bytes:
    """One protobuf field of wire type 2 (a message or bytes): its key, its varint length, the payload."""
    size, length = b"", len(payload)
    while True:
        byte, length = length & 0x7F, length >> 7
        size += bytes([byte | (0x80 if length else 0)])
        if not length:
            return bytes([field << 3 | 2]) + size + payload


def function_graphs_metadata(*graphs: graph_pb2.GraphDef) -> bytes:
    """A RunMetadata as ``tf.summary.trace_export`` writes it: function_graphs (field 4), each with its
    pre-optimization graph (field 2)."""
    return b"".join(length_delimited(4, length_delimited(2, g.SerializeToString())) for g in graphs)


@pytest.fixture(scope="module")
def graphs_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    root = write_graph_logs(tmp_path_factory.mktemp("graphs"))
    scalars_only = ridgeline.SummaryWriter(str(root / "no_graph"))
    scalars_only.add_scalar("loss", 1.0, 0)
    scalars_only.close()
    write_event_file(root / "tf", event_pb2.Event(wall_time=2.0, graph_def=tf_graph().SerializeToString()))
    write_event_file(root / "big", event_pb2.Event(wall_time=2.0, graph_def=big_graph(400).SerializeToString()))
    summary = summary_pb2.Summary(
        value=[
            plugin_value("keras", "graph_keras_model", json.dumps(KERAS_FUNCTIONAL).encode()),
            plugin_value("keras_seq", "graph_keras_model", json.dumps(KERAS_SEQUENTIAL).encode()),
            plugin_value("trace", "graph_run_metadata_graph", function_graphs_metadata(tf_graph(), big_graph(1))),
        ]
    )
    write_event_file(root / "tf2", event_pb2.Event(wall_time=2.0, step=3, summary=summary))
    with in_process(root) as served:
        yield served


def get(served: Api, **params: str) -> httpx.Response:
    return served.get("/api/graphs", **params)


@pytest.mark.parametrize("run", ["torch_cnn", "ridgeline_cnn"])
def test_torch_cnn_graph(graphs_server: Api, run: str) -> None:
    response = get(graphs_server, run=run)
    assert response.status_code == 200
    graph = response.json()
    assert graph["tag"] == "__graph__" and graph["format"] == "graph_def"
    assert "__graph__" in graph["tags"]
    nodes = {node["name"]: node for node in graph["nodes"]}
    # Full scoped names as torch writes them: never shortened.
    convs = [name for name, node in nodes.items() if node["op"] == "aten::_convolution"]
    assert len(convs) == 2
    assert all(name.startswith("SmallCnn/Sequential[features]/Block[") and "/Conv2d[conv]/" in name for name in convs)
    linear = [name for name in nodes if f"/Linear[{LONG_MODULE}]/" in name]
    assert linear, "the long module's nodes keep its whole name"
    assert nodes["input/x"]["shapes"] == ["1×3×32×32"]
    # Edges carry the shape of the tensor that flows: the input into the first convolution, its output onwards.
    first_conv = next(name for name in convs if "Block[0]" in name)
    into_conv = [e for e in graph["edges"] if e["target"] == first_conv and e["source"] == "input/x"]
    assert [e["shape"] for e in into_conv] == ["1×3×32×32"]
    out_of_conv = [e for e in graph["edges"] if e["source"] == first_conv]
    assert out_of_conv and {e["shape"] for e in out_of_conv} == {"1×8×32×32"}
    # The scope tree: parents before children, each counting the nodes under it.
    scopes = {scope["name"]: scope for scope in graph["scopes"]}
    assert scopes["SmallCnn"]["parent"] is None
    assert scopes["SmallCnn/Sequential[features]"]["parent"] == "SmallCnn"
    assert scopes["SmallCnn/Sequential[features]/Block[0]"]["parent"] == "SmallCnn/Sequential[features]"
    names = [scope["name"] for scope in graph["scopes"]]
    for scope in graph["scopes"]:
        if scope["parent"] is not None:
            assert names.index(scope["parent"]) < names.index(scope["name"])
    under = sum(1 for name in nodes if name.startswith("SmallCnn/Sequential[features]/"))
    assert scopes["SmallCnn/Sequential[features]"]["nodes"] == under
    # Attributes as text: torch's constants say their value.
    constants = [node for node in nodes.values() if node["op"] == "prim::Constant"]
    assert any("value" in node["attrs"].get("attr", "") for node in constants)


def test_runs_list_graph_tags(graphs_server: Api) -> None:
    listing = {item["run"]: item for item in graphs_server.get("/api/runs").json()["runs"]}
    assert "__graph__" in listing["torch_cnn"]["tags"]["graphs"]
    assert "__graph__" in listing["ridgeline_cnn"]["tags"]["graphs"]
    assert "graphs" not in listing["no_graph"]["tags"]


def test_tf_style_inputs(graphs_server: Api) -> None:
    graph = get(graphs_server, run="tf").json()
    edges = {(e["source"], e["target"]): e for e in graph["edges"]}
    assert edges[("x", "split/Split")] == {
        "source": "x",
        "target": "split/Split",
        "output": 0,
        "control": False,
        "shape": "?×784",
    }
    assert edges[("init", "split/Split")]["control"] is True
    # Output 1 of the split: its own shape, not output 0's.
    assert edges[("split/Split", "dense/MatMul")]["output"] == 1
    assert edges[("split/Split", "dense/MatMul")]["shape"] == "?×392"
    # No _output_shapes: the dtype is the label.
    assert edges[("dense/MatMul", "dense/Relu")]["shape"] == "float32"
    split = next(node for node in graph["nodes"] if node["name"] == "split/Split")
    assert split["device"] == "/device:CPU:0"
    assert split["attrs"] == {"T": "float32", "num_split": "2"}
    assert split["shapes"] == ["?×392", "?×392"]


def test_keras_models(graphs_server: Api) -> None:
    tags = get(graphs_server, run="tf2").json()["tags"]
    assert tags == ["keras", "keras_seq", "trace"]
    functional = get(graphs_server, run="tf2", tag="keras").json()
    assert functional["format"] == "keras_model" and functional["step"] == 3
    assert [(n["name"], n["op"]) for n in functional["nodes"]] == [
        ("pixels", "InputLayer"),
        ("hidden", "Dense"),
        ("logits", "Dense"),
    ]
    assert functional["nodes"][0]["shapes"] == ["?×784"]
    assert functional["nodes"][1]["attrs"] == {"activation": "relu", "units": "64"}
    assert [(e["source"], e["target"]) for e in functional["edges"]] == [("pixels", "hidden"), ("hidden", "logits")]
    sequential = get(graphs_server, run="tf2", tag="keras_seq").json()
    assert [(e["source"], e["target"]) for e in sequential["edges"]] == [("seq_input", "dense")]


def test_function_graphs_are_merged(graphs_server: Api) -> None:
    trace = get(graphs_server, run="tf2", tag="trace").json()
    assert trace["format"] == "run_metadata_graph"
    names = {n["name"] for n in trace["nodes"]}
    assert {"x", "split/Split", "dense/Relu", "model/layer_0/op_9"} <= names
    assert "input" in names and len(names) == len(trace["nodes"]) == 5 + 11


def test_big_graph(graphs_server: Api) -> None:
    graph = get(graphs_server, run="big").json()  # how fast it answers is for bench/, not a test
    assert len(graph["nodes"]) == 4001 and len(graph["edges"]) == 4000
    assert len(graph["scopes"]) == 401


def test_errors(graphs_server: Api) -> None:
    missing_run = get(graphs_server, run="nope")
    assert missing_run.status_code == 404 and "nope" in missing_run.json()["error"]
    no_graph = get(graphs_server, run="no_graph")
    assert no_graph.status_code == 404 and "has no graph" in no_graph.json()["error"]
    bad_tag = get(graphs_server, run="torch_cnn", tag="other")
    assert bad_tag.status_code == 404 and "'other'" in bad_tag.json()["error"]
    no_run = graphs_server.get("/api/graphs")
    assert no_run.status_code == 400 and "run" in no_run.json()["error"]
    corrupt = get(graphs_server, run="corrupt")
    assert corrupt.status_code == 422 and "cannot be read" in corrupt.json()["error"]
    # The server keeps answering after a corrupt graph.
    assert get(graphs_server, run="tf").status_code == 200


def test_step_statistics_only(graphs_server: Api) -> None:
    tags = get(graphs_server, run="torch_cnn").json()["tags"]
    stats = [tag for tag in tags if tag.startswith("__run_metadata__/")]
    assert stats, tags
    response = get(graphs_server, run="torch_cnn", tag=stats[0])
    assert response.status_code == 422 and "step statistics" in response.json()["error"]


def test_openapi_documents_the_route(graphs_server: Api) -> None:
    spec = graphs_server.get("/api/openapi.json").json()
    route = spec["paths"]["/api/graphs"]["get"]
    assert {p["name"] for p in route["parameters"]} == {"run", "tag"}
    assert {"200", "400", "404", "422"} <= set(route["responses"])
