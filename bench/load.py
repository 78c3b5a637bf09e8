"""Load benchmark: many clients polling the scalars API while a writer appends, for ridgeline and TensorBoard.

The log directory: RUNS runs x 1 tag ("loss") x POINTS points (default 100 x 1,000), written with
``ridgeline.SummaryWriter`` into a temporary directory (bench/api.py's). Each server in turn, on 127.0.0.1:

- ridgeline: ``ridgeline serve --logdir DIR --port 0 --no-cache --reload-interval 1``;
- TensorBoard, Rust data server: ``tensorboard --logdir DIR --port P --load_fast=true --reload_interval 1``.

Once the server has loaded everything, a writer process appends one point a second... to WRITING runs (default 5)
(``SummaryWriter(flush_secs=1)``), and CLIENTS clients (default 50; asyncio with one keep-alive connection each,
spread over ``--processes`` load processes so the generator is not the bottleneck) poll one random run's series
each, back to back, for DURATION seconds (default 60): ``GET /api/scalars?run=&tag=loss`` against TensorBoard's
``GET /data/plugin/scalars/scalars?run=&tag=loss``. Every answer is read completely; an answer that is not a 200
with a JSON body, or no answer within the client's timeout, is an error.

Figures: requests per second, p50 and p99 latency, errors, and the server's resident memory (its process group:
TensorBoard's data server is a child) sampled every second: after warm-up (the first 10% of the run), the
largest, and at the end. The ratios TensorBoard / ridgeline are printed.

    python bench/load.py [--runs 100] [--points 1000] [--clients 50] [--duration 60] [--writing 5]
                         [--processes 4] [--quick] [--no-tensorboard] [--json PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from api import TAG, free_port, process_group, ratio, served_url, wait_until, write_logdir  # bench/api.py

CLIENT_TIMEOUT = 60.0  # an answer slower than this is an error: generous, the machine may be busy


def rss_bytes(pid: int) -> int:
    """The resident memory of ``pid`` and of every process in its group (0 once it is gone)."""
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) != pid and int(entry) != pid:  # fields[2]: the process group
                continue
            for line in Path(f"/proc/{entry}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except (OSError, IndexError, ValueError):
            continue
    return total


async def _clients(url: str, path: str, names: list[str], clients: int, until: float) -> dict[str, Any]:
    latencies: list[float] = []
    errors: list[str] = []

    async def one(seed: int) -> None:
        rng = random.Random(seed)
        limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
        async with httpx.AsyncClient(base_url=url, timeout=CLIENT_TIMEOUT, limits=limits) as client:
            while time.time() < until:
                started = time.perf_counter()
                try:
                    response = await client.get(path, params={"run": rng.choice(names), "tag": TAG})
                    body = response.content
                    if response.status_code != 200 or not body.startswith((b"{", b"[")):
                        errors.append(f"{response.status_code} {body[:100]!r}")
                        continue
                except httpx.HTTPError as error:
                    errors.append(f"{type(error).__name__}: {error}")
                    continue
                latencies.append(time.perf_counter() - started)

    await asyncio.gather(*(one(os.getpid() * 1000 + index) for index in range(clients)))
    return {"latencies": latencies, "errors": errors}


def _load_process(job: tuple[str, str, list[str], int], go: Any, deadline: Any, results: Any) -> None:
    results.put("ready")
    go.wait()  # every process started (spawning takes seconds): all clients begin together
    results.put(asyncio.run(_clients(*job, deadline.value)))


def run_load(url: str, path: str, names: list[str], args: argparse.Namespace, pid: int) -> dict[str, Any]:
    """CLIENTS clients over ``--processes`` processes for DURATION seconds; memory sampled meanwhile."""
    context = multiprocessing.get_context("spawn")
    queue, go, deadline = context.Queue(), context.Event(), context.Value("d", 0.0)
    count, processes = args.clients, min(args.processes, args.clients)
    shares = [count // processes + (index < count % processes) for index in range(processes)]
    workers = [
        context.Process(target=_load_process, args=((url, path, names, share), go, deadline, queue)) for share in shares
    ]
    for worker in workers:
        worker.start()
    for _ in workers:
        assert queue.get(timeout=300) == "ready"
    started = time.time()
    deadline.value = until = started + args.duration
    go.set()
    memory: list[tuple[float, int]] = []
    while time.time() < until:
        memory.append((time.time() - started, rss_bytes(pid)))
        time.sleep(1.0)
    parts = [queue.get(timeout=4 * CLIENT_TIMEOUT) for _ in workers]
    elapsed = time.time() - started
    for worker in workers:
        worker.join()
    memory.append((time.time() - started, rss_bytes(pid)))
    latencies = sorted(latency for part in parts for latency in part["latencies"])
    errors = [error for part in parts for error in part["errors"]]
    warm = [rss for at, rss in memory if at >= args.duration * 0.1] or [memory[-1][1]]
    return {
        "requests": len(latencies),
        "errors": len(errors),
        "error_examples": errors[:5],
        "requests_per_s": round(len(latencies) / elapsed, 1),
        "p50_ms": round(statistics.median(latencies) * 1000, 2) if latencies else None,
        "p99_ms": round(latencies[int(0.99 * (len(latencies) - 1))] * 1000, 2) if latencies else None,
        "rss_after_warmup_mib": round(warm[0] / 2**20, 1),
        "rss_max_mib": round(max(rss for _, rss in memory) / 2**20, 1),
        "rss_end_mib": round(memory[-1][1] / 2**20, 1),
        "rss_growth_mib": round((memory[-1][1] - warm[0]) / 2**20, 1),
    }


def start_writer(logdir: Path, names: list[str], points: int, work: Path) -> subprocess.Popen[bytes]:
    """A training job appending one point a second to each of ``names`` (steps after those already written)."""
    code = (
        "import sys, time, ridgeline\n"
        "logdir, points, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]\n"
        "writers = [ridgeline.SummaryWriter(f'{logdir}/{n}', flush_secs=1, record_run_metadata=False) for n in names]\n"
        "step = points\n"
        "while True:\n"
        "    for writer in writers:\n"
        "        writer.add_scalar('loss', 1.0 / step, step)\n"
        "    step += 1\n"
        "    time.sleep(1.0)\n"
    )
    log = (work / "writer.log").open("wb")
    return subprocess.Popen(
        [sys.executable, "-c", code, str(logdir), str(points), *names], stdout=log, stderr=subprocess.STDOUT
    )


def bench_ridgeline(logdir: Path, names: list[str], args: argparse.Namespace, work: Path) -> dict[str, Any]:
    log = work / "ridgeline.log"
    command = [sys.executable, "-m", "ridgeline.cli", "serve", "--logdir", str(logdir), "--port", "0"]
    command += ["--no-cache", "--reload-interval", "1"]
    with process_group(command, log) as process:
        url, _ = served_url(process, log, args.timeout)
        return with_writer(logdir, names, args, work, lambda: run_load(url, "/api/scalars", names, args, process.pid))


def bench_tensorboard(logdir: Path, names: list[str], args: argparse.Namespace, work: Path) -> dict[str, Any]:
    port = free_port()
    log = work / "tensorboard.log"
    command = [sys.executable, "-m", "tensorboard.main", "--logdir", str(logdir), "--host", "127.0.0.1"]
    command += ["--port", str(port), "--load_fast=true", "--reload_interval", "1"]
    url = f"http://127.0.0.1:{port}"
    with process_group(command, log) as process, httpx.Client(base_url=url, timeout=300) as client:

        def loaded() -> bool:
            body = client.post("/data/plugin/scalars/scalars_multirun", data={"tag": TAG, "runs": names}).json()
            return all(body.get(name) and body[name][-1][1] >= args.points - 1 for name in names)

        wait_until(loaded, process, log, args.timeout)
        load = lambda: run_load(url, "/data/plugin/scalars/scalars", names, args, process.pid)  # noqa: E731
        return with_writer(logdir, names, args, work, load)


def with_writer(logdir: Path, names: list[str], args: argparse.Namespace, work: Path, load: Any) -> dict[str, Any]:
    writer = start_writer(logdir, names[: args.writing], args.points, work)
    try:
        result: dict[str, Any] = load()
    finally:
        writer.terminate()  # SIGTERM: the writer flushes what it has (ridgeline's signal handling)
        writer.wait(30)
    return result


def report(results: dict[str, Any]) -> None:
    print(
        f"\n{results['clients']} clients, {results['duration']:.0f} s, {results['runs']} runs x {results['points']:,}"
        f" points, a writer appending to {results['writing']} runs"
    )
    for key, label in (("ridgeline", "ridgeline"), ("tensorboard", "TensorBoard --load_fast=true")):
        figures = results.get(key)
        if figures:
            print(
                f"  {label:30s} {figures['requests_per_s']:8.1f} requests/s  p50 {figures['p50_ms']} ms"
                f"  p99 {figures['p99_ms']} ms  errors {figures['errors']}  memory {figures['rss_after_warmup_mib']}"
                f" -> {figures['rss_end_mib']} MiB (max {figures['rss_max_mib']})"
            )
    ours, tb = results.get("ridgeline"), results.get("tensorboard")
    if ours and tb:
        print(
            f"  ridgeline serves {ratio(ours['requests_per_s'], tb['requests_per_s'])} TensorBoard's requests/s, at"
            f" {ratio(tb['p99_ms'], ours['p99_ms'])} lower p99"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--points", type=int, default=1000)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of load per server")
    parser.add_argument("--writing", type=int, default=5, help="runs a writer appends to meanwhile")
    parser.add_argument("--processes", type=int, default=4, help="load-generating processes")
    parser.add_argument("--timeout", type=float, default=900, help="seconds to wait for a server to load")
    parser.add_argument("--quick", action="store_true", help="10 runs, 10 clients, 5 s (smoke test)")
    parser.add_argument("--no-tensorboard", action="store_true", help="load ridgeline only")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    if args.quick:
        args.runs, args.points, args.clients, args.duration, args.writing, args.processes = 10, 200, 10, 5.0, 2, 2
    results: dict[str, Any] = {key: getattr(args, key) for key in ("runs", "points", "clients", "duration", "writing")}
    with tempfile.TemporaryDirectory(prefix="ridgeline-bench-load-") as temp:
        work = Path(temp)
        logdir = work / "logs"
        names = write_logdir(logdir, args.runs, args.points)
        results["ridgeline"] = bench_ridgeline(logdir, names, args, work)
        print("ridgeline:", json.dumps(results["ridgeline"]), flush=True)
        if not args.no_tensorboard:
            results["tensorboard"] = bench_tensorboard(logdir, names, args, work)
            print("tensorboard:", json.dumps(results["tensorboard"]), flush=True)
    report(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
