"""``ridgeline check`` as CI runs it (a subprocess): exit 0 when the thresholds hold, 1 when one does not or a
value is missing, 2 on a usage error; the Markdown verdict, the JSON, baseline files, and the diagnosis' findings."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import ridgeline
from ridgeline.cli._comparison import Threshold
from tests.cli.compare_logs import write_runs
from tests.server.conftest import clean_env


def check(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "ridgeline.cli", "check", *args, "--no-cache"]
    return subprocess.run(command, capture_output=True, text=True, env=clean_env(COLUMNS="200"), timeout=120)


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    path = tmp_path_factory.mktemp("check")
    return path, write_runs(path)


def test_passing_thresholds_exit_0_with_a_markdown_verdict(logs: tuple[Path, str], tmp_path: Path) -> None:
    root, _ = logs
    verdict = tmp_path / "verdict.md"
    result = check(
        "--logdir", str(root), "--run", "candidate", "--baseline", "baseline",
        "--metric", "val/loss<=+2%", "--metric", "val/acc>=-0.5pt", "--markdown-out", str(verdict),
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "PASSED" in result.stdout
    text = verdict.read_text()
    assert text.startswith("✅ **ridgeline check passed**: `candidate` against `baseline`")
    assert "| `val/loss<=+2%` |" in text and "| pass |" in text


def test_failing_threshold_exits_1_and_says_why(logs: tuple[Path, str], tmp_path: Path) -> None:
    root, _ = logs
    verdict = tmp_path / "verdict.md"
    result = check(
        "--logdir", str(root), "--run", "candidate", "--baseline", "baseline",
        "--metric", "val/loss<=+0.1%", "--metric", "val/acc>=-0.5pt", "--markdown-out", str(verdict), "--json",
    )  # fmt: skip
    assert result.returncode == 1, result.stdout + result.stderr
    data = json.loads(result.stdout)
    assert data["passed"] is False
    loss, acc = data["metrics"]
    assert loss["passed"] is False and loss["bound"] == pytest.approx(loss["baseline"] * 1.001)
    assert "is not <=" in loss["reason"]
    assert acc["passed"] is True and acc["bound"] == pytest.approx(acc["baseline"] - 0.005)
    assert verdict.read_text().startswith("❌ **ridgeline check failed** (1 of 2)")


def test_missing_values_fail(logs: tuple[Path, str]) -> None:
    root, _ = logs
    result = check("--logdir", str(root), "--run", "candidate", "--baseline", "baseline", "--metric", "val/f1>=-1%")
    assert result.returncode == 1 and "the run has no value of 'val/f1'" in result.stdout


def test_a_baseline_file_written_then_read(logs: tuple[Path, str], tmp_path: Path) -> None:
    root, _ = logs
    saved = tmp_path / "baseline.json"
    result = check(
        "--logdir", str(root), "--run", "baseline", "--metric", "val/loss<=1", "--write-baseline", str(saved)
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads(saved.read_text()) == {"val/loss": pytest.approx(1 / 11 + 0.5)}
    result = check("--logdir", str(root), "--run", "candidate", "--baseline", str(saved), "--metric", "val/loss<=+2%")
    assert result.returncode == 0, result.stdout + result.stderr
    result = check("--logdir", str(root), "--run", "candidate", "--baseline", str(saved), "--metric", "val/loss<+0.1%")
    assert result.returncode == 1


def test_the_diagnosis_is_in_the_verdict(logs: tuple[Path, str], tmp_path: Path) -> None:
    root, overfitting = logs
    verdict = tmp_path / "verdict.md"
    args = ["--logdir", str(root), "--run", overfitting, "--markdown-out", str(verdict)]
    tag = min(t for t in ridgeline.open(root).tags(overfitting)["scalars"] if "loss" in t)
    result = check(*args, "--metric", f"{tag}<=1000")
    assert result.returncode == 0, result.stdout + result.stderr  # the thresholds hold: findings do not fail it
    assert "diagnosis: overfitting" in result.stdout
    assert "- **overfitting** (" in verdict.read_text()
    assert check(*args, "--metric", f"{tag}<=1000", "--fail-on-findings").returncode == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--metric", "val/loss"], "is not a threshold"),
        (["--metric", "val/loss<=+2%"], "give --baseline"),
        (["--metric", "val/loss<=+2%", "--baseline", "nowhere"], "neither a run of the log directory nor a file"),
        (["--metric", "val/loss<=1", "--run", "nope"], "no run 'nope'"),
    ],
)
def test_usage_errors_exit_2(logs: tuple[Path, str], args: list[str], message: str) -> None:
    root, _ = logs
    full = ["--logdir", str(root), *(["--run", "candidate"] if "--run" not in args else []), *args]
    result = check(*full)
    assert result.returncode == 2 and message in result.stderr, result.stderr


def test_thresholds_parse_and_bound() -> None:
    assert Threshold.parse("val/loss<=+2%").bound(0.5) == pytest.approx(0.51)
    assert Threshold.parse("val/acc >= -0.5pt").bound(0.9) == pytest.approx(0.895)
    assert Threshold.parse("val/loss<=+0.01").bound(0.5) == pytest.approx(0.51)
    absolute = Threshold.parse("val/loss<0.3")
    assert not absolute.relative_to_baseline and absolute.bound(None) == 0.3
    assert Threshold.parse("loss/a<=b<=-1%").tag == "loss/a<=b"
    assert Threshold.parse("x>=-2%").bound(-1.0) == pytest.approx(-1.02)  # relative to |baseline|
    assert Threshold.parse("x>1e-3").number == 0.001
