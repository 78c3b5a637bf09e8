"""GET /api/pr_curves in process, on files written by torch's and ridgeline's writers and by hand
(a tensor of the wrong shape)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.plugins.conftest import Api
from tests.plugins.text_pr_logs import RAW_PR, WALL, pr_inputs

ROWS = ("tp", "fp", "tn", "fn", "precision", "recall")


def test_runs_list_pr_curve_tags(text_pr_api: Api) -> None:
    runs = {r["run"]: r["tags"] for r in text_pr_api.get("/api/runs").json()["runs"]}
    assert runs["torch"]["pr_curves"] == ["pr/cat", "pr/raw"]
    assert runs["ridgeline"]["pr_curves"] == ["pr/cat", "pr/raw"]
    assert runs["tbx"]["pr_curves"] == ["pr/cat"]
    assert runs["odd"]["pr_curves"] == ["pr/bad"]  # listed although its first step is unreadable


@pytest.mark.parametrize("run", ["torch", "ridgeline"])
def test_raw_curves_are_the_six_rows_as_written(text_pr_api: Api, run: str) -> None:
    steps = text_pr_api.get("/api/pr_curves", run=run, tag="pr/raw").json()["steps"]
    assert len(steps) == 1
    entry = steps[0]
    assert entry["step"] == 0 and entry["wall_time"] == WALL
    assert entry["thresholds"] == pytest.approx([0, 1 / 3, 2 / 3, 1])
    for row in ROWS:
        assert entry[row] == pytest.approx(RAW_PR[row]), row


def test_torch_add_pr_curve_matches_the_labels(text_pr_api: Api) -> None:
    steps = text_pr_api.get("/api/pr_curves", run="torch", tag="pr/cat").json()["steps"]
    assert [s["step"] for s in steps] == [0, 1, 2]
    for entry in steps:
        labels, predictions = pr_inputs(entry["step"])
        n = len(entry["thresholds"])
        assert n == 127 and all(len(entry[row]) == n for row in ROWS)
        # At threshold 0 every example is predicted positive: TP = positives, FP = negatives.
        assert entry["tp"][0] == labels.sum() and entry["fp"][0] == (1 - labels).sum()
        above = predictions >= entry["thresholds"][60]
        assert entry["tp"][60] == pytest.approx(float(np.sum(above & (labels == 1))), abs=2)
        tp, fp = np.array(entry["tp"]), np.array(entry["fp"])
        expected = np.divide(tp, np.maximum(tp + fp, 1))
        assert np.array(entry["precision"], dtype=float) == pytest.approx(expected, abs=1e-6)


def test_tensorboardx_pr_curve(text_pr_api: Api) -> None:
    (entry,) = text_pr_api.get("/api/pr_curves", run="tbx", tag="pr/cat").json()["steps"]
    labels, _ = pr_inputs(2)
    assert entry["thresholds"] == pytest.approx([0, 0.25, 0.5, 0.75, 1])
    assert entry["tp"][0] == labels.sum() and entry["fp"][0] == (1 - labels).sum()
    assert entry["recall"][0] == pytest.approx(1.0)


def test_wrong_shape_is_an_error_entry_at_its_step(text_pr_api: Api) -> None:
    steps = text_pr_api.get("/api/pr_curves", run="odd", tag="pr/bad").json()["steps"]
    assert [s["step"] for s in steps] == [0, 1]
    assert "shape [6, n]" in steps[0]["error"] and "[5, 4]" in steps[0]["error"]
    assert "thresholds" not in steps[0]
    assert steps[1]["recall"] == pytest.approx(RAW_PR["recall"]) and "error" not in steps[1]


def test_since_step(text_pr_api: Api) -> None:
    steps = text_pr_api.get("/api/pr_curves", run="torch", tag="pr/cat", since_step=1).json()["steps"]
    assert [s["step"] for s in steps] == [2]


@pytest.mark.parametrize(
    ("params", "status"),
    [
        ({"run": "nope", "tag": "pr/cat"}, 404),
        ({"run": "torch", "tag": "nope"}, 404),
        ({"run": "torch", "tag": "notes/text_summary"}, 404),
        ({"tag": "pr/cat"}, 400),
        ({"run": "torch", "tag": "pr/cat", "since_step": "1.5"}, 400),
    ],
)
def test_errors_are_json(text_pr_api: Api, params: dict[str, str], status: int) -> None:
    response = text_pr_api.get("/api/pr_curves", **params)
    assert response.status_code == status and isinstance(response.json()["error"], str)


def test_openapi_documents_the_route(text_pr_api: Api) -> None:
    paths = text_pr_api.get("/api/openapi.json").json()["paths"]
    assert "[6, n]" in paths["/api/pr_curves"]["get"]["description"]
