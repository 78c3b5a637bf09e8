"""GET /api/search in process (and on a live log directory that the app re-reads), on logs written by torch's
and ridgeline's writers (tests/search/search_logs.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import wait_until
from tests.plugins.conftest import Api, in_process
from tests.search.search_logs import write_search_logs


@pytest.fixture(scope="module")
def search_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    with in_process(write_search_logs(tmp_path_factory.mktemp("search_api"))) as served:
        yield served


def test_pattern_hits(search_server: Api) -> None:
    response = search_server.get("/api/search", q="text:nan detected")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"query", "mode", "hits", "runs", "total", "truncated", "took_ms"}
    assert body["query"] == "text:nan detected" and body["mode"] == "pattern"
    assert body["hits"] == [
        {"kind": "text", "run": "resnet-a", "tag": "notes/text_summary", "text": "nan detected at step 7", "step": 2}
    ]
    assert body["runs"] == ["resnet-a"] and body["total"] == 1 and body["truncated"] is False
    assert body["took_ms"] >= 0


def test_documented_examples(search_server: Api) -> None:
    hparams = search_server.get("/api/search", q="(lr=0.001|batch_size=64).*(dropout=0.2)").json()
    assert [(hit["kind"], hit["text"]) for hit in hparams["hits"]] == [("hparam", "lr=0.001 batch_size=64 dropout=0.2")]
    assert hparams["runs"][0].startswith("resnet-a/")
    dates = search_server.get("/api/search", q="202411[0-9]{2}[0-9]{4}").json()
    assert dates["runs"] == ["resnet-a", "ridge"]


def test_limit_and_ignore_case(search_server: Api) -> None:
    body = search_server.get("/api/search", q="tag:^TRAIN_", ignore_case="true", limit=2).json()
    assert len(body["hits"]) == 2 and body["total"] == 4 and body["truncated"] is True
    assert body["runs"] == ["resnet-a", "resnet-b", "vgg-c"]
    assert search_server.get("/api/search", q="tag:^TRAIN_").json()["total"] == 0


@pytest.mark.parametrize(
    ("q", "position"),
    [("tag:(abc", 4), ("run:resnet AND hparam:a**", 23), ("run:a AND", 9), ('text:"x', 5)],
)
def test_errors_are_400_with_position(search_server: Api, q: str, position: int) -> None:
    response = search_server.get("/api/search", q=q)
    assert response.status_code == 400
    body = response.json()
    assert body["position"] == position and isinstance(body["error"], str) and body["error"]


def test_bad_parameters_are_400(search_server: Api) -> None:
    assert search_server.get("/api/search").status_code == 400  # q is required
    assert search_server.get("/api/search", q="x", limit=-1).status_code == 400


def test_documented_in_openapi(search_server: Api) -> None:
    spec = search_server.get("/api/openapi.json").json()
    operation = spec["paths"]["/api/search"]["get"]
    assert {parameter["name"] for parameter in operation["parameters"]} == {"q", "limit", "ignore_case"}
    assert "400" in operation["responses"]


def test_search_follows_a_live_log_dir(tmp_path: Path) -> None:
    import ridgeline

    writer = ridgeline.SummaryWriter(str(tmp_path / "live"), record_run_metadata=False)
    writer.add_scalar("loss", 1.0, 0)
    writer.flush()
    with in_process(tmp_path, reload_interval=0.2) as served:
        assert served.get("/api/search", q="tag:^acc$").json()["total"] == 0
        writer.add_scalar("acc", 0.5, 1)
        writer.add_annotation("nan detected", step=1)
        writer.flush()
        wait_until(lambda: served.get("/api/search", q="tag:^acc$").json()["total"] == 1, "the new tag acc found")
        hits = served.get("/api/search", q="annotation:nan").json()["hits"]
        assert [(hit["run"], hit["text"], hit["step"]) for hit in hits] == [("live", "nan detected", 1)]
    writer.close()
