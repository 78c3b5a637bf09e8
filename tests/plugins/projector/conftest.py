"""A real server (``ridgeline serve`` on 127.0.0.1) over the projector's log directory, its cache in a temporary
directory (projections and parsed tensors are cached there, never in the log directory)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.plugins.projector import logs
from tests.server.conftest import Served, clean_env, serving


@pytest.fixture(scope="session")
def projector_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("projector_logs")
    logs.write_ridgeline(root)
    logs.write_torch(root)
    logs.write_tensorboardx(root)
    logs.write_bad(root)
    return root


ServeFactory = Callable[..., AbstractContextManager[Served]]


@pytest.fixture
def serve_projector(tmp_path_factory: pytest.TempPathFactory) -> ServeFactory:
    """``serve_projector(logdir, cache_dir=None)``: a server with its own cache directory (a fresh one unless
    given: a test that restarts the server passes the same one)."""

    @contextmanager
    def start(logdir: Path, cache_dir: Path | None = None) -> Iterator[Served]:
        cache = cache_dir or tmp_path_factory.mktemp("cache")
        args = ("--logdir", str(logdir), "--port", "0", "--no-cache")
        with serving(*args, env=clean_env(RIDGELINE_CACHE_DIR=str(cache))) as served:
            served.client.timeout = httpx.Timeout(120)
            yield served

    return start


@pytest.fixture(scope="module")
def server(projector_logs: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    cache = tmp_path_factory.mktemp("cache")
    args = ("--logdir", str(projector_logs), "--port", "0", "--no-cache")
    with serving(*args, env=clean_env(RIDGELINE_CACHE_DIR=str(cache))) as served:
        served.client.timeout = httpx.Timeout(120)
        yield served


def ok(response: httpx.Response) -> Any:
    assert response.status_code == 200, f"{response.status_code}: {response.text}"
    return response.json()
