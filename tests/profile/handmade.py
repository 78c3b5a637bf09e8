"""Small traces written by hand in the public Kineto schema (a GPU step with kernels, a memcpy, an NCCL
collective and their launches), for what a CPU-only machine cannot record; and broken ones."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

PID, TID, GPU, STREAM = 100, 101, 0, 7


def allocation(ts: float, total: int, size: int, address: int) -> dict[str, Any]:
    """An allocator event on CUDA:0 (``size`` negative for a free), ``total`` allocated after it."""
    args = {"Total Reserved": 2097152, "Total Allocated": total, "Bytes": size, "Device Id": 0, "Device Type": 1}
    return {
        "ph": "i",
        "s": "t",
        "cat": "cpu_instant_event",
        "name": "[memory]",
        "pid": PID,
        "tid": TID,
        "ts": ts,
        "args": {**args, "Addr": address},
    }


def gpu_trace(rank: int = 0, shift: float = 0.0) -> dict[str, Any]:
    """One step, 0..1000 µs. CPU: ``aten::mm`` (ext 1) launches kernel ``k1`` (correlation 11, 100..300 µs
    on the device) and ``aten::copy_`` (ext 2) a memcpy (400..450); ``nccl:all_reduce`` (ext 3) launches
    ``ncclDevKernel_AllReduce`` at 500 + ``shift`` for 300 µs, overlapped by compute kernel ``k2`` (ext 1's
    second launch, 600..700)."""

    def cpu(name: str, ts: float, dur: float, ext: int, cat: str = "cpu_op") -> dict[str, Any]:
        return {
            "ph": "X",
            "cat": cat,
            "name": name,
            "pid": PID,
            "tid": TID,
            "ts": ts,
            "dur": dur,
            "args": {"External id": ext, "Input Dims": [[8, 8], [8, 8]]},
        }

    def launch(ts: float, corr: int, ext: int) -> dict[str, Any]:
        return {
            "ph": "X",
            "cat": "cuda_runtime",
            "name": "cudaLaunchKernel",
            "pid": PID,
            "tid": TID,
            "ts": ts,
            "dur": 5,
            "args": {"correlation": corr, "External id": ext},
        }

    def device(cat: str, name: str, ts: float, dur: float, corr: int, ext: int, **args: Any) -> dict[str, Any]:
        return {
            "ph": "X",
            "cat": cat,
            "name": name,
            "pid": GPU,
            "tid": STREAM,
            "ts": ts,
            "dur": dur,
            "args": {"correlation": corr, "External id": ext, "device": 0, "stream": STREAM, **args},
        }

    kernel_args = {
        "grid": [128, 1, 1],
        "block": [256, 1, 1],
        "registers per thread": 32,
        "shared memory": 0,
        "blocks per SM": 0.5,
        "warps per SM": 4.0,
        "est. achieved occupancy %": 50,
    }
    events = [
        {"ph": "M", "name": "process_name", "pid": PID, "tid": 0, "args": {"name": "python"}},
        {"ph": "M", "name": "thread_name", "pid": PID, "tid": TID, "args": {"name": "thread 101 (python)"}},
        {"ph": "M", "name": "process_name", "pid": GPU, "tid": 0, "args": {"name": "GPU 0"}},
        {
            "ph": "X",
            "cat": "user_annotation",
            "name": "ProfilerStep#5",
            "pid": PID,
            "tid": TID,
            "ts": 0,
            "dur": 1000,
            "args": {"External id": 9},
        },
        cpu("aten::mm", 10, 100, 1),
        launch(20, 11, 1),
        launch(90, 12, 1),
        cpu("aten::copy_", 150, 50, 2),
        {
            "ph": "X",
            "cat": "cuda_runtime",
            "name": "cudaMemcpyAsync",
            "pid": PID,
            "tid": TID,
            "ts": 160,
            "dur": 5,
            "args": {"correlation": 13, "External id": 2},
        },
        cpu("nccl:all_reduce", 300, 100, 3),
        launch(310 + shift, 14, 3),
        device("kernel", "ampere_sgemm_128x64_nn", 100, 200, 11, 1, **kernel_args),
        device("kernel", "ampere_sgemm_128x64_nn", 600, 100, 12, 1, **kernel_args),
        device("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 400, 50, 13, 2, bytes=4096),
        device(
            "kernel",
            "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
            500 + shift,
            300,
            14,
            3,
            grid=[2, 1, 1],
            block=[512, 1, 1],
        ),
        allocation(15, 1024, 1024, 1),
        allocation(155, 5120, 4096, 2),
        allocation(900, 4096, -1024, 1),
    ]
    return {
        "schemaVersion": 1,
        "deviceProperties": [{"id": 0, "name": "NVIDIA H100", "computeMajor": 9, "numSms": 132}],
        "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 2},
        "traceEvents": events,
        "traceName": "handmade",
    }


def write(path: Path, trace: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(trace, indent=2))
    return path
