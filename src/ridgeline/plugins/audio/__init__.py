"""The audio dashboard: a player per audio tag with a step slider (``/api/audio``, ``/api/audio/blob``)."""

from __future__ import annotations

from ridgeline.plugins.audio.routes import router
from ridgeline.plugins.kit import BuiltinPlugin

plugin = BuiltinPlugin(name="audio", router=router, order=50)

__all__ = ["plugin"]
