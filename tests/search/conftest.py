from __future__ import annotations

from pathlib import Path

import pytest

import ridgeline
from ridgeline.api import LogDir
from ridgeline.search import Searcher
from tests.search.search_logs import write_search_logs


@pytest.fixture(scope="session")
def search_logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_search_logs(tmp_path_factory.mktemp("search"))


@pytest.fixture(scope="session")
def logdir(search_logdir: Path) -> LogDir:
    return ridgeline.open(search_logdir, cache=False)


@pytest.fixture(scope="session")
def searcher(logdir: LogDir) -> Searcher:
    return Searcher(logdir)
