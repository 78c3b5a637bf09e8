"""Process start -> first HTTP answer: ``ridgeline serve`` against ``tensorboard --logdir`` on an empty log
directory, interleaved in one run (issue 15's fast start: "an empty directory is served within 1 s").

For each server, from ``Popen`` to:

- **page**: the first 200 for ``/`` (the page's HTML: what a browser shows first);
- **api**: the first 200 for the run listing (``/api/runs`` with ``loading`` null, i.e. the first pass over; for
  TensorBoard ``/data/runs``): the page can show the log directory.

Each repeat starts both servers once, in alternating order, and stops them (SIGTERM) before the next; the
figures are medians over the repeats, with the 1-minute load average beside them (this machine is shared, so
absolute times move with the load; the ratio is what to compare). Also measured: the time from SIGTERM to the
process's exit.

    .venv/bin/python bench/start.py              # 5 repeats
    .venv/bin/python bench/start.py --repeats 3 --no-tensorboard
    .venv/bin/python bench/start.py --before main   # also ridgeline serve as of that commit
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

PYTHON = sys.executable


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def get(port: int, path: str) -> tuple[int, bytes] | None:
    """``GET path`` on 127.0.0.1:port: (status, body), or None when nothing answers yet."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
            conn.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
            data = b""
            while chunk := conn.recv(65536):
                data += chunk
    except OSError:
        return None
    head, _, body = data.partition(b"\r\n\r\n")
    try:
        return int(head.split(b" ", 2)[1]), body
    except (IndexError, ValueError):
        return None


def listed(body: bytes) -> bool:
    """Whether a run listing is final (ridgeline: ``loading`` null; TensorBoard's has no such field)."""
    try:
        answer = json.loads(body)
    except ValueError:
        return False
    return not (isinstance(answer, dict) and answer.get("loading") is not None)


def start(command: list[str], port: int, api: str, timeout: float, source: Path | None = None) -> dict[str, Any]:
    """Start ``command`` (with ``source`` first on its PYTHONPATH), time its first answers, stop it with SIGTERM
    and time its exit."""
    env = None if source is None else {**os.environ, "PYTHONPATH": str(source)}
    load = os.getloadavg()[0]
    began = time.perf_counter()
    process = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env
    )
    result: dict[str, Any] = {"load": load}
    try:
        for name, path in (("page_s", "/"), ("api_s", api)):
            while True:
                answer = get(port, path)
                if answer is not None and answer[0] == 200 and (name == "page_s" or listed(answer[1])):
                    result[name] = time.perf_counter() - began
                    break
                if process.poll() is not None:
                    error = process.stderr.read().decode(errors="replace") if process.stderr else ""
                    raise RuntimeError(f"{command[2:4]} exited with {process.returncode}: {error[-500:]}")
                if time.perf_counter() - began > timeout:
                    raise RuntimeError(f"{command[2:4]}: no answer on {path} after {timeout:.0f} s")
                time.sleep(0.002)
    finally:
        stopping = time.perf_counter()
        process.send_signal(signal.SIGTERM)
        try:
            result["exit_status"] = process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            result["exit_status"] = process.wait()
        result["exit_s"] = time.perf_counter() - stopping
        if process.stderr:
            process.stderr.close()
    return result


def ridgeline(logdir: Path, timeout: float, source: Path | None = None) -> dict[str, Any]:
    port = free_port()
    command = [PYTHON, "-m", "ridgeline.cli", "serve", "--logdir", str(logdir), "--port", str(port)]
    return start([*command, "--no-cache"], port, "/api/runs", timeout, source)


def tensorboard(logdir: Path, timeout: float, source: Path | None = None) -> dict[str, Any]:
    port = free_port()
    command = [PYTHON, "-m", "tensorboard.main", "--logdir", str(logdir), "--host", "127.0.0.1", "--port", str(port)]
    return start(command, port, "/data/runs", timeout)


def median(results: list[dict[str, Any]], key: str) -> float:
    return statistics.median(result[key] for result in results)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-tensorboard", action="store_true", help="ridgeline only")
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--before", metavar="REF", help="also time ridgeline serve as of this git commit")
    args = parser.parse_args(argv)
    with_tensorboard = not args.no_tensorboard and shutil.which("tensorboard", path=str(Path(PYTHON).parent))
    before = None
    if args.before:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from ingest import export_source  # the same export, compiled core included

        before = export_source(args.before)
    logdir = Path(tempfile.mkdtemp(prefix="ridgeline-start-"))
    names = ["ridgeline", *(["before"] if before else []), *(["tensorboard"] if with_tensorboard else [])]
    results: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    try:
        for repeat in range(args.repeats):
            for name in names[repeat % len(names) :] + names[: repeat % len(names)]:
                if name == "tensorboard":
                    results[name].append(tensorboard(logdir, args.timeout))
                else:
                    results[name].append(ridgeline(logdir, args.timeout, before if name == "before" else None))
    finally:
        shutil.rmtree(logdir, ignore_errors=True)
    loads = [result["load"] for found in results.values() for result in found]
    print(f"process start -> first answer on an empty log directory, median of {args.repeats} (interleaved)")
    print(f"load average (1 min) during the run: {min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} CPUs")
    for name, found in results.items():
        if not found:
            continue
        statuses = sorted({result["exit_status"] for result in found})
        shown = f"{args.before} (before)" if name == "before" else name
        print(
            f"  {shown:<16} page {median(found, 'page_s'):.2f} s   runs listed {median(found, 'api_s'):.2f} s   "
            f"SIGTERM -> exit {median(found, 'exit_s'):.2f} s (status {', '.join(map(str, statuses))})"
        )
    for other, label in (("tensorboard", "TensorBoard's"), ("before", f"{args.before}'s")):
        if results.get(other):
            ours, theirs = results["ridgeline"], results[other]
            for key, what in (("page_s", "page"), ("api_s", "runs listed")):
                print(f"  {what}: ridgeline takes {median(ours, key) / median(theirs, key):.2f}x {label} time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
