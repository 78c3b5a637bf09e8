"""The first data requests answered before the full app exists (issue 15's fast start).

Importing FastAPI, pydantic and every dashboard costs most of a second; the log directory's first pass often less.
:class:`EarlyAnswers` answers, from the moment the log directory is open, the requests a page or a script makes
first: ``GET /api/runs``, ``GET /api/scalars`` and ``POST /api/scalars/batch``, with the same functions the full
app's routes call (``ridgeline.services.runs``, ``ridgeline.plugins.scalars.answers``), the same status, headers
and body. It imports no web stack.

It answers only what it can answer exactly as the full app would: a plain request whose every parameter is
well formed. Anything else (a regex filter, a malformed or out-of-range parameter, an unknown series, a body that
is not plain JSON of the documented shape, HEAD) returns its request unanswered, and
:class:`ridgeline.server.front.Front` holds it until the full app answers it, errors included. The token, the
path prefix, the body limit and the security headers are the middleware around the front
(:func:`ridgeline.server.front.protect`), so they apply here as everywhere.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl

import orjson
from starlette.types import Message, Receive, Scope, Send

from ridgeline.plugins.scalars import binary
from ridgeline.plugins.scalars.answers import MAX_BATCH_SERIES, REDUCED, batch_entries
from ridgeline.plugins.scalars.series import Window
from ridgeline.services.runs import RunIndex
from ridgeline.store.logdir import LogDir

__all__ = ["EarlyAnswers"]

# A query integer as pydantic reads it without doubt (no sign on zero, no leading zero, no space), within int64.
_INTEGER = re.compile(r"0|-?[1-9][0-9]{0,17}")
_WINDOW_KEYS = ("max_points", "since_step", "min_step", "max_step")
_JSON = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS  # what ridgeline.plugins.kit.OrjsonResponse passes
_READ_LIMIT = 64 << 20  # a batch body is read here at most this long (the body limit around the front is lower)


class EarlyAnswers:
    """Answers of the full app over ``logdir`` for its first requests (module docstring). ``loading``,
    ``reload_interval``, ``logdir_label`` and ``crashed_after`` are what ``create_app`` is given."""

    def __init__(
        self,
        logdir: LogDir,
        *,
        loading: Callable[[], dict[str, Any] | None],
        reload_interval: float | None,
        logdir_label: str,
        crashed_after: float,
    ) -> None:
        self._logdir = logdir
        self._loading = loading
        self._reload_interval = reload_interval
        self._label = logdir_label
        self.run_index = RunIndex(logdir, crashed_after=crashed_after)
        self._busy = 0
        self._idle = threading.Condition()
        self._last = time.monotonic()  # when the last answer ended (or these answers began)
        self._woken = False

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no request is being answered here (at most ``timeout`` seconds); whether none is."""
        with self._idle:
            return self._idle.wait_for(lambda: self._busy == 0, timeout)

    def wait_quiet(self, quiet: float, longest: float) -> None:
        """Wait until nothing was answered here for ``quiet`` seconds, :meth:`wake` was called, or ``longest``
        seconds passed."""
        deadline = time.monotonic() + longest
        with self._idle:
            while not self._woken:
                now = time.monotonic()
                if now >= deadline or (self._busy == 0 and now - self._last >= quiet):
                    return
                until = deadline if self._busy else min(deadline, self._last + quiet)
                self._idle.wait(until - now)

    def wake(self) -> None:
        """End every :meth:`wait_quiet`, now and later."""
        with self._idle:
            self._woken = True
            self._idle.notify_all()

    async def answer(self, scope: Scope, receive: Receive, send: Send) -> Receive | None:
        """Answer the request, returning None; or leave it unanswered, returning what reads its body (the body
        this read, then ``receive``'s) for whoever answers it."""
        with self._idle:
            self._busy += 1
        try:
            return await self._answer(scope, receive, send)
        finally:
            with self._idle:
                self._busy -= 1
                self._last = time.monotonic()
                self._idle.notify_all()

    async def _answer(self, scope: Scope, receive: Receive, send: Send) -> Receive | None:
        path: str = scope["path"]
        root: str = scope.get("root_path", "")
        if root:
            if not path.startswith(root + "/"):
                return receive
            path = path[len(root) :]
        method = scope["method"]
        query = scope.get("query_string", b"")
        if method == "GET" and path == "/api/runs":
            found = _query(query, ())
            answered = found is not None and await self._runs(send, found)
            return None if answered else receive
        if method == "GET" and path == "/api/scalars":
            found = _query(query, ("run", "tag", *_WINDOW_KEYS))
            answered = found is not None and await self._scalars(send, found)
            return None if answered else receive
        if method == "POST" and path == "/api/scalars/batch":
            return await self._batch(scope, receive, send)
        return receive

    async def _runs(self, send: Send, query: dict[str, str]) -> bool:
        if "run_regex" in query or "tag_regex" in query:
            return False
        loading = self._loading()  # before the listing, as the full app does
        generation, listing = self.run_index.current()
        content = {
            "runs": listing,
            "generation": generation,
            "reload_interval": self._reload_interval,
            "logdir": self._label,
            "loading": loading,
        }
        await _respond(send, orjson.dumps(content, option=_JSON), b"application/json")
        return True

    async def _scalars(self, send: Send, query: dict[str, str]) -> bool:
        window = _window({key: query[key] for key in _WINDOW_KEYS if key in query})
        if window is None or "run" not in query or "tag" not in query:
            return False
        run, tag = query["run"], query["tag"]
        try:
            body = await asyncio.get_running_loop().run_in_executor(None, self._series, run, tag, window)
        except KeyError:  # an unknown series: the full app's 404
            return False
        await _respond(send, body, b"application/json")
        return True

    def _series(self, run: str, tag: str, window: Window) -> bytes:
        return orjson.dumps(REDUCED.payload(self._logdir, run, tag, window), option=_JSON)

    async def _batch(self, scope: Scope, receive: Receive, send: Send) -> Receive | None:
        body, messages = await _read_body(receive)
        replay = _replaying(messages, receive)
        if body is None or not _json_content(scope):
            return replay
        request = _batch_request(body)
        query = _query(scope.get("query_string", b""), ("format",))
        if request is None or query is None or query.get("format", "json") not in ("json", "binary"):
            return replay
        keys, window = request
        if "format" in query:
            wants_binary = query["format"] == "binary"
        else:
            wants_binary = binary.MEDIA_TYPE in _header(scope, b"accept")
        answer = await asyncio.get_running_loop().run_in_executor(None, self._batch_body, keys, window, wants_binary)
        await _respond(send, answer, binary.MEDIA_TYPE.encode() if wants_binary else b"application/json")
        return None

    def _batch_body(self, keys: list[tuple[str, str]], window: Window, wants_binary: bool) -> bytes:
        results = batch_entries(self._logdir, keys, window)
        if wants_binary:
            return binary.encode_batch(results)
        return orjson.dumps({"series": results}, option=_JSON)


