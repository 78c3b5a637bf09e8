"""The HTTP server: a FastAPI app over a LogDir, with dashboards registered as plugins.

``create_app`` is imported on first use: plugins import ``ridgeline.server.responses``, and the app imports the
plugins, so importing a plugin first must not import the app.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ridgeline.server.app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from ridgeline.server.app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
