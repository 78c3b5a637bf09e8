"""The profile timeline benchmark (bench/profile_timeline.py) still runs end to end: a trace served by the real app,
12 zoomed frames timed on the server and 12 wheel notches in a real browser. Its figures are never asserted on
beyond their shape (timings are not tests); the frames' content is tested in tests/profile."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench.runner import run_bench


@pytest.mark.slow
def test_profile_timeline_bench_quick_runs(tmp_path: Path) -> None:
    output, results = run_bench("profile_timeline.py", "--quick", cwd=tmp_path)
    assert "wheel to first redraw" in output
    assert results["events"] > 0
    frames = results["server"]["figures"]["frame"]
    assert len(frames) == 12 and all(ms >= 0 for ms in frames)
    page = results["pages"]["after"][0]
    assert len(page["first_draw"]) == len(page["exact_draw"]) == 12
