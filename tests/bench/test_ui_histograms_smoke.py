"""The first-paint scenarios of bench/ui.py (distributed, histograms, images) still run end to end on a tiny log
directory, against both dashboards. Its figures are never asserted on: timings are not tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench.runner import run_bench
from tests.browser.conftest import check_prerequisites


@pytest.mark.slow
@pytest.mark.parametrize(("key", "name"), [("d", "distributed"), ("h", "histograms"), ("i", "images")])
def test_ui_bench_first_paint_quick_runs(tmp_path: Path, key: str, name: str) -> None:
    check_prerequisites()
    output, results = run_bench("ui.py", "--quick", "--only", key, "--data-dir", str(tmp_path), cwd=tmp_path)
    assert results["results"] == []
    figures = results[name]
    for dashboard in ("ridgeline", "TensorBoard"):
        assert figures[dashboard]["failed"] == [], f"{dashboard}: {figures[dashboard]['failed']}"
        assert figures[dashboard]["page_errors"] == 0, f"{dashboard}: the page threw errors"
        assert figures[dashboard]["load_s"] > 0
    assert f"({key}) {name}" in output
