"""An optional shared token in front of the whole app (``ridgeline serve --token`` or ``RIDGELINE_TOKEN``).

A request is let through when it carries the token as ``Authorization: Bearer <token>``, as the cookie this
middleware sets, or once as ``?token=<token>`` (the URL the CLI prints): that sets the cookie, and a page
navigation is redirected to the same URL without the token, so it stays out of the address bar and history.
Anything else is answered ``401 {"error": ...}``. A pure ASGI middleware: no per-request task or body copy.
"""

from __future__ import annotations

import hmac
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qsl, urlencode

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
        self._token = token.encode()

    def _matches(self, candidate: str | None) -> bool:
        return candidate is not None and hmac.compare_digest(candidate.encode(), self._token)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        cookie_name = _cookie_name(scope)
        bearer = headers.get("authorization", "")
        if bearer[:7].lower() == "bearer " and self._matches(bearer[7:].strip()):
            await self.app(scope, receive, send)
            return
        cookies = SimpleCookie()
        try:
            cookies.load(headers.get("cookie", ""))
        except Exception:  # a malformed Cookie header is no credential
            cookies = SimpleCookie()
        if cookie_name in cookies and self._matches(cookies[cookie_name].value):
            await self.app(scope, receive, send)
            return
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        given = [value for key, value in query if key == "token"]
        if given and self._matches(given[-1]):
            await self._accept_query_token(scope, receive, send, cookie_name, query)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        await _respond(send, 401, orjson.dumps({"error": UNAUTHORISED}), [(b"content-type", b"application/json")])

    async def _accept_query_token(
        self, scope: Scope, receive: Receive, send: Send, cookie_name: str, query: list[tuple[str, str]]
    ) -> None:
        cookie = f"{cookie_name}={self._token.decode()}; Path=/; HttpOnly; SameSite=Strict".encode()
        path: str = scope.get("path", "/")
        if scope["type"] == "http" and scope.get("method") == "GET" and not path.startswith("/api/"):
            rest = urlencode([(key, value) for key, value in query if key != "token"])
            location = (scope.get("root_path", "") + path + (f"?{rest}" if rest else "")).encode()
            await _respond(send, 303, b"", [(b"location", location), (b"set-cookie", cookie)])
            return

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), (b"set-cookie", cookie)]}
            await send(message)

        await self.app(scope, receive, send_with_cookie)


def _headers(scope: Scope) -> dict[str, str]:
    return {key.decode("latin-1").lower(): value.decode("latin-1") for key, value in scope.get("headers", [])}


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
