"""What ``ridgeline serve`` answers before everything is there (issue 15's fast start): the front serves the page's
files before the app exists and hands every other request to the app once it is; ``/api/runs`` lists runs as the
first pass reads them, with how far it got as ``loading``. Real uvicorn servers on 127.0.0.1, real event files."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

import ridgeline.api
from ridgeline.server import create_app
from ridgeline.server.front import Front, protect
from tests.conftest import WAIT_S, write_ridgeline_run
from tests.server.conftest import in_thread

INDEX = "<!doctype html><title>ridgeline front test</title>"
SCRIPT = "console.log('front')"


@pytest.fixture
def build(tmp_path: Path) -> Path:
    root = tmp_path / "_static"
    (root / "assets").mkdir(parents=True)
    (root / "index.html").write_text(INDEX)
    (root / "assets" / "index-0a1b2c.js").write_text(SCRIPT)
    return root


def test_the_page_is_served_before_the_app_and_the_api_by_the_app_once_there(tmp_path: Path, build: Path) -> None:
    write_ridgeline_run(tmp_path / "logs" / "exp1", {"loss": [(0, 1.0), (1, 0.5)]})
    front = Front(static_dir=build)
    with in_thread(protect(front, token=None, prefix="")) as client:
        page = client.get("/")
        assert page.status_code == 200 and page.text == INDEX
        assert page.headers["cache-control"] == "no-cache" and page.headers["x-frame-options"] == "DENY"
        script = client.get("/assets/index-0a1b2c.js")
        assert script.text == SCRIPT and "immutable" in script.headers["cache-control"]
        assert "javascript" in script.headers["content-type"]
        with httpx.Client(base_url=client.base_url, timeout=WAIT_S) as other, ThreadPoolExecutor(1) as pool:
            asked = pool.submit(other.get, "/api/runs")  # held until the app is there (or answered by it)
            logdir = ridgeline.api.open(tmp_path / "logs", cache=False)
            front.ready(create_app(logdir, static_dir=build, with_middleware=False))
            runs = asked.result(timeout=WAIT_S)
        assert runs.status_code == 200 and [run["run"] for run in runs.json()["runs"]] == ["exp1"]
        assert runs.json()["loading"] is None
        assert runs.headers["x-content-type-options"] == "nosniff"  # the app's answers go through protect too
        assert client.get("/api/scalars", params={"run": "exp1", "tag": "loss"}).json()["value"] == [1.0, 0.5]
        assert client.get("/scalars").text == INDEX  # a client route: the app's static route now


def test_the_token_guards_the_page_before_the_app_exists(build: Path) -> None:
    front = Front(static_dir=build)
    with in_thread(protect(front, token="s3cret", prefix="")) as client:
        assert client.get("/").status_code == 401
        assert client.get("/assets/index-0a1b2c.js").status_code == 401
        allowed = client.get("/", headers={"Authorization": "Bearer s3cret"})
        assert allowed.status_code == 200 and allowed.text == INDEX


def test_under_a_path_prefix_the_page_is_served_under_it(build: Path) -> None:
    front = Front(static_dir=build)
    with in_thread(protect(front, token=None, prefix="/rl")) as client:
        assert client.get("/rl/").text == INDEX
        assert client.get("/rl/assets/index-0a1b2c.js").text == SCRIPT
        assert client.get("/assets/index-0a1b2c.js").status_code == 404  # outside the prefix


def test_an_app_that_failed_to_build_is_a_503_naming_why(build: Path) -> None:
    front = Front(static_dir=build)
    with in_thread(protect(front, token=None, prefix="")) as client:
        front.failed(RuntimeError("no plugins installed"))
        refused = client.get("/api/runs")
        assert refused.status_code == 503 and "no plugins installed" in refused.json()["error"]


def paused_after_first_run(tmp_path: Path) -> tuple[ridgeline.api.Opening, threading.Event, threading.Event]:
    """Two runs opened, not read: the first pass (started by the caller) pauses after the first run's file until
    the returned ``go_on`` is set; ``paused`` is set when it got there."""
    for name in ("a", "b"):
        write_ridgeline_run(tmp_path / "logs" / name, {"loss": [(0, 1.0), (1, 0.5)]})
    return ridgeline.api.opening(tmp_path / "logs", cache=False), threading.Event(), threading.Event()


def test_runs_are_listed_as_the_first_pass_reads_them_with_its_progress(tmp_path: Path) -> None:
    opening, paused, go_on = paused_after_first_run(tmp_path)

    def progress(done: int, total: int) -> None:
        if done == 1:
            paused.set()
            go_on.wait(WAIT_S)

    app = create_app(opening.logdir, loading=opening.state)
    reading = threading.Thread(target=opening.load, args=(progress,), daemon=True)
    with in_thread(app) as client:
        before = client.get("/api/runs").json()
        assert before["runs"] == [] and before["loading"] == {"files_read": 0, "files": None, "runs": 0}
        reading.start()
        assert paused.wait(WAIT_S), "the first pass never read its first run"
        during = client.get("/api/runs").json()
        assert [run["run"] for run in during["runs"]] == ["a"]
        assert during["runs"][0]["tags"] == {"scalars": ["loss"]} and during["runs"][0]["last_step"] == 1
        assert during["loading"] == {"files_read": 1, "files": 2, "runs": 1}
        assert client.get("/api/scalars", params={"run": "a", "tag": "loss"}).json()["value"] == [1.0, 0.5]
        go_on.set()
        reading.join(WAIT_S)
        after = client.get("/api/runs").json()
        assert [run["run"] for run in after["runs"]] == ["a", "b"] and after["loading"] is None
        assert after["generation"] > during["generation"] > before["generation"]


def test_a_cancelled_first_pass_ends_after_the_run_it_was_reading(tmp_path: Path) -> None:
    opening, _, _ = paused_after_first_run(tmp_path)

    def progress(done: int, total: int) -> None:
        if done == 1:
            opening.cancel()  # the server stopping while it loads

    opening.load(progress)
    assert opening.loaded and opening.state() is None
    assert opening.logdir.runs() == ["a"]
