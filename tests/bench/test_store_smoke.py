"""The store benchmark still runs end to end. Its figures are never asserted on: timings are not tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench.runner import run_bench


@pytest.mark.slow
def test_store_bench_quick_runs(tmp_path: Path) -> None:
    output, results = run_bench("store.py", "--quick", "--data-dir", str(tmp_path / "data"), cwd=tmp_path, timeout=600)
    assert "TensorBoard keep-all" in output and "bytes per point on disk" in output
    assert results["errors"] == []
    assert [entry["dataset"]["name"] for entry in results["results"]] == ["long series", "many runs"]
    for entry in results["results"]:
        assert entry["ridgeline_build"]["points"] == entry["points"]
        assert entry["ridgeline_warm"]["chart_points"] > 0
