"""Diagnosis benchmark (issue 7): how long diagnosing 100 runs takes, and how right it is.

Writes the labelled runs of ``ridgeline.fixtures.problems`` (every problem kind in several variants, plus
healthy runs; 200-500 points per scalar series, histograms every 10th step) with ridgeline's writer, opens them,
and times ``diagnose_logdir`` over the first 100 runs (reading the series from the store included; decoding
event files is not: that is ingest's benchmark). Also times 100 runs of long series (20,000-step losses,
reduced to 2,000 bucket medians before the analysis). Reports precision and recall per kind over every
labelled run. Used by bench/insights.py (``bench_diagnosis``); runs on its own too:

    python bench/diagnosis.py [--quick] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

import ridgeline
from ridgeline.analysis.diagnosis import KINDS, Series, diagnose
from ridgeline.fixtures.problems import write_problem_runs
from ridgeline.services.diagnosis import diagnose_logdir

RUNS = 100


def quality(labels: dict[str, frozenset[str]], findings: list[Any]) -> dict[str, dict[str, float | int]]:
    """Per kind: true/false positives, false negatives, precision and recall, counted per labelled case."""
    found: dict[str, set[str]] = defaultdict(set)
    for f in findings:
        found[f.run.split("/")[0]].add(f.kind)
    table: dict[str, dict[str, float | int]] = {}
    for kind in KINDS:
        tp = sum(1 for case, want in labels.items() if kind in want and kind in found[case])
        fp = sum(1 for case, want in labels.items() if kind not in want and kind in found[case])
        fn = sum(1 for case, want in labels.items() if kind in want and kind not in found[case])
        table[kind] = {
            "tp": tp,
            "fp": fp,
            "fn": fn,
            "precision": tp / (tp + fp) if tp + fp else 1.0,
            "recall": tp / (tp + fn) if tp + fn else 1.0,
        }
    healthy = [case for case, want in labels.items() if not want]
    table["healthy"] = {"runs": len(healthy), "raised": sum(1 for case in healthy if found[case])}
    return table


def long_runs(count: int, steps: int, seed: int = 0) -> list[dict[str, Series]]:
    rng = np.random.default_rng(seed)
    x = np.arange(steps)
    out = []
    for _ in range(count):
        clean = 0.1 + 2 * (1 + x / rng.uniform(200, 2000)) ** -rng.uniform(0.5, 0.9)
        out.append(
            {
                "train/loss": Series(x, clean * np.exp(rng.normal(0, 0.1, steps))),
                "val/loss": Series(x[::100], clean[::100] * 1.05),
                "train/acc": Series(x, np.clip(1 - clean / 2.2, 0, 1)),
                "grad_norm/total": Series(x, np.exp(rng.normal(0, 0.3, steps))),
            }
        )
    return out


def run(quick: bool = False, repeats: int = 3) -> dict[str, Any]:
    seeds = (40,) if quick else (40, 41, 42)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        labels = write_problem_runs(root, seeds=seeds)
        logdir = ridgeline.open(root, cache=False)
        runs = sorted(logdir.runs())[:RUNS]
        times = []
        for _ in range(1 if quick else repeats):
            started = time.perf_counter()
            diagnose_logdir(logdir, runs)
            times.append(time.perf_counter() - started)
        findings = diagnose_logdir(logdir)
    long = long_runs(10 if quick else RUNS, 20_000)
    started = time.perf_counter()
    for i, scalars in enumerate(long):
        diagnose(f"long{i}", scalars)
    long_seconds = time.perf_counter() - started
    seconds = statistics.median(times)
    return {
        "runs": len(runs),
        "seconds": round(seconds, 4),
        "ms_per_run": round(seconds / len(runs) * 1000, 2),
        "long_runs": len(long),
        "long_points_per_series": 20_000,
        "long_ms_per_run": round(long_seconds / len(long) * 1000, 2),
        "labelled_cases": len(labels),
        "quality": quality(labels, findings),
    }


def print_table(results: dict[str, Any]) -> None:
    print(
        f"diagnosis: {results['runs']} runs in {results['seconds']:.2f} s ({results['ms_per_run']:.1f} ms/run); "
        f"{results['long_runs']} runs of {results['long_points_per_series']:,}-point series: "
        f"{results['long_ms_per_run']:.1f} ms/run"
    )
    print(f"  {'kind':22s} {'tp':>4s} {'fp':>4s} {'fn':>4s} {'precision':>10s} {'recall':>7s}")
    for kind in KINDS:
        q = results["quality"][kind]
        print(f"  {kind:22s} {q['tp']:4d} {q['fp']:4d} {q['fn']:4d} {q['precision']:10.2f} {q['recall']:7.2f}")
    healthy = results["quality"]["healthy"]
    print(f"  healthy runs: {healthy['runs']}, with a finding: {healthy['raised']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="one seed, one repeat (the smoke test)")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    args = parser.parse_args(argv)
    results = run(args.quick)
    print_table(results)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
