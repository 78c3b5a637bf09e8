"""Per-app state for plugins: the served log directory, settings, and objects made once per app.

The server puts the :class:`~ridgeline.store.logdir.LogDir` and the settings on the app when it creates it;
plugins read them here rather than reaching into ``app.state`` by name, and keep their own per-app objects (a
table cache, an alert monitor) with :func:`app_service`, which makes each once, thread-safely.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

from starlette.requests import HTTPConnection

from ridgeline.store.logdir import LogDir

T = TypeVar("T")
_LOCK = threading.Lock()


def logdir_of(request: HTTPConnection) -> LogDir:
    """The log directory this app serves."""
    served: LogDir = request.app.state.logdir
    return served


def setting(request: HTTPConnection, name: str) -> Any:
    """The value of setting ``name`` for this app (see :mod:`ridgeline.settings`); KeyError for an unknown name."""
    settings: dict[str, Any] = request.app.state.settings
    return settings[name]


def app_service(request: HTTPConnection, name: str, make: Callable[[], T]) -> T:
    """The app's object called ``name``, made by ``make()`` the first time any request asks for it."""
    services: dict[str, Any] = request.app.state.services
    with _LOCK:
        found = services.get(name)
        if found is None:
            found = services[name] = make()
    made: T = found
    return made
