"""Scale benchmark (issue 14): the on-disk store at 1M, 10M and 100M scalar points, TensorBoard in the same run.

Log directories, generated once and kept under ``--data-dir`` (default ``.bench/scale``), in three shapes of
each size N (``--shapes``):

- ``long``: 1 run x 1 tag x N steps (one event file);
- ``runs``: 1,000 runs x 10 tags x N/10,000 steps (1,000 files; at 10M the issue's 1,000 x 10 x 1,000);
- ``wide``: 100 runs x 100 tags x N/10,000 steps (100 files; at 100M the issue's 100 x 100 x 10k).

Event files are written by vectorised record encoding (:func:`write_series`), not record by record: every
record of one tag in a range of steps whose step varint has one width has the same layout, so a block of them
is one ``uint8`` array (template, then the step, wall time and float32 value bytes put in place) and their
CRC32C is computed for all of them at once from its linearity (the bytes that vary, looked up per position in a
table). The first records of each file are checked against ridgeline's own writer, byte for byte.

ridgeline, each figure from a fresh process (the event files are in the page cache, as they were just written
or read):

- parse: ``ridgeline.open(path, cache=False)`` (every point into memory, nothing written): the pace a cold build
  is judged against (issue 15's);
- cold build: ``ridgeline.open(path, store=<empty>)``; points/s; with ``--cores`` also pinned to 1 core
  (``sched_setaffinity``) to show how it scales from 1 to 2;
- warm start: ``ridgeline.open`` again over the built store, in a fresh process (after the imports);
- serving: ``ridgeline serve --logdir PATH --store STORE`` (the store built) on 127.0.0.1: from process start
  until ``/api/scalars/batch`` (the first tag of every run, ``max_points=2000``) returned every series complete;
  then one reduced series (``/api/scalars?max_points=2000``) over the full range and over a 1% zoom, first
  asked and asked again (client-side, HTTP included); then the process's ``RssAnon`` and ``VmHWM`` from
  ``/proc/PID/status``;
- bytes per point: the store directory, apparent (``st_size``) and allocated (``st_blocks``).

TensorBoard (``--load_fast=true``, its Rust data server), at sizes up to ``--tensorboard-max`` (default 10M),
with its default sampling and with ``--samples_per_plugin scalars=100000000``: seconds from process start until
``scalars_multirun`` returned complete data (what its reservoir keeps: min(1,000, steps) per series by default,
every point with the flag), peak RSS of its data server plus its Python process (bench/ingest.py's poller).

    python bench/scale.py [--sizes 1M,10M] [--shapes long,runs,wide] [--quick] [--cores] [--json PATH]
                          [--no-tensorboard] [--tensorboard-max 10M] [--keep-data] [--data-dir DIR]

``--quick`` is a smoke run (10k points, every step, no TensorBoard): not a measurement.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ingest as ingest_bench
import store as store_bench

Dataset = ingest_bench.Dataset
REPO = ingest_bench.REPO
DATA_VERSION = 1  # bump when the generated data changes
MAX_POINTS = 2000
MB = 1e6
CHUNK_STEPS = 1 << 20  # steps encoded at once for one tag (bounds the generator's memory)

# Targets of issue 14 (100M points) and of issue 2 (1M points: no regression).
TARGET_RSS_ANON_MB = 1000.0
TARGET_WARM_S = 1.0
TARGET_REDUCED_MS = 50.0
TARGET_BUILD_OVER_PARSE = 1.2
TARGET_BYTES_PER_POINT = 12.0
TARGET_1M_COLD_S = 1.5
TARGET_1M_WARM_S = 0.5


def parse_size(text: str) -> int:
    text = text.strip().upper()
    scale = {"K": 1_000, "M": 1_000_000, "B": 1_000_000_000, "G": 1_000_000_000}.get(text[-1:], 1)
    return int(float(text.rstrip("KMBG")) * scale)


def label(size: int) -> str:
    return f"{size // 1_000_000}M" if size % 1_000_000 == 0 else f"{size // 1000}k"


def shape(name: str, size: int) -> Dataset:
    if name == "long":
        return Dataset(f"long {label(size)}", 1, 1, size)
    if name == "runs":
        return Dataset(f"runs {label(size)}", 1000, 10, max(size // 10_000, 1))
    if name == "wide":
        return Dataset(f"wide {label(size)}", 100, 100, max(size // 10_000, 1))
    raise ValueError(f"unknown shape {name!r} (long, runs, wide)")


# --- the event files, encoded vectorised -------------------------------------------------------------------
def _crc_tables(max_distance: int) -> np.ndarray:
    """``T[d][b]``: what byte ``b`` at ``d`` bytes before the end adds to a CRC32C (XOR; linear part only)."""
    from crc32c import crc32c

    table = np.zeros((max_distance, 256), dtype=np.uint32)
    zeros = crc32c(bytes(max_distance))
    for d in range(max_distance):
        for b in range(1, 256):
            message = bytearray(max_distance)
            message[max_distance - 1 - d] = b
            table[d, b] = crc32c(bytes(message)) ^ zeros
    return table


CRC_TABLE = np.zeros((0, 256), dtype=np.uint32)


def _masked(crc: np.ndarray) -> np.ndarray:
    crc = crc.astype(np.uint32)
    return (((crc >> np.uint32(15)) | (crc << np.uint32(17))) + np.uint32(0xA282EAD8)).astype(np.uint32)


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def encode_block(head: bytes, steps: np.ndarray, walls: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The framed records ``Event(wall_time, step, summary(tag, simple_value))`` of consecutive steps whose
    varints have one width (all non-zero, or the one step 0): an ``(n, record bytes)`` uint8 array."""
    from crc32c import crc32c

    global CRC_TABLE
    width = 0 if steps[0] == 0 else len(_varint(int(steps[0])))
    length = 9 + (1 + width if width else 0) + len(head) + 4
    if CRC_TABLE.shape[0] < length:
        CRC_TABLE = _crc_tables(max(length, 128))
    n = len(steps)
    data = np.zeros((n, length), dtype=np.uint8)
    data[:, 0] = 0x09
    data[:, 1:9] = np.ascontiguousarray(walls, "<f8").view(np.uint8).reshape(n, 8)
    at = 9
    if width:
        data[:, 9] = 0x10
        s = np.asarray(steps, np.uint64)
        for i in range(width):
            byte = (s >> np.uint64(7 * i)) & np.uint64(0x7F)
            data[:, 10 + i] = byte | (np.uint64(0x80) if i < width - 1 else np.uint64(0))
        at = 10 + width
    data[:, at : at + len(head)] = np.frombuffer(head, np.uint8)
    data[:, -4:] = np.ascontiguousarray(values, "<f4").view(np.uint8).reshape(n, 4)
    # CRC32C of every row: that of the fixed bytes (varying ones zeroed), XOR each varying byte's part.
    varying = [*range(1, 9), *range(10, 10 + width), *range(length - 4, length)]
    template = data[0].copy()
    template[varying] = 0
    crc = np.full(n, crc32c(template.tobytes()), dtype=np.uint32)
    for position in varying:
        crc ^= CRC_TABLE[length - 1 - position][data[:, position]]
    frame = np.zeros((n, 12 + length + 4), dtype=np.uint8)
    header = np.frombuffer(np.array([length], "<u8").tobytes(), np.uint8)
    frame[:, :8] = header
    frame[:, 8:12] = np.frombuffer(_masked(np.array([crc32c(header.tobytes())])).astype("<u4").tobytes(), np.uint8)
    frame[:, 12 : 12 + length] = data
    frame[:, 12 + length :] = _masked(crc).astype("<u4").view(np.uint8).reshape(n, 4)
    return frame


