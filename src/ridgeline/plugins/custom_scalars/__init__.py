"""The custom scalars dashboard: its plugin object. Its route is the documented ``GET /api/custom_scalars``
(the layouts ``add_custom_scalars`` wrote, merged); the charts read their series through the scalars routes."""

from __future__ import annotations

from ridgeline.plugins.custom_scalars.routes import router
from ridgeline.plugins.kit import BuiltinPlugin

plugin = BuiltinPlugin(name="custom_scalars", router=router, order=80)

__all__ = ["plugin"]
