"""The insights plugin: alerts, diagnosis, phases and forecasts over the scalar series (docs/insights.md).

Each feature keeps its routes in its own ``routes_<feature>.py`` with an ``APIRouter`` named ``router``; this
module only gathers them (add one import and one entry to ``ROUTERS``). Routes are served under ``/api``.
"""

from __future__ import annotations

from fastapi import APIRouter

from ridgeline.plugins.insights.routes_alerts import router as alerts_router
from ridgeline.plugins.insights.routes_diagnosis import router as diagnosis_router
from ridgeline.plugins.insights.routes_forecast import router as forecast_router
from ridgeline.plugins.kit import BuiltinPlugin

ROUTERS: tuple[APIRouter, ...] = (alerts_router, diagnosis_router, forecast_router)

router = APIRouter()
for _feature in ROUTERS:
    router.include_router(_feature)

plugin = BuiltinPlugin(name="insights", router=router, order=120)

__all__ = ["plugin", "router"]
