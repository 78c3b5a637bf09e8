"""The scalars dashboard: its plugin object. Its routes are the documented ``/api/scalars*`` ones (a built-in
plugin may claim a prefix; third-party plugins are served under ``/api/plugins/<name>/``)."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import APIRouter

from ridgeline.plugins.scalars.routes import router


@dataclass(frozen=True)
class ScalarsPlugin:
    name: str
    router: APIRouter
    prefix: str = "/api"


plugin = ScalarsPlugin(name="scalars", router=router)

__all__ = ["ScalarsPlugin", "plugin"]
