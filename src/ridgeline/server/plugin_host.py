"""The plugin registry: built-in dashboards register exactly like third-party ones, through entry points.

A plugin is any object with a ``name`` (``^[a-z][a-z0-9_]*$``) and a ``router`` (a ``fastapi.APIRouter``) — see
:mod:`ridgeline.plugins.kit.plugin`. :func:`discover` loads every entry point of the ``ridgeline.plugins`` group
(ridgeline's own dashboards are declared there in its pyproject.toml, a third-party package declares its own);
routes are served under ``/api/plugins/<name>/``, or under the plugin's ``prefix`` when it has one. Invalid and
duplicate names are rejected when the app is created (``ValueError``), never silently shadowed.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator
from importlib.metadata import EntryPoint, entry_points

from fastapi import APIRouter, FastAPI

from ridgeline.plugins.kit.plugin import DEFAULT_ORDER, Plugin

GROUP = "ridgeline.plugins"
PLUGIN_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
PREFIX = "/api/plugins"
_BUILTIN_MODULE = "ridgeline.plugins."
NOT_INSTALLED = (
    "ridgeline's dashboards are registered as entry points of its installed package, and none were found: "
    "reinstall it (pip install -e . in a checkout, or pip install ridgeline)"
)


def discover() -> list[Plugin]:
    """Every plugin of the ``ridgeline.plugins`` entry-point group, in ``order`` (then name).

    A built-in that fails to load is an error (the installation is broken); a third-party one is reported on
    stderr and left out, so one broken package does not take the server down."""
    points = list(_unique(entry_points(group=GROUP)))
    if not any(point.value.startswith(_BUILTIN_MODULE) for point in points):
        raise RuntimeError(NOT_INSTALLED)
    found: list[Plugin] = []
    for point in points:
        try:
            found.append(point.load())
        except Exception as error:
            if point.value.startswith(_BUILTIN_MODULE):
                raise
            print(
                f"ridgeline: plugin {point.name!r} ({point.value}) failed to load, left out: {error!r}", file=sys.stderr
            )
    return sorted(found, key=lambda plugin: (getattr(plugin, "order", DEFAULT_ORDER), getattr(plugin, "name", "")))


def _unique(points: Iterable[EntryPoint]) -> Iterator[EntryPoint]:
    """One entry point per (name, value): an editable install can list a distribution twice."""
    seen: set[tuple[str, str]] = set()
    for point in points:
        if (point.name, point.value) not in seen:
            seen.add((point.name, point.value))
            yield point


class PluginHost:
    """An ordered set of plugins with unique, valid names."""

    def __init__(self, plugins: Iterable[Plugin] = ()) -> None:
        self._plugins: dict[str, Plugin] = {}
        for plugin in plugins:
            self.register(plugin)

    def register(self, plugin: Plugin) -> None:
        name = getattr(plugin, "name", None)
        if not isinstance(name, str) or not PLUGIN_NAME.match(name):
            raise ValueError(f"invalid plugin name {name!r}: must match {PLUGIN_NAME.pattern}")
        if not isinstance(getattr(plugin, "router", None), APIRouter):
            raise ValueError(f"plugin {name!r} has no fastapi.APIRouter as its router")
        if name in self._plugins:
            raise ValueError(f"duplicate plugin name {name!r}: a plugin of that name is already registered")
        self._plugins[name] = plugin

    def __iter__(self) -> Iterator[Plugin]:
        return iter(self._plugins.values())

    def names(self) -> list[str]:
        return list(self._plugins)

    def mount(self, app: FastAPI) -> None:
        for plugin in self:
            prefix = getattr(plugin, "prefix", None) or f"{PREFIX}/{plugin.name}"
            app.include_router(plugin.router, prefix=prefix, tags=[plugin.name])
