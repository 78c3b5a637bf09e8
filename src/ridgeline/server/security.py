"""Headers every answer carries, and the Host check that keeps other origins' pages out (docs/security.md).

* **Host checking.** A page on another origin can make the browser send requests to 127.0.0.1 — and, through
  DNS rebinding (its own host name re-pointed at 127.0.0.1), read the answers. The browser then sends that other
  name in ``Host``; a request whose Host is not one this server answers to gets a 400 naming the option that
  allows it. Allowed by default: the bound address, ``localhost``, ``127.0.0.1`` and ``::1`` (and, when bound to
  every interface, this machine's names), plus what ``--allow-host`` adds (``*`` allows any).
* **Security headers.** A Content-Security-Policy that lets the page run only its own scripts (no inline
  script, no other origin, no framing), ``X-Content-Type-Options: nosniff``, ``X-Frame-Options: DENY`` and
  ``Referrer-Policy: no-referrer``. A route that sets a stricter policy of its own (the image and audio blobs:
  ``default-src 'none'; sandbox``) keeps it.

Pure ASGI middlewares: no per-request task, no body copy.
"""

from __future__ import annotations

import socket
from collections.abc import Iterable

import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send

# 'unsafe-eval' because the projector's 2-D scatter (regl, under regl-scatterplot) compiles its draw calls with
# new Function(); without it the projector cannot draw. Still no inline script and no script from elsewhere: an
# injected <script> or on* attribute does not run. (Replacing regl would let this go.)
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self' 'unsafe-eval'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; media-src 'self' blob:; connect-src 'self'; worker-src 'self' blob:; "
    "font-src 'self' data:; "
    "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)
HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
)
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
WILDCARDS = ("", "0.0.0.0", "::")


def allowed_hosts(bound: str | None, extra: Iterable[str] = ()) -> frozenset[str]:
    """The host names (without port, lower case) a server bound to ``bound`` answers to, plus ``extra``.

    ``bound`` None means the app is not served on a socket of ours (tests, ``--get``): loopback names only."""
    names = {*LOOPBACK_HOSTS, *(name.strip().lower() for name in extra if name.strip())}
    if bound is not None:
        if bound in WILDCARDS:
            names.update(_this_machine())
        else:
            names.add(bound.strip("[]").lower())
    return frozenset(names)


def _this_machine() -> set[str]:
    """This machine's names and addresses: what another machine types to reach a server on every interface."""
    names = {socket.gethostname().lower(), socket.getfqdn().lower()}
    try:
        for *_, address in socket.getaddrinfo(socket.gethostname(), None):
            names.add(str(address[0]).lower())
    except OSError:
        pass
    return names


def host_of(header: str) -> str:
    """The host part of a Host header value: ``[::1]:6006`` -> ``::1``, ``Example.org:80`` -> ``example.org``."""
    value = header.strip().lower()
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


class SecurityHeaders:
    """Adds the security headers to every HTTP answer (a route's own Content-Security-Policy stays)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {key.lower() for key, _ in headers}
                headers.extend(header for header in HEADERS if header[0] not in present)
                if b"content-security-policy" not in present:
                    headers.append((b"content-security-policy", CONTENT_SECURITY_POLICY.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


class HostCheck:
    """Answers 400 to a request whose Host header names a host not in ``hosts`` (``*`` in it allows any).

    ``ridgeline serve`` puts it in front of the app with :func:`allowed_hosts` of the address it bound; an app
    embedded elsewhere (create_app alone, in-process tests) has its host checked by whoever serves it."""

    def __init__(self, app: ASGIApp, hosts: frozenset[str]) -> None:
        self.app = app
        self.hosts = hosts
        self.any_host = "*" in hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or self.any_host:
            await self.app(scope, receive, send)
            return
        host = next((value.decode("latin-1") for key, value in scope.get("headers", []) if key == b"host"), "")
        if host_of(host) in self.hosts:
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        shown = host if len(host) <= 200 else host[:200] + "..."
        message = (
            f"this ridgeline server does not answer to the host {shown!r} (a page on another site may be trying to "
            f"reach it); open it as http://localhost:<port>/, or start it with --allow-host {host_of(host) or '<name>'}"
        )
        body = orjson.dumps({"error": message})
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *HEADERS]
        await send({"type": "http.response.start", "status": 400, "headers": headers})
        await send({"type": "http.response.body", "body": body})


MAX_BODY_BYTES = 8 << 20  # a batch of the most series it may name is about 2 MB


class BodyLimit:
    """Answers 413 to a request whose body is larger than ``limit`` bytes, before reading past the limit."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = next((value for key, value in scope.get("headers", []) if key == b"content-length"), None)
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            await _too_large(send, self.limit)
            return
        received = 0
        refused = False

        async def bounded() -> Message:
            nonlocal received, refused
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    refused = True
                    raise _BodyTooLarge
            return message

        try:
            await self.app(scope, bounded, send)
        except _BodyTooLarge:
            if refused:
                await _too_large(send, self.limit)


class _BodyTooLarge(Exception):
    pass


async def _too_large(send: Send, limit: int) -> None:
    body = orjson.dumps({"error": f"the request body is larger than {limit:,} bytes"})
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 413, "headers": headers})
    await send({"type": "http.response.body", "body": body})
