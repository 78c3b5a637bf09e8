"""The histograms dashboard: its plugin object; routes ``GET /api/histograms`` (built-in, under ``/api``).

:mod:`.reading` is shared with the distributions plugin (sampling steps, decoding, common bins)."""

from __future__ import annotations

from ridgeline.plugins.histograms.routes import router
from ridgeline.plugins.kit import BuiltinPlugin

plugin = BuiltinPlugin(name="histograms", router=router, order=60)

__all__ = ["plugin"]
