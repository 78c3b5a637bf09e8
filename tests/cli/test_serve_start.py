"""``ridgeline serve`` starting and stopping as a user and a scheduler see it (issue 15): the reading side and
``--help`` never load the web stack, the URL line comes once everything is read, and SIGTERM with connections
still open ends the process with status 0."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import httpx

from tests.conftest import WAIT_S, write_ridgeline_run
from tests.server.conftest import serving

WEB_STACK = ("fastapi", "pydantic", "starlette", "uvicorn", "ridgeline.server.app")


def test_help_and_the_reading_api_never_import_the_web_stack(tmp_path: Path) -> None:
    write_ridgeline_run(tmp_path / "run", {"loss": [(0, 1.0), (1, 0.5)]})
    probe = textwrap.dedent(
        f"""
        import sys
        from ridgeline.cli import main
        main(["--help"], standalone_mode=False)
        main(["serve", "--help"], standalone_mode=False)
        import ridgeline
        logdir = ridgeline.open({str(tmp_path)!r}, cache=False)
        assert logdir.scalars("run", "loss").value.tolist() == [1.0, 0.5]
        print(sorted(name for name in {WEB_STACK!r} if name in sys.modules))
        """
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=WAIT_S)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]"


def test_once_the_url_is_printed_everything_is_read(tmp_path: Path) -> None:
    for name in ("a", "b", "c"):
        write_ridgeline_run(tmp_path / name, {"loss": [(step, 1.0 / (step + 1)) for step in range(50)]})
    with serving("--logdir", str(tmp_path), "--port", "0", "--no-cache") as served:
        body = served.get("/api/runs").json()
        assert [run["run"] for run in body["runs"]] == ["a", "b", "c"] and body["loading"] is None
        output = "".join(served.output)
        assert "read 3 runs" in output and output.index("read 3 runs") < output.index("is serving")


def test_sigterm_with_keep_alive_connections_open_exits_with_status_0(tmp_path: Path) -> None:
    write_ridgeline_run(tmp_path / "run", {"loss": [(0, 1.0), (1, 0.5)]})
    with serving("--logdir", str(tmp_path), "--port", "0", "--reload-interval", "0.1", "--no-cache") as served:
        assert served.get("/api/runs").status_code == 200  # served.client keeps its connection alive, idle
        url = httpx.URL(served.url)
        assert url.port is not None
        with (
            socket.create_connection((url.host, url.port), timeout=WAIT_S),  # connected, no request sent
            httpx.Client(base_url=served.url, timeout=WAIT_S) as another,
        ):
            assert another.get("/api/plugins").status_code == 200
            served.process.send_signal(signal.SIGTERM)
            assert served.process.wait(WAIT_S) == 0
    output = "".join(served.output)
    assert "stopped" in output and "Traceback" not in output and "rror" not in output, output
