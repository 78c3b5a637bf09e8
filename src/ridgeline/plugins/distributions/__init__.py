"""The distributions dashboard: its plugin object; route ``GET /api/distributions`` (built-in, under ``/api``)."""

from __future__ import annotations

from ridgeline.plugins.distributions.routes import router
from ridgeline.plugins.scalars import ScalarsPlugin

plugin = ScalarsPlugin(name="distributions", router=router)

__all__ = ["plugin"]
