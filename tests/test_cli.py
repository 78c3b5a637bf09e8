"""The ridgeline command, run as users run it: the installed console script in a subprocess."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from ridgeline import __version__
from tests.conftest import event_files

RIDGELINE = shutil.which("ridgeline", path=str(Path(sys.executable).parent)) or "ridgeline"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([RIDGELINE, *args], capture_output=True, text=True, timeout=120)


def test_help_answers_the_obvious_question() -> None:
    result = run("--help")
    assert result.returncode == 0
    for expected in ("from ridgeline import SummaryWriter", "serve", "demo", "--version"):
        assert expected in result.stdout


def test_version() -> None:
    result = run("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"ridgeline, version {__version__}"


def test_demo_writes_runs_and_refuses_a_non_empty_directory(tmp_path: Path) -> None:
    logdir = tmp_path / "demo"
    result = run("demo", "--logdir", str(logdir), "--steps", "200")
    assert result.returncode == 0, result.stderr
    runs = {path.parent for path in logdir.rglob("*tfevents*")}
    assert len(runs) >= 4
    assert all(event_files(run) for run in runs)
    again = run("demo", "--logdir", str(logdir))
    assert again.returncode == 2
    assert "--logdir" in again.stderr and "not empty" in again.stderr


def test_demo_without_logdir_says_what_is_missing() -> None:
    result = run("demo")
    assert result.returncode == 2
    assert "Missing option '--logdir'" in result.stderr
