"""``ridgeline demo``, run as users run it: the installed console script in a subprocess."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_main import run
from tests.conftest import event_files


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
