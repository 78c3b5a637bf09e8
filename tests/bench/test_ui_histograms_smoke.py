"""The histograms scenario of bench/ui.py still runs end to end on a tiny log directory, against both
dashboards. Its figures are never asserted on: timings are not tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench.runner import run_bench
from tests.browser.conftest import check_prerequisites


@pytest.mark.slow
def test_ui_bench_histograms_quick_runs(tmp_path: Path) -> None:
    check_prerequisites()
    output, results = run_bench(
        "ui.py", "--quick", "--only", "h", "--data-dir", str(tmp_path), cwd=tmp_path, timeout=180
    )
    assert results["results"] == []
    figures = results["histograms"]
    for dashboard in ("ridgeline", "TensorBoard"):
        assert figures[dashboard]["failed"] == [], f"{dashboard}: {figures[dashboard]['failed']}"
        assert figures[dashboard]["page_errors"] == 0, f"{dashboard}: the page threw errors"
        assert figures[dashboard]["load_s"] > 0
    assert "(h) histograms" in output