def _width_ranges(start: int, stop: int) -> list[tuple[int, int]]:
    """[start, stop) cut where a step's varint changes width (0 alone: it is not written)."""
    cuts = [0, 1, 1 << 7, 1 << 14, 1 << 21, 1 << 28, 1 << 35]
    out = []
    for low, high in itertools.pairwise(cuts):
        a, b = max(start, low), min(stop, high)
        if a < b:
            out.append((a, b))
    return out


def series_values(run: int, tag: int, start: int, stop: int, steps: int) -> np.ndarray:
    """float32 values of points ``start``..``stop`` of a noisy decaying curve, different for every run and tag;
    each point's noise a function of (run, tag, step) alone, so any chunking gives the same series."""
    step = np.arange(start, stop, dtype=np.float64)
    noise = np.sin(step * 12.9898 + tag * 78.233 + run * 37.719) * 43758.5453
    noise -= np.floor(noise)
    return ((1.0 + tag) * np.exp(-3.0 * step / max(steps, 1)) + 0.1 * run / 100 + 0.04 * (noise - 0.5)).astype(
        np.float32
    )


def write_run(run_dir: Path, run: int, tags: list[str], steps: int) -> None:
    """One event file: the version record, then for each step every tag's scalar (as a training loop writes)."""
    from ridgeline.format.proto import event_pb2
    from ridgeline.format.records import frame
    from ridgeline.writer.event_file import FILE_VERSION, _scalar_head, encode_scalar_event

    run_dir.mkdir(parents=True, exist_ok=True)
    heads = [_scalar_head(tag) for tag in tags]
    path = run_dir / f"events.out.tfevents.{int(ingest_bench.WALL0)}.scale.{run}.0"
    chunk = max(CHUNK_STEPS // len(tags), 1)
    checked = False
    with open(path, "wb") as file:
        file.write(frame(event_pb2.Event(wall_time=ingest_bench.WALL0, file_version=FILE_VERSION).SerializeToString()))
        for begin in range(0, steps, chunk):
            end = min(begin + chunk, steps)
            for a, b in _width_ranges(begin, end):
                step = np.arange(a, b, dtype=np.int64)
                wall = ingest_bench.WALL0 + 1000.0 * run + 0.05 * step
                blocks = [encode_block(h, step, wall, series_values(run, j, a, b, steps)) for j, h in enumerate(heads)]
                rows = np.hstack(blocks) if len(blocks) > 1 else blocks[0]
                if not checked:  # the first records, against ridgeline's own writer
                    values = series_values(run, 0, a, b, steps)
                    expected = frame(encode_scalar_event(heads[0], float(values[0]), int(a), float(wall[0])))
                    assert blocks[0][0].tobytes() == expected, "vectorised record encoding differs from the writer"
                    checked = True
                file.write(rows.tobytes())


def ensure_dataset(root: Path, dataset: Dataset) -> Path:
    """The log directory of ``dataset`` under ``root``, written by this module's encoder unless already there."""
    path, _ = ingest_bench.ensure_dataset(root, dataset, write=write_run, version=DATA_VERSION)
    return path


# --- ridgeline, in child processes -----------------------------------------------------------------------------
def proc_figures(pid: int | str = "self") -> dict[str, int]:
    """RssAnon, VmRSS and VmHWM of a process, in bytes."""
    out: dict[str, int] = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            key, _, rest = line.partition(":")
            if key in ("RssAnon", "VmRSS", "VmHWM"):
                out[key] = int(rest.split()[0]) * 1024
    return out


def count_points(logdir: Any) -> int:
    """Points held, without reading them (the provider's store: a bench may look inside)."""
    store = logdir.provider._store
    return sum(len(series) for data in list(store.runs.values()) for series in list(data.scalars.values()))


def child(kind: str, path: str, store: str, cores: int | None) -> dict[str, Any]:
    if cores:
        os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:cores])
    import ridgeline
    import ridgeline.api  # the reading stack: imported before the clock starts

    baseline = proc_figures()["RssAnon"]
    load = os.getloadavg()[0]
    start = time.perf_counter()
    logdir = ridgeline.open(path, cache=False) if kind == "parse" else ridgeline.open(path, store=store)
    seconds = time.perf_counter() - start
    result: dict[str, Any] = {"seconds": seconds, "points": count_points(logdir), "load": load}
    result["rss_anon_mb"] = (proc_figures()["RssAnon"] - baseline) / MB
    result["restored_runs"] = getattr(logdir.provider, "restored_runs", None)
    close = getattr(logdir.provider, "close", None)
    if callable(close):
        close()
    return result


