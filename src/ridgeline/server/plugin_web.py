"""The web halves of installed plugins, served at run time (the built-ins' are bundled into the UI instead).

A plugin with a ``web`` folder (see :mod:`ridgeline.plugins.kit.plugin`) has it served read-only:

* ``GET /api/plugin-web``: ``{"modules": [{"plugin", "url", "order"}]}``, one entry per plugin with a web half,
  in ``/api/plugins`` order; ``url`` (``api/plugin-web/hello/index.js``) is relative to the page, so it works
  behind a proxy that serves the UI under a prefix. The page imports each module when it starts.
* ``GET /api/plugin-web/<name>/<path>``: a file of that folder, with its content type, ``X-Content-Type-Options:
  nosniff`` and the UI's caching (``assets/...``, content-hashed, cached for good; the rest revalidated). A name
  that is not a valid plugin name: 400. No such plugin, a plugin without a web half, no such file, or a path that
  leaves the folder (``..``, encoded or not, a symlink leading out), names a hidden file or folder, or carries a
  NUL or a backslash: 404.

A ``web`` attribute that is not a folder holding ``index.js`` (a package built without its package data) is
reported on stderr when the app is created, and the plugin is served without its web half, as a plugin that fails
to import is left out: one broken package does not take the server down.
"""

from __future__ import annotations

import mimetypes
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from fastapi import APIRouter, FastAPI, Request
from pydantic import BaseModel, Field
from starlette.responses import FileResponse, Response

from ridgeline.plugins.kit import ApiError, OrjsonResponse, Plugin
from ridgeline.plugins.kit.plugin import DEFAULT_ORDER, WEB_ENTRY
from ridgeline.server.plugin_host import PLUGIN_NAME
from ridgeline.server.static import cache_control, resolve

URL = "api/plugin-web"

# What a browser needs to hear for the files a web half is built of (a module script is refused under a type that
# is not JavaScript's); anything else is whatever the extension says, else bytes.
_CONTENT_TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".map": "application/json",
    ".wasm": "application/wasm",
    ".svg": "image/svg+xml",
}


class PluginModule(BaseModel):
    plugin: str = Field(description="the plugin's name (the tab's name, as in /api/plugins)")
    url: str = Field(description="its web half's ES module, relative to the page: api/plugin-web/<plugin>/index.js")
    order: int = Field(description="its place in the top bar (smaller first), the plugin's `order`")


class PluginModules(BaseModel):
    modules: list[PluginModule]


@dataclass(frozen=True)
class WebHalf:
    name: str
    root: Path  # resolved
    order: int


def web_halves(plugins: Iterable[Plugin]) -> dict[str, WebHalf]:
    """The plugins that have a servable web folder, by name; a ``web`` that is not one is reported on stderr."""
    found: dict[str, WebHalf] = {}
    for plugin in plugins:
        web = getattr(plugin, "web", None)
        if web is None:
            continue
        if not isinstance(web, str | os.PathLike):
            _report(plugin.name, f"its web attribute must be a folder's path, got {type(web).__name__}")
            continue
        root = Path(web).resolve()
        if not (root / WEB_ENTRY).is_file():
            _report(plugin.name, f"its web folder {str(root)!r} holds no {WEB_ENTRY}")
            continue
        found[plugin.name] = WebHalf(plugin.name, root, getattr(plugin, "order", DEFAULT_ORDER))
    return found


def _report(name: str, problem: str) -> None:
    print(f"ridgeline: plugin {name!r} is served without its web half: {problem}", file=sys.stderr)


def mount_plugin_web(app: FastAPI, plugins: Iterable[Plugin]) -> None:
    """Serve the web halves of ``plugins`` (call before :func:`ridgeline.server.static.mount_static`)."""
    halves = web_halves(plugins)
    router = APIRouter()

    @router.get("/plugin-web", response_model=PluginModules)
    async def plugin_modules() -> OrjsonResponse:
        """``{"modules": [{"plugin", "url", "order"}]}``: the plugins whose web half the page imports at start
        (third-party dashboards; the built-in ones are part of the UI's bundle), in ``/api/plugins`` order."""
        modules = [{"plugin": h.name, "url": f"{URL}/{h.name}/{WEB_ENTRY}", "order": h.order} for h in halves.values()]
        return OrjsonResponse({"modules": modules})

    @router.api_route("/plugin-web/{name}/{path:path}", methods=["GET", "HEAD"], include_in_schema=False)
    async def plugin_file(request: Request, name: str, path: str) -> Response:
        if not PLUGIN_NAME.match(name):
            raise ApiError(400, f"path parameter 'name': {name!r} is not a plugin name ({PLUGIN_NAME.pattern})")
        half = halves.get(name)
        if half is None:
            raise ApiError(404, f"no plugin {name!r} with a web half is installed (see /api/plugin-web)")
        found = None if _hidden(path) else resolve(half.root, path)
        if found is None:
            raise ApiError(404, f"plugin {name!r} has no web file {path!r}")
        headers = {"Cache-Control": cache_control(path), "X-Content-Type-Options": "nosniff"}
        return FileResponse(found, media_type=_content_type(found), headers=headers)

    app.include_router(router, prefix="/api")


def _hidden(path: str) -> bool:
    """Whether a segment names a hidden file or folder (``.git``, ``.env``; ``..`` too): never served."""
    return any(part.startswith(".") for part in path.split("/"))


def _content_type(path: Path) -> str:
    known = _CONTENT_TYPES.get(path.suffix.lower())
    return known or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
