"""The PR curves dashboard: precision against recall per tag, one curve per run, with a step slider. Its route is
``/api/pr_curves``."""

from __future__ import annotations

from ridgeline.plugins.kit import BuiltinPlugin
from ridgeline.plugins.pr_curves.routes import router

plugin = BuiltinPlugin(name="pr_curves", router=router, order=30)

__all__ = ["plugin"]
