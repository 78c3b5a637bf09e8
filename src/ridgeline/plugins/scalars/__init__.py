"""The scalars dashboard: its plugin object. Its routes are the documented ``/api/scalars*`` ones (a built-in
plugin may claim a prefix; third-party plugins are served under ``/api/plugins/<name>/``)."""

from __future__ import annotations

from ridgeline.plugins.kit import BuiltinPlugin
from ridgeline.plugins.scalars.routes import router

plugin = BuiltinPlugin(name="scalars", router=router, order=10)

__all__ = ["plugin"]
