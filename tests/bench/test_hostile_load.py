"""The load test of issue 13, through the load benchmark (bench/load.py) run as a user runs it: 50 clients poll the
scalars of a 100-run log directory for 60 s while a writer appends to 5 runs. Asserted: every request answered
(no error, no timeout), and the server's memory after warm-up not growing past MEMORY_GROWTH_MIB. Its rate and
latencies are printed by the benchmark and never asserted: timings are not tests (docs/benchmarks.md has them).
"""

from __future__ import annotations

from pathlib import Path

from tests.bench.runner import run_bench

MEMORY_GROWTH_MIB = 64  # the writer adds 5 points a second; anything near this bound is a leak


def test_fifty_clients_for_a_minute_get_every_answer_and_memory_stays_flat(tmp_path: Path) -> None:
    args = ["--clients", "50", "--duration", "60", "--runs", "100", "--points", "1000", "--writing", "5"]
    output, results = run_bench("load.py", *args, "--no-tensorboard", cwd=tmp_path)
    ours = results["ridgeline"]
    assert ours["requests"] > 0, output
    assert ours["errors"] == 0, ours["error_examples"]
    assert ours["rss_growth_mib"] < MEMORY_GROWTH_MIB, ours
    assert "p99" in output
