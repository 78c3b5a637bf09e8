"""add_graph with a GraphDef already built (ridgeline's extension): written as it is, without torch, and read back
equal by TensorBoard's own loader and by ridgeline's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import ridgeline
from ridgeline.fixtures.graph import demo_graph
from ridgeline.format.proto import graph_pb2


def test_a_graph_def_is_written_as_it_is(tmp_path: Path) -> None:
    built = demo_graph()
    with ridgeline.SummaryWriter(tmp_path / "run") as writer:
        writer.add_graph(built)
    record = ridgeline.open(tmp_path, cache=False).graph("run")
    assert record.format == "graph_def" and graph_pb2.GraphDef.FromString(record.data) == built

    event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    accumulator = event_accumulator.EventAccumulator(str(tmp_path / "run"))
    accumulator.Reload()
    from_tensorboard = graph_pb2.GraphDef.FromString(accumulator.Graph().SerializeToString())
    assert from_tensorboard == built
    names = [node.name for node in from_tensorboard.node]
    assert "Net/Linear[fc1]/input.7" in names and len(names) == len(built.node)


def test_writing_a_graph_def_needs_no_torch(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "import ridgeline\n"
        "from ridgeline.fixtures.graph import demo_graph\n"
        f"with ridgeline.SummaryWriter({str(tmp_path)!r}) as w:\n"
        "    w.add_graph(demo_graph())\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    assert list(tmp_path.glob("events.out.tfevents.*"))
