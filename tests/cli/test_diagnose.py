"""``ridgeline diagnose`` as a user runs it (a subprocess) over labelled runs written with ridgeline's writer:
``--json`` lines, the table in plain words, ``--run``, a log directory with nothing wrong, and bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ridgeline
from ridgeline.fixtures.problems import write_problem_runs
from tests.server.conftest import clean_env


def run_diagnose(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "ridgeline.cli", "diagnose", *args]
    return subprocess.run(command, capture_output=True, text=True, env=clean_env(COLUMNS="200"), timeout=120)


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, frozenset[str]]]:
    root = tmp_path_factory.mktemp("diagnose_cli")
    return root, write_problem_runs(root, seeds=(1,), kinds=["healthy", "plateau", "lr_too_high"])


def test_json_lines(logdir: tuple[Path, dict[str, frozenset[str]]]) -> None:
    root, labels = logdir
    result = run_diagnose("--logdir", str(root), "--json", "--no-cache")
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    for line in lines:
        assert list(line)[:6] == ["run", "kind", "confidence", "step", "tags", "evidence"]
    assert {(x["run"].split("/")[0], x["kind"]) for x in lines} == {
        (case, kind) for case, kinds in labels.items() for kind in kinds
    }


def test_table_in_plain_words_and_run_filter(logdir: tuple[Path, dict[str, frozenset[str]]]) -> None:
    root, _ = logdir
    result = run_diagnose("--logdir", str(root), "--no-cache", "--run", "^plateau")
    assert result.returncode == 0, result.stderr
    assert "3 findings in 3 runs" in result.stdout
    assert "stopped improving at step" in result.stdout and "lr too high" not in result.stdout
    healthy = run_diagnose("--logdir", str(root), "--no-cache", "--run", "^healthy")
    # 8 healthy cases, two of them written Keras-style as a train and a validation run.
    assert healthy.returncode == 0 and "No problems found in 10 runs." in healthy.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--run", "("), "Invalid value for --run: '(' is not a valid regular expression"),
        (("--min-confidence", "2"), "--min-confidence"),
    ],
)
def test_bad_input_is_a_usage_error(
    logdir: tuple[Path, dict[str, frozenset[str]]], args: tuple[str, ...], message: str
) -> None:
    root, _ = logdir
    result = run_diagnose("--logdir", str(root), "--no-cache", *args)
    assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr


def test_missing_logdir_is_a_usage_error(tmp_path: Path) -> None:
    result = run_diagnose("--logdir", str(tmp_path / "nope"))
    assert result.returncode == 2 and "--logdir" in result.stderr and "does not exist" in result.stderr


def test_config_file_sets_the_naming_conventions(tmp_path: Path) -> None:
    steps = np.arange(0, 3000, 10)
    t = steps / steps[-1]
    writer = ridgeline.SummaryWriter(str(tmp_path / "logs" / "custom"))
    for step, x in zip(steps.tolist(), t, strict=True):
        writer.add_scalar("fit/objective", float(2.0 * (1 + x / 0.04) ** -1.2), step)
        writer.add_scalar("holdout_check/objective", float(0.6 + 1.4 * np.exp(-x / 0.06) + max(x - 0.3, 0)), step)
    writer.close()
    logs = str(tmp_path / "logs")
    assert run_diagnose("--logdir", logs, "--json", "--no-cache").stdout == ""
    config = tmp_path / "diagnosis.toml"
    config.write_text('loss = "objective"\ntrain = "^fit"\nvalidation = "^holdout_check"\n', encoding="utf-8")
    result = run_diagnose("--logdir", logs, "--json", "--no-cache", "--config", str(config))
    assert [json.loads(line)["kind"] for line in result.stdout.splitlines()] == ["overfitting"], result.stderr
    config.write_text('los = "objective"\n', encoding="utf-8")
    bad = run_diagnose("--logdir", logs, "--no-cache", "--config", str(config))
    assert bad.returncode == 2 and "unknown setting(s) ['los']" in bad.stderr
