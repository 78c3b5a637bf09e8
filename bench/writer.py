"""Writer benchmark: ridgeline's SummaryWriter against torch's and tensorboardX's, in one process.

Absolute times on a shared machine are noise; what this reports are figures measured side by side in one run
(writers alternated, each measurement repeated) and their ratios to torch.

Scalars: ``add_scalar("loss", value, step)`` N times, then ``close()``, into a fresh log dir per run.
- calls/s: N / (time of the N calls + close), from a loop with no timing inside it.
- median / p99 / max: the time the calling (training) thread spends in one call, from a second run that wraps
  each call in ``time.perf_counter_ns()``; the median cost of an empty timed region (the timer itself) is
  subtracted.
Histograms: ``add_histogram("w", <1,000,000 float32 normal>, step)`` K times, then ``close()``: ms per call.
Histogram builders (``--builder-sizes``, default 1M and 10M float32 normal values), interleaved in this process
five times (``--builder-repeats``): the summary each writer builds (ridgeline's ``summaries.histogram`` and
torch's ``summary.histogram``, default bins), and the three ways of counting the default bins that ridgeline
chose among: ``np.histogram`` (torch's way), ridgeline's numpy count, and its compiled count. The target: in
every repeat, ridgeline's builder takes at most torch's time.

Every figure is the median over the repeats. Nothing here asserts on speed: the targets are printed as
PASS/FAIL lines, and the exit status is non-zero only when ridgeline's output is wrong (events missing).

    python bench/writer.py [--scalars N] [--histogram-calls K] [--histogram-size M] [--repeats R] [--quick]
                           [--builder-sizes N,M] [--builder-repeats R] [--json PATH]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from typing import Any

import numpy as np

WRITERS = ("ridgeline", "torch", "tensorboardX")

# Targets from the issue.
SCALAR_SPEEDUP_TARGET = 5.0  # ridgeline calls/s >= 5x torch's
SCALAR_STAYS_TARGET = 20.0  # issue 15: the histogram work must not cost add_scalar its 20x
SCALAR_MEDIAN_TARGET_US = 2.0  # ridgeline median add_scalar < 2 us
HISTOGRAM_RATIO_TARGET = 1.0  # ridgeline ms per add_histogram <= torch's


# --- the writers ---------------------------------------------------------------------------------------------
def writer_classes() -> dict[str, Callable[..., Any]]:
    """The three SummaryWriter classes, imported quietly: the oracles' import-time warnings are not ours."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import tensorboardX
        from torch.utils.tensorboard import SummaryWriter as TorchSummaryWriter

        from ridgeline import SummaryWriter

    return {"ridgeline": SummaryWriter, "torch": TorchSummaryWriter, "tensorboardX": tensorboardX.SummaryWriter}


def make_writer(cls: Callable[..., Any], log_dir: str) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cls(log_dir)


def rotations(repeats: int) -> list[tuple[str, ...]]:
    """The order of the writers in each repeat, rotated so that no writer always runs first (or last)."""
    return [WRITERS[i % len(WRITERS) :] + WRITERS[: i % len(WRITERS)] for i in range(repeats)]


# --- scalars -------------------------------------------------------------------------------------------------
def scalar_values(n: int) -> list[float]:
    """The same values for every writer: a noisy decaying loss, as Python floats (what ``loss.item()`` gives)."""
    rng = np.random.default_rng(0)
    steps = np.arange(n, dtype=np.float64)
    return (2.0 * np.exp(-steps / max(n / 4, 1)) + 0.05 * rng.standard_normal(n)).tolist()


def scalar_throughput(writer: Any, values: list[float]) -> float:
    """Seconds for all the calls plus close(), with nothing else in the loop."""
    add = writer.add_scalar
    start = time.perf_counter_ns()
    for step, value in enumerate(values):
        add("loss", value, step)
    writer.close()
    return (time.perf_counter_ns() - start) / 1e9


