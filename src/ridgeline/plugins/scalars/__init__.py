"""The scalars dashboard: its plugin object. Its routes are the documented ``/api/scalars*`` ones (a built-in
plugin may claim a prefix; third-party plugins are served under ``/api/plugins/<name>/``).

``plugin`` is made on first use, so that ``ridgeline.plugins.scalars.answers`` (what the server answers before
FastAPI is imported) imports no FastAPI.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ridgeline.plugins.kit import BuiltinPlugin

    plugin: BuiltinPlugin

__all__ = ["plugin"]


def __getattr__(name: str) -> Any:
    if name == "plugin":
        from ridgeline.plugins.kit import BuiltinPlugin
        from ridgeline.plugins.scalars.routes import router

        found = BuiltinPlugin(name="scalars", router=router, order=10)
        globals()["plugin"] = found
        return found
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
