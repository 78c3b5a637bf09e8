"""``GET /api/alerts``: the anomaly alerts of every scalar series, streamed to pages through a cursor.

The monitor lives on the app (one per server) and advances when the store's generation moved, i.e. only over
the points ingest appended since the last request (see :mod:`ridgeline.services.alerts`).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request

from ridgeline.analysis.alert_config import AlertConfig
from ridgeline.plugins.kit import OrjsonResponse, RunRegex, TagRegex, app_service, compile_regex, logdir_of, setting
from ridgeline.services.alerts import AlertMonitor

router = APIRouter()

Since = Annotated[
    int,
    Query(ge=0, description="the cursor of the previous answer: only alerts raised after it (0: all of them)"),
]


def alert_monitor(request: Request) -> AlertMonitor:
    """The app's monitor, created at first use with the ``alert_config`` setting (None: the defaults), and
    advanced over what ingest added since."""
    config: AlertConfig | None = setting(request, "alert_config")
    monitor = app_service(request, "alert_monitor", lambda: AlertMonitor(logdir_of(request), config))
    monitor.advance()
    return monitor


@router.get("/alerts")
def alerts(
    request: Request, run_regex: RunRegex = None, tag_regex: TagRegex = None, since: Since = 0
) -> OrjsonResponse:
    """``{"alerts": [{"run", "tag", "step", "wall_time", "kind", "value", "expected_low", "expected_high"}],
    "cursor": int}``: kind is ``outlier``, ``nan``, ``inf``, ``spike`` or ``stalled`` (rules in
    docs/insights.md); ``value`` is null for NaN/±Inf, the expected range null where there is none. Pass the
    answer's ``cursor`` as ``since`` to get only the alerts raised after it (a cursor from before a server
    restart, beyond the end, gets everything again)."""
    run_pattern = compile_regex(run_regex, "run_regex")
    tag_pattern = compile_regex(tag_regex, "tag_regex")
    found, cursor = alert_monitor(request).alerts(since, run_pattern=run_pattern, tag_pattern=tag_pattern)
    return OrjsonResponse({"alerts": [alert.to_json() for alert in found], "cursor": cursor})
