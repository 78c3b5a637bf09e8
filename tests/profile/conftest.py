"""The profile tests' log directories: a real 2-rank gloo job's traces (made once per session, tests/profile/
traces.py) and small hand-written Kineto traces (tests/profile/handmade.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.plugins.conftest import Api, in_process

pytest.importorskip("torch")


@pytest.fixture(scope="session")
def gloo_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.profile.traces import write_gloo_logs

    return write_gloo_logs(tmp_path_factory.mktemp("gloo"))


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache directory of the test's own (the service's default is $RIDGELINE_CACHE_DIR/profile)."""
    monkeypatch.setenv("RIDGELINE_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "profile"


@pytest.fixture
def gloo_api(gloo_logs: Path, cache_dir: Path) -> Iterator[Api]:
    with in_process(gloo_logs) as api:
        yield api
