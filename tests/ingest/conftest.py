"""Fixtures of the ingest tests."""

from __future__ import annotations

import pytest

from ridgeline.ingest import fastpath
from tests.ingest.fastpath_helpers import IMPLEMENTATIONS


@pytest.fixture(params=IMPLEMENTATIONS)
def default_implementation(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """A test that uses this runs on both record loops, each made the default (what ingest itself uses)."""
    monkeypatch.setattr(fastpath, "IMPLEMENTATION", request.param)
    return str(request.param)
