"""Reloading a log directory on S3: requests and seconds per reload, ridgeline against TensorBoard, same bucket.

moto's S3 server runs on 127.0.0.1 behind a counting proxy (every request either reader makes goes through it;
the bucket is filled and grown straight on moto, uncounted). ``runs`` runs of one event file each (100 scalars)
are uploaded; then each reader loads the bucket, reloads it unchanged (median of ``repeats``), and reloads it
after ``grown`` runs were uploaded again with 50 more points each (a sync job replacing the objects).

TensorBoard reads S3 without TensorFlow through its own stub (``tensorboard.compat.tensorflow_stub``: boto3,
endpoint from ``S3_ENDPOINT``) with ``--load_fast=false``'s Python loader: ``EventMultiplexer`` with
``AddRunsFromDirectory`` and ``Reload``, which is what its reload loop calls each interval. Its Rust data server
(``--load_fast=true``, the default) reads local and ``gs://`` paths only, so it cannot be pointed at S3.

Used by bench/distributed.py (``--s3-runs``); alone: ``python bench/s3_reload.py [--runs 100] [--no-tensorboard]``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "proxy-connection"}


class Counting:
    """A forwarding HTTP proxy on 127.0.0.1 that counts requests by kind (list, get, head, other)."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.counts: Counter[str] = Counter()
        self.bytes = 0
        self._lock = threading.Lock()
        counting = self

        class Forward(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            upstream: http.client.HTTPConnection | None = None  # one per client connection, kept alive

            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                query = parse_qs(urlsplit(self.path).query, keep_blank_values=True)
                listing = self.command == "GET" and ("list-type" in query or "prefix" in query or "delimiter" in query)
                kind = "list" if listing else self.command.lower()
                if self.upstream is None:
                    self.upstream = http.client.HTTPConnection(*target, timeout=120)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
                try:
                    self.upstream.request(self.command, self.path, body=body, headers=headers)
                    response = self.upstream.getresponse()
                    data = response.read()
                except (OSError, http.client.HTTPException):
                    self.upstream.close()
                    self.upstream = None
                    raise
                with counting._lock:
                    counting.counts[kind] += 1
                    counting.bytes += len(data)
                self.send_response(response.status, response.reason)
                for key, value in response.getheaders():
                    if key.lower() not in HOP_BY_HOP:
                        self.send_header(key, value)
                size = response.getheader("Content-Length", "0") if self.command == "HEAD" else str(len(data))
                self.send_header("Content-Length", size)
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _forward

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Forward)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def take(self) -> dict[str, int]:
        with self._lock:
            counts = dict(self.counts)
            counts["requests"] = sum(self.counts.values())
            counts["bytes"] = self.bytes
            self.counts.clear()
            self.bytes = 0
        return counts

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def write_runs(root: Path, runs: int, steps: range) -> None:
    from ridgeline import SummaryWriter

    for run in range(runs):
        with SummaryWriter(root / f"run{run:04d}", record_run_metadata=False) as writer:
            for step in steps:
                writer.add_scalar("loss", 1.0 / (step + 1), step)


def upload(client: Any, root: Path, bucket: str, runs: list[str]) -> None:
    def one(run: str) -> None:
        for path in (root / run).glob("*tfevents*"):
            client.upload_file(str(path), bucket, f"runs/{run}/{path.name}")

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(one, runs))


def grow(root: Path, runs: list[str], steps: range) -> None:
    """Append points to the runs' files as a resumed writer would (a new file would be a new object)."""
    from ridgeline.format import records
    from ridgeline.format.proto import event_pb2

    for run in runs:
        (path,) = (root / run).glob("*tfevents*")
        with path.open("ab") as file:
            for step in steps:
                event = event_pb2.Event(wall_time=time.time(), step=step)
                event.summary.value.add(tag="loss", simple_value=1.0 / (step + 1))
                file.write(records.frame(event.SerializeToString()))


class Ridgeline:
    name = "ridgeline"

    def __init__(self, url: str) -> None:
        self.url = url

    def load(self) -> None:
        import ridgeline

        self.logdir = ridgeline.open(self.url, cache=False)

    def reload(self) -> None:
        self.logdir.reload()

    def points(self, run: str) -> int:
        return len(self.logdir.scalars(run, "loss").step)


