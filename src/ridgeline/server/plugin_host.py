"""The plugin registry: built-in dashboards register exactly like third-party ones.

A plugin is any object with a ``name`` (``^[a-z][a-z0-9_]*$``) and a ``router`` (a ``fastapi.APIRouter``);
its routes are served under ``/api/plugins/<name>/``, or under its ``prefix`` attribute when it has one (the
built-in scalars plugin answers the documented ``/api/scalars*``). Invalid and duplicate names are rejected when the app
is created (``ValueError``), never silently shadowed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Protocol, runtime_checkable

from fastapi import APIRouter, FastAPI

PLUGIN_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
PREFIX = "/api/plugins"


@runtime_checkable
class Plugin(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def router(self) -> APIRouter: ...


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
