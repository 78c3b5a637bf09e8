"""Insights benchmark: what the analysis of issue 7 costs (and, for forecasts, how well it does).

Sections (each a function returning a JSON-able dict; ``main`` runs them in order):

- alerts (IA): the streaming anomaly detectors of ``ridgeline.analysis.anomaly`` on one series of
  ``--points`` points (default 1,000,000: a healthy noisy loss curve with injected spikes, an excursion and
  NaNs), fed in one chunk and in chunks of ``--chunk`` points (default 1,000: what a live server sees
  between reloads). Reported: nanoseconds per point, the median over ``--repeats`` runs, and that both ways
  raise the same alerts.
- diagnosis (IB): diagnosis time over 100 runs — see ``bench_diagnosis``.
- forecast (IC): forecast error (MASE) of each model against the naive baseline — see ``bench_forecast``
  (bench/forecast.py holds the full model comparison).

Nothing here asserts on speed; the exit status is non-zero only when a result is wrong (chunked and one-chunk
alerts differ, or an injected anomaly is missed).

    python bench/insights.py [--points N] [--chunk C] [--repeats R] [--quick] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import numpy as np

from ridgeline.analysis.anomaly import Alert, SeriesDetector, detect


# --- alerts (IA) -------------------------------------------------------------------------------------------------
def alert_series(points: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, set[tuple[str, int]]]:
    """A healthy noisy loss curve with labelled anomalies; returns steps, wall times, values and the
    ``(kind, step)`` pairs that must be found."""
    rng = np.random.default_rng(seed)
    x = np.arange(points)
    values = (2.0 * np.exp(-x / (points / 5)) + 0.3) * (1 + 0.02 * rng.normal(size=points))
    expected: set[tuple[str, int]] = set()
    for at in np.linspace(points * 0.1, points * 0.9, 9).astype(int):
        values[at] *= 4
        expected.add(("spike", int(at)))
    for at in np.linspace(points * 0.12, points * 0.92, 5).astype(int):
        values[at] = np.nan
        expected.add(("nan", int(at)))
    start = int(points * 0.55)
    level = 2.0 * np.exp(-start / (points / 5)) + 0.3
    values[start : start + 6] += 0.15 * level  # ~7 sigma for six points: an excursion, under the spike limit
    expected.add(("outlier", start + 2))
    return x, x * 0.5, values, expected


def timed(function: Callable[[], list[Alert]], repeats: int) -> tuple[float, list[Alert]]:
    """The median wall time of ``function`` over ``repeats`` runs, and its result."""
    times = []
    result: list[Alert] = []
    for _ in range(repeats):
        started = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def bench_alerts(points: int, chunk: int, repeats: int) -> dict[str, Any]:
    steps, walls, values, expected = alert_series(points)

    def one_chunk() -> list[Alert]:
        return detect(steps, walls, values)

    def chunked() -> list[Alert]:
        detector = SeriesDetector()
        found: list[Alert] = []
        for start in range(0, points, chunk):
            end = start + chunk
            found += detector.update(steps[start:end], walls[start:end], values[start:end])
        return found

    whole_seconds, whole = timed(one_chunk, repeats)
    chunk_seconds, pieces = timed(chunked, repeats)
    found = {(alert.kind, alert.step) for alert in whole}

    def key(alerts: list[Alert]) -> list[str]:
        return [repr((a.kind, a.step, a.value, a.expected_low, a.expected_high)) for a in alerts]

    return {
        "points": points,
        "chunk": chunk,
        "one_chunk_ns_per_point": whole_seconds / points * 1e9,
        "chunked_ns_per_point": chunk_seconds / points * 1e9,
        "one_chunk_seconds": whole_seconds,
        "chunked_seconds": chunk_seconds,
        "alerts": len(whole),
        "missed": sorted(expected - found),
        "unexpected": sorted(found - expected),
        "chunked_equals_one_chunk": key(whole) == key(pieces),
    }


# --- diagnosis (IB) ---------------------------------------------------------------------------------------------
def bench_diagnosis(quick: bool) -> dict[str, Any] | None:
    """IB: diagnosis time over 100 runs (``ridgeline.analysis.diagnosis``), and its precision and recall per
    kind over the labelled runs (the full section is bench/diagnosis.py)."""
    from diagnosis import print_table, run  # bench/diagnosis.py, beside this script

    results = run(quick)
    print_table(results)
    return results


# --- forecast (IC) ----------------------------------------------------------------------------------------------
def bench_forecast(quick: bool) -> dict[str, Any] | None:
    """IC: forecast error (mean absolute scaled error) of each model against the naive baseline (the full
    comparison is bench/forecast.py). Return a dict of figures, or None while not implemented."""
    from forecast import run  # bench/forecast.py, beside this script

    # --quick: a smoke run without the LSTM (training it takes minutes); else the full comparison.
    return run(20, 1, 0, 0, lstm=False) if quick else run(300, 8, 4000, 20, lstm=True)


# --- main -----------------------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--points", type=int, default=1_000_000, help="points in the alerts series")
    parser.add_argument("--chunk", type=int, default=1000, help="points per chunk in the streaming measurement")
    parser.add_argument("--repeats", type=int, default=3, help="runs per measurement (the median is reported)")
    parser.add_argument("--quick", action="store_true", help="100,000 points, one repeat (the smoke test)")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    args = parser.parse_args(argv)
    if args.quick:
        args.points, args.repeats = 100_000, 1
    results: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "machine": platform.machine(),
        "command": " ".join(["python", "bench/insights.py", *(argv if argv is not None else sys.argv[1:])]),
    }
    alerts = bench_alerts(args.points, args.chunk, args.repeats)
    results["alerts"] = alerts
    print(f"alerts: {alerts['points']:,} points, {alerts['alerts']} alerts")
    print(f"  one chunk        {alerts['one_chunk_ns_per_point']:8.1f} ns/point  ({alerts['one_chunk_seconds']:.3f} s)")
    print(
        f"  {alerts['chunk']:,}-point chunks {alerts['chunked_ns_per_point']:6.1f} ns/point  "
        f"({alerts['chunked_seconds']:.3f} s)"
    )
    print(
        f"  chunked == one chunk: {alerts['chunked_equals_one_chunk']}; missed: {alerts['missed']}; "
        f"unexpected: {alerts['unexpected']}"
    )
    for name, section in (("diagnosis", bench_diagnosis), ("forecast", bench_forecast)):
        figures = section(args.quick)
        if figures is not None:
            results[name] = figures
            print(f"{name}: {json.dumps(figures)}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(results, handle, indent=2)
    wrong = not alerts["chunked_equals_one_chunk"] or alerts["missed"]
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
