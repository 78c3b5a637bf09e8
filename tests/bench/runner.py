"""Runs one of bench/*.py as a user would (a fresh interpreter, its own working directory) for the smoke tests."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parents[2] / "bench"


def run_bench(script: str, *args: str, cwd: Path, timeout: float = 900) -> tuple[str, Any]:
    """``bench/<script>`` with ``args`` plus ``--json``; returns its stdout and the JSON results it wrote.

    A non-zero exit fails the calling test with the benchmark's whole output. ``timeout`` only stops a benchmark
    that hangs: a quick run takes seconds on a quiet machine and many times that on a busy one."""
    out = cwd / "results.json"
    done = subprocess.run(
        [sys.executable, str(BENCH_DIR / script), *args, "--json", str(out)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr, json.loads(out.read_text())
