"""Real servers on 127.0.0.1 for the server's own tests: ``ridgeline serve`` subprocesses on ``--port 0`` (the URL
read from what it prints), and uvicorn in a thread for apps built in the test (static folders, live reloading).

The plugins' API tests need no socket: they use the in-process client of tests/plugins/conftest.py. The shared
log directory (``logs``) is in tests/conftest.py.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
import uvicorn
from starlette.types import ASGIApp

from tests.conftest import WAIT_S

URL_LINE = re.compile(r"(http://\S+?/)(?:\?token=\S+)?\s")


@dataclass
class Served:
    """A ``ridgeline serve`` subprocess and an HTTP client bound to its URL."""

    url: str
    process: subprocess.Popen[str]
    client: httpx.Client
    output: list[str] = field(default_factory=list)

    def get(self, path: str, **params: object) -> httpx.Response:
        return self.client.get(path, params=params or None)


def serve_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "ridgeline.cli", "serve", *args]


def clean_env(**extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "RIDGELINE_TOKEN"}
    env.update({"PYTHONUNBUFFERED": "1", "COLUMNS": "200", **extra})
    return env


@contextmanager
def serving(*args: str, env: dict[str, str] | None = None, timeout: float = WAIT_S) -> Iterator[Served]:
    """Start ``ridgeline serve ARGS`` and yield once it printed its URL; stop it (SIGINT, like Ctrl-C) after."""
    process = subprocess.Popen(
        serve_command(*args),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env or clean_env(),
    )
    assert process.stdout is not None
    output: list[str] = []
    deadline = time.monotonic() + timeout
    url = None
    while url is None:
        line = process.stdout.readline()
        if not line:
            process.wait(5)
            raise AssertionError("ridgeline serve exited before printing its URL:\n" + "".join(output))
        output.append(line)
        found = URL_LINE.search(line)
        if found:
            url = found.group(1)
        assert time.monotonic() < deadline, "no URL printed in time:\n" + "".join(output)
    # Keep draining the output so the server never blocks on a full pipe.
    drain = threading.Thread(target=lambda: output.extend(iter(process.stdout.readline, "")), daemon=True)  # type: ignore[union-attr]
    drain.start()
    client = httpx.Client(base_url=url, timeout=WAIT_S)
    try:
        yield Served(url, process, client, output)
    finally:
        client.close()
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        drain.join(5)
        process.stdout.close()


@contextmanager
def serving_logdir(logdir: Path) -> Iterator[Served]:
    """``ridgeline serve`` on ``logdir`` as the plugin API tests run it: a free port, no cache, no reloading."""
    with serving("--logdir", str(logdir), "--port", "0", "--no-cache") as served:
        yield served


@pytest.fixture(scope="session")
def server(logs: Path) -> Iterator[Served]:
    with serving("--logdir", str(logs), "--port", "0", "--reload-interval", "0.2", "--no-cache") as served:
        yield served


@contextmanager
def in_thread(app: ASGIApp) -> Iterator[httpx.Client]:
    """uvicorn serving ``app`` on 127.0.0.1 on a free port, in a thread; yields a client bound to it."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    instance = uvicorn.Server(config)
    thread = threading.Thread(target=instance.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + WAIT_S
    while not instance.started:
        assert thread.is_alive() and time.monotonic() < deadline, f"uvicorn did not start within {WAIT_S:.0f} s"
        time.sleep(0.005)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=WAIT_S) as client:
            yield client
    finally:
        instance.should_exit = True
        thread.join(10)
        sock.close()


def raw_get(base_url: str, raw_path: str) -> tuple[int, bytes]:
    """Send ``GET raw_path`` byte for byte (no client-side normalisation of ``..`` or percent escapes)."""
    host, port = httpx.URL(base_url).host, httpx.URL(base_url).port
    assert port is not None
    with socket.create_connection((host, port), timeout=WAIT_S) as conn:
        conn.sendall(f"GET {raw_path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body
