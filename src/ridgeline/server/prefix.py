"""Serving under a path prefix (``ridgeline serve --path-prefix /ridgeline``), for a reverse proxy that forwards
``https://example.org/ridgeline/...`` as it is rather than stripping the prefix.

A request for ``/ridgeline/api/runs`` reaches the app with ``root_path`` set to ``/ridgeline`` and its full
``path``, as ASGI servers hand a mounted app its requests: routing, the static files, the docs page, the token
redirect and the token cookie's ``Path`` all see the prefix. ``/ridgeline`` is redirected to ``/ridgeline/``
(the page's URLs are relative to it); any path outside the prefix is a 404 that names it. A pure ASGI
middleware: no per-request task, no body copy.
"""

from __future__ import annotations

import re

import orjson
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["PathPrefix", "normalise_prefix"]

# One path segment: what RFC 3986 allows unencoded, and percent-escapes.
_SEGMENT = re.compile(r"(?:[A-Za-z0-9._~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2})+")


def normalise_prefix(prefix: str) -> str:
    """``prefix`` as the app compares it: ``/ridgeline/`` and ``ridgeline`` become ``/ridgeline``; ``""`` and
    ``/`` mean none (``""``). ValueError for one that is not a plain path (a query, a fragment, ``..``, ``//``)."""
    text = prefix.strip()
    if text in ("", "/"):
        return ""
    text = "/" + text.strip("/")
    segments = text.split("/")[1:]
    for segment in segments:
        if segment in (".", "..") or not _SEGMENT.fullmatch(segment):
            raise ValueError(
                f"{prefix!r} is not a path prefix: give a path such as /ridgeline or /teams/vision/ridgeline "
                "(letters, digits and -._~ in each part; no query, fragment, '..' or empty part)"
            )
    return text


class PathPrefix:
    """Serves ``app`` under ``prefix`` (normalised, not empty)."""

    def __init__(self, app: ASGIApp, prefix: str) -> None:
        if not prefix or normalise_prefix(prefix) != prefix:
            raise ValueError(f"the path prefix must be normalised and not empty, got {prefix!r}")
        self.app = app
        self.prefix = prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        if path.startswith(self.prefix + "/"):
            await self.app({**scope, "root_path": scope.get("root_path", "") + self.prefix}, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        if path == self.prefix:
            query = scope.get("query_string", b"")
            location = (self.prefix + "/").encode() + (b"?" + query if query else b"")
            await _respond(send, 308, b"", [(b"location", location)])
            return
        shown = path if len(path) <= 200 else path[:200] + "..."
        message = f"not found: {shown} is outside {self.prefix}/, where this server serves (--path-prefix)"
        await _respond(send, 404, orjson.dumps({"error": message}), [(b"content-type", b"application/json")])


async def _respond(send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    length = (b"content-length", str(len(body)).encode())
    await send({"type": "http.response.start", "status": status, "headers": [*headers, length]})
    await send({"type": "http.response.body", "body": body})
