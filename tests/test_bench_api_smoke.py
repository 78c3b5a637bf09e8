"""The API benchmark still runs end to end (ridgeline's half: TensorBoard's servers take too long to start for a
smoke test). Its figures are never asserted on: timings are not tests."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench" / "api.py"


def test_api_bench_quick_runs(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    done = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--no-tensorboard", "--json", str(out)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads(out.read_text())
    ours = results["ridgeline"]
    for key in ("one_series_ms", "all_series_batch_ms", "many_series_batch_1000_points_ms"):
        assert ours[key] > 0
    assert "one series" in done.stdout
