"""Imports in a background thread that give way to the requests being answered meanwhile.

``ridgeline serve`` imports FastAPI, pydantic and every dashboard (most of a second of pure Python, holding the
GIL) while the front already answers the first data requests (:mod:`ridgeline.server.early`). Two threads that
both want the GIL share it in 5 ms slices, so each early answer would take about twice as long. Inside
:func:`giving_way`, every module the calling thread imports first waits until ``idle`` says no request is being
answered: the imports go on between requests, not during them.

Each wait is bounded (``longest``), and so are all of them together (``budget``): the importing thread holds
the import lock of the module it is about to import, and an answer that needs that very module waits for it, so
an unbounded wait could never end; and a client that asks without pause must not hold the imports back for good.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from importlib.machinery import ModuleSpec
from types import ModuleType

__all__ = ["giving_way"]


class _GiveWay:
    """A meta path finder that finds nothing: on the importing thread it waits, then lets the others find."""

    def __init__(self, idle: Callable[[float], object], longest: float, budget: float) -> None:
        self._idle = idle
        self._longest = longest
        self._left = budget
        self._thread = threading.get_ident()

    def find_spec(self, name: str, path: Sequence[str] | None, target: ModuleType | None = None) -> ModuleSpec | None:
        if threading.get_ident() == self._thread and self._left > 0:
            began = time.monotonic()
            self._idle(min(self._longest, self._left))
            self._left -= time.monotonic() - began
        return None


@contextmanager
def giving_way(idle: Callable[[float], object], longest: float = 0.25, budget: float = 2.0) -> Iterator[None]:
    """Within, each module this thread imports first calls ``idle(longest)``, which returns once no request is
    being answered, or after ``longest`` seconds; once the waits add up to ``budget`` seconds, no more (a client
    asking without pause must not hold the imports back for good)."""
    finder = _GiveWay(idle, longest, budget)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
