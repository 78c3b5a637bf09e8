"""ruff runs with the suite, so CI (which runs only `make test`) catches lint and formatting regressions."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_check_and_format() -> None:
    ruff = [sys.executable, "-m", "ruff"]
    check = subprocess.run([*ruff, "check", "src", "tests", "bench"], cwd=ROOT, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    fmt = subprocess.run(
        [*ruff, "format", "--check", "src", "tests", "bench"], cwd=ROOT, capture_output=True, text=True
    )
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr
