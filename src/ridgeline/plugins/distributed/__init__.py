"""The distributed plugin: the ranks of a distributed run as one run (docs/distributed.md).

``GET /api/distributed/runs`` reports every distributed run (ranks, clock offsets, sync delay, stragglers, load
balance: what ``ridgeline ranks --json`` prints) and ``GET /api/distributed/series`` one tag across the ranks of
one of them. The analysis is :mod:`ridgeline.analysis.distributed`, read through
:mod:`ridgeline.services.distributed`.
"""

from __future__ import annotations

from ridgeline.plugins.distributed.routes import router, warm
from ridgeline.plugins.kit import BuiltinPlugin

plugin = BuiltinPlugin(name="distributed", router=router, order=125, warm=warm)

__all__ = ["plugin", "router"]
