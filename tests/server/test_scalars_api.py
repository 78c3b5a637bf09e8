"""The scalars API in-process: real log directories written by ridgeline's writer, read by ridgeline.open."""

from __future__ import annotations

import csv
import io
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from fastapi import APIRouter
from fastapi.testclient import TestClient

import ridgeline
from ridgeline.server import create_app
from ridgeline.server.plugin_host import PluginHost

URL = "/api/plugins/scalars/scalars"
WALL = 1_700_000_000.0


def write_run(root: Path, run: str, points: dict[str, list[tuple[int, float]]]) -> None:
    writer = ridgeline.SummaryWriter(str(root / run))
    for tag, series in points.items():
        for step, value in series:
            writer.add_scalar(tag, value, step, walltime=WALL + step * 0.25)
    writer.close()


LOSS = [(step, 1.0 / (step + 1)) for step in range(50)]
SPIKY = [(step, 100.0 if step == 500 else float(step % 7)) for step in range(1000)]
ODD = [(0, 1.5), (1, math.nan), (2, math.inf), (3, -math.inf), (4, 2.5)]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    root = tmp_path_factory.mktemp("logs")
    write_run(root, "a", {"loss": LOSS, "spiky": SPIKY, "acc(top-1)[val]": ODD})
    write_run(root, "b", {"loss": LOSS[:10], "Loss/训练": [(0, 3.0)]})
    logdir = ridgeline.open(root, cache=False)
    with TestClient(create_app(logdir)) as test_client:
        yield test_client


def written(points: list[tuple[int, float]]) -> tuple[list[int], list[float], list[float]]:
    """What the reader gives back for these points: simple_value is a float32."""
    steps = [step for step, _ in points]
    walls = [WALL + step * 0.25 for step in steps]
    values = [float(np.float32(value)) for _, value in points]
    return steps, walls, values


def test_every_point_is_returned_as_written(client: TestClient) -> None:
    for run, tag, points in [("a", "loss", LOSS), ("a", "spiky", SPIKY), ("b", "loss", LOSS[:10])]:
        response = client.get(URL, params={"run": run, "tag": tag})
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("application/json")
        body = response.json()
        steps, walls, values = written(points)
        assert body["step"] == steps
        assert all(isinstance(step, int) for step in body["step"])
        assert body["wall_time"] == pytest.approx(walls, abs=1e-6)
        assert body["value"] == values


def test_non_finite_values_are_null_and_tags_with_odd_characters_work(client: TestClient) -> None:
    body = client.get(URL, params={"run": "a", "tag": "acc(top-1)[val]"}).json()
    assert body["step"] == [0, 1, 2, 3, 4]
    assert body["value"] == [1.5, None, None, None, 2.5]
    assert client.get(URL, params={"run": "b", "tag": "Loss/训练"}).json()["value"] == [3.0]


def test_max_points_keeps_first_last_and_spike(client: TestClient) -> None:
    body = client.get(URL, params={"run": "a", "tag": "spiky", "max_points": 40}).json()
    assert 2 <= len(body["step"]) <= 40
    assert body["step"][0] == 0 and body["step"][-1] == 999
    assert 500 in body["step"]
    assert body["value"][body["step"].index(500)] == 100.0
    assert body["step"] == sorted(body["step"])
    _, walls, values = written(SPIKY)
    for step, wall, value in zip(body["step"], body["wall_time"], body["value"], strict=True):
        assert value == values[step] and wall == pytest.approx(walls[step])
    # A series that fits is returned whole.
    assert len(client.get(URL, params={"run": "a", "tag": "loss", "max_points": 1000}).json()["step"]) == 50


def test_since_step_returns_only_newer_points(client: TestClient) -> None:
    body = client.get(URL, params={"run": "a", "tag": "loss", "since_step": 44}).json()
    assert body["step"] == [45, 46, 47, 48, 49]
    assert body["value"] == written(LOSS)[2][45:]
    assert client.get(URL, params={"run": "a", "tag": "loss", "since_step": 49}).json()["step"] == []
    assert len(client.get(URL, params={"run": "a", "tag": "loss", "since_step": -5}).json()["step"]) == 50


def test_batch_answers_in_request_order(client: TestClient) -> None:
    pairs = [{"run": "b", "tag": "loss"}, {"run": "a", "tag": "spiky"}, {"run": "a", "tag": "loss"}]
    response = client.post("/api/plugins/scalars/batch", json={"series": pairs, "max_points": 20})
    assert response.status_code == 200
    results = response.json()
    assert [(item["run"], item["tag"]) for item in results] == [(p["run"], p["tag"]) for p in pairs]
    assert results[0]["step"] == list(range(10))
    assert len(results[1]["step"]) <= 20 and 500 in results[1]["step"]
    assert len(results[2]["step"]) <= 20 and results[2]["step"][-1] == 49


