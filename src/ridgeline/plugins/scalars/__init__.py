"""The scalars dashboard: its plugin object (routes under ``/api/plugins/scalars/``)."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import APIRouter

from ridgeline.plugins.scalars.routes import router


@dataclass(frozen=True)
class ScalarsPlugin:
    name: str
    router: APIRouter


plugin = ScalarsPlugin(name="scalars", router=router)

__all__ = ["ScalarsPlugin", "plugin"]
