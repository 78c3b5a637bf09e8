"""The graph log directories of the graphs API and browser tests: a small CNN with nested modules (and one module
whose name is longer than any node box) written by torch's ``SummaryWriter.add_graph`` and by ridgeline's, and a
corrupt graph record."""

from __future__ import annotations

from pathlib import Path

import torch
from torch import nn

import ridgeline
from ridgeline.format.proto import event_pb2, graph_pb2
from ridgeline.format.records import frame

LONG_MODULE = "a_really_long_module_name_that_tensorboard_would_truncate_in_its_node_boxes"
CORRUPT_GRAPH = b"\x0a\xff\xff\xff\x0f garbage"


class Block(nn.Module):
    def __init__(self, channels_in: int, channels_out: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(channels_in, channels_out, 3, padding=1)
        self.bn = nn.BatchNorm2d(channels_out)
        self.act = nn.ReLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.act(self.bn(self.conv(x)))


class SmallCnn(nn.Module):
    """Nested modules (Sequential of Blocks), and one module whose name is longer than any node box."""

    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(Block(3, 8), nn.MaxPool2d(2), Block(8, 16))
        self.pool = nn.AdaptiveAvgPool2d(1)
        setattr(self, LONG_MODULE, nn.Linear(16, 10))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return getattr(self, LONG_MODULE)(torch.flatten(self.pool(self.features(x)), 1))


def write_event_file(run: Path, *events: event_pb2.Event) -> None:
    """An event file of ``events`` in the new directory ``run`` (for records no writer produces)."""
    run.mkdir(parents=True)
    start = event_pb2.Event(wall_time=1.0, file_version="brain.Event:2")
    body = b"".join(frame(e.SerializeToString()) for e in (start, *events))
    (run / "events.out.tfevents.1.test").write_bytes(body)


def big_graph(layers: int) -> graph_pb2.GraphDef:
    """A chain of ``layers`` scopes of 10 nodes each."""
    nodes = [graph_pb2.NodeDef(name="input", op="Placeholder")]
    previous = "input"
    for layer in range(layers):
        for part in range(10):
            name = f"model/layer_{layer}/op_{part}"
            nodes.append(graph_pb2.NodeDef(name=name, op="Add", input=[previous]))
            previous = name
    return graph_pb2.GraphDef(node=nodes)


def write_graph_logs(root: Path) -> Path:
    """Runs torch_cnn (torch's writer), ridgeline_cnn (ours, with a scalar) and corrupt under ``root``."""
    from torch.utils.tensorboard import SummaryWriter

    example = torch.zeros(1, 3, 32, 32)
    torch_writer = SummaryWriter(str(root / "torch_cnn"))
    torch_writer.add_graph(SmallCnn().eval(), example)
    torch_writer.close()
    ours = ridgeline.SummaryWriter(str(root / "ridgeline_cnn"))
    ours.add_graph(SmallCnn().eval(), example)
    ours.add_scalar("loss", 1.0, 0)
    ours.close()
    write_event_file(root / "corrupt", event_pb2.Event(wall_time=2.0, graph_def=CORRUPT_GRAPH))
    return root
