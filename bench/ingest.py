"""Ingest benchmark: ridgeline.open against TensorBoard's EventAccumulator and TensorBoard's Rust data server.

Two log directories of one million scalar events each, generated once and kept (``--data-dir``, default
``.bench/ingest`` in the repository), and with ``--large`` a third of thirty million:

- one run: 1 run x 10 tags x 100,000 steps, one event file;
- 100 runs: 100 runs x 10 tags x 1,000 steps, one event file per run;
- 30M one run (``--large``): 1 run x 10 tags x 3,000,000 steps, one event file of 1.6 GB. Only ridgeline (both
  record loops) and the floor are timed on it: EventAccumulator would take about 8 minutes and 7 GB, and
  TensorBoard's data server, at its 530 MB per million points, more memory than the machine has.
- 1,000 runs (``--large``): 1,000 runs x 10 tags x 1,000 steps, 10M points in 1,000 files of 0.5 MB: the
  per-file cost. ridgeline (threads, one thread, before) and the floor.

Every load happens in a fresh Python process, so nothing is imported or cached in memory beforehand (the files
themselves are in the operating system's page cache: they were just written or read).

- ridgeline: ``ridgeline.open(path, cache=False)``, then ``scalars(run, tag)`` for every run and tag, summing
  each series' step, wall_time and value arrays so that every point is touched. The time runs from just before
  ``open`` to the last sum. Peak memory: the process's peak RSS (VmHWM, reset after the imports through
  /proc/self/clear_refs) minus its RSS after ``import ridgeline, ridgeline.api, numpy`` (the reading stack is
  imported before the clock starts: a process pays for it once, in "process start -> data"). The data is then
  checked point by point against what was written; a mismatch is the only thing that makes the benchmark exit
  non-zero.
- ridgeline (one thread): the same with ``parallel=False``: no reading ahead in worker threads
  (``ridgeline.ingest.ahead``). The default must never take more than 10% longer than this.
- ridgeline serve: ``ridgeline serve --logdir PATH --no-cache --port P`` on 127.0.0.1, timed as TensorBoard is
  below: from starting the process until ``/api/runs`` has listed every run and ``/api/scalars`` (no
  ``max_points``: every point) has returned every point of every run and tag.
- ridgeline serve before (``--before REF``): the same with ridgeline's ``src/`` as of git commit REF. Both
  trees are byte-compiled before the first load (``compile_bytecode``), as installing a wheel does.
- ridgeline (numpy path): the same with ``ridgeline.ingest.fastpath.IMPLEMENTATION = "numpy"``, the fallback
  for an installation without the compiled core.
- ridgeline before (``--before REF``): the same with ridgeline's ``src/`` as of git commit REF (exported into
  ``.bench/``), to compare with what came before in the same run.
- ridgeline, warm restart: ``ridgeline.open(path, cache_dir=<empty temp dir>)`` in one process (filling the
  persistent cache; also reported), the same again in a second process, which is timed.
- read + CRC floor: every event file read as ingest reads it (1 MiB chunks, ``LocalFileSystem.read``) and
  CRC32C'd (``crc32c``, hardware) chunk by chunk: the work no reader that checks CRCs can skip. Each reader's
  "x floor" is its load time over this one's.
- EventAccumulator: ``EventAccumulator(run_dir, size_guidance={"scalars": 0}).Reload()`` for every run
  directory, then ``Scalars(tag)`` for every tag; time and peak RSS as above (the baseline is taken after
  importing event_accumulator and numpy).
- TensorBoard + Rust: ``tensorboard --logdir PATH --load_fast=true --samples_per_plugin scalars=N`` on
  127.0.0.1 and a free port. The time runs from starting the process until its HTTP API has returned every point
  of every run and tag: ``/data/plugin/scalars/tags`` is polled until it lists every run and tag, then
  ``/data/plugin/scalars/scalars_multirun`` (what TensorBoard's scalars dashboard asks for) is fetched for each
  tag, and series still short are fetched again 0.1 s later. Memory: the peak RSS of the data server process (Rust,
  no interpreter: all of it is the data) and of TensorBoard's Python process, both absolute.

Each competitor also gets "process start -> data": from starting its process to having all the data. Every
figure is the median over the repeats; the competitors take turns within each repeat, and the order rotates.
The 1-minute load average is taken as each load starts; its range is printed beside each row.

    python bench/ingest.py [--repeats R] [--quick] [--large] [--before REF] [--only NAME] [--reader NAME]
                           [--data-dir DIR] [--json PATH] [--client-json json|orjson]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DATA_VERSION = 1  # bump when the generated data changes, so that an old cache is not reused

TAGS = (
    "train/loss",
    "train/accuracy",
    "train/learning_rate",
    "train/grad_norm",
    "train/throughput",
    "eval/loss",
    "eval/accuracy",
    "eval/perplexity",
    "sys/gpu_util",
    "sys/memory",
)
WALL0 = 1_780_000_000.0
COMPETITORS = (
    "ridgeline",
    "ridgeline 1 thread",
    "ridgeline serve",
    "ridgeline serve before",
    "ridgeline numpy",
    "ridgeline before",
    "ridgeline warm",
    "floor",
    "EventAccumulator",
    "TensorBoard+Rust",
)
LARGE_COMPETITORS = ("ridgeline", "ridgeline 1 thread", "ridgeline numpy", "ridgeline before", "floor")
MANY_RUNS_COMPETITORS = ("ridgeline", "ridgeline 1 thread", "ridgeline before", "floor")

# Targets from the issues, for each 1M-event log directory (issue 2), and for one run (issue 15).
COLD_LOAD_TARGET_S = 1.5
MEMORY_TARGET_MB = 64.0
WARM_TARGET_S = 0.5
ONE_RUN_LOAD_TARGET_S = 0.10  # 1M points, one run, in process, both CRCs checked
FLOOR_RATIO_TARGET = 10.0  # ... which is at most 10x the read + CRC floor
ONE_RUN_MEMORY_TARGET_MB = 41.0  # no more than before the compiled core
LARGE_LOAD_TARGET_S = 3.0  # 30M points, one run, cold
MANY_RUNS_LOAD_TARGET_S = 1.5  # 10M points, 1,000 runs, cold
THREADS_LOSS_LIMIT = 1.10  # reading ahead in threads never takes more than 10% longer than one thread
SERVE_TARGET_S = 1.0  # ridgeline serve, process start -> every point over HTTP, 1M points

MB = 1e6  # figures are in MB of 10^6 bytes


@dataclass(frozen=True)
class Dataset:
    name: str
    runs: int
    tags: int
    steps: int

    @property
    def events(self) -> int:
        return self.runs * self.tags * self.steps

    @property
    def label(self) -> str:
        return f"{self.runs} run{'s' if self.runs > 1 else ''} x {self.tags} tags x {self.steps:,} steps"

    def run_names(self) -> list[str]:
        return ["train"] if self.runs == 1 else [f"run_{i:03d}" for i in range(self.runs)]

    def tag_names(self) -> list[str]:
        return list(TAGS[: self.tags]) if self.tags <= len(TAGS) else [f"tag_{i:03d}" for i in range(self.tags)]

    def spec(self) -> str:
        return f"{self.runs}x{self.tags}x{self.steps}"

    @staticmethod
    def parse(name: str, spec: str) -> Dataset:
        runs, tags, steps = (int(x) for x in spec.split("x"))
        return Dataset(name, runs, tags, steps)


def datasets(quick: bool, large: bool) -> list[tuple[Dataset, tuple[str, ...]]]:
    """The log directories, each with the competitors timed on it."""
    if quick:
        found = [Dataset("one run", 1, 10, 2_000), Dataset("many runs", 5, 10, 200)]
        big = Dataset("large", 1, 10, 20_000)
        many = Dataset("many runs large", 20, 10, 200)
    else:
        found = [Dataset("one run", 1, 10, 100_000), Dataset("100 runs", 100, 10, 1_000)]
        big = Dataset("30M one run", 1, 10, 3_000_000)
        many = Dataset("1,000 runs", 1000, 10, 1_000)
    extra = [(big, LARGE_COMPETITORS), (many, MANY_RUNS_COMPETITORS)] if large else []
    return [(d, COMPETITORS) for d in found] + extra


# --- the data ------------------------------------------------------------------------------------------------
def series_values(run: int, tag: int, steps: int) -> np.ndarray:
    """The float32 values of one series: a noisy curve, different for every run and tag, reproducible."""
    rng = np.random.default_rng([DATA_VERSION, run, tag])
    x = np.arange(steps, dtype=np.float64) / max(steps, 1)
    curve = (1.0 + tag) * np.exp(-3.0 * x) + 0.1 * run / 100
    return (curve + 0.02 * rng.standard_normal(steps)).astype(np.float32)


def series_wall_times(run: int, steps: int) -> np.ndarray:
    return WALL0 + 1000.0 * run + 0.05 * np.arange(steps, dtype=np.float64)


def write_run(run_dir: Path, run: int, tags: list[str], steps: int) -> None:
    """One event file, encoded record by record (as ridgeline's writer thread does, minus the thread)."""
    from ridgeline.format.proto import event_pb2
    from ridgeline.format.records import frame
    from ridgeline.writer.event_file import FILE_VERSION, _scalar_head, encode_scalar_event

    run_dir.mkdir(parents=True, exist_ok=True)
    heads = [_scalar_head(tag) for tag in tags]
    values = [series_values(run, j, steps).astype(np.float64).tolist() for j in range(len(tags))]
    walls = series_wall_times(run, steps).tolist()
    path = run_dir / f"events.out.tfevents.{int(WALL0)}.bench.{run}.0"
    with open(path, "wb") as file:
        file.write(frame(event_pb2.Event(wall_time=WALL0, file_version=FILE_VERSION).SerializeToString()))
        chunk: list[bytes] = []
        pairs = list(zip(heads, values, strict=True))
        for step in range(steps):
            wall = walls[step]
            for head, series in pairs:
                chunk.append(frame(encode_scalar_event(head, series[step], step, wall)))
            if len(chunk) >= 65_536:
                file.write(b"".join(chunk))
                chunk.clear()
        file.write(b"".join(chunk))


def ensure_dataset(
    root: Path,
    dataset: Dataset,
    write: Callable[[Path, int, list[str], int], None] = write_run,
    version: int = DATA_VERSION,
) -> tuple[Path, float]:
    """The log directory of ``dataset`` under ``root``, generated by ``write`` (one run at a time) unless already
    there; and its size in bytes. ``version`` names the generator's data, so another generator's is not reused."""
    path = root / f"{dataset.spec()}-v{version}"
    marker = path / ".complete"
    generated = not marker.exists()
    if generated:
        shutil.rmtree(path, ignore_errors=True)
        start = time.perf_counter()
        tags = dataset.tag_names()
        for i, run in enumerate(dataset.run_names()):
            write(path / run, i, tags, dataset.steps)
    size = sum(p.stat().st_size for p in path.rglob("*tfevents*"))
    if generated:
        print(
            f"generated {dataset.label} = {dataset.events:,} points, {size / 1e9:.2f} GB in {path} "
            f"({time.perf_counter() - start:.1f} s)",
            file=sys.stderr,
        )
        marker.write_text(json.dumps(asdict(dataset)) + "\n")
    return path, float(size)


# --- /proc ---------------------------------------------------------------------------------------------------
def proc_status(pid: int | str = "self") -> dict[str, int]:
    """VmRSS and VmHWM of a process, in bytes (empty when the process is gone)."""
    out: dict[str, int] = {}
    try:
        with open(f"/proc/{pid}/status") as file:
            for line in file:
                key, _, rest = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    out[key] = int(rest.split()[0]) * 1024
    except OSError:
        pass
    return out


def process_cpu(pid: int) -> float | None:
    """The CPU seconds (user + system, all threads) a process has used so far, from /proc; None when gone."""
    try:
        with open(f"/proc/{pid}/stat") as file:
            stat = file.read()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2 :].split()  # after the command name: state is field 3, utime field 14
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def reset_peak_rss() -> bool:
    """Reset this process's VmHWM to its current RSS (Linux: writing 5 to clear_refs)."""
    try:
        with open("/proc/self/clear_refs", "w") as file:
            file.write("5")
        return True
    except OSError:
        return False


