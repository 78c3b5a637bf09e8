"""The server's own routes (runs, annotations, hparams) on a real ``ridgeline serve`` on 127.0.0.1, over runs
written by torch's writer and ridgeline's (``logs``, tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import HPARAMS, RIDGELINE_SERIES, TORCH_SERIES, wall, write_ridgeline_run
from tests.server.conftest import Served, serving_logdir


def test_runs_lists_tags_last_step_and_generation(server: Served) -> None:
    response = server.get("/api/runs")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    runs = {item["run"]: item for item in body["runs"]}
    assert sorted(runs) == ["mixed", "torch"]
    assert sorted(runs["mixed"]["tags"]["scalars"]) == sorted(RIDGELINE_SERIES)
    assert sorted(runs["torch"]["tags"]["scalars"]) == sorted(TORCH_SERIES)
    assert runs["torch"]["last_step"] == 299
    assert runs["torch"]["last_wall_time"] == pytest.approx(wall(299))
    assert runs["mixed"]["last_step"] == 999  # the largest of its series' latest steps
    assert isinstance(body["generation"], int) and body["generation"] >= 1
    assert body["reload_interval"] == 0.2
    assert body["logdir"]


def test_runs_filters_by_regex(server: Served) -> None:
    body = server.get("/api/runs", run_regex="^tor").json()
    assert [item["run"] for item in body["runs"]] == ["torch"]
    body = server.get("/api/runs", tag_regex=r"\(top-1\)|训练").json()
    runs = {item["run"]: item["tags"] for item in body["runs"]}
    assert sorted(runs["mixed"]["scalars"]) == ["Loss/训练", "acc(top-1)[val]"]
    assert runs["torch"] == {}


@pytest.mark.parametrize("parameter", ["run_regex", "tag_regex"])
def test_invalid_regex_is_400(server: Served, parameter: str) -> None:
    response = server.get("/api/runs", **{parameter: "acc(top-1"})
    assert response.status_code == 400
    message = response.json()["error"]
    assert parameter in message and "not a valid regular expression" in message


def test_annotations(server: Served) -> None:
    body = server.get("/api/annotations", run="mixed").json()
    assert body == {
        "annotations": [
            {"step": 5, "wall_time": wall(5), "text": "warm-up done"},
            {"step": 300, "wall_time": wall(300), "text": "lr drop"},
        ]
    }
    assert server.get("/api/annotations", run="torch").json() == {"annotations": []}
    # /api/runs says which runs have annotations, so a page asks only for those.
    counts = {item["run"]: item["annotations"] for item in server.get("/api/runs").json()["runs"]}
    assert counts == {"mixed": 2, "torch": 0}


def test_hparams_as_written(server: Served) -> None:
    body = server.get("/api/hparams").json()
    assert body["runs"]["mixed"] == HPARAMS  # the integer 4 comes back as 4.0: hparams numbers are doubles
    assert "torch" not in body["runs"]


def test_last_wall_time_is_the_last_point_not_the_writer_start(tmp_path: Path) -> None:
    # ridgeline's writer records the environment at "now" when it opens; points logged with explicit, earlier
    # wall times are what last_wall_time must report.
    write_ridgeline_run(tmp_path / "replayed", {"loss": [(step, 1.0) for step in range(10)]})
    with serving_logdir(tmp_path) as served:
        (run,) = served.get("/api/runs").json()["runs"]
    assert run["last_wall_time"] == pytest.approx(wall(9))
