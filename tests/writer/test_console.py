"""Notes and console capture, end to end: real training scripts in subprocesses that print, raise, are killed or
terminated, and what ``ridgeline.open`` reads back from their runs."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import ridgeline
from ridgeline.format.console import ConsoleLine, format_line, parse_line

pytestmark = pytest.mark.slow

SCRIPT = """
import sys
from ridgeline import SummaryWriter

writer = SummaryWriter(sys.argv[1], capture_console=True, hparams={{"lr": 0.1}})
writer.add_note("tried a smaller learning rate")
print("before any step")
for step in range(3):
    writer.add_scalar("loss", 1.0 / (step + 1), step)
    print(f"step {{step}} loss {{1.0 / (step + 1):.3f}}")
    print(f"warning at {{step}}", file=sys.stderr)
writer.flush()
{ending}
"""


def train(tmp_path: Path, ending: str) -> subprocess.Popen[str]:
    script = tmp_path / "train.py"
    script.write_text(SCRIPT.format(ending=textwrap.dedent(ending)))
    return subprocess.Popen(
        [sys.executable, str(script), str(tmp_path / "run")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def lines(run: Path) -> list[tuple[str, int | None, str]]:
    return [(line.stream, line.step, line.text) for line in ridgeline.open(run).console(".")]


EXPECTED = [
    ("stdout", None, "before any step"),
    ("stdout", 0, "step 0 loss 1.000"),
    ("stderr", 0, "warning at 0"),
    ("stdout", 1, "step 1 loss 0.500"),
    ("stderr", 1, "warning at 1"),
    ("stdout", 2, "step 2 loss 0.333"),
    ("stderr", 2, "warning at 2"),
]


def test_a_run_that_raises_keeps_its_output_and_its_traceback(tmp_path: Path) -> None:
    process = train(tmp_path, 'print("partial line", end="")\nraise RuntimeError("the loader broke")')
    out, err = process.communicate(timeout=120)
    assert process.returncode == 1
    assert "step 2 loss 0.333" in out and "RuntimeError: the loader broke" in err  # the terminal still got it all
    got = lines(tmp_path / "run")
    assert got[: len(EXPECTED)] == EXPECTED
    assert ("stdout", 2, "partial line") in got
    logdir = ridgeline.open(tmp_path / "run")
    traceback = logdir.traceback(".")
    assert traceback is not None and traceback.startswith("Traceback (most recent call last):")
    assert traceback.endswith("RuntimeError: the loader broke")
    end = logdir.hparams_session_end(".")
    assert end is not None and end.status == "failure"
    assert logdir.notes(".") == ["tried a smaller learning rate"]


def test_a_killed_run_keeps_what_was_flushed(tmp_path: Path) -> None:
    process = train(tmp_path, 'print("ready", flush=True)\nsys.stdin.readline()\nprint("never written")')
    assert process.stdout is not None
    assert process.stdout.readline() == "before any step\n"
    while process.stdout.readline() != "ready\n":
        pass
    process.kill()
    process.communicate(timeout=120)
    assert lines(tmp_path / "run") == EXPECTED
    assert ridgeline.open(tmp_path / "run").hparams_session_end(".") is None  # no end: crashed


def test_a_terminated_run_flushes_its_lines(tmp_path: Path) -> None:
    ending = 'print("not flushed yet")\nprint("waiting", flush=True)\nsys.stdin.readline()'
    process = train(tmp_path, ending)
    assert process.stdout is not None
    while process.stdout.readline() != "waiting\n":
        pass
    process.send_signal(signal.SIGTERM)
    process.communicate(timeout=120)
    assert process.returncode == -signal.SIGTERM
    got = lines(tmp_path / "run")
    assert got == [*EXPECTED, ("stdout", 2, "not flushed yet"), ("stdout", 2, "waiting")]  # the handler flushed


def test_capture_stops_at_close_and_the_streams_come_back(tmp_path: Path) -> None:
    stdout, stderr = sys.stdout, sys.stderr
    writer = ridgeline.SummaryWriter(tmp_path, capture_console=True)
    assert sys.stdout is not stdout
    print("captured")
    writer.close()
    assert sys.stdout is stdout and sys.stderr is stderr
    print("not captured")
    assert [line.text for line in ridgeline.open(tmp_path).console(".")] == ["captured"]


def test_notes_come_from_the_readme_and_add_note(tmp_path: Path) -> None:
    with ridgeline.SummaryWriter(tmp_path / "run") as writer:
        writer.add_note("# Trial 3\nwider layers")
        writer.add_note("**baseline**")
    (tmp_path / "run" / "README.md").write_text("Why: the loss plateaued.\n")
    logdir = ridgeline.open(tmp_path)
    assert logdir.notes("run") == ["Why: the loss plateaued.\n", "# Trial 3\nwider layers", "**baseline**"]
    assert "text" not in logdir.tags("run")  # bookkeeping: not listed as text tags
    with pytest.raises(TypeError, match="add_note: markdown must be a string"):
        ridgeline.SummaryWriter(tmp_path / "other").add_note(3)  # type: ignore[arg-type]


def test_console_lines_round_trip() -> None:
    line = ConsoleLine(1_700_000_000.125, "stderr", 42, "  File 'x.py', line 3 ")
    assert parse_line(format_line(line)) == line
    assert parse_line(format_line(ConsoleLine(1_700_000_000.0, "stdout", None, ""))) == ConsoleLine(
        1_700_000_000.0, "stdout", None, ""
    )
    assert parse_line("not a console line") is None
