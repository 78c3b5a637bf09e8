"""``ridgeline serve`` as a user runs it: ports, tokens, log directory forms, --get, Ctrl-C, /api/settings.

Servers run as subprocesses; what ends before serving (a port in use, a bad log directory, ``--get``) runs
in-process through click's runner, which saves a second of imports per case.
"""

from __future__ import annotations

import json
import re
import signal
import socket
from pathlib import Path

import httpx
from click.testing import CliRunner, Result

from ridgeline.cli import main
from tests.conftest import run_coroutine, write_ridgeline_run
from tests.server.conftest import Served, clean_env, serving


def run_serve(*args: str) -> Result:
    """``ridgeline serve ARGS`` in-process (stdout and stderr apart), without RIDGELINE_TOKEN."""
    return CliRunner().invoke(main, ["serve", *args], env={"RIDGELINE_TOKEN": None}, catch_exceptions=False)


def test_port_zero_prints_the_real_port(server: Served) -> None:
    port = httpx.URL(server.url).port
    assert port and port != 0
    assert server.url.startswith("http://127.0.0.1:")
    assert server.get("/api/runs").status_code == 200


def test_a_port_in_use_is_one_clear_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = run_serve("--logdir", str(tmp_path), "--port", str(port))
    assert done.exit_code == 1
    assert f"port {port} is already in use" in done.stderr and "--port 0" in done.stderr
    assert "Traceback" not in done.stdout + done.stderr


def test_a_missing_log_directory_is_a_usage_error(tmp_path: Path) -> None:
    done = run_serve("--logdir", str(tmp_path / "nope"), "--port", "0")
    assert done.exit_code == 2
    assert "does not exist" in done.stderr and "Traceback" not in done.stderr


def test_get_answers_one_request_in_process(tmp_path: Path) -> None:
    write_ridgeline_run(tmp_path / "exp1", {"loss": [(0, 1.0), (1, 0.5)]})
    done = run_serve("--logdir", str(tmp_path), "--no-cache", "--get", "/api/scalars?run=exp1&tag=loss")
    assert done.exit_code == 0, done.stderr
    assert json.loads(done.stdout)["value"] == [1.0, 0.5]
    missing = run_serve("--logdir", str(tmp_path), "--no-cache", "--get", "/api/scalars?run=exp2&tag=loss")
    assert missing.exit_code == 1 and "no run 'exp2'" in json.loads(missing.stdout)["error"]


def test_get_works_where_an_event_loop_already_runs(tmp_path: Path) -> None:
    """A notebook (or Playwright's sync API) runs a loop in the calling thread; asyncio.run alone refuses that."""
    write_ridgeline_run(tmp_path / "exp1", {"loss": [(0, 1.0)]})

    async def inside_a_loop() -> Result:
        return run_serve("--logdir", str(tmp_path), "--no-cache", "--get", "/api/scalars?run=exp1&tag=loss")

    done = run_coroutine(inside_a_loop())
    assert done.exit_code == 0, done.stderr
    assert json.loads(done.stdout)["value"] == [1.0]


def test_logdir_spec_names_the_runs(tmp_path: Path) -> None:
    write_ridgeline_run(tmp_path / "one" / "seed0", {"loss": [(0, 1.0)]})
    write_ridgeline_run(tmp_path / "two", {"loss": [(0, 2.0)]})
    spec = f"first:{tmp_path / 'one'},second:{tmp_path / 'two'}"
    for option in ("--logdir", "--logdir_spec"):
        done = run_serve(option, spec, "--no-cache", "--get", "/api/runs")
        assert done.exit_code == 0, done.stderr
        body = json.loads(done.stdout)
        assert [item["run"] for item in body["runs"]] == ["first/seed0", "second"]
        assert body["logdir"] == spec
    both = run_serve("--logdir", f"{tmp_path / 'one'},{tmp_path / 'two'}", "--no-cache", "--get", "/api/runs")
    assert [item["run"] for item in json.loads(both.stdout)["runs"]] == ["one/seed0", "two"]


def test_token_is_required_when_set(tmp_path: Path) -> None:
    write_ridgeline_run(tmp_path / "exp1", {"loss": [(0, 1.0)]})
    env = clean_env(RIDGELINE_TOKEN="s3cret-token")
    args = ("--logdir", str(tmp_path), "--port", "0", "--host", "0.0.0.0", "--no-cache", "--reload-interval", "0")
    with serving(*args, env=env) as served:
        output = "".join(served.output)
        assert "warning" in output and "0.0.0.0" in output
        assert re.search(r"\?token=s3cret-token\s", output)
        base = f"http://127.0.0.1:{httpx.URL(served.url).port}"
        with httpx.Client(base_url=base, timeout=10) as anonymous:
            refused = anonymous.get("/api/runs")
            assert refused.status_code == 401 and "token" in refused.json()["error"]
            assert anonymous.get("/").status_code == 401
            assert anonymous.get("/api/runs", params={"token": "wrong"}).status_code == 401
            bearer = anonymous.get("/api/runs", headers={"Authorization": "Bearer s3cret-token"})
            assert bearer.status_code == 200
        with httpx.Client(base_url=base, timeout=10) as browser:
            page = browser.get("/?token=s3cret-token", follow_redirects=False)
            assert page.status_code == 303 and page.headers["location"] == "/"
            assert "HttpOnly" in page.headers["set-cookie"]
            assert browser.get("/api/runs").status_code == 200  # the cookie alone now
        with httpx.Client(base_url=base, timeout=10) as script:
            assert script.get("/api/runs", params={"token": "s3cret-token"}).status_code == 200
            assert script.get("/api/runs").status_code == 200


