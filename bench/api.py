"""API benchmark: ridgeline's HTTP API against TensorBoard's on the same log directory.

The log directory: RUNS runs x 1 tag ("loss") x POINTS points (default 100 x 10,000), written with
``ridgeline.SummaryWriter`` into a temporary directory. Three servers on 127.0.0.1, each a subprocess:

- ridgeline: ``ridgeline serve --logdir DIR --port 0 --no-cache`` (the URL read from what it prints);
- TensorBoard, Python loader: ``tensorboard --logdir DIR --port P --load_fast=false``;
- TensorBoard, Rust data server: ``tensorboard --logdir DIR --port P --load_fast=true``.

TensorBoard is used as it ships: its scalars plugin answers at most 1,000 points per series (a reservoir sample,
``--samples_per_plugin``), while ridgeline answers all 10,000 (and is also timed with ``max_points=1000``, its own
reduction). Each server is timed once it has loaded everything: TensorBoard's multirun route is polled until every
run's series ends at the last step written.

Figures (medians; one keep-alive HTTP client with TCP_NODELAY, the response body read completely, not parsed):

- one series: ``GET /api/scalars?run=&tag=`` against ``GET /data/plugin/scalars/scalars?run=&tag=``, over
  ``--requests`` requests cycling through the runs;
- every series: ``POST /api/scalars/batch`` with all RUNS pairs, against one GET per run and against one
  ``POST /data/plugin/scalars/scalars_multirun`` (form ``tag`` + ``runs``), over ``--repeats`` repeats;
- ``--many`` series (default 1,000: the RUNS pairs repeated) through the batch route with ``max_points=1000``:
  the issue's target is under 0.5 s. Timed as JSON and in the binary form (``?format=binary``: a JSON header and
  raw float64 columns, what the UI asks for), the latter also with decoding into numpy arrays; the binary answer
  is checked against the JSON one first.

    python bench/api.py [--runs 100] [--points 10000] [--requests 200] [--repeats 5] [--many 1000] [--quick]
                        [--no-tensorboard] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import numpy as np

import ridgeline
from ridgeline.plugins.scalars.binary import decode_batch

TAG = "loss"
TB_SAMPLES = 1000  # what TensorBoard's scalars plugin keeps per series by default
# Browsers disable Nagle's algorithm; so does the benchmark's client (otherwise a POST whose headers and body go
# out as two segments can wait for a delayed ACK).
NODELAY = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]


def client_for(base_url: str, timeout: float) -> httpx.Client:
    return httpx.Client(base_url=base_url, timeout=timeout, transport=httpx.HTTPTransport(socket_options=NODELAY))


def write_logdir(root: Path, runs: int, points: int) -> list[str]:
    names = [f"run{index:03d}" for index in range(runs)]
    steps = np.arange(points)
    for index, name in enumerate(names):
        values = np.exp(-steps / (points / 4)) + 0.01 * np.sin(steps * (index + 1))
        with ridgeline.SummaryWriter(str(root / name), record_run_metadata=False) as writer:
            for step, value in zip(steps.tolist(), values.tolist(), strict=True):
                writer.add_scalar(TAG, value, step, walltime=1_700_000_000.0 + step)
    return names


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def process_group(command: list[str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """Run ``command`` in its own process group (TensorBoard's data server is its child); stop the group after."""
    with log.open("wb") as out:
        process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        yield process
    finally:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(process.pid, sig)
            except ProcessLookupError:
                break
            try:
                process.wait(10)
                break
            except subprocess.TimeoutExpired:
                continue


def wait_until(check: Callable[[], bool], process: subprocess.Popen[bytes], log: Path, timeout: float) -> float:
    started = time.monotonic()
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args[0]} exited with {process.returncode}:\n{log.read_text()[-2000:]}")
        try:
            if check():
                return time.monotonic() - started
        except (httpx.HTTPError, ValueError, KeyError):
            pass
        if time.monotonic() - started > timeout:
            raise RuntimeError(f"not loaded after {timeout:.0f} s:\n{log.read_text()[-2000:]}")
        time.sleep(0.2)


def served_url(process: subprocess.Popen[bytes], log: Path, timeout: float) -> tuple[str, float]:
    """Wait for ``ridgeline serve --port 0`` to print where it serves; returns that URL and the seconds waited."""
    url = ""

    def printed_url() -> bool:
        nonlocal url
        found = re.search(r"serving .* at (http://\S+/)", log.read_text())
        url = found.group(1) if found else ""
        return bool(url)

    waited = wait_until(printed_url, process, log, timeout)
    return url, waited


def timed(request: Callable[[], httpx.Response]) -> float:
    started = time.perf_counter()
    response = request()
    response.read()
    elapsed = time.perf_counter() - started
    response.raise_for_status()
    return elapsed


def timed_decode(request: Callable[[], httpx.Response]) -> float:
    """Like :func:`timed`, plus turning the binary answer into numpy arrays (what a client does with it)."""
    started = time.perf_counter()
    response = request()
    decode_batch(response.read())
    elapsed = time.perf_counter() - started
    response.raise_for_status()
    return elapsed