def scalar_latencies(writer: Any, values: list[float]) -> np.ndarray:
    """Nanoseconds of each call as the calling thread sees it (the timer's own cost still included)."""
    add = writer.add_scalar
    clock = time.perf_counter_ns
    spent = [0] * len(values)
    for step, value in enumerate(values):
        start = clock()
        add("loss", value, step)
        spent[step] = clock() - start
    writer.close()
    return np.asarray(spent, dtype=np.int64)


def timer_overhead_ns(n: int) -> float:
    """The median of an empty timed region, measured with the same loop shape as scalar_latencies."""
    clock = time.perf_counter_ns
    spent = [0] * n
    for step in range(n):
        start = clock()
        spent[step] = clock() - start
    return float(np.median(np.asarray(spent, dtype=np.int64)))


@dataclass
class ScalarResult:
    calls_per_s: float
    median_us: float
    p99_us: float
    p999_us: float
    max_us: float
    runs_calls_per_s: list[float] = field(default_factory=list)
    runs_median_us: list[float] = field(default_factory=list)
    runs_p99_us: list[float] = field(default_factory=list)
    runs_p999_us: list[float] = field(default_factory=list)
    runs_max_us: list[float] = field(default_factory=list)


def bench_scalars(
    classes: dict[str, Callable[..., Any]], n: int, repeats: int, root: str
) -> tuple[dict[str, ScalarResult], float, str]:
    """Returns the results per writer, the subtracted timer overhead (ns) and one ridgeline log dir to verify."""
    values = scalar_values(n)
    overhead = timer_overhead_ns(min(n, 200_000))
    runs: dict[str, dict[str, list[float]]] = {
        name: {"cps": [], "median": [], "p99": [], "p999": [], "max": []} for name in WRITERS
    }
    kept = ""
    for repeat, order in enumerate(rotations(repeats)):
        for name in order:
            log_dir = os.path.join(root, f"scalars-{name}-{repeat}-throughput")
            seconds = scalar_throughput(make_writer(classes[name], log_dir), values)
            runs[name]["cps"].append(n / seconds)
            if name == "ridgeline" and not kept:
                kept = log_dir
            else:
                shutil.rmtree(log_dir, ignore_errors=True)
            gc.collect()

            log_dir = os.path.join(root, f"scalars-{name}-{repeat}-latency")
            spent = np.maximum(scalar_latencies(make_writer(classes[name], log_dir), values) - overhead, 0) / 1e3
            runs[name]["median"].append(float(np.median(spent)))
            runs[name]["p99"].append(float(np.percentile(spent, 99)))
            runs[name]["p999"].append(float(np.percentile(spent, 99.9)))
            runs[name]["max"].append(float(spent.max()))
            shutil.rmtree(log_dir, ignore_errors=True)
            gc.collect()
    results = {
        name: ScalarResult(
            calls_per_s=statistics.median(r["cps"]),
            median_us=statistics.median(r["median"]),
            p99_us=statistics.median(r["p99"]),
            p999_us=statistics.median(r["p999"]),
            max_us=statistics.median(r["max"]),
            runs_calls_per_s=r["cps"],
            runs_median_us=r["median"],
            runs_p99_us=r["p99"],
            runs_p999_us=r["p999"],
            runs_max_us=r["max"],
        )
        for name, r in runs.items()
    }
    return results, overhead, kept


# --- histograms ----------------------------------------------------------------------------------------------
def histogram_seconds(writer: Any, values: np.ndarray, calls: int) -> float:
    add = writer.add_histogram
    start = time.perf_counter_ns()
    for step in range(calls):
        add("w", values, step)
    writer.close()
    return (time.perf_counter_ns() - start) / 1e9


@dataclass
class HistogramResult:
    ms_per_call: float
    runs_ms_per_call: list[float] = field(default_factory=list)


def bench_histograms(
    classes: dict[str, Callable[..., Any]], calls: int, size: int, repeats: int, root: str
) -> tuple[dict[str, HistogramResult], str]:
    values = np.random.default_rng(1).standard_normal(size).astype(np.float32)
    runs: dict[str, list[float]] = {name: [] for name in WRITERS}
    kept = ""
    for repeat, order in enumerate(rotations(repeats)):
        for name in order:
            log_dir = os.path.join(root, f"histograms-{name}-{repeat}")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                seconds = histogram_seconds(make_writer(classes[name], log_dir), values, calls)
            runs[name].append(seconds * 1e3 / calls)
            if name == "ridgeline" and not kept:
                kept = log_dir
            else:
                shutil.rmtree(log_dir, ignore_errors=True)
            gc.collect()
    results = {name: HistogramResult(statistics.median(r), r) for name, r in runs.items()}
    return results, kept


