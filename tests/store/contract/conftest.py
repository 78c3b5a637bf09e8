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


def disk_backend(logdir: Path) -> Provider:
    """The on-disk columnar store, built by this open (cold)."""
    return ridgeline.open(logdir, cache_dir=_store_directory(logdir)).provider


def disk_warm_backend(logdir: Path) -> Provider:
    """The on-disk columnar store, built by a first open (closed again) and read back by a second (warm)."""
    store = _store_directory(logdir)
    cold = ridgeline.open(logdir, cache_dir=store)
    cold.provider.close()  # type: ignore[attr-defined]
    warm = ridgeline.open(logdir, cache_dir=store).provider
    assert warm.restored_runs == len(warm.runs()), "the warm open reads its runs from the store"  # type: ignore[attr-defined]
    return warm


def _store_directory(logdir: Path) -> Path:
    return logdir.parent / f"{logdir.name}-store"  # beside the log directory: nothing is written into it


BACKENDS: dict[str, Callable[[Path], Provider]] = {
    "memory": memory_backend,
    "disk": disk_backend,
    "disk-warm": disk_warm_backend,
}


@pytest.fixture(params=sorted(BACKENDS))
def open_backend(request: pytest.FixtureRequest) -> Callable[[Path], Provider]:
    """Opens a log directory with one backend (each test runs once per backend)."""
    return BACKENDS[request.param]
