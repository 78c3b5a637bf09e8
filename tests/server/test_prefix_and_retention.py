"""``serve --path-prefix`` (a reverse proxy that forwards the prefix) and ``serve --retention`` (old runs deleted
while serving, its status at ``GET /api/retention``), on real ``ridgeline serve`` processes."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.retention.logs import snapshot, write_run
from tests.server.conftest import clean_env, serving

BASE = ("--port", "0", "--no-cache", "--reload-interval", "0")


def test_everything_is_served_under_the_prefix_and_nothing_outside_it(tmp_path: Path) -> None:
    write_run(tmp_path / "exp1", 2)
    with serving("--logdir", str(tmp_path), *BASE, "--path-prefix", "/teams/rl/") as served:
        assert served.url.endswith("/teams/rl/")
        origin = str(httpx.URL(served.url).copy_with(path="/"))
        with httpx.Client(base_url=origin, timeout=30) as client:
            runs = client.get("/teams/rl/api/runs")
            assert runs.status_code == 200 and [r["run"] for r in runs.json()["runs"]] == ["exp1"]
            page = client.get("/teams/rl/")
            assert page.status_code == 200 and "text/html" in page.headers["content-type"]
            bare = client.get("/teams/rl?x=1", follow_redirects=False)
            assert bare.status_code == 308 and bare.headers["location"] == "/teams/rl/?x=1"
            outside = client.get("/api/runs")
            assert outside.status_code == 404 and "/teams/rl/" in outside.json()["error"]


def test_the_token_cookie_is_scoped_to_the_prefix(tmp_path: Path) -> None:
    write_run(tmp_path / "exp1", 2)
    env = clean_env(RIDGELINE_TOKEN="pfx-token")
    with serving("--logdir", str(tmp_path), *BASE, "--path-prefix", "/rl", env=env) as served:
        origin = str(httpx.URL(served.url).copy_with(path="/"))
        with httpx.Client(base_url=origin, timeout=30) as browser:
            assert browser.get("/rl/api/runs").status_code == 401
            landing = browser.get("/rl/?token=pfx-token", follow_redirects=False)
            assert landing.status_code == 303 and landing.headers["location"] == "/rl/"
            assert "Path=/rl" in landing.headers["set-cookie"]
            assert browser.get("/rl/api/runs").status_code == 200


def test_a_bad_prefix_is_a_usage_error(tmp_path: Path) -> None:
    import subprocess
    import sys

    command = [sys.executable, "-m", "ridgeline.cli", "serve", "--logdir", str(tmp_path), "--path-prefix", "/a/../b"]
    refused = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False, env=clean_env())
    assert refused.returncode == 2 and "--path-prefix" in refused.stderr and "Traceback" not in refused.stderr


def test_retention_off_answers_disabled(tmp_path: Path) -> None:
    write_run(tmp_path / "exp1", 2)
    with serving("--logdir", str(tmp_path), *BASE) as served:
        assert served.get("/api/retention").json()["enabled"] is False


def test_a_dry_run_policy_reports_what_would_go_and_deletes_nothing(tmp_path: Path) -> None:
    write_run(tmp_path / "old", 40)
    write_run(tmp_path / "new", 2)
    before = snapshot(tmp_path)
    with serving("--logdir", str(tmp_path), *BASE, "--retention", "--older-than 30d") as served:
        status = served.get("/api/retention").json()
        assert status["enabled"] is True and status["mode"] == "dry-run" and status["sweeps"] == 1
        assert [run["run"] for run in status["last"]["runs"]] == ["old"]
        assert {r["run"] for r in served.get("/api/runs").json()["runs"]} == {"old", "new"}
        assert "would delete 1 run" in "".join(served.output)
    assert snapshot(tmp_path) == before


def test_a_deleting_policy_runs_before_the_read(tmp_path: Path) -> None:
    write_run(tmp_path / "old", 40)
    write_run(tmp_path / "new", 2)
    with serving("--logdir", str(tmp_path), *BASE, "--retention", "--older-than 30d --yes --every 1h") as served:
        status = served.get("/api/retention").json()
        assert status["mode"] == "delete" and status["removed_runs"] == 1 and status["every"] == 3600
        assert [r["run"] for r in served.get("/api/runs").json()["runs"]] == ["new"]
    assert sorted(path.name for path in tmp_path.iterdir()) == ["new"]