@dataclass
class BuilderResult:
    """Milliseconds of each repeat, per way, at one size."""

    size: int
    ms: dict[str, list[float]] = field(default_factory=dict)


def bench_builders(sizes: list[int], repeats: int) -> tuple[list[BuilderResult], list[str]]:
    """The histogram summaries of torch and ridgeline, and the three default-bin counts, interleaved."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from torch.utils.tensorboard import summary as torch_summary

    from ridgeline.writer import summaries
    from ridgeline.writer.summaries import _histograms

    torch_bins = _histograms.DEFAULT_BINS.tolist()  # torch's writer passes its default_bins, the same edges
    ways: dict[str, Callable[[np.ndarray], Any]] = {
        "ridgeline: summaries.histogram": lambda v: summaries.histogram("w", v),
        "torch: summary.histogram": lambda v: torch_summary.histogram("w", v, torch_bins),
        "count: np.histogram (torch's)": lambda v: np.histogram(v.astype(np.float64), _histograms.DEFAULT_BINS),
        "count: ridgeline numpy": lambda v: _histograms._default_bin_counts_numpy(v.astype(np.float64)),
    }
    if _histograms._core is not None:
        ways["count: ridgeline compiled"] = lambda v: _histograms._default_bin_counts_core(v.astype(np.float64))
    errors = []
    results = []
    for size in sizes:
        values = np.random.default_rng(2).standard_normal(size).astype(np.float32)
        expected = np.histogram(values.astype(np.float64), _histograms.DEFAULT_BINS)[0]
        for name in ("count: ridgeline numpy", "count: ridgeline compiled"):
            if name in ways and not np.array_equal(ways[name](values), expected):
                errors.append(f"{name} at {size:,} values differs from np.histogram")
        result = BuilderResult(size, {name: [] for name in ways})
        names = list(ways)
        for repeat in range(repeats):
            for name in names[repeat % len(names) :] + names[: repeat % len(names)]:
                gc.collect()
                start = time.perf_counter()
                ways[name](values)
                result.ms[name].append((time.perf_counter() - start) * 1e3)
        results.append(result)
    return results, errors


# --- correctness ---------------------------------------------------------------------------------------------
def verify_scalars(log_dir: str, n: int) -> str | None:
    """ridgeline's output read back by TensorBoard itself: N 'loss' events, steps 0..N-1, the values as float32."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

        accumulator = EventAccumulator(log_dir, size_guidance={"scalars": 0})
        accumulator.Reload()
    if "loss" not in accumulator.Tags()["scalars"]:
        return f"no 'loss' scalars in {log_dir}"
    events = accumulator.Scalars("loss")
    if len(events) != n:
        return f"{len(events)} 'loss' scalar events in {log_dir}, expected {n}"
    steps = np.fromiter((event.step for event in events), dtype=np.int64, count=n)
    if not np.array_equal(steps, np.arange(n)):
        return "steps are not 0..N-1 in order"
    read = np.fromiter((event.value for event in events), dtype=np.float64, count=n)
    if not np.array_equal(read, np.asarray(scalar_values(n), dtype=np.float32).astype(np.float64)):
        return "values differ from those written"
    return None


def verify_histograms(log_dir: str, calls: int, size: int) -> str | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

        accumulator = EventAccumulator(log_dir, size_guidance={"histograms": 0})
        accumulator.Reload()
    if "w" not in accumulator.Tags()["histograms"]:
        return f"no 'w' histograms in {log_dir}"
    events = accumulator.Histograms("w")
    if len(events) != calls:
        return f"{len(events)} 'w' histogram events in {log_dir}, expected {calls}"
    if any(event.histogram_value.num != size for event in events):
        return f"a histogram does not count {size} values"
    return None


