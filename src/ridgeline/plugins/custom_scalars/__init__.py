"""The custom scalars dashboard: its plugin object. Its route is the documented ``GET /api/custom_scalars``
(the layouts ``add_custom_scalars`` wrote, merged); the charts read their series through the scalars routes."""

from __future__ import annotations

from ridgeline.plugins import BuiltinPlugin
from ridgeline.plugins.custom_scalars.routes import router

plugin = BuiltinPlugin(name="custom_scalars", router=router)

__all__ = ["plugin"]
