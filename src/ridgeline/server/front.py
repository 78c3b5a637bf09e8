"""What ``ridgeline serve`` answers from its first moment: the app uvicorn serves while the full one is built.

Importing FastAPI and every dashboard takes most of a second, and the first pass over a large log directory
longer; neither has to finish before the server answers (issue 15's fast start). :class:`Front` is a pure ASGI
app, imported with nothing of the web stack: until :meth:`Front.ready` hands it the full app, it answers the
built page's own files itself (``index.html``, ``boot.js``, ``assets/...``: the browser loads and parses the
page meanwhile), once the log directory is open the first data requests (:mod:`ridgeline.server.early`), and
holds every other request until the app is there, then passes it on; from then on everything is the app's. It
drives the app's lifespan as a server would, once the app is there, and ends it when the server stops.

:func:`protect` wraps an app in the middleware every answer goes through (security headers, the path prefix,
the body limit, the token), in the order :func:`ridgeline.server.app.create_app` adds them: around the front,
the page's files get the same checks as the app's answers.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import mimetypes
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ridgeline.server.auth import TokenAuth
from ridgeline.server.files import STATIC_DIR, cache_control, resolve
from ridgeline.server.prefix import PathPrefix
from ridgeline.server.security import BodyLimit, SecurityHeaders

if TYPE_CHECKING:
    from ridgeline.server.early import EarlyAnswers

__all__ = ["Front", "middleware", "protect"]


def middleware(token: str | None, prefix: str) -> list[tuple[Any, dict[str, Any]]]:
    """The middleware classes and their options, innermost first (``prefix`` normalised, "" for none)."""
    layers: list[tuple[Any, dict[str, Any]]] = []
    if token is not None:
        layers.append((TokenAuth, {"token": token}))
    layers.append((BodyLimit, {}))
    if prefix:
        layers.append((PathPrefix, {"prefix": prefix}))  # outside the token check, which reads the prefix
    layers.append((SecurityHeaders, {}))  # outermost: a 401 or a 413 carries the headers too
    return layers


def protect(app: ASGIApp, *, token: str | None, prefix: str) -> ASGIApp:
    """``app`` behind :func:`middleware`."""
    for layer, options in middleware(token, prefix):
        app = layer(app, **options)
    return app


class Front:
    """The ASGI app a server runs before the full app exists (module docstring).

    ``on_start`` is called when the server starts (its lifespan startup), ``on_stop`` when it begins to stop,
    before the app's own lifespan ends, ``on_hold`` (from the event loop) each time a request has to wait for the
    app: neither the page's files nor the early answers answer it. ``static_dir`` is the built UI (default: the
    package's).
    """

    def __init__(
        self,
        *,
        static_dir: Path | None = None,
        on_start: Callable[[], None] | None = None,
        on_stop: Callable[[], None] | None = None,
        on_hold: Callable[[], None] | None = None,
    ) -> None:
        self._root = (static_dir or STATIC_DIR).resolve()
        self._app: concurrent.futures.Future[ASGIApp] = concurrent.futures.Future()
        self._on_start = on_start
        self._on_stop = on_stop
        self._on_hold = on_hold
        self._early: concurrent.futures.Future[EarlyAnswers] = concurrent.futures.Future()

    # --- from any thread ----------------------------------------------------------------------------------------
    def answer_early(self, early: EarlyAnswers) -> None:
        """Until the full app is there, let ``early`` answer the first data requests it can answer as the app
        would (:mod:`ridgeline.server.early`); it leaves the others to be held."""
        self._early.set_result(early)

    def ready(self, app: ASGIApp) -> None:
        """Hand over the full app: held requests go to it, and so does everything after."""
        self._app.set_result(app)

    def failed(self, error: BaseException) -> None:
        """The app could not be built: held and later requests are answered 503 naming ``error``."""
        self._app.set_exception(error)

    # --- ASGI ---------------------------------------------------------------------------------------------------
    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if not self._app.done() and scope["type"] == "http":
            if await self._page_file(scope, send):
                return
            early = await self._early_answers()
            if early is not None:
                unanswered = await early.answer(scope, receive, send)
                if unanswered is None:
                    return
                receive = unanswered  # what reads the body again, if the early answers read it
        if not self._app.done() and self._on_hold is not None:
            self._on_hold()
        try:
            app = await asyncio.wrap_future(self._app)
        except Exception as error:  # the app failed to build: the server is stopping
            if scope["type"] == "http":
                await _json(send, 503, {"error": f"ridgeline could not start: {error}"})
            return
        await app(scope, receive, send)

    async def _early_answers(self) -> EarlyAnswers | None:
        """The early answers once the log directory is open, or None once the app is there (whichever first)."""
        if not self._early.done():
            # Not cancelled after: cancelling a wrapped future would cancel the one it wraps.
            waiting: set[asyncio.Future[Any]] = {asyncio.wrap_future(self._early), asyncio.wrap_future(self._app)}
            await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        if self._app.done() or not self._early.done():
            return None
        return self._early.result()

    async def _page_file(self, scope: Scope, send: Send) -> bool:
        """Answer a GET or HEAD of the page itself or one of its files, if that is what it asks; False if not."""
        if scope["method"] not in ("GET", "HEAD"):
            return False
        path: str = scope["path"]
        root_path: str = scope.get("root_path", "")
        if root_path and path.startswith(root_path):
            path = path[len(root_path) :]
        path = path.lstrip("/")
        name = "index.html" if path == "" else path
        found = resolve(self._root, name)
        if found is None or name.startswith("api/"):
            return False
        body = found.read_bytes()
        kind = "text/html; charset=utf-8" if name == "index.html" else mimetypes.guess_type(name)[0]
        headers = [
            (b"content-type", (kind or "application/octet-stream").encode()),
            (b"content-length", str(len(body)).encode()),
            (b"cache-control", cache_control(name).encode()),
        ]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})
        return True

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        inner: _Lifespan | None = None

        async def start_inner() -> None:
            nonlocal inner
            app = await asyncio.wrap_future(self._app)
            inner = _Lifespan(app)
            await inner.startup()

        starting: asyncio.Task[None] | None = None
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                if self._on_start is not None:
                    self._on_start()
                starting = asyncio.ensure_future(start_inner())
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self._on_stop is not None:
                    self._on_stop()
                if starting is not None and not starting.done():
                    starting.cancel()
                if inner is not None:
                    await inner.shutdown()
                await send({"type": "lifespan.shutdown.complete"})
                return


class _Lifespan:
    """The ASGI lifespan of ``app``, driven as a server drives it (an app without one is let be)."""

    def __init__(self, app: ASGIApp) -> None:
        self._to_app: asyncio.Queue[Message] = asyncio.Queue()
        self._from_app: asyncio.Queue[Message] = asyncio.Queue()
        scope = {"type": "lifespan", "asgi": {"version": "3.0", "spec_version": "2.0"}, "state": {}}
        self._task = asyncio.ensure_future(app(scope, self._to_app.get, self._from_app.put))
        self._started = False

    async def startup(self) -> None:
        self._started = await self._step("lifespan.startup")

    async def shutdown(self) -> None:
        if self._started:
            await self._step("lifespan.shutdown")

    async def _step(self, what: str) -> bool:
        await self._to_app.put({"type": what})
        answer = asyncio.ensure_future(self._from_app.get())
        await asyncio.wait({answer, self._task}, return_when=asyncio.FIRST_COMPLETED)
        if not answer.done():  # the app's lifespan ended (it has none, or it raised)
            answer.cancel()
            return False
        message = answer.result()
        if message["type"] == f"{what}.failed":
            raise RuntimeError(message.get("message") or f"{what} failed")
        return True


async def _json(send: Send, status: int, content: dict[str, Any]) -> None:
    body = orjson.dumps(content)
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
