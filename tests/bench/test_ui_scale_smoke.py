"""The many-tags UI benchmark still runs end to end on a tiny log directory. Its figures are never asserted on:
timings are not tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench.runner import run_bench
from tests.browser.conftest import check_prerequisites


@pytest.mark.slow
def test_ui_scale_bench_quick_runs(tmp_path: Path) -> None:
    check_prerequisites()
    _, results = run_bench("ui_scale.py", "--quick", "--only", "tags", "--data-dir", str(tmp_path), cwd=tmp_path)
    (result,) = results["results"]
    assert result["errors"] == []
    assert result["ready_s"] > 0 and result["frame_ms_median"] > 0 and result["filter_s"] > 0
    # Only the cards near the view are in the page (300 tags written).
    assert 0 < result["cards"] < 300
