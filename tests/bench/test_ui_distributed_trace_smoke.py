"""The first chart's breakdown (bench/ui_distributed_trace.py) still runs end to end on a tiny 4-rank job. Its
figures are never asserted on: timings are not tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench.runner import run_bench
from tests.browser.conftest import check_prerequisites


@pytest.mark.slow
def test_the_first_chart_breakdown_runs(tmp_path: Path) -> None:
    check_prerequisites()
    _, results = run_bench("ui_distributed_trace.py", "--quick", "--data-dir", str(tmp_path), cwd=tmp_path)
    (load,) = results["loads"]
    assert load["trace"]["ready"] > 0 and results["ready_ms"] > 0
    assert set(load["trace"]["marks"]) == {"shell", "dashboard", "card", "canvas"}
    asked = [r["name"] for r in load["resources"]]
    assert any(name.startswith("/api/distributed/runs?first_chart=job&first_chart_points=") for name in asked), asked
