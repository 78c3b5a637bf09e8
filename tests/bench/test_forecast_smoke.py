"""The forecast model comparison (bench/forecast.py) still runs end to end, LSTM included. Its figures are never
asserted on beyond their shape: the held-out comparison that must hold is tests/analysis/test_forecast.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench.runner import run_bench


@pytest.mark.slow
def test_forecast_bench_quick_runs(tmp_path: Path) -> None:
    output, results = run_bench("forecast.py", "--quick", cwd=tmp_path)
    assert "mean MASE" in output
    for part in ("generated", "real"):
        models = results[part]
        assert set(models) == {"naive", "last_value", "exponential", "power_law", "auto", "lstm"}
        assert all(figures["curves"] > 0 and figures["mean_mase"] >= 0 for figures in models.values())
