"""The confusion matrix dashboard: per tag and run, the counts ``add_confusion_matrix`` wrote (rows: true class),
as counts or row-normalised, with a step slider. Its route is ``/api/confusion_matrix``."""

from __future__ import annotations

from ridgeline.plugins.confusion_matrix.routes import router
from ridgeline.plugins.kit import BuiltinPlugin

plugin = BuiltinPlugin(name="confusion_matrix", router=router, order=35)

__all__ = ["plugin"]