def run_child(kind: str, path: Path, store: Path | None, timeout: float, cores: int | None = None) -> dict[str, Any]:
    command = [sys.executable, __file__, "--child", kind, "--logdir", str(path), "--store", str(store or "")]
    if cores:
        command += ["--child-cores", str(cores)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"failed": f"over {timeout:.0f} s"}
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        return {"failed": lines[-1] if lines else f"exit {done.returncode}"}
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def _request(url: str, body: Any = None, timeout: float = 600.0) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read())


def serve(path: Path, store: Path, dataset: Dataset, timeout: float) -> dict[str, Any]:
    """``ridgeline serve`` over the built store: process start to the first complete chart, reduced series, memory."""
    port = ingest_bench.free_port()
    command = [sys.executable, "-m", "ridgeline.cli", "serve", "--logdir", str(path), "--store", str(store)]
    command += ["--host", "127.0.0.1", "--port", str(port), "--reload-interval", "0"]
    base = f"http://127.0.0.1:{port}"
    tag = dataset.tag_names()[0]
    chart = {"series": [{"run": run, "tag": tag} for run in dataset.run_names()], "max_points": MAX_POINTS}
    result: dict[str, Any] = {"load": os.getloadavg()[0]}
    with tempfile.TemporaryFile() as log:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        try:
            deadline = time.monotonic() + timeout
            while True:
                if process.poll() is not None:
                    log.seek(0)
                    return {"failed": f"serve exited {process.returncode}: {log.read().decode()[-300:]}"}
                if time.monotonic() > deadline:
                    return {"failed": f"no complete chart after {timeout:.0f} s"}
                try:
                    if "http_up_s" not in result:
                        _request(f"{base}/api/runs")
                        result["http_up_s"] = time.perf_counter() - start
                    series = _request(f"{base}/api/scalars/batch", chart)["series"]
                    if all(entry.get("total_points") == dataset.steps for entry in series):
                        break
                except OSError:
                    pass
                time.sleep(0.02)
            result["first_chart_s"] = time.perf_counter() - start
            run = dataset.run_names()[0]
            low, high = int(dataset.steps * 0.495), int(dataset.steps * 0.505)
            for name, extra in (("full", ""), ("zoom", f"&min_step={low}&max_step={high}")):
                query = urllib.parse.urlencode({"run": run, "tag": tag, "max_points": MAX_POINTS}) + extra
                for attempt in ("first", "again"):
                    began = time.perf_counter()
                    answer = _request(f"{base}/api/scalars?{query}")
                    result[f"{name}_{attempt}_ms"] = (time.perf_counter() - began) * 1e3
                    result[f"{name}_points"] = answer["total_points"]
            figures = proc_figures(process.pid)
            result["rss_anon_mb"] = figures["RssAnon"] / MB
            result["peak_rss_mb"] = figures["VmHWM"] / MB
        finally:
            ingest_bench.terminate(process)
    return result