# --- the machine ---------------------------------------------------------------------------------------------
def machine() -> dict[str, Any]:
    versions = {}
    for package in ("ridgeline", "torch", "tensorboardX", "tensorboard", "numpy", "protobuf"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    return {
        "cpus": os.cpu_count(),
        "cpus_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "versions": versions,
    }


# --- report --------------------------------------------------------------------------------------------------
def report(
    args: argparse.Namespace,
    info: dict[str, Any],
    scalars: dict[str, ScalarResult] | None,
    overhead: float,
    histograms: dict[str, HistogramResult] | None,
    builders: list[BuilderResult] | None = None,
) -> list[tuple[str, bool, str]]:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=max(100, shutil.get_terminal_size((100, 24)).columns), highlight=False)
    versions = " ".join(f"{k} {v}" for k, v in info["versions"].items())
    console.print(f"{info['cpus']} CPUs, Python {info['python']}; {versions}", markup=False, soft_wrap=True)
    console.print(f"every figure: the median of {args.repeats} runs, writers alternated", markup=False, soft_wrap=True)
    targets: list[tuple[str, bool, str]] = []

    if scalars is not None:
        torch = scalars["torch"]
        console.print(f"\nadd_scalar x {args.scalars:,} + close()", markup=False, soft_wrap=True)
        table = Table()
        for column in ("writer", "calls/s", "vs torch", "median µs", "p99 µs", "p99.9 µs", "max µs"):
            table.add_column(column, justify="left" if column == "writer" else "right")
        for name in WRITERS:
            r = scalars[name]
            table.add_row(
                name,
                f"{r.calls_per_s:,.0f}",
                f"{r.calls_per_s / torch.calls_per_s:.1f}x",
                f"{r.median_us:.2f}",
                f"{r.p99_us:.2f}",
                f"{r.p999_us:,.1f}",
                f"{r.max_us:,.0f}",
            )
        console.print(table)
        console.print(
            f"per-call times exclude the timer's own cost, {overhead:.0f} ns (median of an empty timed loop)",
            markup=False,
            soft_wrap=True,
        )
        ours = scalars["ridgeline"]
        speedup = ours.calls_per_s / torch.calls_per_s
        targets.append(("scalar throughput >= 5x torch", speedup >= SCALAR_SPEEDUP_TARGET, f"{speedup:.1f}x"))
        targets.append(("scalar throughput stays >= 20x torch", speedup >= SCALAR_STAYS_TARGET, f"{speedup:.1f}x"))
        targets.append(
            ("median add_scalar < 2 µs", ours.median_us < SCALAR_MEDIAN_TARGET_US, f"{ours.median_us:.2f} µs")
        )

    if histograms is not None:
        torch_ms = histograms["torch"].ms_per_call
        console.print(
            f"\nadd_histogram(<{args.histogram_size:,} float32>) x {args.histogram_calls} + close()",
            markup=False,
            soft_wrap=True,
        )
        table = Table()
        for column in ("writer", "ms/call", "time vs torch"):
            table.add_column(column, justify="left" if column == "writer" else "right")
        for name in WRITERS:
            ms = histograms[name].ms_per_call
            table.add_row(name, f"{ms:.1f}", f"{ms / torch_ms:.2f}x")
        console.print(table)
        ratio = histograms["ridgeline"].ms_per_call / torch_ms
        targets.append(("histogram time <= torch's", ratio <= HISTOGRAM_RATIO_TARGET, f"{ratio:.2f}x torch's time"))

    for result in builders or []:
        console.print(
            f"\nhistogram of {result.size:,} float32 values, {len(next(iter(result.ms.values())))} interleaved "
            f"repeats (load average {os.getloadavg()[0]:.1f})",
            markup=False,
            soft_wrap=True,
        )
        table = Table()
        for column in ("way", "best ms", "median ms", "worst ms", "median vs torch's builder"):
            table.add_column(column, justify="left" if column == "way" else "right")
        torch_ms = result.ms["torch: summary.histogram"]
        for name, ms in result.ms.items():
            ratio = statistics.median(ms) / statistics.median(torch_ms)
            table.add_row(name, f"{min(ms):.1f}", f"{statistics.median(ms):.1f}", f"{max(ms):.1f}", f"{ratio:.2f}x")
        console.print(table)
        ours = result.ms["ridgeline: summaries.histogram"]
        wins = sum(a <= b for a, b in zip(ours, torch_ms, strict=True))
        targets.append(
            (
                f"histogram of {result.size:,} values: ridgeline's builder <= torch's in every repeat",
                wins == len(ours),
                f"{wins} of {len(ours)} repeats",
            )
        )

    console.print()
    for name, passed, figure in targets:
        console.print(
            f"{'PASS' if passed else 'FAIL'}  {name}: {figure}",
            markup=False,
            soft_wrap=True,
        )
    if args.quick:
        console.print("(--quick: sizes too small for the figures to mean anything)", markup=False)
    return targets


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--scalars", type=int, default=200_000, help="add_scalar calls per run (default 200000)")
    parser.add_argument("--histogram-calls", type=int, default=20, help="add_histogram calls per run (default 20)")
    parser.add_argument(
        "--histogram-size", type=int, default=1_000_000, help="float32 values per histogram (default 1000000)"
    )
    parser.add_argument("--repeats", type=int, default=3, help="runs per writer; figures are their median (default 3)")
    parser.add_argument(
        "--builder-sizes", default="1000000,10000000", help="values per histogram for the builder comparison"
    )
    parser.add_argument("--builder-repeats", type=int, default=5, help="interleaved repeats of the builders")
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a smoke run, not a measurement")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    args = parser.parse_args(argv)
    if args.quick:
        args.scalars = min(args.scalars, 2_000)
        args.histogram_calls = min(args.histogram_calls, 2)
        args.histogram_size = min(args.histogram_size, 10_000)
        args.repeats = 1
        args.builder_sizes, args.builder_repeats = "10000", 2
    if args.scalars < 1 or args.histogram_size < 1 or args.repeats < 1 or args.histogram_calls < 0:
        parser.error("--scalars, --histogram-size and --repeats must be positive, --histogram-calls not negative")

    info = machine()
    classes = writer_classes()
    errors: list[str] = []
    root = tempfile.mkdtemp(prefix="ridgeline-bench-")
    try:
        scalars, overhead, scalar_dir = bench_scalars(classes, args.scalars, args.repeats, root)
        if error := verify_scalars(scalar_dir, args.scalars):
            errors.append(f"scalars: {error}")
        histograms = None
        if args.histogram_calls:
            histograms, histogram_dir = bench_histograms(
                classes, args.histogram_calls, args.histogram_size, args.repeats, root
            )
            if error := verify_histograms(histogram_dir, args.histogram_calls, args.histogram_size):
                errors.append(f"histograms: {error}")
        sizes = [int(size) for size in args.builder_sizes.split(",") if size]
        builders, builder_errors = bench_builders(sizes, args.builder_repeats) if sizes else ([], [])
        errors += builder_errors
    finally:
        shutil.rmtree(root, ignore_errors=True)

    targets = report(args, info, scalars, overhead, histograms, builders)
    if args.json:
        result = {
            "date": datetime.now(UTC).isoformat(timespec="seconds"),
            "command": " ".join([os.path.basename(sys.executable), *sys.argv]),
            "machine": info,
            "parameters": {
                "scalars": args.scalars,
                "histogram_calls": args.histogram_calls,
                "histogram_size": args.histogram_size,
                "repeats": args.repeats,
                "quick": args.quick,
                "statistic": "median over repeats",
            },
            "timer_overhead_ns": overhead,
            "scalars": {name: asdict(r) for name, r in scalars.items()},
            "histograms": {name: asdict(r) for name, r in histograms.items()} if histograms else None,
            "histogram_builders": [asdict(r) for r in builders],
            "load_average": os.getloadavg(),
            "targets": [{"target": name, "passed": passed, "figure": figure} for name, passed, figure in targets],
            "errors": errors,
        }
        with open(args.json, "w") as file:
            json.dump(result, file, indent=2)
            file.write("\n")
    for error in errors:
        print(f"ERROR  ridgeline output is wrong: {error}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
