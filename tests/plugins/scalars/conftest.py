"""The scalars plugin's API tests read the shared log directory (``logs``, tests/conftest.py) in process."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.plugins.conftest import Api, in_process


@pytest.fixture(scope="module")
def api(logs: Path) -> Iterator[Api]:
    with in_process(logs) as client:
        yield client
