"""Real servers on 127.0.0.1 for the API tests: ``ridgeline serve`` subprocesses on ``--port 0`` (the URL read
from what it prints), and uvicorn in a thread for apps built in the test (static folders, extra plugins).

The shared log directory is written by the real writers: torch's ``torch.utils.tensorboard.SummaryWriter`` and
ridgeline's, with the awkward cases (tags that need escaping, NaN/±Inf, steps going backwards, one point).
"""

from __future__ import annotations

import math
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
import numpy as np
import pytest
import uvicorn
from starlette.types import ASGIApp

import ridgeline

WALL = 1_700_000_000.0
RIDGELINE_SERIES: dict[str, list[tuple[int, float]]] = {
    "loss": [(step, 1.0 / (step + 1)) for step in range(1000)],
    "acc(top-1)[val]": [(0, 1.5), (1, math.nan), (2, math.inf), (3, -math.inf), (4, 2.5)],
    "Loss/训练": [(7, 3.0)],
    # Steps 0..9, then the job went back to 5: the second 5..7 replace the first (last write wins).
    "backwards": [(step, float(step)) for step in range(10)] + [(step, 100.0 + step) for step in range(5, 8)],
}
TORCH_SERIES: dict[str, list[tuple[int, float]]] = {
    "train/loss": [(step, 2.0 * math.exp(-step / 50)) for step in range(300)],
    "train/acc": [(step, 0.25 + step / 400) for step in range(0, 300, 3)],
}
HPARAMS = {"lr": 0.001, "optimiser": "adam", "augment": True, "layers": 4}
URL_LINE = re.compile(r"(http://\S+?/)(?:\?token=\S+)?\s")


def wall(step: int) -> float:
    return WALL + step * 0.25


def write_ridgeline_run(directory: Path, series: dict[str, list[tuple[int, float]]], **kwargs: object) -> None:
    writer = ridgeline.SummaryWriter(str(directory), **kwargs)  # type: ignore[arg-type]
    for tag, points in series.items():
        for step, value in points:
            writer.add_scalar(tag, value, step, walltime=wall(step))
    writer.close()


def write_torch_run(directory: Path, series: dict[str, list[tuple[int, float]]]) -> None:
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(directory))
    for tag, points in series.items():
        for step, value in points:
            writer.add_scalar(tag, value, step, walltime=wall(step))
    writer.close()


def as_read(points: list[tuple[int, float]]) -> tuple[list[int], list[float], list[float | None]]:
    """What the API answers for these points written in step order: simple_value is a float32; NaN/±Inf null."""
    steps = [step for step, _ in points]
    values = [float(np.float32(value)) if math.isfinite(value) else None for _, value in points]
    return steps, [wall(step) for step in steps], values


@pytest.fixture(scope="session")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("logs")
    write_ridgeline_run(root / "mixed", RIDGELINE_SERIES, hparams=HPARAMS)
    writer = ridgeline.SummaryWriter(str(root / "mixed"))
    writer.add_annotation("warm-up done", 5, walltime=wall(5))
    writer.add_annotation("lr drop", 300, walltime=wall(300))
    writer.close()
    write_torch_run(root / "torch", TORCH_SERIES)
    return root


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
def serving(*args: str, env: dict[str, str] | None = None, timeout: float = 30) -> Iterator[Served]:
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
    client = httpx.Client(base_url=url, timeout=10)
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
def text_pr_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """One server on the text and PR-curve log directory (tests/server/text_pr_logs.py) for both API test files."""
    from tests.server.text_pr_logs import write_logs

    with serving_logdir(write_logs(tmp_path_factory.mktemp("text_pr"))) as served:
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
    deadline = time.monotonic() + 10
    while not instance.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.005)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:
            yield client
    finally:
        instance.should_exit = True
        thread.join(10)
        sock.close()


def raw_get(base_url: str, raw_path: str) -> tuple[int, bytes]:
    """Send ``GET raw_path`` byte for byte (no client-side normalisation of ``..`` or percent escapes)."""
    host, port = httpx.URL(base_url).host, httpx.URL(base_url).port
    assert port is not None
    with socket.create_connection((host, port), timeout=10) as conn:
        conn.sendall(f"GET {raw_path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body
