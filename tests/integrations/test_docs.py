"""docs/integrations.md runs as written: its Python examples, in order, each in its own interpreter, in one empty
folder; then its shell examples (but the pip installs) in that folder, with this environment's ``ridgeline``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import ridgeline

pytestmark = pytest.mark.slow

DOC = Path(__file__).resolve().parents[2] / "docs" / "integrations.md"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.DOTALL | re.MULTILINE)


def blocks(language: str) -> list[str]:
    return [body for lang, body in BLOCK.findall(DOC.read_text()) if lang == language]


def test_the_examples_run_as_written(tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if key != "KERAS_BACKEND"}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    python = blocks("python")
    assert len(python) == 6
    for number, code in enumerate(python):
        done = subprocess.run(
            [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, f"python example {number}:\n{code}\n{done.stdout}\n{done.stderr}"
        if number == len(python) - 1:
            assert "Baseline with a smaller learning rate" in done.stdout and "data loader is slow" in done.stdout

    logdir = ridgeline.open(tmp_path / "runs")
    assert {"lightning/version_0", "bert", "accelerate", "keras", "keras/train", "keras/validation", "console"} <= set(
        logdir.runs()
    )
    for run in ("lightning/version_0", "bert", "accelerate", "keras"):
        assert logdir.hparams(run) is not None, run

    shell = [body for body in blocks("sh") if not body.startswith("pip install")]
    assert len(shell) == 2
    for number, script in enumerate(shell):
        done = subprocess.run(
            ["bash", "-e", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, f"shell example {number}:\n{script}\n{done.stdout}\n{done.stderr}"
    assert (tmp_path / "verdict.md").read_text().startswith("✅ **ridgeline check passed**")
