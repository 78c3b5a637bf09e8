"""The hparams dashboard: its plugin object. Its route is ``/api/hparams/table``; ``/api/hparams`` (each run's
hyperparameters, used by the scalars dashboard too) is one of the server's own routes."""

from __future__ import annotations

from ridgeline.plugins.hparams.routes import router
from ridgeline.plugins.kit import BuiltinPlugin

plugin = BuiltinPlugin(name="hparams", router=router, order=90)

__all__ = ["plugin"]
