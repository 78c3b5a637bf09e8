"""The FastAPI app over a LogDir: JSON errors, the run listing, and the routes of every registered plugin.

Errors are JSON objects ``{"error": message}``: 404 for an unknown run or tag (routes raise ``ApiError`` with
the LogDir's KeyError message), 400 for bad parameters (FastAPI's 422 validation errors become 400 naming
the parameter).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from ridgeline._version import __version__
from ridgeline.plugins.kit import ApiError, OrjsonResponse, Plugin, error
from ridgeline.server.front import middleware
from ridgeline.server.openapi import use_error_responses
from ridgeline.server.plugin_host import PluginHost, discover
from ridgeline.server.plugin_web import mount_plugin_web
from ridgeline.server.prefix import normalise_prefix
from ridgeline.server.routes import router as core_router
from ridgeline.server.static import methods_of, mount_static
from ridgeline.server.warm import WarmUps
from ridgeline.services.runs import RunIndex
from ridgeline.settings import defaults
from ridgeline.store.logdir import LogDir
from ridgeline.store.status import CRASHED_AFTER_S

# What plugins read with ridgeline.plugins.kit.setting when the caller does not say (ridgeline.settings documents
# the ones the command line sets).
DEFAULT_SETTINGS: dict[str, Any] = {
    "alert_config": None,
    "diagnosis_config": None,
    "retention": None,
    "crashed_after": CRASHED_AFTER_S,
}


def create_app(
    logdir: LogDir,
    *,
    reload_interval: float | None = None,
    plugins: Iterable[Plugin] = (),
    token: str | None = None,
    static_dir: Path | None = None,
    logdir_label: str | None = None,
    settings: Mapping[str, Any] | None = None,
    setting_values: Mapping[str, Any] | None = None,
    path_prefix: str = "",
    loading: Callable[[], dict[str, Any] | None] | None = None,
    with_middleware: bool = True,
) -> FastAPI:
    """The app serving ``logdir``; with ``reload_interval`` (seconds) the log directory is re-read in the
    background while the app runs (started and stopped by the app's lifespan). ``plugins`` are registered
    after the ones installed (entry points of the ``ridgeline.plugins`` group, the built-ins among them); an
    invalid or duplicate name raises ValueError here. ``settings`` (name -> value) are what plugins read with
    ``ridgeline.plugins.kit.setting``: ``alert_config`` and ``diagnosis_config`` (None: the defaults),
    ``crashed_after`` (seconds without a write before a run with no end counts as crashed), and ``retention``,
    the status of ``serve --retention``'s sweeps (an object whose ``snapshot()`` is what ``/api/retention``
    answers; None: off).
    ``setting_values`` (name -> value) are the settings table's values it runs with, which ``/api/settings``
    answers (``ridgeline.settings``): ``reload_interval`` and ``token`` are this call's, the others the defaults
    unless given. With
    ``token`` every request must carry it (see :mod:`ridgeline.server.auth`). ``static_dir`` replaces the built
    UI folder (tests); ``logdir_label`` is what ``/api/runs`` reports as ``logdir`` (default: the log
    directories' paths). With ``path_prefix`` (``/ridgeline``) everything is served under it (see
    :mod:`ridgeline.server.prefix`); ValueError for one that is not a plain path. ``loading`` says how far the first
    pass over the log directory got while it runs (``ridgeline.api.Opening.state``: ``/api/runs`` answers it as
    ``loading``), None once it is over. ``with_middleware=False`` leaves the token, prefix, body limit and
    security headers out, for a caller that puts :func:`ridgeline.server.front.protect` around it (the front that
    answers before the app exists)."""
    if token == "":
        raise ValueError("the token must not be empty: pass None to serve without one")
    if reload_interval is not None and not reload_interval > 0:
        raise ValueError(f"reload_interval must be positive, got {reload_interval}")
    prefix = normalise_prefix(path_prefix)
    host = PluginHost([*discover(), *plugins])

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if reload_interval is not None:
            logdir.start(reload_interval)
        warm_ups = WarmUps(host)
        warm_ups.start(app)
        try:
            yield
        finally:
            await warm_ups.stop()
            if reload_interval is not None:
                logdir.stop()

    app = FastAPI(
        title="ridgeline",
        version=__version__,
        summary="The JSON API of a ridgeline training monitor (see docs/server.md).",
        openapi_url="/api/openapi.json",
        docs_url="/api/docs",
        redoc_url=None,
        default_response_class=OrjsonResponse,
        lifespan=lifespan,
    )
    app.state.logdir = logdir
    app.state.plugins = host
    app.state.settings = {**DEFAULT_SETTINGS, **(settings or {})}
    app.state.setting_values = {
        **defaults(),
        **(setting_values or {}),
        "reload_interval": reload_interval or 0.0,  # none: read once, as --reload-interval 0 says it
        "token": token or None,
    }
    # per-app objects (ridgeline.plugins.kit.app_service)
    app.state.services = {"run_index": RunIndex(logdir, crashed_after=float(app.state.settings["crashed_after"]))}
    app.state.reload_interval = reload_interval
    app.state.logdir_label = logdir_label if logdir_label is not None else logdir.label
    app.state.loading = loading or _loaded

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> OrjsonResponse:
        return error(exc.status_code, exc.message)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> OrjsonResponse:
        # e.g. a body FastAPI cannot parse: the same {"error": ...} as every other error, never {"detail": ...}
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            # Starlette's 405 names only the first route on the path; a path with a GET and a POST route (two
            # handlers) answers both.
            allowed = methods_of(app, request.scope)
            if allowed:
                headers["Allow"] = ", ".join(sorted(allowed))
        return error(exc.status_code, str(exc.detail), headers=headers)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> OrjsonResponse:
        return error(400, validation_message(exc.errors()))

    app.include_router(core_router, prefix="/api")
    mount_plugin_web(app, host)
    host.mount(app)
    use_error_responses(app)
    mount_static(app, static_dir)  # last: its catch-all route must not shadow an API route
    if with_middleware:
        for layer, options in middleware(token, prefix):  # innermost first: each added is outside the last
            app.add_middleware(layer, **options)
    return app


def _loaded() -> None:
    return None


def validation_message(errors: Iterable[Any]) -> str:
    """One readable line per invalid parameter, e.g. ``query parameter 'max_points': Input should be ...``."""
    parts = []
    for item in errors:
        if item.get("type") == "json_invalid":  # loc is ("body", <character offset>)
            where = item.get("loc", ("", "?"))[-1]
            parts.append(f"the request body is not valid JSON ({item.get('msg', 'invalid')} at character {where})")
            continue
        location = [str(part) for part in item.get("loc", ())]
        where = location[0] if location else "request"
        name = ".".join(location[1:])
        label = f"{where} parameter {name!r}" if name else f"{where}"
        parts.append(f"{label}: {item.get('msg', 'invalid')}")
    return "; ".join(parts) or "invalid request"
