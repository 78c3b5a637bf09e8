"""ridgeline export: the same points as the reading API, in CSV, JSON lines and Parquet; the log directory given
as --logdir, or (deprecated) positionally."""

from __future__ import annotations

import csv
import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ridgeline import SummaryWriter

RIDGELINE = shutil.which("ridgeline", path=str(Path(sys.executable).parent)) or "ridgeline"


@pytest.fixture
def log_dir(tmp_path: Path) -> Path:
    for run, offset in (("exp_a", 0.0), ("exp_b", 10.0)):
        with SummaryWriter(tmp_path / "logs" / run) as writer:
            for step in range(3):
                writer.add_scalar("loss", offset + step, step)
                writer.add_scalar("acc", 0.5, step)
            writer.add_scalar("loss", math.nan, 3)
    return tmp_path / "logs"


def export(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([RIDGELINE, "export", *args, "--no-cache"], capture_output=True, text=True, timeout=120)


def test_csv(log_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.csv"
    result = export("--logdir", str(log_dir), "--format", "csv", "-o", str(out), "--tag", "^loss$")
    assert result.returncode == 0, result.stderr
    with out.open() as file:
        rows = list(csv.DictReader(file))
    assert [(r["run"], r["step"], r["value"]) for r in rows] == [
        ("exp_a", "0", "0.0"),
        ("exp_a", "1", "1.0"),
        ("exp_a", "2", "2.0"),
        ("exp_a", "3", "nan"),
        ("exp_b", "0", "10.0"),
        ("exp_b", "1", "11.0"),
        ("exp_b", "2", "12.0"),
        ("exp_b", "3", "nan"),
    ]


def test_json_lines(log_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    result = export("--logdir", str(log_dir), "--format", "json", "-o", str(out), "--run", "exp_b")
    assert result.returncode == 0, result.stderr
    series = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(s["run"], s["tag"]) for s in series] == [("exp_b", "acc"), ("exp_b", "loss")]
    assert series[1]["step"] == [0, 1, 2, 3] and series[1]["value"] == [10.0, 11.0, 12.0, "NaN"]


def test_parquet(log_dir: Path, tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    out = tmp_path / "out.parquet"
    result = export("--logdir", str(log_dir), "--format", "parquet", "-o", str(out))
    assert result.returncode == 0, result.stderr
    table = pq.read_table(out).to_pandas()
    assert len(table) == 2 * (4 + 3)
    assert set(table["run"].astype(str)) == {"exp_a", "exp_b"}


def test_bad_input_is_named(tmp_path: Path) -> None:
    missing = export("--logdir", str(tmp_path / "nope"), "-o", str(tmp_path / "x.csv"))
    assert missing.returncode == 2 and "does not exist" in missing.stderr
    (tmp_path / "logs").mkdir()
    bad_regex = export("--logdir", str(tmp_path / "logs"), "-o", str(tmp_path / "x.csv"), "--run", "(")
    assert bad_regex.returncode == 2 and "not a valid regular expression" in bad_regex.stderr


def test_the_positional_log_directory_still_works_with_a_deprecation_warning(log_dir: Path, tmp_path: Path) -> None:
    old, new = tmp_path / "old.csv", tmp_path / "new.csv"
    positional = export(str(log_dir), "-o", str(old), "--tag", "^loss$")
    assert positional.returncode == 0, positional.stderr
    assert "deprecated" in positional.stderr and "--logdir" in positional.stderr
    option = export("--logdir", str(log_dir), "-o", str(new), "--tag", "^loss$")
    assert option.returncode == 0 and "deprecated" not in option.stderr
    assert old.read_text() == new.read_text() != ""
    missing = export(str(tmp_path / "nope"), "-o", str(tmp_path / "x.csv"))
    assert missing.returncode == 2 and "LOGDIR" in missing.stderr and "does not exist" in missing.stderr


def test_the_log_directory_is_asked_for_once(log_dir: Path, tmp_path: Path) -> None:
    neither = export("-o", str(tmp_path / "x.csv"))
    assert neither.returncode == 2 and "Missing option '--logdir'" in neither.stderr
    both = export(str(log_dir), "--logdir", str(log_dir), "-o", str(tmp_path / "x.csv"))
    assert both.returncode == 2 and "once" in both.stderr and not (tmp_path / "x.csv").exists()


def test_the_extension_names_the_format(log_dir: Path, tmp_path: Path) -> None:
    for name in ("out.json", "out.jsonl"):
        out = tmp_path / name
        result = export("--logdir", str(log_dir), "-o", str(out), "--run", "exp_b", "--tag", "^loss$")
        assert result.returncode == 0, result.stderr
        (series,) = [json.loads(line) for line in out.read_text().splitlines()]
        assert series["run"] == "exp_b" and series["step"] == [0, 1, 2, 3]
    parquet = tmp_path / "out.parquet"
    assert export("--logdir", str(log_dir), "-o", str(parquet)).returncode == 0
    assert parquet.read_bytes()[:4] == b"PAR1"
    other = tmp_path / "out.txt"  # an extension that names no format: CSV, as before
    assert export("--logdir", str(log_dir), "-o", str(other), "--tag", "^acc$").returncode == 0
    assert other.read_text().splitlines()[0] == "run,tag,step,wall_time,value"


def test_a_format_the_extension_contradicts_is_refused(log_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "scalars.json"
    result = export("--logdir", str(log_dir), "--format", "csv", "-o", str(out))
    assert result.returncode == 2 and not out.exists()
    assert "--format csv" in result.stderr and "scalars.json" in result.stderr
    assert "Traceback" not in result.stderr


# Runs the command with pyarrow unimportable, as on an install without the parquet extra.
WITHOUT_PYARROW = """
import sys
sys.modules["pyarrow"] = None
sys.modules["pyarrow.parquet"] = None
from ridgeline.cli import main
main(prog_name="ridgeline")
"""


def test_parquet_without_pyarrow_names_the_extra(log_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.parquet"
    args = ["export", "--logdir", str(log_dir), "-o", str(out), "--no-cache"]
    result = subprocess.run([sys.executable, "-c", WITHOUT_PYARROW, *args], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "pip install 'ridgeline[parquet]'" in lines[0], result.stderr
    assert not out.exists()
