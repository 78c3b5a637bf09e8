"""The built UI: index for client routes, long-cached hashed assets, nothing outside the build folder ever."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from fastapi import APIRouter

import ridgeline
from ridgeline.server import create_app
from ridgeline.server.plugin_host import PluginHost
from tests.server.conftest import in_thread, raw_get

INDEX = "<!doctype html><title>ridgeline test build</title>"
SECRET = "TOP-SECRET-CONTENT"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[httpx.Client, str]]:
    root = tmp_path_factory.mktemp("site")
    (root / "secret.txt").write_text(SECRET)
    build = root / "_static"
    (build / "assets").mkdir(parents=True)
    (build / "index.html").write_text(INDEX)
    (build / "assets" / "index-3f9a1c.js").write_text("console.log('ridgeline')")
    (build / "favicon.svg").write_text("<svg/>")
    os.symlink(root / "secret.txt", build / "assets" / "leak.txt")
    logs = root / "logs"
    logs.mkdir()
    with in_thread(create_app(ridgeline.open(logs, cache=False), static_dir=build)) as client:
        yield client, str(client.base_url)


def test_index_for_root_and_client_routes(site: tuple[httpx.Client, str]) -> None:
    client, _ = site
    for path in ["/", "/index.html", "/scalars", "/runs/some/deep/route"]:
        response = client.get(path)
        assert response.status_code == 200, path
        assert response.text == INDEX
        assert response.headers["content-type"].startswith("text/html")
        assert response.headers["cache-control"] == "no-cache"


def test_hashed_assets_are_cached_for_long(site: tuple[httpx.Client, str]) -> None:
    client, _ = site
    response = client.get("/assets/index-3f9a1c.js")
    assert response.status_code == 200 and "ridgeline" in response.text
    assert "javascript" in response.headers["content-type"]
    assert "max-age=31536000" in response.headers["cache-control"] and "immutable" in response.headers["cache-control"]
    assert client.get("/favicon.svg").headers["cache-control"] == "no-cache"
    assert client.get("/assets/missing-000.js").status_code == 404
    assert client.head("/").status_code == 200


@pytest.mark.parametrize("path", ["/", "/favicon.svg", "/assets/index-3f9a1c.js", "/a/client/route"])
def test_a_revalidation_of_an_unchanged_file_answers_304_without_a_body(
    site: tuple[httpx.Client, str], path: str
) -> None:
    client, _ = site
    first = client.get(path)
    etag = first.headers["etag"]
    again = client.get(path, headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    assert again.headers["etag"] == etag and again.headers["cache-control"] == first.headers["cache-control"]
    assert client.get(path, headers={"If-None-Match": f'W/{etag}, "other"'}).status_code == 304
    changed = client.get(path, headers={"If-None-Match": '"not-this-one"'})
    assert changed.status_code == 200 and changed.content == first.content


def test_api_paths_never_fall_back_to_the_page(site: tuple[httpx.Client, str]) -> None:
    client, _ = site
    response = client.get("/api/nothing/here")
    assert response.status_code == 404 and "error" in response.json()


@pytest.mark.parametrize(
    "raw_path",
    [
        "/../secret.txt",
        "/assets/../../secret.txt",
        "/%2e%2e/secret.txt",
        "/assets/%2e%2e/%2e%2e/secret.txt",
        "/..%2fsecret.txt",
        "/%2e%2e%2fsecret.txt",
        "/assets/..%5c..%5csecret.txt",
        "/assets/leak.txt",
        "//etc/passwd",
        "/%2fetc%2fpasswd",
    ],
)
def test_nothing_outside_the_build_is_served(site: tuple[httpx.Client, str], raw_path: str) -> None:
    _, base = site
    status, body = raw_get(base, raw_path)
    assert SECRET.encode() not in body
    assert b"root:" not in body
    assert status in (200, 400, 404)
    if status == 200:  # only ever the index page
        assert body == INDEX.encode()


def test_without_a_build_the_root_says_how_to_build_it(tmp_path: Path) -> None:
    app = create_app(ridgeline.open(tmp_path, cache=False), static_dir=tmp_path / "missing")
    with in_thread(app) as client:
        response = client.get("/")
        assert response.status_code == 200
        assert "make build-web" in response.text and "not built" in response.text
        assert client.get("/api/runs").status_code == 200


# The built-in dashboards, in the order of the top bar (their entry points' ``order``).
BUILTIN = [
    "scalars",
    "text",
    "pr_curves",
    "confusion_matrix",
    "images",
    "audio",
    "histograms",
    "distributions",
    "custom_scalars",
    "hparams",
    "runs",
    "projector",
    "graphs",
    "profile",
    "insights",
    "distributed",
    "search",
]


@dataclass
class Other:
    name: str
    router: APIRouter


def test_third_party_plugins_are_served_under_their_prefix(tmp_path: Path) -> None:
    router = APIRouter()

    @router.get("/hello")
    def hello() -> dict[str, str]:
        return {"hello": "world"}

    app = create_app(ridgeline.open(tmp_path, cache=False), plugins=[Other("greeter", router)])
    with in_thread(app) as client:
        assert client.get("/api/plugins/greeter/hello").json() == {"hello": "world"}
        assert client.get("/api/plugins").json() == {"plugins": [*BUILTIN, "greeter"]}


def test_plugin_names_are_checked(tmp_path: Path) -> None:
    logdir = ridgeline.open(tmp_path, cache=False)
    with pytest.raises(ValueError, match="duplicate plugin name 'scalars'"):
        create_app(logdir, plugins=[Other("scalars", APIRouter())])
    for bad in ["Scalars", "1st", "a-b", ""]:
        with pytest.raises(ValueError, match="invalid plugin name"):
            PluginHost([Other(bad, APIRouter())])
