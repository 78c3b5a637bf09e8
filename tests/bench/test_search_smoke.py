"""The search benchmark still runs end to end on a small synthetic index. Its figures are never asserted on:
timings are not tests."""

from __future__ import annotations

from pathlib import Path

from tests.bench.runner import run_bench


def test_search_bench_quick_runs(tmp_path: Path) -> None:
    output, results = run_bench("search.py", "--quick", cwd=tmp_path)
    assert results["entries"] > 10_000
    documented = "(lr=0.001|batch_size=64).*(dropout=0.2)"
    assert results["patterns"][documented]["total"] > 0
    for figures in results["patterns"].values():
        assert figures["api"]["median_ms"] > 0 and figures["http"]["median_ms"] > 0
    assert "python_re" in results["patterns"]["tag:^train_"]
    assert "tensorboard_filter" in results["patterns"]["run:resnet"]
    assert "worst median" in output
