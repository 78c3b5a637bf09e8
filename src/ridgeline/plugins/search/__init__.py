"""Search (docs/search.md): ``GET /api/search`` over runs, tags, hyperparameters, run metadata, dates, text
summaries and annotations. The page's search box is this plugin's web half."""

from __future__ import annotations

from ridgeline.plugins.kit import BuiltinPlugin
from ridgeline.plugins.search.routes import router

plugin = BuiltinPlugin(name="search", router=router, order=130)

__all__ = ["plugin"]
