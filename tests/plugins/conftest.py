"""The plugins' API tests ask the app ``ridgeline serve`` builds, in this process: Starlette's TestClient, no socket
(the server's own tests, in tests/server/, use real ones). ``with TestClient(app)`` runs the app's lifespan, so
with ``reload_interval`` the log directory is re-read in the background exactly as under uvicorn.

The log directories several plugins' tests read are written once per session here: text and PR curves (one
directory, tests/plugins/text_pr_logs.py), histograms and distributions (tests/plugins/histogram_logs.py), images
and audio (tests/plugins/media_logs.py); each test module gets its own app over them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

import ridgeline
from ridgeline.server import create_app
from ridgeline.store.disk_provider import DiskProvider


@dataclass
class Api:
    """A client of one app, answered in this process."""

    client: TestClient

    def get(self, path: str, **params: object) -> httpx.Response:
        return self.client.get(path, params=params or None)  # type: ignore[arg-type]


@contextmanager
def in_process(
    logdir: Path,
    *,
    reload_interval: float | None = None,
    settings: Mapping[str, Any] | None = None,
    cache: bool = False,
) -> Iterator[Api]:
    """The app of ``ridgeline serve --logdir LOGDIR --no-cache`` (with ``--reload-interval``: re-reading the log
    directory in the background while the client is open; with ``cache``: without ``--no-cache``, the cache in
    ``$RIDGELINE_CACHE_DIR``), and a client of it."""
    opened = ridgeline.open(str(logdir), cache=cache)
    app = create_app(
        opened,
        reload_interval=reload_interval,
        logdir_label=str(logdir),
        settings=settings,
    )
    try:
        with TestClient(app) as client:
            yield Api(client)
    finally:
        if isinstance(opened.provider, DiskProvider):
            opened.provider.close()  # the store's writer lock


@pytest.fixture(scope="session")
def text_pr_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.plugins.text_pr_logs import write_logs

    return write_logs(tmp_path_factory.mktemp("text_pr"))


@pytest.fixture(scope="session")
def histogram_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.plugins.histogram_logs import write_histogram_logs

    return write_histogram_logs(tmp_path_factory.mktemp("histograms"))


@pytest.fixture(scope="session")
def media_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.plugins.media_logs import write_media_logs

    return write_media_logs(tmp_path_factory.mktemp("media"))


# The apps are per module: a client's thread (and any reload thread) never outlives the tests that use it, so
# the others run in a worker with the threads they start themselves (forking tests, ingest's read-ahead threads).
@pytest.fixture(scope="module")
def text_pr_api(text_pr_logs: Path) -> Iterator[Api]:
    with in_process(text_pr_logs) as api:
        yield api


@pytest.fixture(scope="module")
def histograms_api(histogram_logs: Path) -> Iterator[Api]:
    with in_process(histogram_logs) as api:
        yield api


@pytest.fixture(scope="module")
def media_api(media_logs: Path) -> Iterator[Api]:
    with in_process(media_logs) as api:
        yield api


def media_listing(api: Api, kind: str, run: str, tag: str) -> list[dict[str, object]]:
    """The steps of ``GET /api/{kind}`` (images or audio) for one run and tag, checking the answer's envelope."""
    response = api.get(f"/api/{kind}", run=run, tag=tag)
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["run"], body["tag"]) == (run, tag)
    steps: list[dict[str, object]] = body["steps"]
    return steps


def media_blob(api: Api, kind: str, run: str, tag: str, step: object, index: int = 0, **extra: object) -> bytes:
    """The bytes of ``GET /api/{kind}/blob``, checking it answered 200."""
    response = api.get(f"/api/{kind}/blob", run=run, tag=tag, step=step, index=index, **extra)
    assert response.status_code == 200, response.text
    return response.content


def assert_media_errors_are_json(api: Api, kind: str, tag: str) -> None:
    """``GET /api/{kind}`` and ``/api/{kind}/blob`` (images or audio; ``tag`` one that run ``torch`` has) answer
    an unknown run, tag or step 404 and a missing or malformed parameter 400, each with a JSON error."""
    for params, status in [
        ({"run": "nope", "tag": tag}, 404),
        ({"run": "torch", "tag": "nope"}, 404),
        ({"run": "torch"}, 400),
    ]:
        response = api.get(f"/api/{kind}", **params)
        assert response.status_code == status and response.json()["error"], params
    for params, status in [
        ({"run": "torch", "tag": tag, "step": 5}, 404),
        ({"run": "torch", "tag": tag, "step": "x"}, 400),
        ({"run": "torch", "tag": tag, "step": 0, "index": -1}, 400),
        ({"run": "nope", "tag": tag, "step": 0}, 404),
    ]:
        response = api.get(f"/api/{kind}/blob", **params)
        assert response.status_code == status and response.json()["error"], params
