"""The Runs dashboard: one row per run with its status, times, last step, hyperparameters, chosen metrics, notes,
tags and (for a run that failed or crashed) its traceback, and a Logs view of the console lines a run captured.
Its routes are ``/api/runs/table`` and ``/api/runs/logs`` (docs/runs.md); read-only, like every route."""

from __future__ import annotations

from ridgeline.plugins.kit import BuiltinPlugin
from ridgeline.plugins.runs.routes import router

plugin = BuiltinPlugin(name="runs", router=router, order=92)

__all__ = ["plugin"]
