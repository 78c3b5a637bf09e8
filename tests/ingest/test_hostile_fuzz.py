"""Hypothesis over mutated real event files (tests/ingest/fuzz_reader.py), in a subprocess with its address space
capped: bit flips in headers, CRCs and data; truncation anywhere; lengths rewritten huge or zero with a valid
length CRC; junk records with valid CRCs; records repeated. No exception escapes, nothing hangs, memory stays
under the cap, and every scalar of every record left intact is read exactly once.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ridgeline
from tests.conftest import WAIT_S

EXAMPLES = 300
BUDGET = 1 << 30  # 1 GiB over what the reader's process has mapped: the files are a few KiB each
SCRIPT = Path(__file__).with_name("fuzz_reader.py")


def write_with(writer: object, steps: int = 25) -> None:
    rng = np.random.default_rng(0)
    for step in range(steps):
        writer.add_scalar("loss", 1.0 / (step + 1), step)  # type: ignore[attr-defined]
        writer.add_scalar("acc/top-1", step / steps, step)  # type: ignore[attr-defined]
        if step % 8 == 0:
            writer.add_histogram("weights", rng.normal(size=100), step)  # type: ignore[attr-defined]
            writer.add_text("notes", f"step {step}", step)  # type: ignore[attr-defined]
    writer.close()  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def real_files(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("fuzz_sources")
    write_with(ridgeline.SummaryWriter(str(root / "ridgeline")))
    torch_tb = pytest.importorskip("torch.utils.tensorboard")
    write_with(torch_tb.SummaryWriter(str(root / "torch")))
    tensorboardx = pytest.importorskip("tensorboardX")
    write_with(tensorboardx.SummaryWriter(str(root / "tensorboardx")))
    files = sorted(root.glob("*/*tfevents*"))
    assert len(files) == 3
    return files


def test_the_reader_survives_mutations_of_real_files_and_keeps_every_intact_point(real_files: list[Path]) -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(EXAMPLES), str(BUDGET), *map(str, real_files)],
        capture_output=True,
        text=True,
        timeout=WAIT_S * 10,  # against a hang only: 300 small files
        cwd=Path(__file__).parents[2],
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-6000:]
    assert done.stdout.split()[:2] == ["ok", str(EXAMPLES)]