def test_batch_with_an_unknown_pair_is_404(client: TestClient) -> None:
    pairs = [{"run": "a", "tag": "loss"}, {"run": "a", "tag": "nope"}]
    response = client.post("/api/plugins/scalars/batch", json={"series": pairs})
    assert response.status_code == 404
    assert "'nope'" in response.json()["error"]


def test_csv_download(client: TestClient) -> None:
    response = client.get(URL + ".csv", params={"run": "a", "tag": "acc(top-1)[val]"})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/csv")
    assert "attachment" in response.headers["content-disposition"]
    rows = list(csv.reader(io.StringIO(response.text)))
    assert rows[0] == ["step", "wall_time", "value"]
    steps, walls, _ = written(ODD)
    assert [int(row[0]) for row in rows[1:]] == steps
    assert [float(row[1]) for row in rows[1:]] == pytest.approx(walls)
    parsed = [float(row[2]) for row in rows[1:]]
    assert parsed[0] == 1.5 and math.isnan(parsed[1]) and parsed[2:] == [math.inf, -math.inf, 2.5]


def test_unknown_run_or_tag_is_404_with_a_message(client: TestClient) -> None:
    response = client.get(URL, params={"run": "zzz", "tag": "loss"})
    assert response.status_code == 404
    assert "no run 'zzz'" in response.json()["error"]
    response = client.get(URL + ".csv", params={"run": "a", "tag": "missing"})
    assert response.status_code == 404
    assert "no scalar tag 'missing'" in response.json()["error"]


@pytest.mark.parametrize(
    ("params", "parameter"),
    [
        ({"run": "a", "tag": "loss", "max_points": 1}, "max_points"),
        ({"run": "a", "tag": "loss", "max_points": "many"}, "max_points"),
        ({"run": "a", "tag": "loss", "since_step": "x"}, "since_step"),
        ({"run": "a"}, "tag"),
    ],
)
def test_bad_parameters_are_400_naming_the_parameter(
    client: TestClient, params: dict[str, object], parameter: str
) -> None:
    response = client.get(URL, params=params)
    assert response.status_code == 400
    assert f"'{parameter}'" in response.json()["error"]


def test_bad_batch_body_is_400(client: TestClient) -> None:
    response = client.post("/api/plugins/scalars/batch", json={"series": [{"run": "a"}], "max_points": 1})
    assert response.status_code == 400
    message = response.json()["error"]
    assert "tag" in message and "max_points" in message


def test_runs_lists_tags_per_kind(client: TestClient) -> None:
    body = client.get("/api/runs").json()
    runs = {item["run"]: item["tags"] for item in body["runs"]}
    assert sorted(runs) == ["a", "b"]
    assert sorted(runs["a"]["scalars"]) == sorted(["loss", "spiky", "acc(top-1)[val]"])
    assert sorted(runs["b"]["scalars"]) == sorted(["loss", "Loss/训练"])
    assert client.get("/api/plugins").json() == {"plugins": ["scalars"]}


def test_openapi_spec_lists_the_routes(client: TestClient) -> None:
    spec = client.get("/api/openapi.json").json()
    paths = spec["paths"]
    for path in ["/api/runs", URL, URL + ".csv", "/api/plugins/scalars/batch"]:
        assert path in paths
    assert "post" in paths["/api/plugins/scalars/batch"]
    assert client.get("/api/docs").status_code == 200


@dataclass
class Other:
    name: str
    router: APIRouter


def test_plugin_names_are_checked(tmp_path: Path) -> None:
    logdir = ridgeline.open(tmp_path, cache=False)
    with pytest.raises(ValueError, match="duplicate plugin name 'scalars'"):
        create_app(logdir, plugins=[Other("scalars", APIRouter())])
    for bad in ["Scalars", "1st", "a-b", ""]:
        with pytest.raises(ValueError, match="invalid plugin name"):
            PluginHost([Other(bad, APIRouter())])


def test_third_party_plugin_is_served_under_its_prefix(tmp_path: Path) -> None:
    router = APIRouter()

    @router.get("/hello")
    def hello() -> dict[str, str]:
        return {"hello": "world"}

    app = create_app(ridgeline.open(tmp_path, cache=False), plugins=[Other("greeter", router)])
    with TestClient(app) as test_client:
        assert test_client.get("/api/plugins/greeter/hello").json() == {"hello": "world"}
        assert test_client.get("/api/plugins").json() == {"plugins": ["scalars", "greeter"]}


def test_lifespan_runs_the_reload_loop(tmp_path: Path) -> None:
    write_run(tmp_path, "a", {"loss": LOSS[:3]})
    logdir = ridgeline.open(tmp_path, cache=False)
    with TestClient(create_app(logdir, reload_interval=0.05)) as test_client:
        assert logdir.ingestor._thread is not None
        write_run(tmp_path, "late", {"loss": [(0, 1.0)]})
        deadline = time.monotonic() + 10
        while "late" not in logdir.runs() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert test_client.get(URL, params={"run": "late", "tag": "loss"}).json()["value"] == [1.0]
    assert logdir.ingestor._thread is None
