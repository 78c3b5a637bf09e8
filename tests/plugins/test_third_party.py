"""A third-party dashboard registers through the ``ridgeline.plugins`` entry-point group, as the built-ins do.

The example package in examples/plugins/ridgeline-hello (the one docs/plugins.md walks through) is made
importable together with the entry point its pyproject.toml declares — a ``.dist-info`` folder on ``sys.path`` is
what pip leaves behind, and what :func:`importlib.metadata.entry_points` reads — then served in-process: its
routes, and its web half (the folder its ``web`` attribute names), which the page imports at run time.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import APIRouter, FastAPI
from fastapi.testclient import TestClient

import ridgeline
from ridgeline.server import create_app
from tests.conftest import run_coroutine
from tests.plugins.installed_example import EXAMPLE, install_example


@pytest.fixture
def installed(tmp_path: Path) -> Iterator[Path]:
    """The example as pip would install it, on sys.path; yields its installed package folder."""
    site = tmp_path / "site-packages"
    package = install_example(site)
    sys.path.insert(0, str(site))
    try:
        yield package
    finally:
        sys.path.remove(str(site))
        sys.modules.pop("ridgeline_hello", None)


def test_an_installed_plugin_is_served_after_the_builtins(installed: Path, tmp_path: Path) -> None:
    writer = ridgeline.SummaryWriter(str(tmp_path / "logs" / "exp"))
    for step in range(3):
        writer.add_scalar("loss", 1.0 / (step + 1), step)
    writer.close()
    app = create_app(ridgeline.open(tmp_path / "logs", cache=False))
    with TestClient(app) as client:
        names = client.get("/api/plugins").json()["plugins"]
        assert names[-1] == "hello" and "scalars" in names
        answer = client.get("/api/plugins/hello/last", params={"run": "exp"})
        assert answer.json() == {"run": "exp", "last": {"loss": pytest.approx(1 / 3)}}
        missing = client.get("/api/plugins/hello/last", params={"run": "nope"})
        assert missing.status_code == 404 and "nope" in missing.json()["error"]


def test_without_the_plugin_installed_it_is_not_served(tmp_path: Path) -> None:
    with TestClient(create_app(ridgeline.open(tmp_path, cache=False))) as client:
        assert "hello" not in client.get("/api/plugins").json()["plugins"]
        assert client.get("/api/plugins/hello/last", params={"run": "x"}).status_code == 404
        assert client.get("/api/plugin-web").json() == {"modules": []}
        assert client.get("/api/plugin-web/hello/index.js").status_code == 404


# --- the web half ------------------------------------------------------------------------------------------------


def test_the_web_half_is_listed_and_served_as_a_javascript_module(installed: Path, tmp_path: Path) -> None:
    with TestClient(create_app(ridgeline.open(tmp_path, cache=False))) as client:
        assert client.get("/api/plugin-web").json() == {
            "modules": [{"plugin": "hello", "url": "api/plugin-web/hello/index.js", "order": 1000}]
        }
        module = client.get("/api/plugin-web/hello/index.js")
        assert module.status_code == 200
        assert module.content == (EXAMPLE / "ridgeline_hello" / "web" / "index.js").read_bytes()
        assert module.headers["content-type"] == "text/javascript; charset=utf-8"
        assert module.headers["x-content-type-options"] == "nosniff"
        assert module.headers["cache-control"] == "no-cache"
        assert "export default function dashboard(ridgeline)" in module.text
        head = client.head("/api/plugin-web/hello/index.js")
        assert head.status_code == 200 and head.content == b""
        assert "/api/plugin-web" in client.get("/api/openapi.json").json()["paths"]


def test_files_beside_the_module_are_served_and_hashed_assets_cached_for_good(installed: Path, tmp_path: Path) -> None:
    web = installed / "web"
    (web / "assets").mkdir()
    (web / "assets" / "chunk-3f2a1c.js").write_text("export const x = 1;\n")
    (web / "style.css").write_text("section { color: red }\n")
    (web / "lib").mkdir()
    (web / "lib" / "inner.js").symlink_to(web / "assets" / "chunk-3f2a1c.js")  # a link that stays inside
    with TestClient(create_app(ridgeline.open(tmp_path, cache=False))) as client:
        chunk = client.get("/api/plugin-web/hello/assets/chunk-3f2a1c.js")
        assert chunk.status_code == 200 and chunk.text == "export const x = 1;\n"
        assert chunk.headers["cache-control"] == "public, max-age=31536000, immutable"
        css = client.get("/api/plugin-web/hello/style.css")
        assert css.headers["content-type"] == "text/css; charset=utf-8" and css.headers["cache-control"] == "no-cache"
        assert client.get("/api/plugin-web/hello/lib/inner.js").text == "export const x = 1;\n"


def test_nothing_outside_the_web_folder_is_served(installed: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("not for the page")
    web = installed / "web"
    (web / "leak.js").symlink_to(secret)  # a link leading out of the folder
    (web / "up").symlink_to(installed)  # a folder link leading out
    (web / ".env").write_text("TOKEN=1")
    app = create_app(ridgeline.open(tmp_path, cache=False))
    with TestClient(app) as client:
        for path in [
            "%2e%2e/__init__.py",  # the package's Python, one level up
            "..%2f__init__.py",
            "%2e%2e/%2e%2e/%2e%2e/secret.txt",
            "leak.js",
            "up/__init__.py",
            ".env",
            "%00index.js",
            "index.js%00",
            "..%5c__init__.py",
            "a%5c..%5c..%5c__init__.py",
            "",
            "/etc/passwd",
            "//etc/passwd",
            "missing.js",
        ]:
            answer = client.get(f"/api/plugin-web/hello/{path}")
            assert answer.status_code == 404, path
            assert "error" in answer.json() and "not for the page" not in answer.text
    # Paths as a raw HTTP request carries them (an HTTP client would have resolved the dots itself).
    for path in ["/api/plugin-web/hello/../__init__.py", "/api/plugin-web/hello/../../../secret.txt"]:
        status, body = _raw_get(app, path)
        assert status == 404 and b"not for the page" not in body and b"APIRouter" not in body, path


def test_a_name_that_is_no_plugin_name_is_refused(installed: Path, tmp_path: Path) -> None:
    with TestClient(create_app(ridgeline.open(tmp_path, cache=False))) as client:
        for name in ["Hello", "hel-lo", "_hello", "1hello", "hello.", "%2e%2e", "h%00"]:
            answer = client.get(f"/api/plugin-web/{name}/index.js")
            assert answer.status_code == 400, name
            assert "is not a plugin name" in answer.json()["error"]
        for name in ["nope", "scalars"]:  # no such plugin; a plugin without a web half (built-ins are bundled)
            answer = client.get(f"/api/plugin-web/{name}/index.js")
            assert answer.status_code == 404 and name in answer.json()["error"]


class _Plugin:
    def __init__(self, name: str, web: Any) -> None:
        self.name = name
        self.router = APIRouter()
        self.web = web


def test_a_web_folder_without_its_module_is_reported_and_the_plugin_served_without_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "empty").mkdir()
    plugins = [_Plugin("unbuilt", tmp_path / "empty"), _Plugin("missing", tmp_path / "nowhere"), _Plugin("odd", 42)]
    app = create_app(ridgeline.open(tmp_path, cache=False), plugins=plugins)
    stderr = capsys.readouterr().err
    assert "'unbuilt' is served without its web half" in stderr and "holds no index.js" in stderr
    assert "'missing' is served without its web half" in stderr
    assert "'odd' is served without its web half: its web attribute must be a folder's path, got int" in stderr
    with TestClient(app) as client:
        assert client.get("/api/plugin-web").json() == {"modules": []}
        assert {"unbuilt", "missing", "odd"} <= set(client.get("/api/plugins").json()["plugins"])


def _raw_get(app: FastAPI, path: str) -> tuple[int, bytes]:
    """GET ``path`` exactly as given (``..`` unresolved), straight through the ASGI app."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"testserver")],
        "client": ("127.0.0.1", 1),
        "server": ("testserver", 80),
    }
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    run_coroutine(app(scope, receive, send))
    return sent[0]["status"], b"".join(m.get("body", b"") for m in sent[1:])


@pytest.mark.slow
def test_the_example_wheel_ships_its_web_half(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", str(tmp_path), str(EXAMPLE)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    (wheel,) = tmp_path.glob("ridgeline_hello-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        shipped = archive.read("ridgeline_hello/web/index.js")
        points = next(name for name in archive.namelist() if name.endswith(".dist-info/entry_points.txt"))
        assert "hello = ridgeline_hello:plugin" in archive.read(points).decode()
    assert shipped == (EXAMPLE / "ridgeline_hello" / "web" / "index.js").read_bytes()
