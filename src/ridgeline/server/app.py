"""The FastAPI app over a LogDir: JSON errors, the run listing, and the routes of every registered plugin.

Errors are JSON objects ``{"error": message}``: 404 for an unknown run or tag (routes raise ``ApiError`` with
the LogDir's KeyError message), 400 for bad parameters (FastAPI's 422 validation errors become 400 naming
the parameter).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError

from ridgeline._version import __version__
from ridgeline.api import LogDir
from ridgeline.plugins.scalars import plugin as scalars_plugin
from ridgeline.server.plugin_host import Plugin, PluginHost
from ridgeline.server.responses import ApiError, OrjsonResponse, error

BUILTIN_PLUGINS: tuple[Plugin, ...] = (scalars_plugin,)


def create_app(
    logdir: LogDir,
    *,
    reload_interval: float | None = None,
    plugins: Iterable[Plugin] = (),
) -> FastAPI:
    """The app serving ``logdir``; with ``reload_interval`` (seconds) the log directory is re-read in the
    background while the app runs (started and stopped by the app's lifespan). ``plugins`` are registered
    after the built-in ones; an invalid or duplicate name raises ValueError here."""
    if reload_interval is not None and not reload_interval > 0:
        raise ValueError(f"reload_interval must be positive, got {reload_interval}")
    host = PluginHost([*BUILTIN_PLUGINS, *plugins])

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if reload_interval is not None:
            logdir.ingestor.start(reload_interval)
        try:
            yield
        finally:
            if reload_interval is not None:
                logdir.ingestor.stop()

    app = FastAPI(
        title="ridgeline",
        version=__version__,
        openapi_url="/api/openapi.json",
        docs_url="/api/docs",
        redoc_url=None,
        default_response_class=OrjsonResponse,
        lifespan=lifespan,
    )
    app.state.logdir = logdir
    app.state.plugins = host

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> OrjsonResponse:
        return error(exc.status_code, exc.message)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> OrjsonResponse:
        return error(400, validation_message(exc.errors()))

    @app.get("/api/runs")
    def runs() -> OrjsonResponse:
        """Every run with its tags per kind: ``{"runs": [{"run": name, "tags": {kind: [tag, ...]}}, ...]}``."""
        return OrjsonResponse({"runs": [{"run": run, "tags": logdir.tags(run)} for run in logdir.runs()]})

    @app.get("/api/plugins")
    def plugins_list() -> OrjsonResponse:
        """The names of the registered plugins, in registration order."""
        return OrjsonResponse({"plugins": host.names()})

    host.mount(app)
    return app


def validation_message(errors: Iterable[Any]) -> str:
    """One readable line per invalid parameter, e.g. ``query parameter 'max_points': Input should be ...``."""
    parts = []
    for item in errors:
        location = [str(part) for part in item.get("loc", ())]
        where = location[0] if location else "request"
        name = ".".join(location[1:])
        label = f"{where} parameter {name!r}" if name else f"{where}"
        parts.append(f"{label}: {item.get('msg', 'invalid')}")
    return "; ".join(parts) or "invalid request"
