"""A simulated 3-rank job written with ridgeline's writer, shared by the API and browser tests: sync records with
rank 2 late at every step (it computes 0.14 s where the others take 0.10 s), rank 1's clock 2 s ahead, a ``loss``
per rank and a system metric tag; plus a run that is not distributed."""

from __future__ import annotations

from pathlib import Path

from ridgeline import SummaryWriter
from ridgeline.format.tags import SYNC_TAG

START = 1_700_000_000.0
SHIFT = {0: 0.0, 1: 2.0, 2: 0.0}
COMPUTE = {0: 0.10, 1: 0.10, 2: 0.14}
STEPS = 30


def write_job(root: Path) -> Path:
    """Each rank computes for COMPUTE[rank] s, then waits at the barrier for the slowest; its clock is SHIFT off."""
    writers = {rank: SummaryWriter(root / "job", rank=rank) for rank in COMPUTE}
    now = START
    for step in range(STEPS):
        leave = now + max(COMPUTE.values())
        for rank, writer in writers.items():
            arrival = now + COMPUTE[rank]
            writer.add_scalar(SYNC_TAG, leave - arrival, step, walltime=leave + SHIFT[rank])  # what sync_step records
            writer.add_scalar("loss", 10.0 / (step + 1) + rank, step, walltime=leave + SHIFT[rank] + 0.001)
            writer.add_scalar("sys/cpu/system_percent", 50.0 + rank, step, walltime=leave + SHIFT[rank])
        now = leave
    for writer in writers.values():
        writer.close()
    with SummaryWriter(root / "single", per_rank=False) as writer:
        writer.add_scalar("loss", 1.0, 0)
    return root
