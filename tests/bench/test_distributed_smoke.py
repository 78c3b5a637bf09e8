"""The distributed benchmark (bench/distributed.py) still runs end to end: its check of the answers against pandas'
and of the recovered offsets and straggler holds at the quick size. Its figures are never asserted on."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench.runner import run_bench


@pytest.mark.slow
def test_distributed_bench_quick_runs(tmp_path: Path) -> None:
    output, results = run_bench("distributed.py", "--quick", cwd=tmp_path)
    assert "aggregation + alignment" in output and "system metrics" in output
    assert results["analysis"]["points"] == 8 * 3 * 500
    assert results["logdir"]["points"] == 8 * 3 * 200
