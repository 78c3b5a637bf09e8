"""A third-party ridgeline dashboard: ``GET /api/plugins/hello/last?run=R`` answers the last value of each of the
run's scalar tags, and its web half (``web/index.js``) shows them in a "Hello" tab. Everything it uses comes from
``ridgeline.plugins.kit`` and the LogDir it hands out."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, Request

from ridgeline.plugins.kit import OrjsonResponse, logdir_of, missing_as_404

router = APIRouter()


@router.get("/last")
def last_values(request: Request, run: str) -> OrjsonResponse:
    """``{"run", "last": {tag: value}}``: the last logged value of each scalar tag (404 for an unknown run)."""
    logdir = logdir_of(request)
    with missing_as_404(f"no run {run!r}"):
        tags = logdir.tags(run).get("scalars", [])
        last = {tag: float(series.value[-1]) for tag in tags if len(series := logdir.scalars(run, tag))}
    return OrjsonResponse({"run": run, "last": last})


class Hello:
    """A plugin is any object with a ``name`` and a FastAPI ``router`` (see ridgeline.plugins.kit.Plugin); its
    ``web`` folder, shipped inside the package, holds the ES module the page imports (``index.js``)."""

    name = "hello"
    router = router
    web = Path(__file__).parent / "web"


plugin = Hello()
