"""``ridgeline clean`` as users run it: a dry run unless told, --yes deletes, --trash moves, --json for
scripts, and bad options named. Real log directories written by SummaryWriter, the command in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.retention.logs import snapshot, write_run


def clean(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "ridgeline.cli", "clean", *args]
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False, env=env)


@pytest.fixture
def logdir(tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    write_run(root / "old", 40)
    write_run(root / "older", 90)
    write_run(root / "new", 2)
    return root


def test_without_yes_it_lists_what_would_go_and_deletes_nothing(logdir: Path) -> None:
    before = snapshot(logdir)
    dry = clean("--logdir", str(logdir), "--older-than", "30d")
    assert dry.returncode == 0, dry.stderr
    assert "Would delete 2 runs" in dry.stdout and "dry run" in dry.stdout
    assert "old" in dry.stdout and "older" in dry.stdout
    assert snapshot(logdir) == before


def test_yes_deletes_the_selected_runs_only(logdir: Path) -> None:
    done = clean("--logdir", str(logdir), "--older-than", "30d", "--yes")
    assert done.returncode == 0, done.stderr
    assert "Deleted 2 runs" in done.stdout
    assert sorted(path.name for path in logdir.iterdir()) == ["new"]


def test_trash_moves_the_runs_out_of_the_log_directory(logdir: Path, tmp_path: Path) -> None:
    trash = tmp_path / "trash"
    moved = clean("--logdir", str(logdir), "--keep-last", "1", "--trash", str(trash))
    assert moved.returncode == 0, moved.stderr
    assert sorted(path.name for path in logdir.iterdir()) == ["new"]
    landed = sorted(path.parent.name for path in trash.rglob("events.out.tfevents.*"))
    assert landed == ["old", "older"]


def test_json_says_what_would_go_and_why(logdir: Path) -> None:
    answer = clean("--logdir", str(logdir), "--keep-last", "2", "--json")
    assert answer.returncode == 0, answer.stderr
    outcome = json.loads(answer.stdout)
    assert outcome["mode"] == "dry-run"
    assert [run["run"] for run in outcome["runs"]] == ["older"]
    assert outcome["runs"][0]["done"] is False and outcome["freed_bytes"] == 0
    assert len(list(logdir.iterdir())) == 3


def test_keep_wins_over_the_policy(logdir: Path) -> None:
    done = clean("--logdir", str(logdir), "--older-than", "30d", "--keep", "^older$", "--yes")
    assert done.returncode == 0, done.stderr
    assert sorted(path.name for path in logdir.iterdir()) == ["new", "older"]


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (("--older-than", "30"), "--older-than"),
        (("--max-size", "lots"), "--max-size"),
        (("--keep-last", "-1"), "--keep-last"),
        (("--older-than", "1d", "--keep", "(unclosed"), "--keep"),
        ((), "say which runs go"),
    ],
)
def test_bad_options_are_usage_errors_that_name_them(logdir: Path, args: tuple[str, ...], named: str) -> None:
    before = snapshot(logdir)
    refused = clean("--logdir", str(logdir), *args)
    assert refused.returncode == 2, refused.stdout
    assert named in refused.stderr and "Traceback" not in refused.stderr
    assert snapshot(logdir) == before


def test_a_missing_log_directory_is_named(tmp_path: Path) -> None:
    refused = clean("--logdir", str(tmp_path / "nowhere"), "--older-than", "1d")
    assert refused.returncode == 2 and "--logdir" in refused.stderr and "Traceback" not in refused.stderr
