"""The API benchmark still runs end to end (ridgeline's half: TensorBoard's servers take too long to start for a
smoke test). Its figures are never asserted on: timings are not tests."""

from __future__ import annotations

from pathlib import Path

from tests.bench.runner import run_bench


def test_api_bench_quick_runs(tmp_path: Path) -> None:
    output, results = run_bench("api.py", "--quick", "--no-tensorboard", cwd=tmp_path)
    ours = results["ridgeline"]
    for key in ("one_series_ms", "all_series_batch_ms", "many_series_batch_1000_points_ms"):
        assert ours[key] > 0
    assert "one series" in output
