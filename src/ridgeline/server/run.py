"""Running the app: bind the socket ourselves, hand it to uvicorn; or answer one request in-process.

Binding first (before the log directory is read) makes a port in use fail at once with a clear message, and
lets ``--port 0`` print the port the system chose. uvicorn then serves on that socket, running the app's
lifespan (which starts the background reload).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import ipaddress
import signal
import socket
import threading
from collections.abc import Coroutine, Generator, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import unquote, urlsplit

import uvicorn
from starlette.types import ASGIApp, Message

from ridgeline.server.security import HostCheck, allowed_hosts

# On SIGTERM or Ctrl-C the server stops accepting at once, closes idle connections and lets requests in flight
# finish for up to this long (then cancels them), and stops the background reload: a prompt, clean exit.
GRACE_SECONDS = 30
# The signals that stop the server; it then returns (exit status 0) instead of dying by the signal.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class PortInUse(OSError):
    """The port is taken (another server, or an earlier ridgeline still running)."""


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (port 0: a free one). Raises PortInUse, or OSError naming the
    address for anything else (an unknown host name, an address this machine does not have)."""
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as error:
        raise OSError(f"cannot resolve host {host!r}: {error.strerror}") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        # Lets a restart reuse a port whose old connections linger in TIME_WAIT; a live listener still blocks it.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6 and hasattr(socket, "IPPROTO_IPV6"):
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        sock.bind(address)
        sock.listen(2048)
    except OSError as error:
        sock.close()
        if error.errno == errno.EADDRINUSE:
            raise PortInUse(errno.EADDRINUSE, f"port {port} is already in use on {host}") from None
        raise OSError(error.errno, f"cannot listen on {host}:{port}: {error.strerror}") from None
    sock.set_inheritable(True)
    return sock


def is_loopback(host: str) -> bool:
    """Whether only this machine can reach ``host`` (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def url_for(host: str, port: int) -> str:
    """The URL to print: a wildcard address becomes this machine's name (what another machine would open)."""
    if host in ("", "0.0.0.0", "::"):
        host = socket.gethostname()
    if ":" in host:
        host = f"[{host.strip('[]')}]"
    return f"http://{host}:{port}/"


def make_server(app: ASGIApp, sock: socket.socket, *, allow_hosts: Iterable[str] = ()) -> Server:
    """The uvicorn server for ``app`` on ``sock``; requests must name in ``Host`` the address ``sock`` is bound to,
    a loopback name, or one of ``allow_hosts`` (see :mod:`ridgeline.server.security`)."""
    bound = str(sock.getsockname()[0])
    config = uvicorn.Config(
        HostCheck(app, allowed_hosts(bound, allow_hosts)),
        log_level="warning",
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=GRACE_SECONDS,
        server_header=False,
    )
    return Server(config)


class Server(uvicorn.Server):
    """uvicorn's server, which after a graceful shutdown on SIGINT or SIGTERM returns, where uvicorn's own raises
    the signal again once its handlers are restored (the process then dies by it: status -15, or a
    KeyboardInterrupt). A server stopped by its scheduler ends with status 0, as one stopped by Ctrl-C does."""

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        if threading.current_thread() is not threading.main_thread():  # only the main thread may take signals
            yield
            return
        original = {sig: signal.signal(sig, self.handle_exit) for sig in STOP_SIGNALS}
        try:
            yield
        finally:
            for sig, handler in original.items():
                signal.signal(sig, handler)


def serve(app: ASGIApp, sock: socket.socket, *, allow_hosts: Iterable[str] = ()) -> None:
    """Serve until Ctrl-C or SIGTERM, then return once uvicorn has shut down gracefully."""
    make_server(app, sock, allow_hosts=allow_hosts).run(sockets=[sock])


def request_in_process(app: ASGIApp, target: str, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    """``GET target`` (a path with its query) answered by the app without a socket: status and body.

    The app's lifespan is not run (no background reload): one request over what was read at startup.
    """
    parts = urlsplit(target)
    path = parts.path or "/"
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": unquote(path),
        "raw_path": path.encode(),
        "query_string": parts.query.encode(),
        "root_path": "",
        "headers": [(b"host", b"localhost"), *((k.lower().encode(), v.encode()) for k, v in (headers or {}).items())],
        "client": ("127.0.0.1", 0),
        "server": ("127.0.0.1", 0),
        "state": {},
    }
    status = 500
    body = bytearray()

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = int(message["status"])
        elif message["type"] == "http.response.body":
            body.extend(message.get("body", b""))

    run_to_completion(app(scope, receive, send))  # type: ignore[arg-type]
    return status, bytes(body)


def run_to_completion(coroutine: Coroutine[Any, Any, None]) -> None:
    """``asyncio.run``, also where this thread already runs an event loop (a notebook, Playwright's sync API):
    there the coroutine runs on a fresh loop in a helper thread, since asyncio.run refuses a nested loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(coroutine)
        return
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(asyncio.run, coroutine).result()
