"""The graphs dashboard: a run's model graph (what ``add_graph`` wrote) laid out as data flow, with name scopes
that collapse and expand, full node names and tensor shapes on the edges. Its route is ``/api/graphs``."""

from __future__ import annotations

from ridgeline.plugins.graphs.routes import router
from ridgeline.plugins.kit import BuiltinPlugin

plugin = BuiltinPlugin(name="graphs", router=router, order=110)

__all__ = ["plugin"]