def store_bytes(store: Path) -> tuple[int, int, int]:
    """Apparent bytes, allocated bytes and files of a store directory."""
    apparent = allocated = files = 0
    for entry in store.rglob("*"):
        if entry.is_file():
            info = entry.stat()
            apparent, allocated, files = apparent + info.st_size, allocated + info.st_blocks * 512, files + 1
    return apparent, allocated, files


# --- one log directory -------------------------------------------------------------------------------------------
def bench_dataset(path: Path, dataset: Dataset, args: argparse.Namespace, scratch: Path) -> dict[str, Any]:
    store = scratch / f"store-{dataset.spec()}"
    entry: dict[str, Any] = {"dataset": asdict(dataset), "points": dataset.events, "uptime_before": uptime()}
    needed, available = dataset.events * IN_MEMORY_BYTES_PER_POINT, memory_available()
    if needed > available:  # the in-memory read would run this machine out of memory (and others' jobs with it)
        entry["parse"] = {"skipped": f"in memory it needs ~{needed / 1e9:.0f} GB, {available / 1e9:.0f} GB available"}
    else:
        entry["parse"] = run_child("parse", path, None, args.timeout)
    shutil.rmtree(store, ignore_errors=True)
    entry["build"] = run_child("build", path, store, args.timeout)
    apparent, allocated, files = store_bytes(store)
    entry["store"] = {"apparent": apparent, "allocated": allocated, "files": files}
    entry["warm"] = run_child("warm", path, store, args.timeout)
    entry["serve"] = serve(path, store, dataset, args.timeout)
    if args.cores:
        one = scratch / f"store-1core-{dataset.spec()}"
        entry["build_1_core"] = run_child("build", path, one, args.timeout, cores=1)
        shutil.rmtree(one, ignore_errors=True)
    shutil.rmtree(store, ignore_errors=True)
    if not args.no_tensorboard and dataset.events <= args.tensorboard_max:
        entry["tensorboard_sampled"] = store_bench.run_tensorboard(path, dataset, None, args.timeout)
        entry["tensorboard_keep_all"] = store_bench.run_tensorboard(path, dataset, 100_000_000, args.timeout)
    entry["uptime_after"] = uptime()
    return entry