def check_binary(client: httpx.Client, series: list[dict[str, str]]) -> None:
    """The binary answer holds the same numbers as the JSON one (a benchmark of a wrong answer means nothing)."""
    body = {"series": series, "max_points": 1000}
    as_json = client.post("/api/scalars/batch", json=body).json()["series"]
    as_binary = decode_batch(client.post("/api/scalars/batch", params={"format": "binary"}, json=body).content)
    for ours, theirs in zip(as_binary, as_json, strict=True):
        for name in ("step", "wall_time", "value"):
            expected = np.array(theirs[name], dtype=np.float64)
            assert np.array_equal(ours[name], expected, equal_nan=True), f"binary {name} differs from JSON"


def median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 3)


def bench_ridgeline(logdir: Path, names: list[str], args: argparse.Namespace, work: Path) -> dict[str, Any]:
    log = work / "ridgeline.log"
    command = [sys.executable, "-m", "ridgeline.cli", "serve", "--logdir", str(logdir), "--port", "0", "--no-cache"]
    with process_group(command, log) as process:
        url, started = served_url(process, log, args.timeout)
        with client_for(url, 120) as client:
            first = client.get("/api/scalars", params={"run": names[0], "tag": TAG}).json()
            assert len(first["step"]) == args.points, "ridgeline did not answer every point"
            pairs = [{"run": name, "tag": TAG} for name in names]
            thousand = (pairs * (args.many // len(pairs) + 1))[: args.many]

            def one(i: int, **extra: Any) -> Callable[[], httpx.Response]:
                return lambda: client.get("/api/scalars", params={"run": names[i % len(names)], "tag": TAG, **extra})

            def batch(series: list[dict[str, str]], **extra: Any) -> Callable[[], httpx.Response]:
                return lambda: client.post("/api/scalars/batch", json={"series": series, **extra})

            def binary(series: list[dict[str, str]], **extra: Any) -> Callable[[], httpx.Response]:
                return lambda: client.post(
                    "/api/scalars/batch", params={"format": "binary"}, json={"series": series, **extra}
                )

            check_binary(client, thousand[:3])

            for i in range(5):  # warm-up
                timed(one(i))
            return {
                "ready_s": round(started, 2),
                "one_series_ms": median_ms([timed(one(i)) for i in range(args.requests)]),
                "one_series_1000_points_ms": median_ms([timed(one(i, max_points=1000)) for i in range(args.requests)]),
                "all_series_batch_ms": median_ms([timed(batch(pairs)) for _ in range(args.repeats)]),
                "all_series_batch_1000_points_ms": median_ms(
                    [timed(batch(pairs, max_points=1000)) for _ in range(args.repeats)]
                ),
                "many_series_batch_1000_points_ms": median_ms(
                    [timed(batch(thousand, max_points=1000)) for _ in range(args.repeats)]
                ),
                "all_series_binary_ms": median_ms([timed(binary(pairs)) for _ in range(args.repeats)]),
                "many_series_binary_1000_points_ms": median_ms(
                    [timed(binary(thousand, max_points=1000)) for _ in range(args.repeats)]
                ),
                "many_series_binary_1000_points_decoded_ms": median_ms(
                    [timed_decode(binary(thousand, max_points=1000)) for _ in range(args.repeats)]
                ),
                "many_series_bytes": {
                    "json": len(batch(thousand, max_points=1000)().content),
                    "binary": len(binary(thousand, max_points=1000)().content),
                },
            }


def bench_tensorboard(
    logdir: Path, names: list[str], args: argparse.Namespace, work: Path, load_fast: bool
) -> dict[str, Any]:
    port = free_port()
    log = work / f"tensorboard-{load_fast}.log"
    command = [sys.executable, "-m", "tensorboard.main", "--logdir", str(logdir), "--host", "127.0.0.1"]
    command += ["--port", str(port), f"--load_fast={'true' if load_fast else 'false'}"]
    expected = min(args.points, TB_SAMPLES)
    with (
        process_group(command, log) as process,
        client_for(f"http://127.0.0.1:{port}", 300) as client,
    ):

        def loaded() -> bool:
            body = client.post("/data/plugin/scalars/scalars_multirun", data={"tag": TAG, "runs": names}).json()
            return all(len(body.get(name, ())) >= expected and body[name][-1][1] == args.points - 1 for name in names)

        ready = wait_until(loaded, process, log, args.timeout)

        def one(i: int) -> Callable[[], httpx.Response]:
            return lambda: client.get("/data/plugin/scalars/scalars", params={"run": names[i % len(names)], "tag": TAG})

        def each() -> float:
            return sum(timed(one(i)) for i in range(len(names)))

        def multirun() -> httpx.Response:
            return client.post("/data/plugin/scalars/scalars_multirun", data={"tag": TAG, "runs": names})

        for i in range(5):
            timed(one(i))
        return {
            "ready_s": round(ready, 2),
            "points_per_series": len(
                client.get("/data/plugin/scalars/scalars", params={"run": names[0], "tag": TAG}).json()
            ),
            "one_series_ms": median_ms([timed(one(i)) for i in range(args.requests)]),
            "all_series_one_each_ms": median_ms([each() for _ in range(args.repeats)]),
            "all_series_multirun_ms": median_ms([timed(multirun) for _ in range(args.repeats)]),
        }


def args_many(results: dict[str, Any]) -> str:
    return f"{results['many']:,}"


def ratio(theirs: float | None, ours: float | None) -> str:
    return f"{theirs / ours:.1f}x" if theirs and ours else "-"


def report(results: dict[str, Any]) -> None:
    ours = results["ridgeline"]
    print(f"\n{results['runs']} runs x 1 tag x {results['points']:,} points; medians")
    print(f"ridgeline ready after {ours['ready_s']} s (process start to URL printed)")
    rows = [
        (f"one series, all {results['points']:,} points", ours["one_series_ms"]),
        ("one series, max_points=1000", ours["one_series_1000_points_ms"]),
        (f"all {results['runs']} series, batch, all points", ours["all_series_batch_ms"]),
        (f"all {results['runs']} series, batch, max_points=1000", ours["all_series_batch_1000_points_ms"]),
        (f"{args_many(results)} series, batch, max_points=1000", ours["many_series_batch_1000_points_ms"]),
        (f"all {results['runs']} series, binary batch, all points", ours["all_series_binary_ms"]),
        (f"{args_many(results)} series, binary batch, max_points=1000", ours["many_series_binary_1000_points_ms"]),
        (f"{args_many(results)} series, binary, + numpy decode", ours["many_series_binary_1000_points_decoded_ms"]),
    ]
    for label, value in rows:
        print(f"  {label:<42} {value:9.2f} ms")
    sizes = ours["many_series_bytes"]
    print(
        f"  {args_many(results)} series at max_points=1000: {sizes['json'] / 1e6:.1f} MB JSON, "
        f"{sizes['binary'] / 1e6:.1f} MB binary"
    )
    verdict = "PASS" if ours["many_series_binary_1000_points_ms"] < 500 else "FAIL"
    print(f"  target: {args_many(results)} series through the batched route under 0.5 s: {verdict} (binary)")
    for key, label in (("tensorboard_python", "--load_fast=false"), ("tensorboard_rust", "--load_fast=true")):
        tb = results.get(key)
        if not tb:
            continue
        print(f"TensorBoard {label}: ready after {tb['ready_s']} s, {tb['points_per_series']} points per series")
        print(
            f"  one series:           {tb['one_series_ms']:9.2f} ms"
            f"  ({ratio(tb['one_series_ms'], ours['one_series_ms'])} ridgeline's time with 10x the points,"
            f" {ratio(tb['one_series_ms'], ours['one_series_1000_points_ms'])} at max_points=1000)"
        )
        print(
            f"  all series, one each: {tb['all_series_one_each_ms']:9.2f} ms"
            f"  ({ratio(tb['all_series_one_each_ms'], ours['all_series_batch_ms'])} ridgeline's batch)"
        )
        print(
            f"  all series, multirun: {tb['all_series_multirun_ms']:9.2f} ms"
            f"  ({ratio(tb['all_series_multirun_ms'], ours['all_series_batch_ms'])} ridgeline's batch,"
            f" {ratio(tb['all_series_multirun_ms'], ours['all_series_batch_1000_points_ms'])} at max_points=1000)"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--points", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=200, help="single-series requests timed")
    parser.add_argument("--repeats", type=int, default=5, help="repeats of the all-series requests")
    parser.add_argument("--many", type=int, default=1000, help="series in the large batch (pairs repeated)")
    parser.add_argument("--timeout", type=float, default=900, help="seconds to wait for a server to load")
    parser.add_argument("--quick", action="store_true", help="3 runs x 500 points, few requests (smoke test)")
    parser.add_argument("--no-tensorboard", action="store_true", help="time ridgeline only")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    if args.quick:
        args.runs, args.points, args.requests, args.repeats, args.many = 3, 500, 10, 2, 20
    results: dict[str, Any] = {"runs": args.runs, "points": args.points, "many": args.many}
    with tempfile.TemporaryDirectory(prefix="ridgeline-bench-api-") as temp:
        work = Path(temp)
        logdir = work / "logs"
        started = time.perf_counter()
        names = write_logdir(logdir, args.runs, args.points)
        print(f"wrote {args.runs} runs x {args.points:,} points in {time.perf_counter() - started:.1f} s", flush=True)
        results["ridgeline"] = bench_ridgeline(logdir, names, args, work)
        print("ridgeline:", json.dumps(results["ridgeline"]), flush=True)
        if not args.no_tensorboard:
            for key, fast in (("tensorboard_rust", True), ("tensorboard_python", False)):
                results[key] = bench_tensorboard(logdir, names, args, work, fast)
                print(f"{key}:", json.dumps(results[key]), flush=True)
    report(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
