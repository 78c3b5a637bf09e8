"""GET /api/confusion_matrix in process, on files written by ridgeline's writer and by hand (a tensor of the wrong
shape)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from tests.plugins.conftest import Api, in_process
from tests.plugins.confusion_matrix.logs import CLASSES, STEPS, WALL, expected_counts, labels, write_logs


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    logs: Path = write_logs(tmp_path_factory.mktemp("confusion"))
    with in_process(logs) as client:
        yield client


def test_runs_list_confusion_matrix_tags(api: Api) -> None:
    runs = {r["run"]: r["tags"] for r in api.get("/api/runs").json()["runs"]}
    assert runs["model_a"]["confusion_matrices"] == ["eval/confusion", "eval/other"]
    assert runs["model_b"]["confusion_matrices"] == ["eval/confusion"]
    assert runs["odd"]["confusion_matrices"] == ["eval/confusion"]  # listed although its first step is unreadable
    assert all("tensors" not in tags for tags in runs.values())


@pytest.mark.parametrize("run", list(STEPS))
def test_every_step_holds_the_counts_of_its_labels(api: Api, run: str) -> None:
    body = api.get("/api/confusion_matrix", run=run, tag="eval/confusion").json()
    assert body["run"] == run and body["tag"] == "eval/confusion"
    assert [s["step"] for s in body["steps"]] == STEPS[run]
    for entry in body["steps"]:
        assert entry["wall_time"] == WALL + entry["step"]
        assert entry["class_names"] == CLASSES
        truth, predicted = labels(run, entry["step"])
        np.testing.assert_array_equal(entry["counts"], expected_counts(truth, predicted, len(CLASSES)))


def test_another_tag_has_its_own_classes(api: Api) -> None:
    (entry,) = api.get("/api/confusion_matrix", run="model_a", tag="eval/other").json()["steps"]
    assert entry["class_names"] == ["no", "yes"] and entry["counts"] == [[2, 1], [0, 2]]


def test_wrong_shape_is_an_error_entry_at_its_step(api: Api) -> None:
    steps = api.get("/api/confusion_matrix", run="odd", tag="eval/confusion").json()["steps"]
    assert [s["step"] for s in steps] == [0, 1]
    assert "shape [n, n]" in steps[0]["error"] and "[2, 3]" in steps[0]["error"]
    assert "counts" not in steps[0]
    assert steps[1]["counts"] == [[4, 0, 0], [0, 4, 0], [0, 0, 4]] and "error" not in steps[1]


def test_since_step(api: Api) -> None:
    steps = api.get("/api/confusion_matrix", run="model_a", tag="eval/confusion", since_step=0).json()["steps"]
    assert [s["step"] for s in steps] == [5, 10]


@pytest.mark.parametrize(
    ("params", "status"),
    [
        ({"run": "nope", "tag": "eval/confusion"}, 404),
        ({"run": "model_a", "tag": "nope"}, 404),
        ({"tag": "eval/confusion"}, 400),
        ({"run": "model_a", "tag": "eval/confusion", "since_step": "1.5"}, 400),
    ],
)
def test_errors_are_json(api: Api, params: dict[str, str], status: int) -> None:
    response = api.get("/api/confusion_matrix", **params)
    assert response.status_code == status and isinstance(response.json()["error"], str)


def test_openapi_documents_the_route(api: Api) -> None:
    paths = api.get("/api/openapi.json").json()["paths"]
    assert "[n, n]" in paths["/api/confusion_matrix"]["get"]["description"]
