"""The text dashboard: markdown text summaries (and 2-D text tables) per tag, with a step slider. Its routes are
``/api/text`` and ``/api/text/runinfo``."""

from __future__ import annotations

from ridgeline.plugins.kit import BuiltinPlugin
from ridgeline.plugins.text.routes import router

plugin = BuiltinPlugin(name="text", router=router, order=20)

__all__ = ["plugin"]
