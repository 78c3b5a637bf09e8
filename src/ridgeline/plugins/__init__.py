"""Dashboards: one folder per plugin, registered with ``ridgeline.server.plugin_host`` like third-party ones."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import APIRouter


@dataclass(frozen=True)
class BuiltinPlugin:
    """A built-in dashboard's plugin object: its name (as the web half's ``Dashboard.name``) and its routes,
    mounted under ``prefix`` (built-ins claim ``/api``; third-party plugins are served under
    ``/api/plugins/<name>/``)."""

    name: str
    router: APIRouter
    prefix: str = "/api"


__all__ = ["BuiltinPlugin"]
