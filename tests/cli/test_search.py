"""``ridgeline search`` as a user runs it (a subprocess): the table, JSON lines, limits, case, error carets."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def ridgeline(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ridgeline.cli", *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_table(search_logdir: Path) -> None:
    done = ridgeline("search", "tag:^train_", "--logdir", str(search_logdir), "--no-cache")
    assert done.returncode == 0, done.stderr
    assert "4 hits in 3 runs" in done.stdout
    for run in ("resnet-a", "resnet-b", "vgg-c"):
        assert run in done.stdout
    assert "train_acc" in done.stdout and "val/acc" not in done.stdout


def test_json_lines(search_logdir: Path) -> None:
    done = ridgeline("search", "text:nan detected", "--logdir", str(search_logdir), "--json", "--no-cache")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines == [
        {"kind": "text", "run": "resnet-a", "tag": "notes/text_summary", "text": "nan detected at step 7", "step": 2}
    ]


def test_limit_and_ignore_case(search_logdir: Path) -> None:
    done = ridgeline("search", "TAG:^TRAIN_", "-i", "--limit", "1", "--json", "--logdir", str(search_logdir))
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == 0  # "TAG:" is no field prefix (prefixes are lower case)
    done = ridgeline("search", "tag:^TRAIN_", "-i", "--limit", "1", "--json", "--logdir", str(search_logdir))
    assert [json.loads(line)["tag"] for line in done.stdout.splitlines()] == ["train_acc"]
    assert "3 more hits" in done.stderr


def test_errors_point_at_the_problem(search_logdir: Path) -> None:
    done = ridgeline("search", "run:resnet AND tag:(abc", "--logdir", str(search_logdir))
    assert done.returncode == 2
    assert "missing )" in done.stderr
    lines = done.stderr.splitlines()
    pattern_line = next(index for index, line in enumerate(lines) if line.strip() == "run:resnet AND tag:(abc")
    assert lines[pattern_line + 1].index("^") == lines[pattern_line].index("(")
    assert "Traceback" not in done.stderr


def test_missing_log_dir(tmp_path: Path) -> None:
    done = ridgeline("search", "x", "--logdir", str(tmp_path / "nowhere"))
    assert done.returncode == 2
    assert "--logdir" in done.stderr and "does not exist" in done.stderr


def test_json_lines_of_a_question_name_its_query_on_stderr(search_logdir: Path) -> None:
    done = ridgeline("search", "which runs have nan", "--logdir", str(search_logdir), "--json", "--no-cache")
    assert done.returncode == 0, done.stderr
    assert "question: " in done.stderr
    assert all(json.loads(line)["kind"] == "run" for line in done.stdout.splitlines())


def test_hostile_input_is_a_usage_error(search_logdir: Path) -> None:
    done = ridgeline("search", "(" * 990 + "a" + ")" * 990, "--logdir", str(search_logdir))
    assert done.returncode == 2 and "nests too deeply" in done.stderr and "Traceback" not in done.stderr


def test_the_caret_counts_wide_characters_as_two_columns() -> None:
    from ridgeline.search.errors import SearchError

    text = "日本日本 AND tag:(abc"
    _, shown, caret = SearchError("missing )", text.index("(")).caret(text).splitlines()
    # Four CJK characters take eight terminal columns: the caret sits under "(", four columns further right.
    assert caret.index("^") == shown.index("(") + 4
