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


def test_mypy() -> None:
    # Files and options: [tool.mypy] in pyproject.toml. Its incremental cache is the checkout's .mypy_cache (as for
    # `make lint` and a plain `mypy`): a fresh one costs some 20 s of CPU, a warm one a second, with the same verdict.
    typed = run("mypy")
    assert typed.returncode == 0, typed.stdout + typed.stderr
