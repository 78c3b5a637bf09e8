"""Distributed runs: aggregation and clock alignment across ranks, and the system-metrics sampler's cost.

1. **Aggregation and alignment** of 64 ranks × 20 tags × 10,000 steps (target: under 1 s), as
   ``ridgeline.analysis.distributed`` does it: every tag aggregated per step (mean, median, min, max, σ, ranks of
   the min and max), each rank's clock offset from the steps all ranks log (20 channels), and the sync report from
   10,000 steps of sync records. Beside it, the same per-step aggregation done the way one does it by hand, with
   pandas (``concat`` then ``groupby("step")`` with mean/median/min/max/std and ``idxmin``/``idxmax`` for the
   ranks), and the offsets with a pandas pivot and median; the answers of both are compared.
2. **The same through a log directory** (``--logdir-steps``, default 2,000 steps to keep the write short):
   64 ranks written with ridgeline's writer, read with ``ridgeline.open``, then ``services.distributed.analyse``
   (offsets from steps, step rates) and ``tag_across_ranks`` for one tag.
3. **The system-metrics sampler**: the CPU time of one sample (psutil host figures; GPU figures where NVML finds a
   GPU), measured on the calling thread, as a share of one core at 1 s and 10 s intervals (target: under 1 % at
   the default 10 s).
4. **Reloading a log directory on S3** (``--s3-runs``, default 50; ``--s3-runs 1000`` for the issue's figure):
   requests and seconds per reload against moto's S3 server on 127.0.0.1, through a counting proxy, beside
   TensorBoard's loader pointed at the same bucket (``--s3-no-tensorboard`` leaves it out: it makes about three
   requests per run per reload, minutes at 1,000 runs). See bench/s3_reload.py.

    python bench/distributed.py [--ranks 64] [--tags 20] [--steps 10000] [--repeats 3] [--logdir-steps 2000]
                                [--s3-runs 50] [--s3-no-tensorboard] [--quick] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import ridgeline
from ridgeline.analysis.distributed import aggregate, analyse_sync, estimate_offsets
from ridgeline.services.distributed import analyse, distributed_runs, tag_across_ranks


def timed(fn: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def synthetic(ranks: int, tags: int, steps: int, seed: int = 0) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    step = np.arange(steps, dtype=np.int64)
    instants = 1.7e9 + step * 0.2
    offsets = rng.normal(0, 0.5, ranks)
    offsets[0] = 0.0
    curve = np.exp(-step / 3000)
    values = {t: [curve + rng.normal(0, 0.01, steps) + r * 1e-3 for r in range(ranks)] for t in range(tags)}
    walls = [instants + offsets[r] + rng.normal(0, 0.002, steps) for r in range(ranks)]
    compute = 0.15 + rng.uniform(0, 0.02, ranks)
    compute[7] = 0.2  # a straggler
    leave = 1.7e9 + np.cumsum(np.full(steps, compute.max()))
    sync = {
        r: (step, leave + offsets[r], np.full(steps, compute.max() - compute[r]) + rng.uniform(0, 1e-4, steps))
        for r in range(ranks)
    }
    return {"step": step, "values": values, "walls": walls, "sync": sync, "offsets": offsets}


def ours(data: dict[str, Any]) -> dict[str, Any]:
    step, ranks = data["step"], list(range(len(data["walls"])))
    aggregates = {t: aggregate(ranks, [step] * len(ranks), columns) for t, columns in data["values"].items()}
    channel = {r: (step, data["walls"][r]) for r in ranks}
    offsets = estimate_offsets([channel] * len(data["values"]))
    sync_offsets = estimate_offsets([{r: (s, d) for r, (s, d, _) in data["sync"].items()}])
    report = analyse_sync(data["sync"], {r: o.offset for r, o in sync_offsets.items()})
    return {"aggregates": aggregates, "offsets": offsets, "straggler": report.straggler}


def by_hand(data: dict[str, Any]) -> dict[str, Any]:
    import pandas

    step, ranks = data["step"], list(range(len(data["walls"])))
    aggregates = {}
    for t, columns in data["values"].items():
        frame = pandas.concat(
            [pandas.DataFrame({"step": step, "rank": r, "value": columns[r]}) for r in ranks], ignore_index=True
        )
        grouped = frame.groupby("step")["value"]
        stats = grouped.agg(["mean", "median", "min", "max", "std"])
        stats["min_rank"] = frame.loc[grouped.idxmin(), "rank"].to_numpy()
        stats["max_rank"] = frame.loc[grouped.idxmax(), "rank"].to_numpy()
        aggregates[t] = stats
    walls = pandas.DataFrame({r: data["walls"][r] for r in ranks}, index=step)
    offsets = walls.sub(walls[0], axis=0).median()
    return {"aggregates": aggregates, "offsets": offsets}


def check(mine: dict[str, Any], theirs: dict[str, Any], data: dict[str, Any]) -> None:
    for t, a in mine["aggregates"].items():
        b = theirs["aggregates"][t]
        assert np.allclose(a.mean, b["mean"]) and np.allclose(a.median, b["median"]), f"tag {t}: statistics differ"
        assert np.array_equal(a.min_rank, b["min_rank"]) and np.array_equal(a.max_rank, b["max_rank"]), t
    found = np.array([mine["offsets"][r].offset for r in range(len(data["walls"]))])
    # Ours use at most 32,768 instants per rank (evenly spread), pandas' every one: equal within 0.1 ms.
    assert np.allclose(found, theirs["offsets"].to_numpy(), atol=1e-4), "offsets differ from pandas'"
    assert np.abs(found - data["offsets"]).max() < 0.005, "offsets not recovered within 5 ms"
    assert mine["straggler"] == 7, f"straggler {mine['straggler']} is not the slowed rank 7"


def write_logdir(root: Path, ranks: int, tags: int, steps: int) -> None:
    from ridgeline import SummaryWriter

    rng = np.random.default_rng(1)
    for rank in range(ranks):
        with SummaryWriter(root / "job", rank=rank, max_queue=4096) as writer:
            shift = float(rng.normal(0, 0.5))
            for step in range(steps):
                wall = 1.7e9 + step * 0.2 + shift
                for t in range(tags):
                    writer.add_scalar(f"tag{t:02d}", 1.0 / (step + 1) + rank * 1e-3, step, wall)


def sampler_cost(samples: int) -> dict[str, Any]:
    from ridgeline.writer.system_metrics import GpuSampler, HostSampler

    try:
        import psutil
    except ImportError:
        return {"error": "psutil is not installed"}
    host = HostSampler(psutil)
    gpu = GpuSampler.open(None)
    costs = []
    for _ in range(samples):
        start = time.thread_time()
        host.sample()
        if gpu is not None:
            gpu.sample()
        costs.append(time.thread_time() - start)
        time.sleep(0.01)
    per_sample = statistics.median(costs)
    return {
        "gpus": gpu is not None,
        "cpu_ms_per_sample": per_sample * 1000,
        "percent_of_a_core_at_1s": per_sample / 1.0 * 100,
        "percent_of_a_core_at_10s": per_sample / 10.0 * 100,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ranks", type=int, default=64)
    parser.add_argument("--tags", type=int, default=20)
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--logdir-steps", type=int, default=2_000)
    parser.add_argument(
        "--s3-runs", type=int, default=None, help="runs in the S3 bucket (default 50, 5 with --quick; 0: no S3 reload)"
    )
    parser.add_argument("--s3-no-tensorboard", action="store_true", help="S3 reload: ridgeline only")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 8 ranks, 3 tags, 500 steps, 5 runs on S3")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    if args.quick:
        args.ranks, args.tags, args.steps, args.repeats, args.logdir_steps = 8, 3, 500, 1, 200
    if args.s3_runs is None:
        args.s3_runs = 5 if args.quick else 50
    results: dict[str, Any] = {}

    data = synthetic(args.ranks, args.tags, args.steps)
    points = args.ranks * args.tags * args.steps
    ours_s, mine = timed(lambda: ours(data), args.repeats)
    pandas_s, theirs = timed(lambda: by_hand(data), args.repeats)
    check(mine, theirs, data)
    results["analysis"] = {"points": points, "ridgeline_s": ours_s, "pandas_s": pandas_s, "ratio": pandas_s / ours_s}
    print(f"aggregation + alignment, {args.ranks} ranks × {args.tags} tags × {args.steps:,} steps ({points:,} points)")
    print(f"  ridgeline {ours_s:.3f} s   pandas by hand {pandas_s:.3f} s   ({pandas_s / ours_s:.1f}× faster)")
    print(f"  {'PASS' if ours_s < 1 else 'FAIL'} under 1 s")

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        start = time.perf_counter()
        write_logdir(root, args.ranks, args.tags, args.logdir_steps)
        written = time.perf_counter() - start
        logdir = ridgeline.open(root, cache=False)
        (group,) = distributed_runs(logdir)
        report_s, report = timed(lambda: analyse(logdir, group), args.repeats)
        tag_s, _ = timed(lambda: tag_across_ranks(logdir, report, "tag00"), args.repeats)
        assert report.clock_source == "steps" and len(report.offsets) == args.ranks
    stored = args.ranks * args.tags * args.logdir_steps
    results["logdir"] = {"points": stored, "write_s": written, "report_s": report_s, "one_tag_s": tag_s}
    shape = f"{args.ranks} ranks × {args.tags} tags × {args.logdir_steps:,} steps"
    print(f"through a log directory, {shape} ({stored:,} points)")
    print(f"  report (offsets from steps, step rates) {report_s:.3f} s   one tag across ranks {tag_s * 1000:.1f} ms")

    cost = sampler_cost(5 if args.quick else 50)
    results["system_metrics"] = cost
    if "error" in cost:
        print(f"system metrics: {cost['error']}")
    else:
        print(f"system metrics sampler: {cost['cpu_ms_per_sample']:.2f} ms CPU per sample (GPUs: {cost['gpus']})")
        at_1s, at_10s = cost["percent_of_a_core_at_1s"], cost["percent_of_a_core_at_10s"]
        print(f"  {at_1s:.3f} % of a core at 1 s, {at_10s:.4f} % at 10 s")
        print(f"  {'PASS' if cost['percent_of_a_core_at_10s'] < 1 else 'FAIL'} under 1 % of a core at 10 s")
    if args.s3_runs > 0:
        sys.path.insert(0, str(Path(__file__).parent))
        import s3_reload

        results["s3_reload"] = s3_reload.run(args.s3_runs, tensorboard=not args.s3_no_tensorboard)
        s3_reload.report(results["s3_reload"])
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
