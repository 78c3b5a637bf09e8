"""Importing the summaries package stays light: no torch, matplotlib, Pillow or TensorBoard."""

from __future__ import annotations

import subprocess
import sys


def test_no_heavy_imports() -> None:
    code = (
        "import sys, ridgeline.writer.summaries\n"
        "heavy = [m for m in ('torch', 'matplotlib', 'PIL', 'tensorboard') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
