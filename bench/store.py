"""Store benchmark: ridgeline's on-disk store against TensorBoard (keep-all and default sampling), same run.

Two log directories of ``--points`` scalar points (default 1M), generated once and kept (``--data-dir``, default
``.bench/store``) with bench/ingest.py's generator:

- long series: 1 run x 1 tag x P steps;
- many runs: 1,000 runs x 10 tags x P/10,000 steps.

ridgeline, each step in a fresh process (the event files are in the page cache):

- cold build: ``ridgeline.open(path, cache_dir=<empty>)``: reads every event file into the store; points/s;
- warm start: ``ridgeline.open`` again over the built store, then the server app in process (``create_app`` and
  a TestClient): the first complete chart (``/api/scalars/batch``, the first tag of every run, max_points=2000),
  one reduced series over the full range (``/api/scalars?max_points=2000``) and over a 1% zoom in its middle,
  each first asked (no cached answer) and asked again (the answer remembered per series version). RssAnon of
  that process after the requests, minus its RssAnon after ``import ridgeline`` and the server;
- the same with ``cache=False`` (every point in process memory, as before the store): RssAnon;
- bytes per point: the store directory, and the Parquet dataset (``update_dataset``), on disk.

TensorBoard (``tensorboard --load_fast=true``, its Rust data server) with ``--samples_per_plugin scalars=N`` for
N >= the series length (keep all) and with its default (1,000 samples per series): seconds from process start
until ``/data/plugin/scalars/scalars_multirun`` has returned complete data for every run and tag (what
bench/ingest.py measures), and the peak RSS of the data server and of TensorBoard's Python process.

    python bench/store.py [--points 1000000] [--quick] [--data-dir DIR] [--json PATH]

``--lod`` measures the level-of-detail pyramid alone, in under a minute: series of 1M, 3M and ``--lod-points``
(default 10M) points (float32 values of a random walk with spikes and a few NaN, wall times 0.1-0.2 s apart)
written straight into a store (no event files), then bytes per point of each series' files, and the reduced
answer (``max_points=2000``) over the full range and a 1% zoom: from the pyramid (``indexed_payload``, the route's
path) and by the full scan it replaces (``series_payload`` over ``Provider.scalars``), median of 5, same process.

    python bench/store.py --lod [--lod-points 10000000]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ingest as ingest_bench

Dataset = ingest_bench.Dataset
REPO = ingest_bench.REPO
MB = 1e6
MAX_POINTS = 2000


def datasets(points: int, runs: int = 1000) -> list[Dataset]:
    return [Dataset("long series", 1, 1, points), Dataset("many runs", runs, 10, max(points // (runs * 10), 1))]


# --- ridgeline, in child processes ---------------------------------------------------------------------------
def rss_anon() -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("RssAnon:"))


def child_build(path: str, store: str) -> dict[str, Any]:
    import ridgeline

    start = time.perf_counter()
    logdir = ridgeline.open(path, cache_dir=store)
    seconds = time.perf_counter() - start
    points = sum(len(logdir.scalars(run, tag)) for run in logdir.runs() for tag in logdir.tags(run)["scalars"])
    return {"build_s": seconds, "points": points}


def child_serve(path: str, store: str | None, dataset: Dataset) -> dict[str, Any]:
    from fastapi.testclient import TestClient

    import ridgeline
    from ridgeline.server import create_app

    baseline = rss_anon()
    start = time.perf_counter()
    logdir = ridgeline.open(path, cache_dir=store) if store else ridgeline.open(path, cache=False)
    result: dict[str, Any] = {"open_s": time.perf_counter() - start}
    run, tag = dataset.run_names()[0], dataset.tag_names()[0]
    with TestClient(create_app(logdir, logdir_label=path)) as client:
        body = {"series": [{"run": r, "tag": tag} for r in dataset.run_names()], "max_points": MAX_POINTS}
        began = time.perf_counter()
        chart = client.post("/api/scalars/batch", json=body).json()["series"]
        result["first_chart_s"] = time.perf_counter() - began
        result["chart_points"] = sum(entry["total_points"] for entry in chart)
        low, high = int(dataset.steps * 0.495), int(dataset.steps * 0.505)
        for name, params in (("full", {}), ("zoom", {"min_step": low, "max_step": high})):
            for attempt in ("first", "again"):
                began = time.perf_counter()
                answer = client.get("/api/scalars", params={"run": run, "tag": tag, "max_points": MAX_POINTS, **params})
                result[f"{name}_{attempt}_s"] = time.perf_counter() - began
                assert answer.status_code == 200, answer.text
    result["rss_anon_mb"] = (rss_anon() - baseline) / MB
    return result


def child_main(args: argparse.Namespace) -> int:
    dataset = Dataset.parse("child", args.dataset)
    if args.child == "build":
        result = child_build(args.logdir, args.store)
    else:
        result = child_serve(args.logdir, args.store or None, dataset)
    print(json.dumps(result))
    return 0


def run_child(kind: str, path: Path, dataset: Dataset, store: str, timeout: float) -> dict[str, Any]:
    command = [sys.executable, __file__, "--child", kind, "--logdir", str(path), "--dataset", dataset.spec()]
    command += ["--store", store]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    if done.returncode != 0:
        return {"failed": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"}
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def size_of(directory: Path) -> int:
    return sum(path.stat().st_size for path in directory.rglob("*") if path.is_file())


def parquet_bytes(path: Path, store: str, out: Path) -> int:
    import ridgeline
    from ridgeline.export.dataset import update_dataset

    logdir = ridgeline.open(path, cache_dir=store)
    update_dataset(logdir, out)
    logdir.provider.close()  # type: ignore[attr-defined]
    return size_of(out)


# --- TensorBoard -------------------------------------------------------------------------------------------
def run_tensorboard(path: Path, dataset: Dataset, samples: int | None, timeout: float) -> dict[str, Any]:
    """TensorBoard until its API returned every series complete (keep-all: every point; sampled: what its
    reservoir keeps, min(1000, steps) per series)."""
    port = ingest_bench.free_port()
    command = [sys.executable, "-m", "tensorboard.main", "--logdir", str(path), "--load_fast=true"]
    if samples is not None:
        command += ["--samples_per_plugin", f"scalars={samples}"]
    command += ["--host", "127.0.0.1", "--port", str(port)]
    kept = (
        dataset if samples is not None else Dataset(dataset.name, dataset.runs, dataset.tags, min(1000, dataset.steps))
    )
    with tempfile.TemporaryFile() as log:
        start = time.time()
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        server: list[Any] = [None, []]
        try:
            result = ingest_bench.poll_tensorboard(process, server, f"http://127.0.0.1:{port}", kept, start, timeout)
        except Exception as error:  # HTTP errors, a server that died: reported, never fatal
            result = {"failed": f"{type(error).__name__}: {error}"}
        finally:
            ingest_bench.stop(process, server[0], server[1])
    return result


# --- the report ------------------------------------------------------------------------------------------
def fmt(value: float | None, spec: str = ".3f", suffix: str = "") -> str:
    return "n/a" if value is None else f"{value:{spec}}{suffix}"


def ratio(theirs: float | None, ours: float | None) -> str:
    if theirs is None or ours is None or ours <= 0:
        return "n/a"
    return f"{theirs / ours:.1f}x"


def bench_dataset(path: Path, dataset: Dataset, timeout: float, scratch: Path) -> dict[str, Any]:
    store = scratch / f"store-{dataset.spec()}"
    shutil.rmtree(store, ignore_errors=True)
    built = run_child("build", path, dataset, str(store), timeout)
    warm = run_child("serve", path, dataset, str(store), timeout)
    memory = run_child("serve", path, dataset, "", timeout)
    store_bytes = size_of(store)
    parquet = parquet_bytes(path, str(store), scratch / f"parquet-{dataset.spec()}")
    keep_all = run_tensorboard(path, dataset, max(1_000_000, dataset.steps), timeout)
    sampled = run_tensorboard(path, dataset, None, timeout)
    return {
        "dataset": asdict(dataset),
        "points": dataset.events,
        "ridgeline_build": built,
        "ridgeline_warm": warm,
        "ridgeline_in_memory": memory,
        "store_bytes_per_point": store_bytes / dataset.events,
        "parquet_bytes_per_point": parquet / dataset.events,
        "tensorboard_keep_all": keep_all,
        "tensorboard_sampled": sampled,
    }


def report(results: list[dict[str, Any]]) -> None:
    for entry in results:
        d = Dataset(**entry["dataset"])
        built, warm, memory = entry["ridgeline_build"], entry["ridgeline_warm"], entry["ridgeline_in_memory"]
        keep, sampled = entry["tensorboard_keep_all"], entry["tensorboard_sampled"]
        print(f"\n## {d.name}: {d.label} = {d.events:,} points\n")
        if "failed" in built or "failed" in warm:
            print(f"ridgeline failed: {built.get('failed') or warm.get('failed')}")
            continue
        rate = entry["points"] / built["build_s"]
        ready = warm["open_s"] + warm["first_chart_s"]
        print(
            "| figure | ridgeline store | ridgeline in memory (cache=False) | TensorBoard keep-all "
            "| TensorBoard sampled |"
        )
        print("| --- | --- | --- | --- | --- |")
        print(f"| cold build | {fmt(built['build_s'])} s ({rate / 1e6:.2f} M points/s) | | | |")
        print(
            f"| start to first complete chart | {fmt(ready)} s (warm start {fmt(warm['open_s'])} s) "
            f"| {fmt(memory.get('open_s', 0) + memory.get('first_chart_s', 0))} s "
            f"| {fmt(keep.get('e2e_s'))} s ({ratio(keep.get('e2e_s'), ready)}) "
            f"| {fmt(sampled.get('e2e_s'))} s ({ratio(sampled.get('e2e_s'), ready)}) |"
        )
        for name, label in (("full", "full range"), ("zoom", "1% zoom")):
            print(
                f"| one reduced series, {label} (first / again) | {fmt(warm[f'{name}_first_s'] * 1e3, '.1f')} / "
                f"{fmt(warm[f'{name}_again_s'] * 1e3, '.1f')} ms | {fmt(memory.get(f'{name}_first_s', 0) * 1e3, '.1f')}"
                " ms | | |"
            )
        tb_keep_mb = _tb_memory(keep)
        tb_sampled_mb = _tb_memory(sampled)
        print(
            f"| memory of the serving process | {fmt(warm['rss_anon_mb'], '.1f')} MB RssAnon "
            f"| {fmt(memory.get('rss_anon_mb'), '.1f')} MB RssAnon "
            f"| {fmt(tb_keep_mb, '.0f')} MB peak RSS ({ratio(tb_keep_mb, warm['rss_anon_mb'])}) "
            f"| {fmt(tb_sampled_mb, '.0f')} MB peak RSS ({ratio(tb_sampled_mb, warm['rss_anon_mb'])}) |"
        )
        print(
            f"| bytes per point on disk | {entry['store_bytes_per_point']:.1f} (store), "
            f"{entry['parquet_bytes_per_point']:.1f} (Parquet dataset) | | | |"
        )
        for name, tb in (("keep-all", keep), ("sampled", sampled)):
            if "failed" in tb:
                print(f"\nTensorBoard {name} failed: {tb['failed']}")


def _tb_memory(result: dict[str, Any]) -> float | None:
    parts = [result.get("server_peak_rss"), result.get("tensorboard_peak_rss")]
    known = [part for part in parts if part is not None]
    return sum(known) / MB if known else None


# --- the level-of-detail pyramid alone ------------------------------------------------------------------------
def lod_series(directory: Path, points: int, seed: int = 0) -> None:
    """One series of ``points`` points written straight into a store at ``directory`` (1M points at a time)."""
    import numpy as np

    from ridgeline.store.disk import DiskStore

    rng = np.random.default_rng(seed)
    store = DiskStore(directory)
    series = store.run("run").scalar_series("loss")
    level, wall = 0.0, 1.7e9
    for start in range(0, points, 1 << 20):
        n = min(1 << 20, points - start)
        value = (level + np.cumsum(rng.standard_normal(n))).astype(np.float32)
        value[rng.integers(0, n, 3)] = np.float32(1e4)  # spikes
        value[rng.integers(0, n, 2)] = np.nan
        level = float(value[-1]) if np.isfinite(value[-1]) else level
        walls = wall + np.cumsum(0.1 + 0.1 * rng.random(n))
        wall = float(walls[-1])
        series.append(np.arange(start, start + n, dtype=np.int64), walls, value.astype(np.float64))
    store.checkpoint({})
    store.close()


def lod_timings(directory: Path, points: int) -> dict[str, Any]:
    import numpy as np

    from ridgeline.plugins.scalars.series import Window, indexed_payload, series_payload
    from ridgeline.store.disk import DiskStore
    from ridgeline.store.disk_provider import DiskProvider

    store = DiskStore(directory)
    (data, _), *_ = store.stored_runs().values()
    store.replace_run(data)
    provider = DiskProvider(store, loader=None)  # type: ignore[arg-type]  # reads only: nothing to load
    files = [path for path in directory.rglob("*") if path.suffix in (".step", ".wall_time", ".value4", ".lod")]
    result: dict[str, Any] = {"points": points, "bytes_per_point": sum(p.stat().st_size for p in files) / points}
    zoom = Window(MAX_POINTS, min_step=int(points * 0.495), max_step=int(points * 0.505))
    for name, window in (("full", Window(MAX_POINTS)), ("zoom", zoom)):
        began = time.perf_counter()
        indexed = provider.indexed_scalars("run", "loss")
        assert indexed is not None
        first = indexed_payload(indexed, window)
        result[f"{name}_pyramid_first_ms"] = (time.perf_counter() - began) * 1e3
        times = []
        for _ in range(5):
            began = time.perf_counter()
            answer = indexed_payload(provider.indexed_scalars("run", "loss"), window)  # type: ignore[arg-type]
            times.append(time.perf_counter() - began)
        result[f"{name}_pyramid_ms"] = sorted(times)[2] * 1e3
        times = []
        for _ in range(5):
            began = time.perf_counter()
            scanned = series_payload(provider.scalars("run", "loss"), window)
            times.append(time.perf_counter() - began)
        result[f"{name}_scan_ms"] = sorted(times)[2] * 1e3
        same = all(np.array_equal(answer[key], scanned[key], equal_nan=True) for key in ("step", "value", "band_low"))
        assert same and first["total_points"] == scanned["total_points"], f"the pyramid's answer differs ({name})"
    store.close()
    return result


def lod_main(points: int) -> int:
    sizes = sorted({1_000_000, 3_000_000, points})
    print(f"machine: {ingest_bench.machine()}")
    print(f"uptime: {subprocess.run(['uptime'], capture_output=True, text=True, check=False).stdout.strip()}")
    print("\n| points | bytes/point on disk | full range: pyramid (first) / full scan | 1% zoom: same |")
    print("| --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory(prefix="ridgeline-lod-bench-") as scratch:
        for size in sizes:
            directory = Path(scratch) / f"store-{size}"
            lod_series(directory, size)
            r = lod_timings(directory, size)
            print(
                f"| {size:,} | {r['bytes_per_point']:.2f} "
                f"| {r['full_pyramid_ms']:.1f} ms ({r['full_pyramid_first_ms']:.1f}) "
                f"/ {r['full_scan_ms']:.0f} ms ({r['full_scan_ms'] / r['full_pyramid_ms']:.0f}x) "
                f"| {r['zoom_pyramid_ms']:.1f} ms ({r['zoom_pyramid_first_ms']:.1f}) / {r['zoom_scan_ms']:.0f} ms "
                f"({r['zoom_scan_ms'] / r['zoom_pyramid_ms']:.0f}x) |"
            )
            shutil.rmtree(directory)
    print(f"uptime: {subprocess.run(['uptime'], capture_output=True, text=True, check=False).stdout.strip()}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--points", type=int, default=1_000_000, help="points per log directory (default 1M)")
    parser.add_argument(
        "--quick", action="store_true", help="20,000 points (many runs: 100 of them): a smoke run, not a measurement"
    )
    parser.add_argument("--data-dir", type=Path, default=REPO / ".bench" / "store", help="generated log dirs")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds allowed for one step (default 900)")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    parser.add_argument("--lod", action="store_true", help="the level-of-detail pyramid alone (under a minute)")
    parser.add_argument("--lod-points", type=int, default=10_000_000, help="the longest series of --lod (10M)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--logdir", help=argparse.SUPPRESS)
    parser.add_argument("--dataset", help=argparse.SUPPRESS)
    parser.add_argument("--store", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child_main(args)
    if args.lod:
        return lod_main(args.lod_points)
    points = 20_000 if args.quick else args.points
    results = []
    with tempfile.TemporaryDirectory(prefix="ridgeline-store-bench-") as scratch:
        for dataset in datasets(points, runs=100 if args.quick else 1000):
            path, _ = ingest_bench.ensure_dataset(args.data_dir, dataset)
            results.append(bench_dataset(path, dataset, args.timeout, Path(scratch)))
    info = ingest_bench.machine()
    print(f"\nmachine: {info}")
    report(results)
    errors = [
        f"{entry['dataset']['name']}: {entry['ridgeline_build'].get('points')} points read, {entry['points']} written"
        for entry in results
        if entry["ridgeline_build"].get("points") != entry["points"]
    ]
    if args.json:
        with open(args.json, "w") as file:
            json.dump(
                {
                    "date": datetime.now(UTC).isoformat(timespec="seconds"),
                    "command": " ".join([os.path.basename(sys.executable), *sys.argv]),
                    "machine": info,
                    "results": results,
                    "errors": errors,
                },
                file,
                indent=2,
            )
            file.write("\n")
    for error in errors:
        print(f"ERROR  {error}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
