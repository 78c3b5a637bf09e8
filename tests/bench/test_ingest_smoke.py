"""The ingest benchmark still runs end to end. Its figures are never asserted on: timings are not tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench.runner import run_bench


@pytest.mark.slow
def test_ingest_bench_quick_runs(tmp_path: Path) -> None:
    output, results = run_bench("ingest.py", "--quick", "--data-dir", str(tmp_path / "data"), cwd=tmp_path, timeout=300)
    readers = ("ridgeline", "ridgeline (one thread)", "ridgeline serve", "ridgeline (numpy path)", "EventAccumulator")
    for reader in (*readers, "TensorBoard + Rust server", "read + CRC floor"):
        assert reader in output
    assert results["errors"] == []
    assert len(results["datasets"]) == 2
    for dataset in results["datasets"]:
        assert set(dataset["figures"]) == {
            "ridgeline",
            "ridgeline 1 thread",
            "ridgeline serve",
            "ridgeline serve before",
            "ridgeline numpy",
            "ridgeline before",
            "ridgeline warm",
            "floor",
            "EventAccumulator",
            "TensorBoard+Rust",
        }
        for reader in ("ridgeline numpy", "ridgeline 1 thread", "ridgeline serve"):
            assert dataset["figures"][reader]["points"] == dataset["events"]
        ours = dataset["figures"]["ridgeline"]
        assert ours["failed"] == []
        assert ours["points"] == dataset["events"]
