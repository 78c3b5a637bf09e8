"""What a plugin is: a ``name`` and a ``router``, optionally a ``prefix`` and an ``order`` (see docs/plugins.md).

Its routes are served under ``/api/plugins/<name>/``, or under its ``prefix`` when it has one (the built-in
dashboards claim the documented ``/api/...`` paths). Plugins are listed by ``/api/plugins`` in ``order`` (then name):
built-ins carry their place in the top bar, a third-party plugin without one comes after them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from fastapi import APIRouter

DEFAULT_ORDER = 1000


@runtime_checkable
class Plugin(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def router(self) -> APIRouter: ...


@dataclass(frozen=True)
class BuiltinPlugin:
    """A built-in dashboard's plugin object: its name (as the web half's ``Dashboard.name``), its routes,
    mounted under ``prefix`` (built-ins claim ``/api``), and its place in the listing."""

    name: str
    router: APIRouter
    order: int
    prefix: str = "/api"