IN_MEMORY_BYTES_PER_POINT = 26  # cache=False: three 8-byte columns and their growth slack (issue 14's figures)


def memory_available() -> int:
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


# --- the report ----------------------------------------------------------------------------------------------------
def fmt(value: Any, spec: str = ".2f") -> str:
    return "n/a" if not isinstance(value, int | float) else f"{value:{spec}}"


def tb_figures(result: dict[str, Any] | None) -> str:
    if not result:
        return "not run"
    if "failed" in result:
        return f"failed: {result['failed'][:80]}"
    memory = sum(result.get(key) or 0 for key in ("server_peak_rss", "tensorboard_peak_rss")) / MB
    return f"{result['e2e_s']:.1f} s, {memory:,.0f} MB peak RSS"


def targets(entry: dict[str, Any]) -> list[tuple[str, bool | None, str]]:
    """(target, passed, measured) for one log directory: issue 14's at 100M points, issue 2's at 1M."""
    points = entry["points"]
    build, parse, warm, served = entry["build"], entry["parse"], entry["warm"], entry["serve"]
    out: list[tuple[str, bool | None, str]] = []

    def check(name: str, value: Any, limit: float, unit: str) -> None:
        ok = None if not isinstance(value, int | float) else value < limit
        out.append((f"{name} < {limit:g} {unit}", ok, f"{fmt(value)} {unit}"))

    if points >= 100_000_000:
        check("RssAnon of the serving process", served.get("rss_anon_mb"), TARGET_RSS_ANON_MB, "MB")
        check("warm start", warm.get("seconds"), TARGET_WARM_S, "s")
        check("reduced series, full range", served.get("full_first_ms"), TARGET_REDUCED_MS, "ms")
        check("reduced series, 1% zoom", served.get("zoom_first_ms"), TARGET_REDUCED_MS, "ms")
        ratio = build.get("seconds", 0) / parse["seconds"] if "seconds" in parse and "seconds" in build else None
        check("cold build / parse", ratio, TARGET_BUILD_OVER_PARSE + 1e-9, "x")
        check("bytes per point on disk", entry["store"]["apparent"] / points, TARGET_BYTES_PER_POINT + 1e-9, "B")
    if points <= 1_000_000:
        check("cold build", build.get("seconds"), TARGET_1M_COLD_S, "s")
        check("warm start", warm.get("seconds"), TARGET_1M_WARM_S, "s")
    return out


