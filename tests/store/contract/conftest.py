"""What "a backend" means: every implementation of the provider protocol, built over the same log directory.

A backend is registered in ``BACKENDS`` as a function from a log directory to a Provider that has read it; every
test in this folder runs against each. A new backend (the on-disk columnar store) joins by adding one line here,
and must pass the tests unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import ridgeline
from ridgeline.store.provider import Provider


def memory_backend(logdir: Path) -> Provider:
    return ridgeline.open(logdir, cache=False).provider


BACKENDS: dict[str, Callable[[Path], Provider]] = {"memory": memory_backend}


@pytest.fixture(params=sorted(BACKENDS))
def open_backend(request: pytest.FixtureRequest) -> Callable[[Path], Provider]:
    """Opens a log directory with one backend (each test runs once per backend)."""
    return BACKENDS[request.param]
