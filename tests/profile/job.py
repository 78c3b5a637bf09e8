"""One rank of a 2-rank gloo job on the CPU, profiled as a user would: a small model trained a few steps under
``torch.profiler`` with ``record_shapes``, ``profile_memory`` and ``with_stack``, the trace written by
``tensorboard_trace_handler`` into the run directory next to its event files. Run as
``python -m tests.profile.job RANK WORLD STORE RUN_DIR``; it also writes what ``prof.key_averages()`` said
(``key_averages.<rank>.json``), the oracle the operator table is checked against."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(rank: int, world: int, store: str, run_dir: Path) -> None:
    import torch
    import torch.distributed as dist
    from torch import nn
    from torch.profiler import ProfilerActivity, profile, schedule, tensorboard_trace_handler

    import ridgeline

    torch.set_num_threads(1)
    torch.manual_seed(rank)
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=world)
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4))
    optimiser = torch.optim.SGD(model.parameters(), lr=0.05)
    writer = ridgeline.SummaryWriter(str(run_dir / f"rank{rank}")) if rank == 0 else None
    with profile(
        activities=[ProfilerActivity.CPU],
        schedule=schedule(wait=1, warmup=1, active=3, repeat=1),
        on_trace_ready=tensorboard_trace_handler(str(run_dir / "rank0"), worker_name=f"rank{rank}"),
        record_shapes=True,
        profile_memory=True,
        with_stack=True,
    ) as prof:
        for step in range(6):
            x = torch.randn(16 * (rank + 1), 32)  # rank 1 works on twice the batch: it is the straggler
            loss = model(x).pow(2).mean()
            optimiser.zero_grad()
            loss.backward()
            for parameter in model.parameters():
                dist.all_reduce(parameter.grad)
            optimiser.step()
            if writer is not None:
                writer.add_scalar("loss", loss.item(), step)
            prof.step()
    if writer is not None:
        writer.close()
    averages = [
        {"name": e.key, "self_cpu": e.self_cpu_time_total, "total_cpu": e.cpu_time_total, "calls": e.count}
        for e in prof.key_averages()
    ]
    (run_dir / f"key_averages.{rank}.json").write_text(json.dumps(averages))
    dist.destroy_process_group()


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], Path(sys.argv[4]))
