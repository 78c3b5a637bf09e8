"""Log directories with real profiler traces, made once per session by the profile and browser tests.

``write_gloo_logs(root)`` runs a 2-rank gloo job (:mod:`tests.profile.job`, two processes on the CPU): run
``rank0`` holds rank 0's event file and both ranks' traces (``rank0.<stamp>.pt.trace.json``,
``rank1.<stamp>.pt.trace.json``), and ``root/key_averages.<rank>.json`` what ``prof.key_averages()`` said.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def write_gloo_logs(root: Path) -> Path:
    logs = root / "logs"
    logs.mkdir(parents=True)
    store = root / "store"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    jobs = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.profile.job", str(rank), "2", str(store), str(logs)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        for rank in range(2)
    ]
    for job in jobs:
        output, _ = job.communicate(timeout=600)
        assert job.returncode == 0, output.decode(errors="replace")[-4000:]
    for rank in range(2):
        (logs / f"key_averages.{rank}.json").rename(root / f"key_averages.{rank}.json")
    return logs


def key_averages(logs: Path, rank: int) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = json.loads((logs.parent / f"key_averages.{rank}.json").read_text())
    return found


def trace_files(logs: Path) -> list[Path]:
    return sorted((logs / "rank0").glob("*.pt.trace.json"))
