"""The distributions dashboard: its plugin object; route ``GET /api/distributions`` (built-in, under ``/api``)."""

from __future__ import annotations

from ridgeline.plugins import BuiltinPlugin
from ridgeline.plugins.distributions.routes import router

plugin = BuiltinPlugin(name="distributions", router=router)

__all__ = ["plugin"]
