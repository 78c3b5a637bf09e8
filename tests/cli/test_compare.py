"""``ridgeline compare`` as a user runs it (a subprocess) on runs written with ridgeline's writer: the table,
Markdown, JSON and the HTML page, and the errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.compare_logs import write_runs
from tests.server.conftest import clean_env


def run(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "ridgeline.cli", "compare", *args, "--no-cache"]
    return subprocess.run(command, capture_output=True, text=True, env=clean_env(COLUMNS="200"), timeout=120)


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("compare")
    write_runs(path)
    return path


def test_json_holds_last_best_difference_hparams_and_durations(root: Path) -> None:
    result = run("--logdir", str(root), "baseline", "candidate", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["runs"] == ["baseline", "candidate"]
    assert data["duration_s"] == [pytest.approx(60.0, abs=5), pytest.approx(90.0, abs=5)]
    tags = {t["tag"]: t for t in data["tags"]}
    assert set(tags) == {"train/loss", "val/acc", "val/loss"}
    loss = tags["val/loss"]
    base_last, cand_last = 1 / 11 + 0.5, 1 / 11 * 1.01 + 0.5
    assert loss["goal"] == "min"
    assert loss["a"]["last"] == pytest.approx(base_last, rel=1e-6) and loss["b"]["last"] == pytest.approx(cand_last)
    assert loss["difference"] == pytest.approx(cand_last - base_last, rel=1e-4)
    assert loss["relative"] == pytest.approx((cand_last - base_last) / base_last, rel=1e-4)
    assert loss["a"]["best_step"] == 10 and loss["a"]["points"] == 11
    assert tags["val/acc"]["goal"] == "max" and tags["val/acc"]["b"]["best"] == pytest.approx(0.897)
    assert data["hparams"] == [{"name": "lr", "a": pytest.approx(0.1), "b": pytest.approx(0.2)}]


def test_tag_filter_and_markdown(root: Path) -> None:
    result = run("--logdir", str(root), "baseline", "candidate", "--tag", "^val/", "--markdown")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "**A** `baseline` (1m00s) vs **B** `candidate` (1m30s)"
    assert lines[2].startswith("| tag | last A | last B |")
    body = [line for line in lines if line.startswith("| val/")]
    assert [line.split(" | ")[0] for line in body] == ["| val/acc", "| val/loss"]
    assert body[1] == "| val/loss | 0.5909 | 0.5918 | 0.0009091 | +0.15% | 0.5909 @10 | 0.5918 @10 | min |"
    assert "| lr | 0.1" in result.stdout


def test_table_and_html_page(root: Path, tmp_path: Path) -> None:
    page = tmp_path / "compare.html"
    result = run("--logdir", str(root), "baseline", "candidate", "--html", str(page))
    assert result.returncode == 0, result.stderr
    assert "val/loss" in result.stdout and "hparams that differ" in result.stdout
    text = page.read_text()
    assert text.count("<svg") == 3 and "<script" not in text
    assert "<td>val/loss</td>" in text


def test_unknown_run_and_bad_tag_are_usage_errors(root: Path) -> None:
    result = run("--logdir", str(root), "baseline", "nope")
    assert result.returncode == 2 and "no run 'nope'" in result.stderr and "baseline" in result.stderr
    result = run("--logdir", str(root), "baseline", "candidate", "--tag", "(")
    assert result.returncode == 2 and "--tag" in result.stderr
    result = run("--logdir", str(root), "baseline", "candidate", "--json", "--markdown")
    assert result.returncode == 2 and "choose one" in result.stderr
