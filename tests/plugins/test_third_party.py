"""A third-party dashboard registers through the ``ridgeline.plugins`` entry-point group, as the built-ins do.

The example package in examples/plugins/ridgeline-hello (the one docs/plugins.md walks through) is made
importable together with the entry point its pyproject.toml declares — a ``.dist-info`` folder on ``sys.path`` is
what pip leaves behind, and what :func:`importlib.metadata.entry_points` reads — then served in-process.
"""

from __future__ import annotations

import shutil
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import ridgeline
from ridgeline.server import create_app

EXAMPLE = Path(__file__).parents[2] / "examples" / "plugins" / "ridgeline-hello"


@pytest.fixture
def installed(tmp_path: Path) -> Iterator[None]:
    """The example as pip would install it: its package and a dist-info with its entry points, on sys.path."""
    project = tomllib.loads((EXAMPLE / "pyproject.toml").read_text())["project"]
    site = tmp_path / "site-packages"
    shutil.copytree(EXAMPLE / "ridgeline_hello", site / "ridgeline_hello")
    info = site / f"ridgeline_hello-{project['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n")
    points = project["entry-points"]["ridgeline.plugins"]
    (info / "entry_points.txt").write_text(
        "[ridgeline.plugins]\n" + "".join(f"{name} = {target}\n" for name, target in points.items())
    )
    sys.path.insert(0, str(site))
    try:
        yield
    finally:
        sys.path.remove(str(site))
        sys.modules.pop("ridgeline_hello", None)


def test_an_installed_plugin_is_served_after_the_builtins(installed: None, tmp_path: Path) -> None:
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
