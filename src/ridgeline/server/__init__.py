"""The HTTP server: a FastAPI app over a LogDir, with dashboards registered as plugins (see docs/plugins.md)."""

from __future__ import annotations

from ridgeline.server.app import create_app

__all__ = ["create_app"]
