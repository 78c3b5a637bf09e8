"""The images dashboard: a card per image tag with a step slider (``/api/images``, ``/api/images/blob``)."""

from __future__ import annotations

from ridgeline.plugins.images.routes import router
from ridgeline.plugins.kit import BuiltinPlugin

plugin = BuiltinPlugin(name="images", router=router, order=40)

__all__ = ["plugin"]
