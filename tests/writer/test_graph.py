"""ridgeline.writer.graph against torch's own exporter: for the same model the decoded GraphDef must be equal."""

from __future__ import annotations

import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("tensorboard")

from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402
from torch.utils.tensorboard import _pytorch_graph as torch_graph  # noqa: E402

from ridgeline.format.proto import graph_pb2  # noqa: E402
from ridgeline.writer.graph import graph  # noqa: E402


class MLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(F.relu(self.fc1(x)))


class ConvNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU())
        self.head = nn.Linear(4, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(F.adaptive_avg_pool2d(self.features(x), 1).flatten(1))


class TwoInTwoOut(nn.Module):
    """Two inputs, a tuple of outputs (one of them an input), a root parameter, a buffer, a shared submodule."""

    def __init__(self) -> None:
        super().__init__()
        self.encode = nn.Linear(3, 3)
        self.alias = self.encode
        self.scale = nn.Parameter(torch.ones(3))
        self.register_buffer("offset", torch.zeros(3))

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        h = self.alias(self.encode(x)) * self.scale + self.offset
        return h, torch.tanh(y) * 0.5, x


class DictOut(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(2, 2)

    def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        return {"logits": self.fc(x), "features": x + 1}


class NoInput(nn.Module):
    def forward(self) -> torch.Tensor:
        return torch.ones(2) * 3


def as_ours(message, cls):
    ours = cls()
    ours.ParseFromString(message.SerializeToString())
    return ours


def assert_same_as_torch(model: nn.Module, example, **options) -> graph_pb2.GraphDef:
    expected_graph, expected_stats = torch_graph.graph(model, example, **options)
    graph_def, run_metadata = graph(model, example, **options)
    expected = as_ours(expected_graph, graph_pb2.GraphDef)
    assert [node.name for node in graph_def.node] == [node.name for node in expected.node]
    for ours, theirs in zip(graph_def.node, expected.node, strict=True):
        assert ours == theirs, f"node {ours.name} differs"
    assert graph_def == expected
    assert run_metadata == as_ours(expected_stats, graph_pb2.RunMetadata)
    return graph_def


@pytest.fixture(autouse=True)
def _seed() -> None:
    torch.manual_seed(0)


def test_mlp_matches_torch() -> None:
    graph_def = assert_same_as_torch(MLP(), torch.randn(2, 4))
    by_name = {node.name: node for node in graph_def.node}
    assert by_name["input/x"].op == "IO Node"
    assert [dim.size for dim in by_name["input/x"].attr["_output_shapes"].list.shape[0].dim] == [2, 4]
    assert by_name["output/output.1"].op == "IO Node"
    ops = {node.op for node in graph_def.node}
    assert {"aten::linear", "aten::relu", "prim::GetAttr"} <= ops
    assert any(name.startswith("MLP/Linear[fc1]/") for name in by_name)
    assert graph_def.versions.producer == 22


def test_conv_net_with_batchnorm_matches_torch_and_keeps_training_flags() -> None:
    model = ConvNet()
    assert_same_as_torch(model, torch.randn(2, 3, 6, 6))

    model.train()
    model.features[1].eval()  # a frozen batchnorm inside a training model (torch's exporter unfreezes it)
    graph(model, torch.randn(2, 3, 6, 6))
    assert model.training
    assert not model.features[1].training
    assert model.features[0].training and model.head.training


def test_multiple_inputs_and_tuple_outputs_match_torch() -> None:
    graph_def = assert_same_as_torch(TwoInTwoOut(), (torch.randn(2, 3), torch.randn(2, 3)))
    names = [node.name for node in graph_def.node]
    assert names[:3] == ["input/x", "input/y", "output/output.1"]


def test_non_strict_trace_of_dict_outputs_matches_torch() -> None:
    assert_same_as_torch(DictOut(), torch.randn(1, 2), use_strict_trace=False)


def test_plain_modules_and_list_inputs_match_torch() -> None:
    assert_same_as_torch(nn.Linear(2, 3), torch.randn(4, 2))
    assert_same_as_torch(nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)), [torch.randn(4, 2)])


def test_scripted_submodule_matches_torch() -> None:
    class Wrapper(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = torch.jit.script(nn.Sequential(nn.Linear(2, 2), nn.Tanh()))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.body(x)

    assert_same_as_torch(Wrapper(), torch.randn(1, 2))


@pytest.mark.filterwarnings("ignore:The input to trace is already a ScriptModule:UserWarning")
def test_scripted_and_traced_models_match_torch() -> None:
    assert_same_as_torch(torch.jit.script(nn.Sequential(nn.Linear(2, 2), nn.ReLU())), torch.randn(1, 2))
    assert_same_as_torch(torch.jit.trace(MLP(), torch.randn(1, 4)), torch.randn(1, 4))


def test_model_without_inputs_traces_with_none() -> None:
    graph_def, _ = graph(NoInput())
    assert graph_def.node[0].name == "output/output.1"
    assert all(node.name.startswith(("output/", "NoInput/")) for node in graph_def.node)


def test_verbose_prints_the_traced_graph(capsys: pytest.CaptureFixture[str]) -> None:
    graph(MLP(), torch.randn(1, 4), verbose=True)
    assert "aten::linear" in capsys.readouterr().out


def test_non_module_is_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"add_graph: model must be a torch\.nn\.Module, got function"):
        graph(lambda x: x, torch.randn(1))


def test_trace_failure_names_add_graph_and_chains_the_cause() -> None:
    with pytest.raises(RuntimeError, match=r"add_graph: .*MLP.*forward\(\) missing") as info:
        graph(MLP())  # forward needs an input
    assert isinstance(info.value.__cause__, TypeError)

    with pytest.raises(RuntimeError, match=r"add_graph: .*MLP") as info:
        graph(MLP(), torch.randn(2, 5))  # wrong width
    assert info.value.__cause__ is not None


def test_trace_failure_restores_training_mode() -> None:
    model = MLP().train()
    with pytest.raises(RuntimeError):
        graph(model, torch.randn(2, 5))
    assert model.training and model.fc1.training


def test_module_imports_without_torch() -> None:
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "import ridgeline.writer.graph as g\n"
        "assert 'torch' not in [name for name, m in sys.modules.items() if m is not None]\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