def report(results: list[dict[str, Any]]) -> None:
    print(
        "\n| log directory | points | parse | cold build (points/s) | 1 core | warm start | first chart (HTTP up) "
        "| reduced full / 1% zoom, first (again) | RssAnon (peak RSS) | B/pt apparent (allocated), files "
        "| TensorBoard default | TensorBoard keep-all |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for entry in results:
        d = Dataset(**entry["dataset"])
        parse, build, warm, served = entry["parse"], entry["build"], entry["warm"], entry["serve"]
        store = entry["store"]
        failed = [f"{k}: {v['failed']}" for k, v in entry.items() if isinstance(v, dict) and "failed" in v]
        rate = d.events / build["seconds"] / 1e6 if "seconds" in build else None
        one = entry.get("build_1_core", {})
        print(
            f"| {d.label} | {d.events:,} | {fmt(parse.get('seconds'))} s | {fmt(build.get('seconds'))} s "
            f"({fmt(rate)} M/s) | {fmt(one.get('seconds'))} s | {fmt(warm.get('seconds'), '.3f')} s "
            f"| {fmt(served.get('first_chart_s'))} s (up {fmt(served.get('http_up_s'))} s) "
            f"| {fmt(served.get('full_first_ms'), '.1f')} "
            f"({fmt(served.get('full_again_ms'), '.1f')}) / {fmt(served.get('zoom_first_ms'), '.1f')} "
            f"({fmt(served.get('zoom_again_ms'), '.1f')}) ms | {fmt(served.get('rss_anon_mb'), '.0f')} "
            f"({fmt(served.get('peak_rss_mb'), '.0f')}) MB | {store['apparent'] / d.events:.2f} "
            f"({store['allocated'] / d.events:.2f}), {store['files']:,} "
            f"| {tb_figures(entry.get('tensorboard_sampled'))} | {tb_figures(entry.get('tensorboard_keep_all'))} |"
        )
        for line in failed:
            print(f"|   failed: {line[:200]} |")
        for kind, value in entry.items():
            if isinstance(value, dict) and "skipped" in value:
                print(f"|   {kind} not run: {value['skipped']} |")
    rows = [(Dataset(**e["dataset"]).label, *t) for e in results for t in targets(e)]
    if rows:
        print("\n| log directory | target | measured | |\n| --- | --- | --- | --- |")
        for name, target, ok, measured in rows:
            print(f"| {name} | {target} | {measured} | {'n/a' if ok is None else 'PASS' if ok else 'FAIL'} |")


def check_points(results: list[dict[str, Any]]) -> list[str]:
    errors = []
    for entry in results:
        for kind in ("parse", "build", "warm"):
            if "skipped" in entry[kind]:
                continue
            got = entry[kind].get("points")
            if got != entry["points"]:
                errors.append(f"{entry['dataset']['name']} {kind}: {got} points read, {entry['points']} written")
    return errors


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sizes", default="1M,10M", help="comma-separated sizes (1M,10M,100M,1B); default 1M,10M")
    parser.add_argument("--shapes", default="long,runs,wide", help="comma-separated: long, runs, wide")
    parser.add_argument("--quick", action="store_true", help="10k points, no TensorBoard: a smoke run")
    parser.add_argument("--cores", action="store_true", help="also a cold build pinned to 1 core")
    parser.add_argument("--no-tensorboard", action="store_true", help="ridgeline only")
    parser.add_argument("--tensorboard-max", default="10M", help="largest size TensorBoard is run on (10M)")
    parser.add_argument("--data-dir", type=Path, default=REPO / ".bench" / "scale", help="generated log dirs")
    parser.add_argument("--keep-data", action="store_true", help="keep generated log dirs over 10M points")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds allowed for one step (900)")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--child-cores", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--logdir", help=argparse.SUPPRESS)
    parser.add_argument("--store", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.logdir, args.store, args.child_cores)))
        return 0
    args.tensorboard_max = parse_size(args.tensorboard_max)
    sizes = [10_000] if args.quick else [parse_size(size) for size in args.sizes.split(",")]
    args.no_tensorboard = args.no_tensorboard or args.quick
    info = ingest_bench.machine()
    print(f"machine: {info}\nuptime: {uptime()}", flush=True)
    results = []
    with tempfile.TemporaryDirectory(prefix="ridgeline-scale-bench-") as scratch:
        for size in sizes:
            for name in args.shapes.split(","):
                dataset = shape(name.strip(), size)
                path = ensure_dataset(args.data_dir, dataset)
                results.append(bench_dataset(path, dataset, args, Path(scratch)))
                print(f"{dataset.label}: done ({uptime()})", file=sys.stderr, flush=True)
                if dataset.events > 10_000_000 and not args.keep_data:
                    shutil.rmtree(path)
    print(f"uptime: {uptime()}")
    report(results)
    errors = check_points(results)
    if args.json:
        with open(args.json, "w") as file:
            document = {"date": datetime.now(UTC).isoformat(timespec="seconds"), "argv": sys.argv, "machine": info}
            json.dump({**document, "results": results, "errors": errors}, file, indent=2)
            file.write("\n")
    for error in errors:
        print(f"ERROR  {error}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
