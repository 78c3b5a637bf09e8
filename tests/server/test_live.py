"""A served log directory that changes: new points, a run deleted, an empty directory (uvicorn on 127.0.0.1)."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import httpx

import ridgeline
from ridgeline.server import create_app
from tests.conftest import wait_until, wall, write_ridgeline_run
from tests.server.conftest import in_thread

INTERVAL = 0.2


def test_a_flushed_value_appears_through_since_step(tmp_path: Path) -> None:
    writer = ridgeline.SummaryWriter(str(tmp_path / "live"))
    for step in range(10):
        writer.add_scalar("loss", 1.0 / (step + 1), step, walltime=wall(step))
    writer.flush()
    app = create_app(ridgeline.open(tmp_path, cache=False), reload_interval=INTERVAL)
    with in_thread(app) as client:
        first = client.get("/api/runs").json()
        cursor = client.get("/api/scalars", params={"run": "live", "tag": "loss"}).json()["step"][-1]
        assert cursor == 9
        for step in (10, 11):
            writer.add_scalar("loss", 0.5, step, walltime=wall(step))
        writer.flush()

        def new_points() -> list[int]:
            body = client.get("/api/scalars", params={"run": "live", "tag": "loss", "since_step": cursor}).json()
            steps: list[int] = body["step"]
            return steps

        wait_until(lambda: new_points() == [10, 11], "steps 10 and 11 after the since_step cursor")
        later = client.get("/api/runs").json()
        assert later["generation"] > first["generation"]
        assert later["runs"][0]["last_step"] == 11
        # Nothing new: a pass moves no generation.
        app.state.logdir.reload()
        assert client.get("/api/runs").json()["generation"] == later["generation"]
    writer.close()


def test_a_run_deleted_while_served_goes_away_without_breaking_requests(tmp_path: Path) -> None:
    write_ridgeline_run(tmp_path / "keep", {"loss": [(0, 1.0), (1, 0.5)]})
    write_ridgeline_run(tmp_path / "doomed", {"loss": [(0, 2.0)]})
    app = create_app(ridgeline.open(tmp_path, cache=False), reload_interval=INTERVAL)
    with in_thread(app) as client:

        def runs() -> list[str]:
            return [item["run"] for item in client.get("/api/runs").json()["runs"]]

        assert runs() == ["doomed", "keep"]
        shutil.rmtree(tmp_path / "doomed")
        wait_until(lambda: runs() == ["keep"], "the deleted run to leave /api/runs")
        response = client.get("/api/scalars", params={"run": "doomed", "tag": "loss"})
        assert response.status_code == 404 and "no run 'doomed'" in response.json()["error"]
        pairs = [{"run": "doomed", "tag": "loss"}, {"run": "keep", "tag": "loss"}]
        series = client.post("/api/scalars/batch", json={"series": pairs}).json()["series"]
        assert "error" in series[0] and series[1]["value"] == [1.0, 0.5]


def test_an_empty_log_directory_serves_no_runs(tmp_path: Path) -> None:
    app = create_app(ridgeline.open(tmp_path, cache=False), reload_interval=INTERVAL)
    with in_thread(app) as client:
        body = client.get("/api/runs").json()
        assert body["runs"] == [] and body["generation"] >= 0
        assert client.get("/api/hparams").json() == {"runs": {}}
        assert client.get("/").status_code == 200
        # A run that appears later is found by the reload loop.
        write_ridgeline_run(tmp_path / "late", {"loss": [(3, 1.0)]})
        wait_until(lambda: len(client.get("/api/runs").json()["runs"]) == 1, "the late run in /api/runs")
        # The run can be listed by a pass that read only the writer's first record (the file is created before
        # the points are written); its points come at the latest with the next pass.
        late = {"run": "late", "tag": "loss"}
        wait_until(lambda: client.get("/api/scalars", params=late).json().get("step") == [3], "the late run's point")


def test_no_reload_interval_means_no_reload(tmp_path: Path) -> None:
    write_ridgeline_run(tmp_path / "a", {"loss": [(0, 1.0)]})
    logdir = ridgeline.open(tmp_path, cache=False)
    with in_thread(create_app(logdir)) as client:
        assert not [thread for thread in threading.enumerate() if thread.name == "ridgeline-ingest"]
        assert client.get("/api/runs").json()["reload_interval"] is None
    assert isinstance(client, httpx.Client)
