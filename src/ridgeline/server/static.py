"""The built web UI (``src/ridgeline/_static``, made by ``make build-web``), served with the API.

* ``/`` and every path that is neither ``/api/...`` nor a file of the build: ``index.html`` (the UI routes on
  the client), ``Cache-Control: no-cache`` so a new build is picked up at once;
* ``/assets/...``: Vite's content-hashed files, cached for a year (``immutable``); a missing one is a 404, never
  ``index.html`` (a script tag given HTML fails confusingly);
* a revalidation (``If-None-Match`` with the file's ETag) answers 304 with no body;
* a path that resolves outside the build folder (``..``, encoded ``%2e%2e``, a symlink leading out): 404.

Without a build, ``/`` answers a short page that says how to build the UI (the API works regardless).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import Match
from starlette.types import Scope

from ridgeline.plugins.kit.responses import error
from ridgeline.server.files import STATIC_DIR, cache_control, escapes, resolve

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = ["STATIC_DIR", "cache_control", "methods_of", "mount_static", "resolve"]

CATCH_ALL = "/{path:path}"
_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")

NOT_BUILT = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ridgeline: the web UI is not built</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40em; margin: 3em auto; line-height: 1.5">
<h1>ridgeline is running, but the web UI is not built</h1>
<p>The web UI is not built: run <code>make build-web</code> in the ridgeline checkout (it needs Node.js and npm),
then reload this page. <code>make serve</code> builds it for you.</p>
<p>The API works without it: <a href="api/runs">api/runs</a>, and its documentation at
<a href="api/docs">api/docs</a>.</p>
</body></html>
"""


def mount_static(app: FastAPI, directory: Path | None = None) -> None:
    """Register the catch-all route; call it after every API route (routes match in registration order)."""
    root = (directory or STATIC_DIR).resolve()

    @app.api_route(CATCH_ALL, methods=["GET", "HEAD"], include_in_schema=False)
    async def static(request: Request, path: str) -> Response:
        if path == "api" or path.startswith("api/"):
            allowed = methods_of(app, request.scope)
            if allowed:  # the route exists, for other methods (GET on the POST-only batch route)
                allow = ", ".join(sorted(allowed))
                return error(405, f"/{path} answers {allow}, not {request.method}", headers={"Allow": allow})
            return error(404, f"no API route /{path}; see /api/docs")
        index = root / "index.html"
        if not index.is_file():
            if path in ("", "index.html"):
                return HTMLResponse(NOT_BUILT, headers={"Cache-Control": "no-cache"})
            return error(404, "the web UI is not built: run make build-web")
        if path not in ("", "index.html"):
            found = resolve(root, path)
            if found is not None:
                return _file(request, found, cache_control(path))
            if path.startswith("assets/") or escapes(path):
                return error(404, f"not found: /{path}")
        return _file(request, index, "no-cache", media_type="text/html; charset=utf-8")


def _file(request: Request, path: Path, cache: str, media_type: str | None = None) -> Response:
    """The file, or 304 when the browser's copy (``If-None-Match``) is current: ``no-cache`` files are revalidated
    on every load, and without this each revalidation downloaded them again."""
    response = FileResponse(path, media_type=media_type, headers={"Cache-Control": cache}, stat_result=os.stat(path))
    etag = response.headers["etag"]
    wanted = request.headers.get("if-none-match", "")
    if etag in (tag.strip().removeprefix("W/") for tag in wanted.split(",")) or wanted.strip() == "*":
        return Response(status_code=304, headers={"ETag": etag, "Cache-Control": cache})
    return response


def methods_of(app: FastAPI, scope: Scope) -> set[str]:
    """The methods other routes answer for this request's path (Starlette's own matching, this catch-all aside)."""
    methods: set[str] = set()
    for method in _METHODS:
        probe = {**scope, "method": method}
        for route in app.router.routes:
            if getattr(route, "path", None) != CATCH_ALL and route.matches(probe)[0] == Match.FULL:
                methods.add(method)
                break
    return methods
