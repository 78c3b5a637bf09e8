"""The HTTP server: a FastAPI app over a LogDir, with dashboards registered as plugins (see docs/plugins.md).

``create_app`` is imported on first use: ``ridgeline serve`` starts answering (``ridgeline.server.front``) while
FastAPI and the dashboards are still being imported.
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
    raise AttributeError(f"module 'ridgeline.server' has no attribute {name!r}")