def test_without_a_token_a_public_host_warns_and_ctrl_c_stops_cleanly(tmp_path: Path) -> None:
    args = ("--logdir", str(tmp_path), "--port", "0", "--host", "0.0.0.0", "--reload-interval", "0", "--no-cache")
    with serving(*args) as served:
        output = "".join(served.output)
        assert "--token" in output and "docs/remote.md" in output
        served.process.send_signal(signal.SIGINT)
        assert served.process.wait(10) == 0
    output = "".join(served.output)
    assert "Traceback" not in output and "stopped" in output


def test_alerts_and_diagnosis_settings_reach_the_routes(tmp_path: Path) -> None:
    points = [(step, 1.0 + 0.01 * (step % 3)) for step in range(200)]
    points[150] = (150, 50.0)  # a spike
    train = [(step, 2.0 * 0.98**step) for step in range(200)]
    val = [(step, 1.0 + ((step - 60) / 100) ** 2) for step in range(0, 200, 5)]  # best at 60, then rising
    write_ridgeline_run(tmp_path / "logs" / "run", {"loss": points, "train/loss": train, "val/loss": val})
    logs = str(tmp_path / "logs")

    def alert_kinds(*config: str) -> list[str]:
        done = run_serve("--logdir", logs, "--no-cache", *config, "--get", "/api/alerts")
        assert done.exit_code == 0, done.stderr
        return [alert["kind"] for alert in json.loads(done.stdout)["alerts"]]

    assert "spike" in alert_kinds()
    quiet = tmp_path / "alerts.toml"
    quiet.write_text("[default]\nspike = false\noutlier = false\n", encoding="utf-8")
    assert alert_kinds("--alerts-config", str(quiet)) == []

    default = run_serve("--logdir", logs, "--no-cache", "--get", "/api/diagnosis")
    assert [finding["kind"] for finding in json.loads(default.stdout)["findings"]] == ["overfitting"]
    strict = tmp_path / "diagnosis.toml"
    strict.write_text("min_confidence = 1.0\nmin_points = 100000\n", encoding="utf-8")
    done = run_serve("--logdir", logs, "--no-cache", "--diagnosis-config", str(strict), "--get", "/api/diagnosis")
    assert done.exit_code == 0 and json.loads(done.stdout)["findings"] == []

    for option, text in (("--alerts-config", "[default]\nwindow = 'many'\n"), ("--diagnosis-config", "nope = 1\n")):
        bad = tmp_path / "bad.toml"
        bad.write_text(text, encoding="utf-8")
        done = run_serve("--logdir", logs, "--port", "0", option, str(bad))
        assert done.exit_code == 2 and option in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_a_running_server_answers_the_settings_it_runs_with(server: Served) -> None:
    found = server.get("/api/settings").json()["settings"]
    assert found["port"]["value"] == httpx.URL(server.url).port != 0  # the port --port 0 got
    assert found["host"]["value"] == "127.0.0.1"
    assert found["reload_interval"]["value"] == 0.2 and found["no_cache"]["value"] is True
    assert found["token"] == {**found["token"], "is_set": False, "value": None}


def test_an_empty_token_is_a_usage_error_not_an_open_server(tmp_path: Path) -> None:
    done = run_serve("--logdir", str(tmp_path), "--token", "", "--get", "/api/runs")
    assert done.exit_code == 2 and "--token" in done.stderr and "must not be empty" in done.stderr
    assert done.stdout == ""


def test_allow_host_names_the_hosts_it_answers_to_beside_its_own(tmp_path: Path) -> None:
    write_ridgeline_run(tmp_path / "exp1", {"loss": [(0, 1.0)]})
    with serving("--logdir", str(tmp_path), "--port", "0", "--no-cache", "--allow-host", "runs.lab") as served:
        assert served.get("/api/runs").status_code == 200  # 127.0.0.1:<port>, what it printed
        assert served.client.get("/api/runs", headers={"host": "runs.lab"}).status_code == 200
        refused = served.client.get("/api/runs", headers={"host": "evil.example"})
        assert refused.status_code == 400 and "--allow-host evil.example" in refused.json()["error"]
        settings = served.get("/api/settings").json()["settings"]
        assert settings["allow_host"]["value"] == ["runs.lab"]
