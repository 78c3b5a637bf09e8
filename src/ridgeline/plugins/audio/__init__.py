"""The audio dashboard: a player per audio tag with a step slider (``/api/audio``, ``/api/audio/blob``)."""

from __future__ import annotations

from ridgeline.plugins import BuiltinPlugin
from ridgeline.plugins.audio.routes import router

plugin = BuiltinPlugin(name="audio", router=router)

__all__ = ["plugin"]
