"""Plugins' warm-ups: what a plugin's ``warm(app)`` computes ahead of the page's first request for it, in one
background thread started by the app's lifespan once the log directory's first pass is over (a warm-up must not
slow the pass the page waits for), stopped and joined when the app stops.

The distributed plugin's is its report and its first chart's aggregate: computed on the first request instead,
they made the first page load after ``ridgeline serve`` started twice as slow as the next ones.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Iterable
from typing import Any

from fastapi import FastAPI

log = logging.getLogger(__name__)

POLL_S = 0.2  # how often the thread looks whether the first pass is over


class WarmUps:
    """The ``warm`` callables of ``plugins`` (those that have one), run once in order by :meth:`start`."""

    def __init__(self, plugins: Iterable[Any]) -> None:
        self._warms: list[tuple[str, Callable[[FastAPI], None]]] = [
            (str(getattr(plugin, "name", "?")), warm)
            for plugin in plugins
            if callable(warm := getattr(plugin, "warm", None))
        ]
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, app: FastAPI) -> None:
        if not self._warms:
            return
        self._thread = threading.Thread(target=self._run, args=(app,), name="ridgeline-warm-ups", daemon=True)
        self._thread.start()

    async def stop(self) -> None:
        """Tells the thread to stop before the next warm-up, and waits for the one under way (off the loop)."""
        self._stop.set()
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join)

    def _run(self, app: FastAPI) -> None:
        loading: Callable[[], Any] = app.state.loading
        while loading() is not None:
            if self._stop.wait(POLL_S):
                return
        for name, warm in self._warms:
            if self._stop.is_set():
                return
            try:
                warm(app)
            except Exception:  # a warm-up is an optimisation: the request computes it again, and reports
                log.exception("plugin %s: warm-up failed", name)
