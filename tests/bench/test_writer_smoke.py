"""The writer benchmark still runs end to end. Its figures are never asserted on: timings are not tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench.runner import run_bench


@pytest.mark.slow
def test_writer_bench_quick_runs(tmp_path: Path) -> None:
    output, results = run_bench("writer.py", "--quick", cwd=tmp_path)
    for writer in ("ridgeline", "torch", "tensorboardX"):
        assert writer in output
    assert "Warning" not in output, "import-time warnings leak into the benchmark's output"
    assert set(results["scalars"]) == set(results["histograms"]) == {"ridgeline", "torch", "tensorboardX"}
    assert results["errors"] == []
