"""The plugin kit: everything a dashboard's Python half may use besides the store and the services.

A plugin (built-in or third-party) is an object with a ``name`` and a FastAPI ``router`` (see :class:`Plugin`),
registered through the ``ridgeline.plugins`` entry-point group (docs/plugins.md). Its routes read the served log
directory with :func:`logdir_of`, keep per-app objects (caches, monitors) with :func:`app_service`, read settings with
:func:`setting`, and answer through :class:`OrjsonResponse` / :class:`ApiError` so every error is
``{"error": message}``. Plugins import nothing of ingest, nothing of the server and nothing of another plugin.
"""

from __future__ import annotations

from ridgeline.plugins.kit.params import RunRegex, TagRegex, compile_regex, regex_query
from ridgeline.plugins.kit.plugin import BuiltinPlugin, Plugin
from ridgeline.plugins.kit.responses import ApiError, OrjsonResponse, error, missing_as_404, wants_binary
from ridgeline.plugins.kit.state import app_service, logdir_of, setting

__all__ = [
    "ApiError",
    "BuiltinPlugin",
    "OrjsonResponse",
    "Plugin",
    "RunRegex",
    "TagRegex",
    "app_service",
    "compile_regex",
    "error",
    "logdir_of",
    "missing_as_404",
    "regex_query",
    "setting",
    "wants_binary",
]
