"""``ridgeline alerts`` as a user runs it (a subprocess): the table, ``--json`` lines, filters, a config file,
bad input, and ``--follow`` on a log directory that grows while it watches."""

from __future__ import annotations

import json
import math
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import ridgeline
from tests.conftest import wall
from tests.plugins.insights.alert_logs import LABELS, STEPS, labelled_series, write_ridgeline, write_torch
from tests.server.conftest import clean_env


def alerts_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "ridgeline.cli", "alerts", *args]


def run_alerts(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(alerts_command(*args), capture_output=True, text=True, env=clean_env(), timeout=120)


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("alerts_cli")
    write_ridgeline(root / "ours", labelled_series())
    write_torch(root / "torch", labelled_series())
    return root


def test_json_lines(logdir: Path) -> None:
    result = run_alerts("--logdir", str(logdir), "--json", "--no-cache")
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    expected = {(run, tag, kind, step) for run in ("ours", "torch") for tag, kind, step in LABELS}
    expected.add(("torch", "grad_norm", "stalled", 99))
    assert {(line["run"], line["tag"], line["kind"], line["step"]) for line in lines} == expected
    for line in lines:
        assert list(line) == ["run", "tag", "step", "kind", "value", "expected_low", "expected_high"]
    nan = next(line for line in lines if line["kind"] == "nan")
    assert nan["value"] is None and nan["expected_low"] is None
    spike = next(line for line in lines if line["kind"] == "spike" and line["run"] == "ours")
    assert spike["value"] == pytest.approx(labelled_series()["spiky"][250])


def test_table_and_filters(logdir: Path) -> None:
    result = run_alerts("--logdir", str(logdir), "--run", "^ours$", "--tag", "spiky|overflow", "--no-cache")
    assert result.returncode == 0, result.stderr
    assert "2 alerts" in result.stdout
    rows = [line for line in result.stdout.splitlines() if "ours" in line]
    assert len(rows) == 2
    assert any("spiky" in row and "spike" in row and "250" in row for row in rows)
    assert any("overflow" in row and "inf" in row and "Inf" in row for row in rows)


def test_config_file_changes_the_rules(logdir: Path, tmp_path: Path) -> None:
    config = tmp_path / "alerts.toml"
    config.write_text('[[rules]]\ntag = "^spiky$"\nspike = false\n', encoding="utf-8")
    result = run_alerts("--logdir", str(logdir), "--json", "--tag", "spiky", "--config", str(config), "--no-cache")
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--logdir", "/nonexistent/ridgeline-logs"), "--logdir"),
        (("--run", "("), "--run"),
        (("--tag", "[a"), "--tag"),
        (("--config", "missing.toml"), "--config"),
        (("--interval", "0"), "--interval"),
    ],
)
def test_bad_input_is_a_usage_error(logdir: Path, args: tuple[str, ...], message: str) -> None:
    full = args if args[0] == "--logdir" else ("--logdir", str(logdir), *args)
    result = run_alerts(*full, "--no-cache")
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr


def test_follow_prints_alerts_as_they_happen(tmp_path: Path) -> None:
    series = labelled_series()
    writer = ridgeline.SummaryWriter(str(tmp_path / "live"))
    for step in range(200):
        for tag in ("train/loss", "spiky", "diverging"):
            writer.add_scalar(tag, series[tag][step], step, walltime=wall(step))
    writer.flush()
    process = subprocess.Popen(
        alerts_command("--logdir", str(tmp_path), "--json", "--follow", "--interval", "0.2", "--no-cache"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=clean_env(),
    )
    assert process.stdout is not None and process.stderr is not None
    lines: list[dict[str, object]] = []
    reader = threading.Thread(target=lambda: lines.extend(json.loads(line) for line in process.stdout), daemon=True)  # type: ignore[union-attr]
    reader.start()
    try:
        # Wait until it watches (it says so on stderr), then write the rest of the run while it runs.
        assert "watching" in process.stderr.readline()
        assert lines == []
        for step in range(200, STEPS):
            for tag in ("train/loss", "spiky", "diverging"):
                writer.add_scalar(tag, series[tag][step], step, walltime=wall(step))
            if step % 50 == 0:
                writer.flush()
                time.sleep(0.1)
        writer.flush()
        deadline = time.monotonic() + 30
        while len(lines) < 2 and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.1)
        assert {(line["tag"], line["kind"], line["step"]) for line in lines} == {
            ("spiky", "spike", 250),
            ("diverging", "nan", 300),
        }
        assert math.isnan(series["diverging"][300])
    finally:
        process.send_signal(signal.SIGINT)  # Ctrl-C: a clean exit
        try:
            returncode = process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            returncode = process.wait()
        writer.close()
        reader.join(5)
        remaining = process.stderr.read()
        process.stdout.close()
        process.stderr.close()
    assert returncode == 0
    assert "Traceback" not in remaining and "stopped" in remaining
