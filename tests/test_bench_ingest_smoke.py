"""The ingest benchmark still runs end to end. Its figures are never asserted on: timings are not tests."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench" / "ingest.py"


@pytest.mark.slow
def test_ingest_bench_quick_runs(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    done = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--data-dir", str(tmp_path / "data"), "--json", str(out)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    for reader in ("ridgeline", "ridgeline (warm restart)", "EventAccumulator", "TensorBoard + Rust server"):
        assert reader in done.stdout
    results = json.loads(out.read_text())
    assert results["errors"] == []
    assert len(results["datasets"]) == 2
    for dataset in results["datasets"]:
        assert set(dataset["figures"]) == {"ridgeline", "ridgeline warm", "EventAccumulator", "TensorBoard+Rust"}
        ours = dataset["figures"]["ridgeline"]
        assert ours["failed"] == []
        assert ours["points"] == dataset["events"]
