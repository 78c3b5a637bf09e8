"""The first data requests answered before the full app exists (``ridgeline.server.early``, issue 15's fast
start): on real event files, each early answer equals the full app's (status, headers, body), behind the same
token, prefix and security headers; what it cannot answer exactly it leaves to the app, body included. Real
uvicorn servers on 127.0.0.1."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

import ridgeline.api
from ridgeline.server import create_app
from ridgeline.server.early import EarlyAnswers
from ridgeline.server.front import Front, protect
from ridgeline.store.logdir import LogDir
from ridgeline.store.status import CRASHED_AFTER_S
from tests.conftest import WAIT_S, run_coroutine
from tests.server.conftest import in_thread

LABEL = "the logs"
JSON = [(b"content-type", b"application/json")]
RELOAD = 5.0


def early_for(logdir: LogDir) -> EarlyAnswers:
    return EarlyAnswers(
        logdir, loading=lambda: None, reload_interval=RELOAD, logdir_label=LABEL, crashed_after=CRASHED_AFTER_S
    )


@contextmanager
def early_and_full(logs: Path, token: str | None = None, prefix: str = "") -> Iterator[tuple[httpx.Client, ...]]:
    """Two servers over one LogDir: a front that never gets its app (so only early answers come back), and the
    full app behind the same middleware."""
    logdir = ridgeline.api.open(logs, cache=False)
    front = Front()
    front.answer_early(early_for(logdir))
    app = create_app(logdir, reload_interval=RELOAD, logdir_label=LABEL, with_middleware=False)
    with ExitStack() as stack:
        early = stack.enter_context(in_thread(protect(front, token=token, prefix=prefix)))
        full = stack.enter_context(in_thread(protect(app, token=token, prefix=prefix)))
        yield early, full
        front.failed(RuntimeError("the test is over"))  # anything still held ends


def same(early: httpx.Response, full: httpx.Response) -> None:
    assert (early.status_code, early.content) == (full.status_code, full.content)
    assert headers_of(early) == headers_of(full)


def headers_of(response: httpx.Response) -> list[tuple[str, str]]:
    """The headers but the date and the server's port in the token cookie's name (two servers, two ports)."""
    return [
        (key, re.sub(r"ridgeline_token_[0-9]+", "ridgeline_token_PORT", value))
        for key, value in response.headers.multi_items()
        if key not in ("date", "server")
    ]


SCALARS_QUERIES: list[dict[str, Any]] = [
    {"run": "mixed", "tag": "loss"},
    {"run": "mixed", "tag": "acc(top-1)[val]"},  # NaN and ±Inf: nonfinite, nulls
    {"run": "mixed", "tag": "Loss/训练"},
    {"run": "mixed", "tag": "backwards"},
    {"run": "mixed", "tag": "loss", "max_points": 50},
    {"run": "mixed", "tag": "loss", "min_step": 100, "max_step": 200, "max_points": 2},
    {"run": "mixed", "tag": "loss", "since_step": 990},
    {"run": "mixed", "tag": "loss", "since_step": -5, "max_step": 0},
    {"run": "torch", "tag": "train/acc", "max_points": 10, "unknown": "ignored"},
]

JSON_TYPE = {"content-type": "application/json"}
BATCHES: list[tuple[dict[str, Any], dict[str, str], dict[str, str]]] = [
    ({"series": [{"run": "mixed", "tag": "loss"}, {"run": "torch", "tag": "train/loss"}]}, {}, JSON_TYPE),
    ({"series": [{"run": "mixed", "tag": "acc(top-1)[val]"}, {"run": "nope", "tag": "loss"}]}, {}, JSON_TYPE),
    ({"series": [{"run": "mixed", "tag": "loss"}], "max_points": 20, "min_step": 10}, {"format": "binary"}, JSON_TYPE),
    (
        {"series": [{"run": "torch", "tag": "train/acc"}], "since_step": 100},
        {},
        {**JSON_TYPE, "accept": "application/octet-stream"},
    ),
    ({"series": [{"run": "mixed", "tag": "loss"}], "max_points": None}, {"format": "json"}, JSON_TYPE),
    ({"series": []}, {}, {"content-type": "application/json; charset=utf-8"}),
]


def test_early_answers_equal_the_full_apps_on_real_files(logs: Path) -> None:
    with early_and_full(logs) as (early, full):
        same(early.get("/api/runs"), full.get("/api/runs"))
        for query in SCALARS_QUERIES:
            same(early.get("/api/scalars", params=query), full.get("/api/scalars", params=query))
        for body, params, headers in BATCHES:
            content = orjson.dumps(body)
            same(
                early.post("/api/scalars/batch", content=content, params=params, headers=headers),
                full.post("/api/scalars/batch", content=content, params=params, headers=headers),
            )


def test_behind_the_token_and_a_prefix_the_early_answers_are_the_apps(logs: Path) -> None:
    with early_and_full(logs, token="s3cret", prefix="/rl") as (early, full):
        for client in (early, full):
            assert client.get("/rl/api/runs").status_code == 401
            assert client.get("/api/runs", headers={"authorization": "Bearer s3cret"}).status_code == 404
        auth = {"authorization": "Bearer s3cret"}
        same(early.get("/rl/api/runs", headers=auth), full.get("/rl/api/runs", headers=auth))
        query = {"run": "mixed", "tag": "loss", "token": "s3cret"}  # the token in the query, as a link carries it
        same(early.get("/rl/api/scalars", params=query), full.get("/rl/api/scalars", params=query))
        answer = early.get("/rl/api/scalars", params={"run": "mixed", "tag": "loss"}, headers=auth)
        assert answer.headers["x-content-type-options"] == "nosniff" and answer.headers["x-frame-options"] == "DENY"


async def asgi(
    app: Any,
    method: str,
    path: str,
    query: bytes = b"",
    body: bytes = b"",
    headers: list[tuple[bytes, bytes]] | None = None,
) -> tuple[Any, list[dict[str, Any]], list[dict[str, Any]]]:
    """``app`` called as a server calls it: what it returned, what it sent and what is left of the body."""
    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "root_path": "",
        "query_string": query,
        "headers": headers or [],
    }
    left = [{"type": "http.request", "body": body, "more_body": False}]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return left.pop(0) if left else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    returned = await app(scope, receive, send)
    return returned, sent, left


LEFT_TO_THE_APP: list[tuple[str, str, bytes]] = [
    ("GET", "/api/runs", b"run_regex=mix"),
    ("GET", "/api/runs", b"tag_regex="),
    ("HEAD", "/api/runs", b""),
    ("GET", "/api/scalars", b"run=mixed"),  # no tag: the app's 400
    ("GET", "/api/scalars", b"run=nope&tag=loss"),  # unknown: the app's 404
    ("GET", "/api/scalars", b"run=mixed&tag=loss&max_points=1"),
    ("GET", "/api/scalars", b"run=mixed&tag=loss&max_points=007"),
    ("GET", "/api/scalars", b"run=mixed&tag=loss&since_step=1.5"),
    ("GET", "/api/scalars", b"run=mixed&tag=loss&min_step=99999999999999999999"),
    ("GET", "/api/scalars", b"run=mixed&tag=loss&tag=acc"),
    ("GET", "/api/scalars.csv", b"run=mixed&tag=loss"),
    ("GET", "/api/plugins", b""),
]

BATCHES_LEFT: list[tuple[bytes, bytes, list[tuple[bytes, bytes]]]] = [
    (b'{"series": [{"run": 1, "tag": "loss"}]}', b"", []),
    (b'{"series": [{"run": "mixed", "tag": "loss", "x": 1}]}', b"", []),
    (b'{"series": [], "max_points": true}', b"", []),
    (b'{"series": [], "max_points": 2.0}', b"", []),
    (b'{"series": [], "extra": 1}', b"", []),
    (b'{"series": []', b"", []),
    (b"[]", b"", []),
    (b'{"series": []}', b"format=csv", []),
    (b'{"series": []}', b"", [(b"content-type", b"text/plain")]),
    (b'{"series": []}', b"", []),  # no content type: FastAPI does not read it as JSON
]


def test_what_it_cannot_answer_exactly_is_left_unanswered(logs: Path) -> None:
    early = early_for(ridgeline.api.open(logs, cache=False))
    for method, path, query in LEFT_TO_THE_APP:
        returned, sent, _ = run_coroutine(asgi(early.answer, method, path, query))
        assert returned is not None and sent == [], (method, path, query)
    for body, query, headers in BATCHES_LEFT:
        headers = headers or ([(b"content-type", b"application/json")] if body != b'{"series": []}' else [])
        returned, sent, left = run_coroutine(asgi(early.answer, "POST", "/api/scalars/batch", query, body, headers))
        assert returned is not None and sent == [], body
        assert left == []  # the body was read: what it returned gives it again
        replayed = run_coroutine(returned())
        assert replayed == {"type": "http.request", "body": body, "more_body": False}


@pytest.mark.parametrize(
    "body", [b'{"series": [{"run": 1, "tag": "loss"}]}', b'{"series": [{"run": "mixed", "tag": "loss"}]}']
)
def test_a_batch_through_the_front_is_answered_as_the_app_answers_it(logs: Path, body: bytes) -> None:
    """The front asks the early answers first: one they answer is the app's answer, and a body they read and
    left reaches the app whole (whether the app is handed over before or after they left it)."""
    logdir = ridgeline.api.open(logs, cache=False)
    app = create_app(logdir, with_middleware=False)

    async def scenario() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        front = Front()
        front.answer_early(early_for(logdir))
        task = asyncio.ensure_future(asgi(front, "POST", "/api/scalars/batch", b"", body, JSON))
        await asyncio.sleep(0)  # lets the task start; either order of the hand-over gives the same answer
        front.ready(app)
        _, through_front, _ = await task
        _, direct, _ = await asgi(app, "POST", "/api/scalars/batch", b"", body, JSON)
        return through_front, direct

    through_front, direct = run_coroutine(asyncio.wait_for(scenario(), WAIT_S))
    assert through_front == direct
    assert through_front[0]["status"] in (200, 400)


def test_the_early_answers_import_no_web_framework() -> None:
    probe = textwrap.dedent(
        """
        import sys
        import ridgeline.server.early, ridgeline.server.front, ridgeline.plugins.scalars.answers
        print(sorted(m for m in ("fastapi", "pydantic", "ridgeline.server.app", "ridgeline.plugins.kit")
                     if m in sys.modules))
        """
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=WAIT_S)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]"


def test_a_request_the_early_answers_leave_asks_for_the_app(logs: Path) -> None:
    """``on_hold``: the page's first request for the app (``/api/plugins``) has the app built at once, even while
    the first pass still runs; what the early answers answer does not."""
    held: list[str] = []
    front = Front(on_hold=lambda: held.append("held"))
    front.answer_early(early_for(ridgeline.api.open(logs, cache=False)))

    async def scenario() -> None:
        _, sent, _ = await asgi(front, "GET", "/api/runs")
        assert sent[0]["status"] == 200 and held == []
        waiting = asyncio.ensure_future(asgi(front, "GET", "/api/plugins"))
        while not held and not waiting.done():
            await asyncio.sleep(0)
        front.failed(RuntimeError("no app in this test"))
        _, sent, _ = await waiting
        assert sent[0]["status"] == 503

    run_coroutine(asyncio.wait_for(scenario(), WAIT_S))
    assert held == ["held"]


def test_imports_inside_giving_way_wait_for_idle_on_that_thread_only(tmp_path: Path) -> None:
    from ridgeline.server.yielding import giving_way

    for name in ("rl_give_way_a", "rl_give_way_b"):
        (tmp_path / f"{name}.py").write_text("VALUE = 1\n")
    sys.path.insert(0, str(tmp_path))
    asked: list[float] = []
    try:
        with giving_way(asked.append, longest=0.5):
            import rl_give_way_a  # type: ignore[import-not-found]  # noqa: F401

            other = threading.Thread(target=__import__, args=("rl_give_way_b",))
            other.start()
            other.join(WAIT_S)
        assert asked == [0.5]  # once, for the module this thread imported; not for the other thread's
        assert "rl_give_way_b" in sys.modules
        assert not any(type(finder).__name__ == "_GiveWay" for finder in sys.meta_path)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("rl_give_way_a", None)
        sys.modules.pop("rl_give_way_b", None)


def test_waiting_for_quiet_ends_when_woken_or_when_nothing_is_answered(logs: Path) -> None:
    """The app is built once the early answers are quiet, or at once when woken (a request needs the app)."""
    early = early_for(ridgeline.api.open(logs, cache=False))
    early.wait_quiet(0.0, 10 * WAIT_S)  # nothing being answered: quiet at once
    waiting = threading.Thread(target=early.wait_quiet, args=(10 * WAIT_S, 10 * WAIT_S))
    waiting.start()
    early.wake()
    waiting.join(WAIT_S)
    assert not waiting.is_alive()
    early.wait_quiet(10 * WAIT_S, 10 * WAIT_S)  # woken once: woken for good


def test_giving_way_stops_waiting_once_its_budget_is_spent(tmp_path: Path) -> None:
    from ridgeline.server.yielding import giving_way

    names = [f"rl_budget_{i}" for i in range(3)]
    for name in names:
        (tmp_path / f"{name}.py").write_text("VALUE = 1\n")
    sys.path.insert(0, str(tmp_path))
    asked: list[float] = []

    def never_idle(longest: float) -> None:  # a client asking without pause: every wait runs out
        asked.append(longest)
        threading.Event().wait(longest)

    try:
        with giving_way(never_idle, longest=0.05, budget=0.05):
            for name in names:
                __import__(name)
        assert len(asked) == 1 and all(name in sys.modules for name in names)
    finally:
        sys.path.remove(str(tmp_path))
        for name in names:
            sys.modules.pop(name, None)
