"""The UI benchmark still runs end to end on a tiny log directory, against both dashboards. Its figures are
never asserted on: timings are not tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench.runner import run_bench
from tests.browser.conftest import check_prerequisites


@pytest.mark.slow
def test_ui_bench_quick_runs(tmp_path: Path) -> None:
    check_prerequisites()
    _, results = run_bench("ui.py", "--quick", "--only", "c", "--data-dir", str(tmp_path), cwd=tmp_path)
    (result,) = results["results"]
    for dashboard in ("ridgeline", "TensorBoard"):
        figures = result[dashboard]
        assert figures["failed"] == [], f"{dashboard}: {figures['failed']}"
        assert figures["hover_effect"], f"{dashboard}: hovering its chart showed no crosshair or tooltip"
        assert figures["page_errors"] == 0, f"{dashboard}: the page threw errors"
        assert figures["load_s"] > 0 and figures["frame_ms_median"] > 0
