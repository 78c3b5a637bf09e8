"""GET /api/text and /api/text/runinfo in process, on files written by torch's and ridgeline's
writers and by hand (tables, rank 3, invalid UTF-8)."""

from __future__ import annotations

import pytest

from tests.plugins.conftest import Api
from tests.plugins.text_pr_logs import LONG, MARKDOWN, PAYLOAD, WALL


def test_runs_list_text_tags_without_ridgeline_internal_ones(text_pr_api: Api) -> None:
    runs = {r["run"]: r["tags"] for r in text_pr_api.get("/api/runs").json()["runs"]}
    assert runs["torch"]["text"] == ["long/text_summary", "notes/text_summary"]
    assert runs["ridgeline"]["text"] == ["notes/text_summary"]  # not _ridgeline/run_metadata nor annotations
    assert runs["odd"]["text"] == ["bad_utf8", "cube", "table"]
    assert runs["tbx"]["text"] == ["notes/text_summary"]


def test_torch_text_is_every_step_as_written(text_pr_api: Api) -> None:
    body = text_pr_api.get("/api/text", run="torch", tag="notes/text_summary").json()
    assert body["run"] == "torch" and body["tag"] == "notes/text_summary"
    texts = [MARKDOWN.format(step=step) for step in range(3)] + [PAYLOAD]
    assert body["steps"] == [
        {"step": step, "wall_time": WALL + step, "shape": [1], "text": text} for step, text in enumerate(texts)
    ]
    long = text_pr_api.get("/api/text", run="torch", tag="long/text_summary").json()["steps"]
    assert long[0]["text"] == LONG


def test_tensorboardx_text(text_pr_api: Api) -> None:
    steps = text_pr_api.get("/api/text", run="tbx", tag="notes/text_summary").json()["steps"]
    assert [(s["step"], s["text"]) for s in steps] == [(0, "from *tensorboardX*")]


def test_ridgeline_text_and_since_step(text_pr_api: Api) -> None:
    steps = text_pr_api.get("/api/text", run="ridgeline", tag="notes/text_summary").json()["steps"]
    assert [(s["step"], s["text"]) for s in steps] == [(0, "hello from **ridgeline**"), (5, "second note")]
    newer = text_pr_api.get("/api/text", run="ridgeline", tag="notes/text_summary", since_step=0).json()["steps"]
    assert [s["step"] for s in newer] == [5]


def test_tables_rank_three_and_invalid_utf8(text_pr_api: Api) -> None:
    table = text_pr_api.get("/api/text", run="odd", tag="table").json()["steps"][0]
    assert table["shape"] == [2, 2] and table["table"] == [["**a**", "b"], ["c", "d"]] and "text" not in table
    cube = text_pr_api.get("/api/text", run="odd", tag="cube").json()["steps"][0]
    assert cube["table"] == [["x", "y"], ["z", "w"]] and "rank-3" in cube["warning"]
    bad = text_pr_api.get("/api/text", run="odd", tag="bad_utf8").json()["steps"][0]
    assert bad["text"] == "caf\ufffd \ufffd ok" and bad["invalid_utf8"] is True


def test_run_info_is_what_ridgeline_recorded(text_pr_api: Api) -> None:
    runs = text_pr_api.get("/api/text/runinfo").json()["runs"]
    assert set(runs) == {"ridgeline"}
    assert {"host", "command", "python", "start_time"} <= set(runs["ridgeline"])


@pytest.mark.parametrize(
    ("params", "status"),
    [
        ({"run": "nope", "tag": "notes/text_summary"}, 404),
        ({"run": "torch", "tag": "nope"}, 404),
        ({"run": "torch", "tag": "pr/cat"}, 404),
        ({"run": "torch"}, 400),
        ({"run": "torch", "tag": "notes/text_summary", "since_step": "x"}, 400),
    ],
)
def test_errors_are_json(text_pr_api: Api, params: dict[str, str], status: int) -> None:
    response = text_pr_api.get("/api/text", **params)
    assert response.status_code == status and isinstance(response.json()["error"], str)


def test_openapi_documents_the_routes(text_pr_api: Api) -> None:
    paths = text_pr_api.get("/api/openapi.json").json()["paths"]
    assert "/api/text" in paths and "/api/text/runinfo" in paths
    assert "markdown" in paths["/api/text"]["get"]["description"].lower()