def children_of(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as file:
                stat = file.read()
        except OSError:
            continue
        # The command name (field 2) is in parentheses and may hold spaces; the parent pid follows the state.
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 1 and int(fields[1]) == pid:
            found.append(int(entry))
    return found


def cmdline(pid: int) -> list[str]:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as file:
            return [part.decode(errors="replace") for part in file.read().split(b"\0") if part]
    except OSError:
        return []


# --- the children: one fresh process per load ----------------------------------------------------------------
def child_ridgeline(
    path: str, dataset: Dataset, cache_dir: str | None, implementation: str | None, parallel: bool = True
) -> dict[str, Any]:
    import ridgeline
    import ridgeline.api  # the reading stack: imported once per process, not per load
    from ridgeline.ingest import fastpath

    if implementation is not None:
        fastpath.IMPLEMENTATION = implementation
    load = os.getloadavg()[0]
    baseline = proc_status()["VmRSS"]
    reset = reset_peak_rss()
    start = time.perf_counter()
    options: dict[str, Any] = {"cache": False} if cache_dir is None else {"cache_dir": cache_dir}
    if not parallel:
        options["parallel"] = False
    logdir = ridgeline.open(path, **options)
    loaded: dict[tuple[str, str], Any] = {}
    points = 0
    touched = 0.0
    for run in logdir.runs():
        for tag in logdir.tags(run).get("scalars", []):
            series = logdir.scalars(run, tag)
            points += len(series.step)
            touched += float(series.step.sum()) + float(series.wall_time.sum()) + float(series.value.sum())
            loaded[(run, tag)] = series
    seconds = time.perf_counter() - start
    done = time.time()
    peak = proc_status()["VmHWM"]
    error = verify_ridgeline(loaded, dataset)
    close = getattr(logdir, "close", None)
    if callable(close):
        close()
    return {
        "load_s": seconds,
        "done_wall": done,
        "baseline_rss": baseline,
        "peak_rss": peak,
        "peak_reset": reset,
        "points": points,
        "checksum": touched,
        "error": error,
        "implementation": getattr(fastpath, "IMPLEMENTATION", "before the compiled core"),
        "load_average": load,
    }


def child_floor(path: str, dataset: Dataset) -> dict[str, Any]:
    """Every event file read in ingest's chunks through ingest's file system, and CRC32C'd chunk by chunk."""
    from crc32c import crc32c

    from ridgeline.ingest.discovery import LocalFileSystem
    from ridgeline.ingest.tail import CHUNK_BYTES

    load = os.getloadavg()[0]
    fs = LocalFileSystem()
    start = time.perf_counter()
    files = sorted(os.path.join(root, f) for root, _, names in os.walk(path) for f in names if "tfevents" in f)
    total = 0
    for file in files:
        size, offset, crc = fs.size(file), 0, 0
        while offset < size:
            chunk = fs.read(file, offset, min(CHUNK_BYTES, size - offset))
            crc = crc32c(chunk, crc)
            offset += len(chunk)
        total += offset
    seconds = time.perf_counter() - start
    return {"load_s": seconds, "done_wall": time.time(), "bytes": total, "load_average": load, "error": None}


def verify_ridgeline(loaded: dict[tuple[str, str], Any], dataset: Dataset) -> str | None:
    """Every run and tag, and every point of every series, exactly as written."""
    runs, tags = dataset.run_names(), dataset.tag_names()
    expected = {(run, tag) for run in runs for tag in tags}
    if set(loaded) != expected:
        missing = sorted(expected - set(loaded))[:3]
        extra = sorted(set(loaded) - expected)[:3]
        return f"{len(loaded)} series, expected {len(expected)}; missing e.g. {missing}, unexpected e.g. {extra}"
    total = sum(len(series.step) for series in loaded.values())
    if total != dataset.events:
        return f"{total:,} points, expected {dataset.events:,}"
    steps = np.arange(dataset.steps, dtype=np.int64)
    for i, run in enumerate(runs):
        walls = series_wall_times(i, dataset.steps)
        for j, tag in enumerate(tags):
            series = loaded[(run, tag)]
            if not np.array_equal(np.asarray(series.step), steps):
                return f"{run}/{tag}: steps are not 0..{dataset.steps - 1}"
            if not np.array_equal(np.asarray(series.wall_time, dtype=np.float64), walls):
                return f"{run}/{tag}: wall times differ from those written"
            values = series_values(i, j, dataset.steps).astype(np.float64)
            if not np.array_equal(np.asarray(series.value, dtype=np.float64), values):
                return f"{run}/{tag}: values differ from those written"
    return None


def child_event_accumulator(path: str, dataset: Dataset) -> dict[str, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from tensorboard.backend.event_processing import event_accumulator

    load = os.getloadavg()[0]
    baseline = proc_status()["VmRSS"]
    reset = reset_peak_rss()
    start = time.perf_counter()
    run_dirs = sorted({root for root, _, files in os.walk(path) if any("tfevents" in f for f in files)})
    kept: list[Any] = []
    points = 0
    for run_dir in run_dirs:
        accumulator = event_accumulator.EventAccumulator(run_dir, size_guidance={event_accumulator.SCALARS: 0})
        accumulator.Reload()
        for tag in accumulator.Tags()[event_accumulator.SCALARS]:
            events = accumulator.Scalars(tag)
            points += len(events)
        kept.append(accumulator)
    seconds = time.perf_counter() - start
    done = time.time()
    peak = proc_status()["VmHWM"]
    return {
        "load_s": seconds,
        "done_wall": done,
        "baseline_rss": baseline,
        "peak_rss": peak,
        "peak_reset": reset,
        "points": points,
        "error": None if points == dataset.events else f"{points:,} points, expected {dataset.events:,}",
        "load_average": load,
    }


def child_main(args: argparse.Namespace) -> int:
    dataset = Dataset.parse("child", args.dataset)
    if args.child == "ridgeline":
        result = child_ridgeline(args.logdir, dataset, args.cache_dir, args.implementation, not args.one_thread)
    elif args.child == "floor":
        result = child_floor(args.logdir, dataset)
    elif args.child == "event_accumulator":
        result = child_event_accumulator(args.logdir, dataset)
    else:
        raise SystemExit(f"unknown child {args.child!r}")
    print(json.dumps(result))
    return 0


def run_child(
    kind: str,
    path: Path,
    dataset: Dataset,
    timeout: float,
    cache_dir: str | None = None,
    implementation: str | None = None,
    source: Path | None = None,
    one_thread: bool = False,
) -> dict[str, Any]:
    """One load in a fresh interpreter; adds ``start_wall`` and ``e2e_s`` (process start -> all data)."""
    command = [sys.executable, str(Path(__file__).resolve()), "--child", kind, "--logdir", str(path)]
    command += ["--dataset", dataset.spec()]
    if cache_dir is not None:
        command += ["--cache-dir", cache_dir]
    if implementation is not None:
        command += ["--implementation", implementation]
    if one_thread:
        command += ["--one-thread"]
    env = None if source is None else {**os.environ, "PYTHONPATH": str(source)}
    start = time.time()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False, env=env)
    except subprocess.TimeoutExpired:
        return {"failed": f"timed out after {timeout:.0f} s"}
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
        return {"failed": f"exit {done.returncode}: " + " | ".join(tail)}
    result: dict[str, Any] = json.loads(lines[-1])
    result["start_wall"] = start
    result["e2e_s"] = result["done_wall"] - start
    return result


# --- TensorBoard with its Rust data server -------------------------------------------------------------------
def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


# How the HTTP scenarios (ridgeline serve, TensorBoard + Rust) parse the JSON they fetch: the standard library's
# json by default; --client-json orjson parses about 5x faster, closer to a browser's JSON.parse, so that less of
# "process start -> every point over HTTP" is the benchmark's own parsing (3M numbers at 1M points).
CLIENT_JSON: dict[str, Callable[[bytes], Any]] = {"json": json.loads, "orjson": lambda body: _orjson().loads(body)}
client_parse: Callable[[bytes], Any] = json.loads


def _orjson() -> Any:
    import orjson

    return orjson


def http_json(url: str, data: bytes | None = None, timeout: float = 60.0) -> Any:
    request = urllib.request.Request(url, data=data)
    if data is not None:
        request.add_header("Content-Type", "application/x-www-form-urlencoded")
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return client_parse(response.read())


def find_data_server(tb_pid: int) -> int | None:
    for pid in children_of(tb_pid):
        argv = cmdline(pid)
        if argv and ("tensorboard_data_server" in argv[0] or any(a.startswith("--port-file") for a in argv)):
            return pid
    return None


def terminate(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL after 10 s."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def stop(process: subprocess.Popen[bytes], server_pid: int | None, server_argv: list[str]) -> None:
    """Stop TensorBoard, and its data server if it outlives it (it should exit when its stdin closes)."""
    terminate(process)
    if server_pid is None:
        return
    for sig in (signal.SIGTERM, signal.SIGKILL):
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            if cmdline(server_pid) != server_argv:  # gone (or the pid reused by something else: leave it)
                return
            time.sleep(0.05)
        if cmdline(server_pid) == server_argv:
            os.kill(server_pid, sig)


def run_tensorboard(path: Path, dataset: Dataset, timeout: float) -> dict[str, Any]:
    """TensorBoard from process start until its HTTP API has served every point; stopped in every case."""
    samples = max(1_000_000, dataset.steps)  # keep every point (0 would make the scalars plugin return nothing)
    port = free_port()
    command = [sys.executable, "-m", "tensorboard.main", "--logdir", str(path), "--load_fast=true"]
    command += ["--samples_per_plugin", f"scalars={samples}", "--host", "127.0.0.1", "--port", str(port)]
    with tempfile.TemporaryFile() as log:
        start = time.time()
        load = os.getloadavg()[0]
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        server: list[Any] = [None, []]  # the data server's pid and command line, once found
        try:
            result = poll_tensorboard(process, server, f"http://127.0.0.1:{port}", dataset, start, timeout)
        except (urllib.error.URLError, ConnectionError, TimeoutError, json.JSONDecodeError) as error:
            result = {"failed": f"HTTP error: {error}"}
        finally:
            stop(process, server[0], server[1])
        if "failed" in result and process.returncode not in (None, 0, -signal.SIGTERM):
            log.seek(0)
            tail = log.read().decode(errors="replace").strip().splitlines()[-5:]
            result["failed"] += f" (tensorboard exited with {process.returncode}: " + " | ".join(tail) + ")"
    result["port"] = port
    result["load_average"] = load
    return result


def poll_tensorboard(
    process: subprocess.Popen[bytes], server: list[Any], base: str, dataset: Dataset, start: float, timeout: float
) -> dict[str, Any]:
    runs, tags = dataset.run_names(), dataset.tag_names()
    result: dict[str, Any] = {"start_wall": start}
    deadline = time.monotonic() + timeout
    # 1. The run/tag index: until every run lists every tag.
    while True:
        if process.poll() is not None:
            return {"failed": f"tensorboard exited with {process.returncode} before listing every run and tag"}
        if server[0] is None and (pid := find_data_server(process.pid)) is not None:
            server[:] = [pid, cmdline(pid)]
        if time.monotonic() > deadline:
            return {"failed": f"no complete run/tag index after {timeout:.0f} s"}
        try:
            index = http_json(f"{base}/data/plugin/scalars/tags", timeout=10)
            result.setdefault("http_up_s", time.time() - start)
        except (urllib.error.URLError, ConnectionError, TimeoutError, json.JSONDecodeError):
            index = {}
        if all(set(tags) <= set(index.get(run, {})) for run in runs):
            break
        time.sleep(0.05)
    result["index_s"] = time.time() - start
    # 2. Every point of every series, through the route the scalars dashboard uses.
    pending = {tag: list(runs) for tag in tags}
    counts: dict[str, int] = {}
    fetches = 0
    while pending:
        if time.monotonic() > deadline:
            short = sum(len(v) for v in pending.values())
            return {"failed": f"{short} series still incomplete after {timeout:.0f} s"}
        for tag in list(pending):
            form = urllib.parse.urlencode([("tag", tag)] + [("runs", run) for run in pending[tag]]).encode()
            body = http_json(f"{base}/data/plugin/scalars/scalars_multirun", data=form, timeout=120)
            fetches += 1
            result.setdefault("first_fetch_s", time.time() - start)
            for run, points in body.items():
                counts[f"{run}/{tag}"] = len(points)
            pending[tag] = [run for run in pending[tag] if len(body.get(run, ())) < dataset.steps]
            if not pending[tag]:
                del pending[tag]
        if pending:
            time.sleep(0.1)
    result["e2e_s"] = time.time() - start
    result["fetches"] = fetches
    result["points"] = sum(counts.values())
    result["error"] = (
        None if result["points"] == dataset.events else f"{result['points']:,} points, {dataset.events:,} written"
    )
    if server[0] is None and (pid := find_data_server(process.pid)) is not None:
        server[:] = [pid, cmdline(pid)]
    result["server_peak_rss"] = proc_status(server[0]).get("VmHWM") if server[0] else None
    result["tensorboard_peak_rss"] = proc_status(process.pid).get("VmHWM")
    if server[0] is None:
        result["note"] = "data server process not found: is --load_fast really in effect?"
    return result


# --- ridgeline serve -----------------------------------------------------------------------------------------
def run_serve(path: Path, dataset: Dataset, timeout: float, source: Path | None = None) -> dict[str, Any]:
    """``ridgeline serve`` from process start until its HTTP API has served every point (as for TensorBoard:
    every run and tag listed by /api/runs, then /api/scalars for every run and tag); stopped in every case. With
    ``source``: ridgeline's ``src/`` of another commit (``--before``)."""
    port = free_port()
    command = [sys.executable, "-m", "ridgeline.cli", "serve", "--logdir", str(path), "--no-cache"]
    command += ["--host", "127.0.0.1", "--port", str(port), "--reload-interval", "0"]
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryFile() as log:
        start = time.time()
        load = os.getloadavg()[0]
        env = None if source is None else {**os.environ, "PYTHONPATH": str(source)}
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env)
        try:
            result = poll_serve(process, base, dataset, start, timeout)
        except (urllib.error.URLError, ConnectionError, TimeoutError, json.JSONDecodeError) as error:
            result = {"failed": f"HTTP error: {error}"}
        finally:
            terminate(process)
        if "failed" in result:
            log.seek(0)
            result["failed"] += " | " + " | ".join(log.read().decode(errors="replace").strip().splitlines()[-3:])
    result["load_average"] = load
    return result


def poll_serve(
    process: subprocess.Popen[bytes], base: str, dataset: Dataset, start: float, timeout: float
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    up = 0.0
    while True:
        if process.poll() is not None:
            return {"failed": f"ridgeline serve exited with {process.returncode}"}
        if time.monotonic() > deadline:
            return {"failed": f"no answer after {timeout:.0f} s"}
        try:
            listed = http_json(f"{base}/api/runs", timeout=10)
            up = up or time.time() - start
            if listed.get("loading") is None:  # serve answers while its first pass runs: wait for all of it
                break
        except (urllib.error.URLError, ConnectionError, TimeoutError, json.JSONDecodeError):
            pass
        time.sleep(0.02)
    result: dict[str, Any] = {"http_up_s": up, "all_listed_s": time.time() - start}
    names = sorted(run["run"] for run in listed["runs"])
    points = 0
    for run in names:
        for tag in dataset.tag_names():
            query = urllib.parse.urlencode({"run": run, "tag": tag})  # no max_points: every point
            points += len(http_json(f"{base}/api/scalars?{query}", timeout=120)["step"])
    result["e2e_s"] = time.time() - start
    result["server_cpu_s"] = process_cpu(process.pid)
    result["points"] = points
    result["runs_listed"] = len(names)
    wrong = names != dataset.run_names() or points != dataset.events
    result["error"] = f"{len(names)} runs, {points:,} points served" if wrong else None
    return result


# --- the runs ------------------------------------------------------------------------------------------------
@dataclass
class Figures:
    """Medians over the repeats of one competitor on one dataset; None where it could not be measured."""

    load_s: float | None = None
    e2e_s: float | None = None
    memory_mb: float | None = None
    points: int | None = None
    load_average: tuple[float, float] | None = None  # the lowest and highest of the loads' 1-minute averages
    extra: dict[str, float | None] = field(default_factory=dict)
    runs: list[dict[str, Any]] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


def median_of(results: list[dict[str, Any]], key: str) -> float | None:
    values = [r[key] for r in results if r.get(key) is not None]
    return statistics.median(values) if values else None


def summarize(results: list[dict[str, Any]]) -> Figures:
    ok = [r for r in results if "failed" not in r]
    figures = Figures(runs=results, failed=[r["failed"] for r in results if "failed" in r])
    figures.load_s = median_of(ok, "load_s")
    figures.e2e_s = median_of(ok, "e2e_s")
    for r in ok:
        if "peak_rss" in r:
            r["memory_mb"] = (r["peak_rss"] - r["baseline_rss"]) / MB
        for key in ("server_peak_rss", "tensorboard_peak_rss"):
            if r.get(key) is not None:
                r[key.replace("_rss", "_mb")] = r[key] / MB
    figures.memory_mb = median_of(ok, "memory_mb")
    loads = [r["load_average"] for r in results if r.get("load_average") is not None]
    figures.load_average = (min(loads), max(loads)) if loads else None
    points = [r["points"] for r in ok if "points" in r]
    figures.points = points[0] if points and len(set(points)) == 1 else (max(points) if points else None)
    extras = (
        "http_up_s",
        "all_listed_s",
        "server_cpu_s",
        "index_s",
        "first_fetch_s",
        "fetches",
        "server_peak_mb",
        "tensorboard_peak_mb",
    )
    for key in (*extras, "fill_load_s", "fill_memory_mb"):
        figures.extra[key] = median_of(ok, key)
    return figures


def bench_dataset(
    path: Path,
    dataset: Dataset,
    repeats: int,
    timeout: float,
    competitors: tuple[str, ...] = COMPETITORS,
    before: Path | None = None,
) -> dict[str, Figures]:
    results: dict[str, list[dict[str, Any]]] = {name: [] for name in COMPETITORS}
    if before is None:
        competitors = tuple(name for name in competitors if name not in ("ridgeline before", "ridgeline serve before"))
    for repeat in range(repeats):
        order = competitors[repeat % len(competitors) :] + competitors[: repeat % len(competitors)]
        for name in order:
            print(f"  {dataset.name}, repeat {repeat + 1}/{repeats}: {name}", file=sys.stderr)
            if name == "ridgeline":
                result = run_child("ridgeline", path, dataset, timeout)
            elif name == "ridgeline 1 thread":
                result = run_child("ridgeline", path, dataset, timeout, one_thread=True)
            elif name == "ridgeline serve":
                result = run_serve(path, dataset, timeout)
            elif name == "ridgeline serve before":
                result = run_serve(path, dataset, timeout, source=before)
            elif name == "ridgeline numpy":
                result = run_child("ridgeline", path, dataset, timeout, implementation="numpy")
            elif name == "ridgeline before":
                result = run_child("ridgeline", path, dataset, timeout, source=before)
            elif name == "floor":
                result = run_child("floor", path, dataset, timeout)
            elif name == "ridgeline warm":
                with tempfile.TemporaryDirectory(prefix="ridgeline-bench-cache-") as cache_dir:
                    fill = run_child("ridgeline", path, dataset, timeout, cache_dir)
                    result = run_child("ridgeline", path, dataset, timeout, cache_dir)
                if "failed" in fill:
                    result = {"failed": f"filling the cache: {fill['failed']}"}
                elif "failed" not in result:
                    result["fill_load_s"] = fill["load_s"]
                    result["fill_memory_mb"] = (fill["peak_rss"] - fill["baseline_rss"]) / MB
                    result["fill_error"] = fill["error"]
            elif name == "EventAccumulator":
                result = run_child("event_accumulator", path, dataset, timeout)
            else:
                result = run_tensorboard(path, dataset, timeout)
            if "failed" in result:
                print(f"    {name} failed: {result['failed']}", file=sys.stderr)
            results[name].append(result)
    return {name: summarize(r) for name, r in results.items()}


def ridgeline_errors(dataset: Dataset, figures: dict[str, Figures]) -> list[str]:
    errors = []
    for name in (name for name in COMPETITORS if name.startswith("ridgeline")):
        for failure in figures[name].failed:
            errors.append(f"{dataset.name}, {name}: {failure}")
        for r in figures[name].runs:
            for key in ("error", "fill_error"):
                if r.get(key):
                    errors.append(f"{dataset.name}, {name}{' (cache fill)' if key == 'fill_error' else ''}: {r[key]}")
    return errors


def export_source(ref: str) -> Path:
    """src/ of git commit ``ref``, exported once into .bench/ with its compiled core built (the "ridgeline before"
    competitor imports it; without the core it would time the numpy fallback instead of that commit's default)."""
    commit = subprocess.run(
        ["git", "rev-parse", "--short", ref], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.strip()
    target = REPO / ".bench" / f"before-{commit}"
    if not (target / ".complete").exists():
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        archive = subprocess.run(["git", "archive", commit, "src/ridgeline"], cwd=REPO, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
        sys.path.insert(0, str(REPO))
        from build_core import EXTENSIONS, build

        present = [name for name, sources in EXTENSIONS.items() if all((target / f).exists() for f in sources)]
        if present:
            build(inplace=True, build_dir=target / "build", only=present, root=target)
        (target / ".complete").write_text(commit + "\n")
    return target / "src"


def compile_bytecode(*sources: Path) -> None:
    """Byte-compile ridgeline's modules under each ``src`` folder (into their ``__pycache__``), as installing a
    wheel does. A checkout installed in editable mode, run with PYTHONDONTWRITEBYTECODE=1 (as here), would
    otherwise compile every module again in each process: 0.15-0.25 s of "process start -> data" that an
    installed ridgeline never pays, and TensorBoard (installed from a wheel) does not either."""
    for source in sources:
        compileall.compile_dir(source / "ridgeline", quiet=1)


# --- the machine ---------------------------------------------------------------------------------------------
def machine() -> dict[str, Any]:
    versions: dict[str, str | None] = {}
    for package in ("ridgeline", "tensorboard", "tensorboard-data-server", "numpy", "protobuf"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True, timeout=10, check=False
        ).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        commit = ""
    return {
        "cpus": os.cpu_count(),
        "cpus_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "commit": commit or None,
        "versions": versions,
    }


# --- report --------------------------------------------------------------------------------------------------
def issue_15_targets(dataset: Dataset, figures: dict[str, Figures]) -> list[tuple[str, bool, str]]:
    """One run: 1M points under 0.10 s and within 10x the floor, in no more memory than before; 30M under 3 s."""
    ours, floor = figures["ridgeline"], figures["floor"]
    targets = []
    prefix = f"{dataset.name}: "
    if dataset.runs == 1 and dataset.events == 1_000_000 and ours.load_s is not None:
        targets.append(
            (
                prefix + f"in-process load < {ONE_RUN_LOAD_TARGET_S} s, both CRCs checked",
                ours.load_s < ONE_RUN_LOAD_TARGET_S,
                f"{ours.load_s:.3f} s",
            )
        )
        if floor.load_s:
            times = ours.load_s / floor.load_s
            targets.append(
                (
                    prefix + f"<= {FLOOR_RATIO_TARGET:.0f}x the read + CRC floor",
                    times <= FLOOR_RATIO_TARGET,
                    f"{times:.1f}x",
                )
            )
        if ours.memory_mb is not None:
            targets.append(
                (
                    prefix + f"peak <= {ONE_RUN_MEMORY_TARGET_MB:.0f} MB above imports",
                    ours.memory_mb <= ONE_RUN_MEMORY_TARGET_MB,
                    f"{ours.memory_mb:.1f} MB",
                )
            )
    if dataset.events > 1_000_000 and ours.load_s is not None:
        limit = LARGE_LOAD_TARGET_S if dataset.runs == 1 else MANY_RUNS_LOAD_TARGET_S
        targets.append((prefix + f"cold load < {limit} s", ours.load_s < limit, f"{ours.load_s:.2f} s"))
    alone = figures["ridgeline 1 thread"]
    if ours.load_s is not None and alone.load_s:
        targets.append(
            (
                prefix + f"reading ahead in threads <= {THREADS_LOSS_LIMIT:.2f}x one thread's time",
                ours.load_s <= THREADS_LOSS_LIMIT * alone.load_s,
                f"{ours.load_s:.3f} s vs {alone.load_s:.3f} s ({ours.load_s / alone.load_s:.2f}x)",
            )
        )
    serve, tb = figures["ridgeline serve"], figures["TensorBoard+Rust"]
    if dataset.runs == 1 and dataset.events == 1_000_000 and serve.e2e_s is not None:
        against = f" (TensorBoard + Rust {tb.e2e_s:.2f} s: {tb.e2e_s / serve.e2e_s:.1f}x)" if tb.e2e_s else ""
        targets.append(
            (
                prefix + f"ridgeline serve, process start -> every point over HTTP < {SERVE_TARGET_S} s",
                serve.e2e_s < SERVE_TARGET_S,
                f"{serve.e2e_s:.2f} s{against}",
            )
        )
    return targets


def fmt(value: float | None, spec: str, suffix: str = "") -> str:
    return "-" if value is None else f"{value:{spec}}{suffix}"


def ratio(slower: float | None, faster: float | None) -> str:
    return "-" if slower is None or faster is None or faster <= 0 else f"{slower / faster:.1f}x"


def report(
    args: argparse.Namespace,
    info: dict[str, Any],
    measured: list[tuple[Dataset, float, dict[str, Figures]]],
) -> list[tuple[str, bool, str]]:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=max(120, shutil.get_terminal_size((120, 24)).columns), highlight=False)

    def say(text: str = "") -> None:
        console.print(text, markup=False, soft_wrap=True)

    versions = " ".join(f"{k} {v}" for k, v in info["versions"].items())
    say(f"{info['cpus']} CPUs, Python {info['python']}; {versions}; commit {info['commit']}")
    say(f"every figure: the median of {args.repeats} runs, each load in a fresh process, competitors alternated")
    say(f"the HTTP scenarios parse what they fetch with {args.client_json}")
    say("ridgeline's modules are byte-compiled first, as an installed wheel's are")
    targets: list[tuple[str, bool, str]] = []
    for dataset, size, figures in measured:
        say(f"\n{dataset.name}: {dataset.label} = {dataset.events:,} scalar events, {size / MB:.1f} MB")
        table = Table()
        columns = ("reader", "load s", "EA time / this", "x floor", "start -> data s", "peak MB over imports")
        for column in (*columns, "points", "load avg"):
            table.add_column(column, justify="left" if column == "reader" else "right", no_wrap=column == "reader")
        ea, floor = figures["EventAccumulator"], figures["floor"]
        rows = [
            ("ridgeline", figures["ridgeline"]),
            ("ridgeline (one thread)", figures["ridgeline 1 thread"]),
            ("ridgeline serve", figures["ridgeline serve"]),
            (f"ridgeline serve before ({args.before})", figures["ridgeline serve before"]),
            ("ridgeline (numpy path)", figures["ridgeline numpy"]),
            (f"ridgeline before ({args.before})", figures["ridgeline before"]),
            ("ridgeline (warm restart)", figures["ridgeline warm"]),
            ("EventAccumulator", ea),
            ("TensorBoard + Rust server", figures["TensorBoard+Rust"]),
            ("read + CRC floor", floor),
        ]
        for label, f in rows:
            if not f.runs:
                continue
            table.add_row(
                label,
                fmt(f.load_s, ".3f"),
                ratio(ea.load_s, f.load_s),
                ratio(f.load_s, floor.load_s),
                fmt(f.e2e_s, ".2f"),
                fmt(f.memory_mb, ".1f"),
                fmt(f.points, ","),
                "-" if f.load_average is None else f"{f.load_average[0]:.1f}-{f.load_average[1]:.1f}",
            )
        console.print(table)
        warm = figures["ridgeline warm"]
        if warm.extra.get("fill_load_s") is not None:
            say(
                f"ridgeline filling its cache (the process before the warm restart): "
                f"{warm.extra['fill_load_s']:.3f} s, {fmt(warm.extra.get('fill_memory_mb'), '.1f')} MB above imports"
            )
        tb = figures["TensorBoard+Rust"]
        if tb.e2e_s is not None:
            say(
                f"TensorBoard + Rust: HTTP up after {fmt(tb.extra.get('http_up_s'), '.2f')} s, every run/tag listed "
                f"after {fmt(tb.extra.get('index_s'), '.2f')} s, the first tag's series after "
                f"{fmt(tb.extra.get('first_fetch_s'), '.2f')} s, every point after {tb.e2e_s:.2f} s "
                f"({fmt(tb.extra.get('fetches'), '.0f')} fetches of scalars_multirun); "
                f"peak RSS: data server {fmt(tb.extra.get('server_peak_mb'), '.1f')} MB, "
                f"TensorBoard's Python process {fmt(tb.extra.get('tensorboard_peak_mb'), '.1f')} MB (absolute)"
            )
        for name, f in figures.items():
            for failure in sorted(set(f.failed)):
                say(f"{name} could not be measured: {failure}")
        ours = figures["ridgeline"]
        if ea.runs:
            say(
                f"ridgeline vs EventAccumulator: {ratio(ea.load_s, ours.load_s)} faster, peak memory "
                f"{fmt(ours.memory_mb, '.1f')} MB vs {fmt(ea.memory_mb, '.1f')} MB; vs TensorBoard + Rust, "
                f"process start -> data: {ratio(tb.e2e_s, ours.e2e_s)} faster"
            )
        serve = figures["ridgeline serve"]
        if serve.e2e_s is not None and tb.e2e_s is not None:
            say(
                f"ridgeline serve vs TensorBoard + Rust, process start -> every point over HTTP: "
                f"{serve.e2e_s:.2f} s vs {tb.e2e_s:.2f} s, {ratio(tb.e2e_s, serve.e2e_s)} faster "
                f"(ridgeline's HTTP up after {fmt(serve.extra.get('http_up_s'), '.2f')} s, every run listed after "
                f"{fmt(serve.extra.get('all_listed_s'), '.2f')} s; its CPU until every point was served "
                f"{fmt(serve.extra.get('server_cpu_s'), '.2f')} s)"
            )
        prefix = f"{dataset.name}: "
        targets += issue_15_targets(dataset, figures)
        if dataset.events > 1_000_000:
            continue  # issue 2's targets are for a million events
        if ours.load_s is not None:
            targets.append(
                (
                    prefix + f"cold load < {COLD_LOAD_TARGET_S} s",
                    ours.load_s < COLD_LOAD_TARGET_S,
                    f"{ours.load_s:.3f} s",
                )
            )
        if ours.e2e_s is not None and tb.e2e_s is not None:
            targets.append(
                (
                    prefix + "faster than TensorBoard + Rust, process start -> data",
                    ours.e2e_s < tb.e2e_s,
                    f"{ours.e2e_s:.2f} s vs {tb.e2e_s:.2f} s",
                )
            )
        if ours.memory_mb is not None:
            targets.append(
                (
                    prefix + f"peak memory < {MEMORY_TARGET_MB:.0f} MB above the interpreter",
                    ours.memory_mb < MEMORY_TARGET_MB,
                    f"{ours.memory_mb:.1f} MB",
                )
            )
        if warm.load_s is not None:
            targets.append(
                (prefix + f"warm restart < {WARM_TARGET_S} s", warm.load_s < WARM_TARGET_S, f"{warm.load_s:.3f} s")
            )
    say()
    for name, passed, figure in targets:
        say(f"{'PASS' if passed else 'FAIL'}  {name}: {figure}")
    if args.quick:
        say("(--quick: sizes too small for the figures to mean anything)")
    return targets


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeats", type=int, default=5, help="loads per competitor; figures are medians (default 5)")
    parser.add_argument("--quick", action="store_true", help="tiny log directories: a smoke run, not a measurement")
    parser.add_argument("--large", action="store_true", help="also 30M points in one run (1.6 GB, ridgeline only)")
    parser.add_argument("--before", metavar="REF", help="also time ridgeline as of this git commit (e.g. main)")
    parser.add_argument(
        "--data-dir", type=Path, default=REPO / ".bench" / "ingest", help="where the generated log dirs are kept"
    )
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds allowed for one load (default 600)")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    parser.add_argument(
        "--only", metavar="NAME", action="append", help="only this log directory (e.g. '1,000 runs'; repeatable)"
    )
    parser.add_argument(
        "--reader",
        metavar="NAME",
        action="append",
        choices=COMPETITORS,
        help="only this reader (e.g. 'ridgeline', 'TensorBoard+Rust'; repeatable): a shorter run",
    )
    parser.add_argument(
        "--client-json",
        choices=sorted(CLIENT_JSON),
        default="json",
        help="how the HTTP scenarios parse what they fetch (default json, the standard library; orjson: faster)",
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--logdir", help=argparse.SUPPRESS)
    parser.add_argument("--dataset", help=argparse.SUPPRESS)
    parser.add_argument("--cache-dir", help=argparse.SUPPRESS)
    parser.add_argument("--implementation", help=argparse.SUPPRESS)
    parser.add_argument("--one-thread", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child_main(args)
    global client_parse
    client_parse = CLIENT_JSON[args.client_json]
    if args.quick:
        args.repeats = 1
        args.timeout = min(args.timeout, 60.0)
    if args.repeats < 1:
        parser.error("--repeats must be positive")

    info = machine()
    measured: list[tuple[Dataset, float, dict[str, Figures]]] = []
    errors: list[str] = []
    before = export_source(args.before) if args.before else None
    compile_bytecode(REPO / "src", *([before] if before is not None else []))
    for dataset, competitors in datasets(args.quick, args.large):
        if args.only and dataset.name not in args.only:
            continue
        path, size = ensure_dataset(args.data_dir, dataset)
        if args.reader:
            competitors = tuple(name for name in competitors if name in args.reader)
        figures = bench_dataset(path, dataset, args.repeats, args.timeout, competitors, before)
        errors += ridgeline_errors(dataset, figures)
        measured.append((dataset, size, figures))

    targets = report(args, info, measured)
    if args.json:
        result = {
            "date": datetime.now(UTC).isoformat(timespec="seconds"),
            "command": " ".join([os.path.basename(sys.executable), *sys.argv]),
            "machine": info,
            "parameters": {
                "repeats": args.repeats,
                "quick": args.quick,
                "statistic": "median over repeats",
                "client_json": args.client_json,
            },
            "datasets": [
                {
                    "dataset": asdict(dataset),
                    "events": dataset.events,
                    "bytes": size,
                    "figures": {name: asdict(f) for name, f in figures.items()},
                }
                for dataset, size, figures in measured
            ],
            "targets": [{"target": name, "passed": passed, "figure": figure} for name, passed, figure in targets],
            "errors": errors,
        }
        with open(args.json, "w") as file:
            json.dump(result, file, indent=2)
            file.write("\n")
    for error in errors:
        print(f"ERROR  ridgeline's data is wrong: {error}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
