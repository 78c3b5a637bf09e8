"""The projector's data: which embeddings each run holds and at which steps (``/api/embeddings``).

There is no projector dashboard yet; the Time Series overlay marks the steps where embeddings were logged."""

from __future__ import annotations

from ridgeline.plugins.kit import BuiltinPlugin
from ridgeline.plugins.projector.routes import router

plugin = BuiltinPlugin(name="projector", router=router, order=100)

__all__ = ["plugin"]