def _query(raw: bytes, keys: tuple[str, ...]) -> dict[str, str] | None:
    """The query's values of ``keys`` (others are ignored, as the full app ignores them; the regex filters of
    /api/runs are kept to be seen), or None when one of them is given twice."""
    found: dict[str, str] = {}
    for key, value in parse_qsl(raw.decode("latin-1"), keep_blank_values=True):
        if key in keys or key in ("run_regex", "tag_regex"):
            if key in found:
                return None
            found[key] = value
    return found


def _window(values: dict[str, Any]) -> Window | None:
    """The window of these parameters (query strings or JSON values), or None unless each is an integer the
    full app takes as it is (``max_points`` at least 2)."""
    numbers: dict[str, int | None] = {}
    for key, value in values.items():
        if value is None:  # JSON's null (a query value is never None)
            numbers[key] = None
        elif isinstance(value, str) and _INTEGER.fullmatch(value):
            numbers[key] = int(value)
        elif type(value) is int and -(2**63) <= value < 2**63:
            numbers[key] = value
        else:
            return None
    max_points = numbers.get("max_points")
    if max_points is not None and max_points < 2:
        return None
    return Window(max_points, numbers.get("since_step"), numbers.get("min_step"), numbers.get("max_step"))


def _batch_request(body: bytes) -> tuple[list[tuple[str, str]], Window] | None:
    """The series and window of a batch body of exactly the documented shape, or None."""
    try:
        request = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(request, dict) or "series" not in request or set(request) - {"series", *_WINDOW_KEYS}:
        return None
    series = request["series"]
    if not isinstance(series, list) or len(series) > MAX_BATCH_SERIES:
        return None
    keys: list[tuple[str, str]] = []
    for key in series:
        if not isinstance(key, dict) or set(key) != {"run", "tag"}:
            return None
        run, tag = key["run"], key["tag"]
        if not isinstance(run, str) or not isinstance(tag, str):
            return None
        keys.append((run, tag))
    window = _window({key: request[key] for key in _WINDOW_KEYS if key in request})
    if window is None:
        return None
    return keys, window


def _json_content(scope: Scope) -> bool:
    """Whether the body is JSON as FastAPI reads it without doubt: one ``Content-Type``, application/json (without
    one, FastAPI does not read the body as JSON)."""
    found = [value for key, value in scope.get("headers", ()) if key == b"content-type"]
    return len(found) == 1 and found[0].split(b";")[0].strip().lower() == b"application/json"


def _header(scope: Scope, name: bytes) -> str:
    """The first value of header ``name`` (as Starlette's ``request.headers.get``), or ""."""
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value).decode("latin-1")
    return ""


async def _read_body(receive: Receive) -> tuple[bytes | None, list[Message]]:
    """The request's body and the messages it came in (None for the body when the client left, or it is over
    :data:`_READ_LIMIT`: the full app reads it again from the messages)."""
    messages: list[Message] = []
    size = 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return None, messages
        size += len(message.get("body", b""))
        if size > _READ_LIMIT:
            return None, messages
        if not message.get("more_body", False):
            return b"".join(m.get("body", b"") for m in messages), messages


def _replaying(messages: list[Message], receive: Receive) -> Receive:
    """A receive that gives ``messages`` again, then ``receive``'s."""
    pending = list(messages)

    async def replay() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replay


async def _respond(send: Send, body: bytes, media_type: bytes) -> None:
    """A 200 with the headers Starlette's ``Response`` writes (the middleware around adds the rest)."""
    headers = [(b"content-length", str(len(body)).encode()), (b"content-type", media_type)]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})
