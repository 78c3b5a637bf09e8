"""The UI benchmark still runs end to end on a tiny log directory, against both dashboards. Its figures are
never asserted on: timings are not tests."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.browser.conftest import check_prerequisites

BENCH = Path(__file__).resolve().parents[1] / "bench" / "ui.py"


@pytest.mark.slow
def test_ui_bench_quick_runs(tmp_path: Path) -> None:
    check_prerequisites()
    out = tmp_path / "results.json"
    done = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--only", "c", "--data-dir", str(tmp_path), "--json", str(out)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (result,) = json.loads(out.read_text())["results"]
    for dashboard in ("ridgeline", "TensorBoard"):
        figures = result[dashboard]
        assert figures["failed"] == [], f"{dashboard}: {figures['failed']}"
        assert figures["hover_effect"], f"{dashboard}: hovering its chart showed no crosshair or tooltip"
        assert figures["page_errors"] == 0, f"{dashboard}: the page threw errors"
        assert figures["load_s"] > 0 and figures["frame_ms_median"] > 0
