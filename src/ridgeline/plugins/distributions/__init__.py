"""The distributions dashboard: its plugin object; route ``GET /api/distributions`` (built-in, under ``/api``)."""

from __future__ import annotations

from ridgeline.plugins.distributions.routes import router
from ridgeline.plugins.kit import BuiltinPlugin

plugin = BuiltinPlugin(name="distributions", router=router, order=70)

__all__ = ["plugin"]
