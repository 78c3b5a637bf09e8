"""The custom scalars dashboard: its plugin object. Its route is the documented ``GET /api/custom_scalars``
(the layouts ``add_custom_scalars`` wrote, merged); the charts read their series through the scalars routes."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import APIRouter

from ridgeline.plugins.custom_scalars.routes import router


@dataclass(frozen=True)
class CustomScalarsPlugin:
    name: str
    router: APIRouter
    prefix: str = "/api"


plugin = CustomScalarsPlugin(name="custom_scalars", router=router)

__all__ = ["CustomScalarsPlugin", "plugin"]
