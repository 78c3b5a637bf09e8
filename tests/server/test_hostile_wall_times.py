"""Wall times and steps that are no dates or are out of range (NaN, ±Inf, ±1e308, past the platform's time_t:
what a flipped bit makes) are values to show, never exceptions: every GET route of the spec, search queries
about dates and the commands answer without a 5xx or a traceback.

The run is written record by record (no writer would write such times) into a real event file; the app is the
one ``ridgeline serve`` builds, asked in process.
"""

from __future__ import annotations

import math
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import ridgeline
from ridgeline.format import records
from ridgeline.format.proto import event_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2, types_pb2
from ridgeline.server import create_app
from tests.conftest import WAIT_S

WALL_TIMES = [math.nan, math.inf, -math.inf, 1e308, -1e308, float(2**62), -float(2**62), 1.7e9]
STEPS = [-(2**62), 0, 1, 2, 3, 4, 2**62, 2**63 - 1]  # increasing: a step going back would hide points
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000") + b"\0" * 16


def event(wall: float, step: int, value: summary_pb2.Summary.Value) -> bytes:
    summary = summary_pb2.Summary(value=[value])
    return records.frame(event_pb2.Event(wall_time=wall, step=step, summary=summary).SerializeToString())


def text_value(text: str) -> summary_pb2.Summary.Value:
    metadata = summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="text"))
    shape = tensor_shape_pb2.TensorShapeProto()
    tensor = tensor_pb2.TensorProto(dtype=types_pb2.DT_STRING, tensor_shape=shape, string_val=[text.encode()])
    return summary_pb2.Summary.Value(tag="notes", metadata=metadata, tensor=tensor)


@pytest.fixture(scope="module")
def odd_logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("odd_times")
    body = [records.frame(event_pb2.Event(wall_time=math.nan, file_version="brain.Event:2").SerializeToString())]
    for wall, step in zip(WALL_TIMES, STEPS, strict=True):
        body.append(event(wall, step, summary_pb2.Summary.Value(tag="loss", simple_value=float(step % 7))))
        body.append(event(wall, step, text_value(f"note at {wall}")))
        histogram = summary_pb2.HistogramProto(min=0, max=2, num=3, bucket_limit=[1, 2], bucket=[1, 2])
        body.append(event(wall, step, summary_pb2.Summary.Value(tag="weights", histo=histogram)))
        image = summary_pb2.Summary.Image(width=1, height=1, encoded_image_string=PNG)
        body.append(event(wall, step, summary_pb2.Summary.Value(tag="sample", image=image)))
    for run in ("odd", "also/odd"):
        (root / run).mkdir(parents=True)
        (root / run / "events.out.tfevents.1.host.1.0").write_bytes(b"".join(body))
    return root


@pytest.fixture(scope="module")
def client(odd_logdir: Path) -> Iterator[TestClient]:
    app = create_app(ridgeline.open(str(odd_logdir), cache=False), logdir_label=str(odd_logdir))
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client


TAGS = {"scalars": "loss", "text": "notes", "histograms": "weights", "distributions": "weights"}
TAGS |= {"images": "sample", "images/blob": "sample", "pr_curves": "loss", "audio": "loss", "audio/blob": "loss"}
TAGS |= {"scalars.csv": "loss", "scalars.json": "loss", "phases": "loss", "forecast": "loss"}


def test_every_get_route_answers_without_a_server_error(client: TestClient) -> None:
    spec = client.get("/api/openapi.json").json()
    asked = 0
    for path, operations in spec["paths"].items():
        if "get" not in operations or path == "/api/search":
            continue
        name = path.removeprefix("/api/")
        params = {"run": "odd", "tag": TAGS.get(name, "loss"), "step": str(STEPS[-1])}
        required = {p["name"] for p in operations["get"].get("parameters", []) if p.get("required")}
        for extra in ({}, {"max_points": "3"}):
            answer = client.get(
                path, params={k: v for k, v in {**params, **extra}.items() if k in required or k in extra}
            )
            assert answer.status_code < 500, (path, answer.status_code, answer.text[:300])
            asked += 1
    assert asked >= 40
    series = client.get("/api/scalars", params={"run": "odd", "tag": "loss"}).json()
    assert len(series["step"]) == len(STEPS)  # every point shown, odd wall times as numbers or null
    runs = client.get("/api/runs").json()["runs"]
    assert [run["run"] for run in runs] == ["also/odd", "odd"]


@pytest.mark.parametrize(
    "query",
    [
        "loss",
        "note",
        "date:2024",
        "date:1970 OR date:292",
        "runs started after 2020-01-01",
        "runs from last week",
        "which runs started today",
        "1e308",
        "which runs have nan",
    ],
)
def test_search_answers_about_dates_of_runs_with_odd_times(client: TestClient, query: str) -> None:
    answer = client.get("/api/search", params={"q": query})
    assert answer.status_code in (200, 400), (query, answer.status_code, answer.text[:300])
    assert "error" in answer.json() or isinstance(answer.json(), dict)


@pytest.mark.parametrize(
    "command",
    [
        ["search", "--logdir", "{logdir}", "--no-cache", "loss"],
        ["search", "--logdir", "{logdir}", "--no-cache", "date:20"],
        ["search", "--logdir", "{logdir}", "--no-cache", "runs started after 2020-01-01"],
        ["export", "--logdir", "{logdir}", "--no-cache", "--format", "csv", "-o", "{out}/x.csv"],
        ["export", "--logdir", "{logdir}", "--no-cache", "--format", "parquet", "-o", "{out}/x.parquet"],
        ["report", "--logdir", "{logdir}", "--no-cache", "-o", "{out}/report.html"],
        ["report", "--logdir", "{logdir}", "--no-cache", "-o", "{out}/report.md"],
        ["alerts", "--logdir", "{logdir}"],
        ["diagnose", "--logdir", "{logdir}"],
        ["clean", "--logdir", "{logdir}", "--keep-last", "1"],
    ],
)
def test_commands_answer_without_a_traceback(odd_logdir: Path, tmp_path: Path, command: list[str]) -> None:
    args = [part.format(logdir=odd_logdir, out=tmp_path) for part in command]
    done = subprocess.run(
        [sys.executable, "-m", "ridgeline.cli", *args], capture_output=True, text=True, timeout=WAIT_S
    )
    assert "Traceback" not in done.stderr + done.stdout, done.stderr[-2000:]
    assert done.returncode in (0, 1, 2), (done.returncode, done.stderr[-2000:])
