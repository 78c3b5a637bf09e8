"""ruff and mypy run with the suite, so CI (which runs only `make test`) catches lint, format and type errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True)


def test_ruff_check_and_format() -> None:
    check = run("ruff", "check", "src", "tests", "bench")
    assert check.returncode == 0, check.stdout + check.stderr
    fmt = run("ruff", "format", "--check", "src", "tests", "bench")
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr


def test_mypy(tmp_path: Path) -> None:
    typed = run("mypy", "--cache-dir", str(tmp_path))  # files and options: [tool.mypy] in pyproject.toml
    assert typed.returncode == 0, typed.stdout + typed.stderr
