"""The audio dashboard: a player per audio tag with a step slider (``/api/audio``, ``/api/audio/blob``)."""

from __future__ import annotations

from ridgeline.plugins.audio.routes import router
from ridgeline.plugins.scalars import ScalarsPlugin

plugin = ScalarsPlugin(name="audio", router=router)

__all__ = ["plugin"]
