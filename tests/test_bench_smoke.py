"""The writer benchmark still runs end to end. Its figures are never asserted on: timings are not tests."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench" / "writer.py"


@pytest.mark.slow
def test_writer_bench_quick_runs(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    done = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--json", str(out)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    for writer in ("ridgeline", "torch", "tensorboardX"):
        assert writer in done.stdout
    assert "Warning" not in done.stdout + done.stderr, "import-time warnings leak into the benchmark's output"
    results = json.loads(out.read_text())
    assert set(results["scalars"]) == set(results["histograms"]) == {"ridgeline", "torch", "tensorboardX"}
    assert results["errors"] == []
