"""The insights benchmark still runs end to end. Its figures are never asserted on: timings are not tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench.runner import run_bench


@pytest.mark.slow
def test_insights_bench_quick_runs(tmp_path: Path) -> None:
    output, results = run_bench("insights.py", "--quick", cwd=tmp_path)
    alerts = results["alerts"]
    assert "ns/point" in output
    assert alerts["points"] == 100_000 and alerts["chunk"] == 1000
    assert alerts["chunked_equals_one_chunk"] is True
    assert alerts["missed"] == []
    assert alerts["one_chunk_ns_per_point"] > 0 and alerts["chunked_ns_per_point"] > 0
