"""The images dashboard: a card per image tag with a step slider (``/api/images``, ``/api/images/blob``)."""

from __future__ import annotations

from ridgeline.plugins import BuiltinPlugin
from ridgeline.plugins.images.routes import router

plugin = BuiltinPlugin(name="images", router=router)

__all__ = ["plugin"]
