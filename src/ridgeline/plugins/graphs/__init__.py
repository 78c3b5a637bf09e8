"""The graphs dashboard: a run's model graph (what ``add_graph`` wrote) laid out as data flow, with name scopes
that collapse and expand, full node names and tensor shapes on the edges. Its route is ``/api/graphs``."""

from __future__ import annotations

from ridgeline.plugins import BuiltinPlugin
from ridgeline.plugins.graphs.routes import router

plugin = BuiltinPlugin(name="graphs", router=router)

__all__ = ["plugin"]
