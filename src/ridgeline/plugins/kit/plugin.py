"""What a plugin is: a ``name`` and a ``router``, optionally a ``prefix``, an ``order`` and a ``web`` folder (see
docs/plugins.md).

Its routes are served under ``/api/plugins/<name>/``, or under its ``prefix`` when it has one (the built-in
dashboards claim the documented ``/api/...`` paths). Plugins are listed by ``/api/plugins`` in ``order`` (then name):
built-ins carry their place in the top bar, a third-party plugin without one comes after them.

A third-party plugin's web half is its ``web`` attribute: a folder (a ``pathlib.Path``, shipped in its package)
holding a built ES module :data:`WEB_ENTRY` and whatever that module imports. The server serves the folder read-only
at ``/api/plugin-web/<name>/`` and the page imports ``index.js`` when it starts (the built-ins' web halves are
bundled into the UI instead, and have no ``web``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from fastapi import APIRouter, FastAPI

DEFAULT_ORDER = 1000
WEB_ENTRY = "index.js"  # the module of a plugin's web folder that the page imports


@runtime_checkable
class Plugin(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def router(self) -> APIRouter: ...


@dataclass(frozen=True)
class BuiltinPlugin:
    """A built-in dashboard's plugin object: its name (as the web half's ``Dashboard.name``), its routes,
    mounted under ``prefix`` (built-ins claim ``/api``), and its place in the listing. ``warm(app)``, when given,
    computes ahead what the page's first request will ask for (``ridgeline.server.warm``: once, in a background
    thread, after the log directory's first pass); it keeps its answers as the routes do (``app_service``)."""

    name: str
    router: APIRouter
    order: int
    prefix: str = "/api"
    warm: Callable[[FastAPI], None] | None = None