class TensorBoard:
    name = "TensorBoard"

    def __init__(self, url: str) -> None:
        self.url = url

    def load(self) -> None:
        from tensorboard.backend.event_processing.plugin_event_multiplexer import EventMultiplexer

        self.multiplexer = EventMultiplexer()
        self.reload()

    def reload(self) -> None:  # what TensorBoard's reload loop does each interval
        self.multiplexer.AddRunsFromDirectory(self.url)
        self.multiplexer.Reload()

    def points(self, run: str) -> int:
        return len(self.multiplexer.Tensors(run, "loss"))


def measure(
    reader: Any, proxy: Counting, client: Any, root: Path, bucket: str, runs: int, grown: int, repeats: int
) -> dict[str, Any]:
    proxy.take()
    start = time.perf_counter()
    reader.load()
    result: dict[str, Any] = {"load_s": time.perf_counter() - start, "load": proxy.take()}
    assert reader.points("run0000") == 100, reader.points("run0000")
    seconds, counts = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        reader.reload()
        seconds.append(time.perf_counter() - start)
        counts.append(proxy.take())
    result["unchanged_s"] = statistics.median(seconds)
    result["unchanged"] = counts[-1]
    names = [f"run{run:04d}" for run in range(0, runs, max(1, runs // grown))][:grown]
    grow(root, names, range(100, 150))
    upload(client, root, bucket, names)
    proxy.take()
    start = time.perf_counter()
    reader.reload()
    result["grown_s"] = time.perf_counter() - start
    result["grown"] = proxy.take()
    result["grown_runs"] = len(names)
    assert reader.points(names[0]) == 150, (reader.name, reader.points(names[0]))
    return result


def run(runs: int, grown: int = 10, repeats: int = 3, tensorboard: bool = True) -> dict[str, Any]:
    import logging

    import boto3
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # moto's server logs every request otherwise

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    proxy = Counting((host, port))
    saved = dict(os.environ)
    os.environ.update(
        {
            "AWS_ENDPOINT_URL": proxy.url,
            "S3_ENDPOINT": proxy.url,  # TensorBoard's stub reads this one
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_REGION": "us-east-1",
        }
    )
    results: dict[str, Any] = {"runs": runs}
    try:
        client = boto3.client("s3", endpoint_url=f"http://{host}:{port}")
        readers: list[Any] = [Ridgeline]
        if tensorboard:
            readers.append(TensorBoard)
        for number, kind in enumerate(readers):
            bucket = f"logs{number}"
            client.create_bucket(Bucket=bucket)
            with tempfile.TemporaryDirectory() as tmp:
                root = Path(tmp)
                write_runs(root, runs, range(100))
                upload(client, root, bucket, [f"run{run:04d}" for run in range(runs)])
                reader = kind(f"s3://{bucket}/runs")
                results[kind.name] = measure(reader, proxy, client, root, bucket, runs, grown, repeats)
    finally:
        os.environ.clear()
        os.environ.update(saved)
        proxy.close()
        server.stop()
    return results


def report(results: dict[str, Any]) -> None:
    print(f"S3 reload, {results['runs']:,} runs of one event file, moto on 127.0.0.1 (requests counted by a proxy)")
    grown = f"reload, {results['ridgeline']['grown_runs']} grown"
    print(f"  {'':12} {'load':>22} {'reload, unchanged':>24} {grown:>24}")
    for name in ("ridgeline", "TensorBoard"):
        if name not in results:
            continue
        r = results[name]
        cells = [f"{r[key]['requests']:>6,} req {r[key + '_s']:>7.2f} s" for key in ("load", "unchanged", "grown")]
        print(f"  {name:12} " + " ".join(f"{cell:>24}" for cell in cells))
    if "TensorBoard" in results:
        ours, theirs = results["ridgeline"], results["TensorBoard"]
        print(
            f"  unchanged reload: {theirs['unchanged']['requests'] / max(1, ours['unchanged']['requests']):.0f}x fewer "
            f"requests, {theirs['unchanged_s'] / ours['unchanged_s']:.1f}x faster"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--grown", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-tensorboard", action="store_true")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    results = run(args.runs, args.grown, args.repeats, not args.no_tensorboard)
    report(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
