"""An optional shared token in front of the whole app (``ridgeline serve --token`` or ``RIDGELINE_TOKEN``).

A request is let through when it carries the token as ``Authorization: Bearer <token>``, as the cookie this
middleware sets, or once as ``?token=<token>`` (the URL the CLI prints): that sets the cookie, and a page
navigation is redirected to the same URL without the token, so it stays out of the address bar and history.
Anything else is answered ``401 {"error": ...}``. A pure ASGI middleware: no per-request task or body copy.

Tokens are compared as UTF-8 bytes in constant time (any Unicode token works, in the header, the query — where
browsers percent-encode it — and the cookie, which holds it percent-encoded). A request naming ``token`` twice
in its query is refused whatever the values (which one counts would be a guess). The cookie is ``HttpOnly`` and
``SameSite=Strict``, ``Secure`` when the request came over HTTPS, and its ``Path`` is the app's root (``/``, or
the ``--path-prefix``). Cookies that Python's ``http.cookies``
cannot parse (``prefs={"theme":"dark"}``) do not hide ours: the header is split by hand.
"""

from __future__ import annotations

import hmac
from typing import Any
from urllib.parse import parse_qsl, quote, unquote_to_bytes, urlencode

import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send

UNAUTHORISED = (
    "this ridgeline server needs its token: open the URL it printed (ending in ?token=...), "
    "or send the header 'Authorization: Bearer <token>'"
)


class TokenAuth:
    def __init__(self, app: ASGIApp, token: str) -> None:
        if not token:
            raise ValueError("the token must not be empty")
        self.app = app
        self._token = token.encode("utf-8")

    def _matches(self, candidate: bytes | None) -> bool:
        return candidate is not None and hmac.compare_digest(candidate, self._token)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        cookie_name = _cookie_name(scope)
        bearer = headers.get(b"authorization", b"")
        if bearer[:7].lower() == b"bearer " and self._matches(bearer[7:].strip()):
            await self.app(scope, receive, send)
            return
        if self._matches(_cookie(headers.get(b"cookie", b""), cookie_name)):
            await self.app(scope, receive, send)
            return
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        given = [value for key, value in query if key == "token"]
        if len(given) == 1 and self._matches(given[0].encode("utf-8")):
            await self._accept_query_token(scope, receive, send, cookie_name, query)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        await _respond(send, 401, orjson.dumps({"error": UNAUTHORISED}), [(b"content-type", b"application/json")])

    async def _accept_query_token(
        self, scope: Scope, receive: Receive, send: Send, cookie_name: str, query: list[tuple[str, str]]
    ) -> None:
        secure = "; Secure" if scope.get("scheme") in ("https", "wss") else ""
        value = quote(self._token, safe="")
        root, path = _paths(scope)
        cookie = f"{cookie_name}={value}; Path={root}/; HttpOnly; SameSite=Strict{secure}".encode()
        if scope["type"] == "http" and scope.get("method") == "GET" and not path.startswith("/api/"):
            rest = urlencode([(key, value) for key, value in query if key != "token"])
            location = (root + path + (f"?{rest}" if rest else "")).encode()
            await _respond(send, 303, b"", [(b"location", location), (b"set-cookie", cookie)])
            return

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), (b"set-cookie", cookie)]}
            await send(message)

        await self.app(scope, receive, send_with_cookie)


def _paths(scope: Scope) -> tuple[str, str]:
    """The app's root path (``/ridgeline`` under ``--path-prefix``, else empty) and the request's path below it.
    ASGI servers pass a mounted app's ``path`` with the root path in front; an older convention, without."""
    root: str = scope.get("root_path", "").rstrip("/")
    path: str = scope.get("path", "/")
    if root and (path == root or path.startswith(root + "/")):
        path = path[len(root) :] or "/"
    return root, path


def _headers(scope: Scope) -> dict[bytes, bytes]:
    return {key.lower(): value for key, value in scope.get("headers", [])}


def _cookie(header: bytes, name: str) -> bytes | None:
    """The value of cookie ``name`` (percent-decoded to bytes), or None; other cookies, parsable or not, are
    skipped."""
    wanted = name.encode()
    for part in header.split(b";"):
        key, sep, value = part.strip().partition(b"=")
        if sep and key == wanted:
            return unquote_to_bytes(value.strip().strip(b'"'))
    return None


def _cookie_name(scope: Scope) -> str:
    """One cookie per port: browsers share cookies across the ports of a host."""
    server: Any = scope.get("server")
    port = server[1] if server and len(server) > 1 and server[1] else "default"
    return f"ridgeline_token_{port}"


async def _respond(send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    await send({"type": "http.response.start", "status": status, "headers": [*headers, _length(body)]})
    await send({"type": "http.response.body", "body": body})


def _length(body: bytes) -> tuple[bytes, bytes]:
    return (b"content-length", str(len(body)).encode())
