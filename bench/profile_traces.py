"""Reading a large PyTorch profiler trace: ridgeline's streaming parser against ``json.load`` and, with
``--hta-python``, Holistic Trace Analysis' ``TraceAnalysis`` load (HTA is not a ridgeline dependency: it brings
Jupyter along). torch-tb-profiler is not compared: deprecated, it supports nothing newer than torch 2.0.1.

A synthetic Kineto-format trace is generated (``--events`` events, about 200 bytes each, pretty-printed the way
Kineto writes it: CPU ops nested three deep on 4 threads, kernels with launch args on 2 streams, runtime launches,
``[memory]`` instants, ``ProfilerStep#N`` markers). Each contender runs in its own process, so its peak memory
(``ru_maxrss``) is its own. Printed: parse time and peak memory of each, the ratio, then ridgeline's time to the
overview, to the first timeline frame and per zoomed frame.

    .venv/bin/python bench/profile_traces.py                    # 10 M events, about 2 GB
    .venv/bin/python bench/profile_traces.py --events 1000000   # about 200 MB
    .venv/bin/python bench/profile_traces.py --quick            # a smoke run; its figures mean nothing
    .venv/bin/python bench/profile_traces.py --no-json-load     # on a machine without ~5x the trace's size in memory
    .venv/bin/python bench/profile_traces.py --orjson-path      # also the parse without the compiled scanner
    .venv/bin/python bench/profile_traces.py --hta-python /path/to/venv-with-hta/bin/python   # also HTA's load time
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def generate(path: Path, events: int) -> None:
    """Write a Kineto-like trace of about ``events`` events."""
    per_step = 10_000
    with open(path, "w") as out:
        out.write('{\n  "schemaVersion": 1,\n  "deviceProperties": [{"id": 0, "name": "synthetic", "numSms": 108}],\n')
        out.write('  "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1},\n  "traceEvents": [\n')
        written, ts, step, first = 0, 1_000_000.0, 0, True
        while written < events:
            chunk: list[str] = []
            chunk.append(
                _x("user_annotation", f"ProfilerStep#{step}", 1, 1, ts, per_step * 2.0, {"External id": written})
            )
            for i in range(per_step // 10):
                t = ts + i * 20.0
                thread = 1 + i % 4
                ext = written + i + 1
                chunk.append(
                    _x(
                        "cpu_op",
                        "aten::linear",
                        1,
                        thread,
                        t,
                        15.0,
                        {"External id": ext, "Input Dims": [[64, 128], [256, 128]]},
                    )
                )
                chunk.append(_x("cpu_op", "aten::addmm", 1, thread, t + 1, 12.0, {"External id": ext + 1}))
                chunk.append(
                    _x(
                        "cuda_runtime",
                        "cudaLaunchKernel",
                        1,
                        thread,
                        t + 2,
                        4.0,
                        {"correlation": ext, "External id": ext + 1},
                    )
                )
                kernel_args = {
                    "correlation": ext,
                    "External id": ext + 1,
                    "grid": [128, 1, 1],
                    "block": [256, 1, 1],
                    "registers per thread": 64,
                    "blocks per SM": 1.2,
                    "est. achieved occupancy %": 40,
                }
                chunk.append(
                    _x(
                        "kernel",
                        "ampere_sgemm_128x64_nn" if i % 3 else "ncclDevKernel_AllReduce",
                        0,
                        7 + i % 2,
                        t + 5,
                        9.0,
                        kernel_args,
                    )
                )
                chunk.append(_x("cpu_op", "aten::relu", 1, thread, t + 14, 1.0, {"External id": ext + 2}))
                chunk.append(_x("gpu_memcpy", "Memcpy HtoD", 0, 9, t + 15, 2.0, {"correlation": ext + 2}))
                chunk.append(_x("python_function", "model.py(12): forward", 1, thread, t, 16.0, {"Python id": ext}))
                chunk.append(_x("cpu_op", "aten::empty", 1, thread, t + 3, 0.5, {"External id": ext + 3}))
                chunk.append(
                    json.dumps(
                        {
                            "ph": "i",
                            "s": "t",
                            "cat": "cpu_instant_event",
                            "name": "[memory]",
                            "pid": 1,
                            "tid": thread,
                            "ts": t + 3,
                            "args": {
                                "Total Allocated": (i % 100) * 4096,
                                "Total Reserved": 1 << 22,
                                "Bytes": 4096,
                                "Device Type": 1,
                                "Device Id": 0,
                            },
                        },
                        indent=2,
                    )
                )
                chunk.append(_x("cpu_op", "aten::t", 1, thread, t + 16, 0.8, {"External id": ext + 4}))
            written += len(chunk)
            out.write(("" if first else ",\n") + ",\n".join(chunk))
            first = False
            ts += per_step * 2.0 + 50
            step += 1
        out.write('\n  ],\n  "traceName": "synthetic",\n  "displayTimeUnit": "ms"\n}\n')


def _x(cat: str, name: str, pid: int, tid: int, ts: float, dur: float, args: dict[str, object]) -> str:
    return json.dumps(
        {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": round(ts, 3), "dur": dur, "args": args},
        indent=2,
    )


def _contender(kind: str, path: str) -> None:
    """Runs in a child process: parse ``path`` one way, print the figures as JSON."""
    if kind == "hta":
        from hta.trace_analysis import TraceAnalysis  # type: ignore[import-not-found]
    elif kind == "ridgeline":
        from ridgeline.profile import overview, scanned, timeline
        from ridgeline.profile.parse import parse_trace
    elif kind == "orjson-path":
        from ridgeline.profile.parse import parse_trace

    started = time.perf_counter()  # after the imports: only the reading counts
    cpu_started = time.process_time()  # this process's CPU time: what a shared machine's load leaves alone
    figures: dict[str, float] = {}
    if kind == "json.load":
        with open(path) as file:
            events = len(json.load(file)["traceEvents"])
        figures["events"] = events
    elif kind == "hta":
        TraceAnalysis(trace_dir=str(Path(path).parent))
    elif kind == "orjson-path":
        figures["events"] = parse_trace(path, scanner=False).span_count
    else:
        trace = parse_trace(path)
        figures["events"] = trace.span_count
        figures["parse_s"] = time.perf_counter() - started
        figures["parse_cpu_s"] = time.process_time() - cpu_started
        figures["scanner"] = float(scanned.AVAILABLE)
        t, c = time.perf_counter(), time.process_time()
        overview.overview(trace)
        figures["overview_s"] = time.perf_counter() - t
        figures["overview_cpu_s"] = time.process_time() - c
        t = time.perf_counter()
        rows = timeline.rows(trace)
        first, last = timeline.extent(trace)
        timeline.window(trace, rows, first, last, 1000)
        figures["first_frame_s"] = time.perf_counter() - t
        frames = []
        span = last - first
        for _ in range(12):
            span /= 2
            t = time.perf_counter()
            middle = (first + last) / 2
            timeline.window(trace, rows, middle - span / 2, middle + span / 2, 1000)
            frames.append(time.perf_counter() - t)
        figures["zoom_frame_max_s"] = max(frames)
        figures["zoom_frame_mean_s"] = sum(frames) / len(frames)
    figures.setdefault("parse_s", time.perf_counter() - started)
    figures.setdefault("parse_cpu_s", time.process_time() - cpu_started)
    figures["peak_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(figures))


def run(kind: str, path: Path, python: str = sys.executable) -> dict[str, float] | str:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        [python, __file__, "--contender", kind, str(path)], capture_output=True, text=True, env=env, check=False
    )
    if done.returncode != 0:
        return done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=10_000_000)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument(
        "--no-json-load", action="store_true", help="skip json.load (it needs about 5x the file's size in memory)"
    )
    parser.add_argument(
        "--orjson-path", action="store_true", help="also ridgeline's parse without its compiled scanner (orjson)"
    )
    parser.add_argument("--hta-python", help="a Python with HolisticTraceAnalysis installed: its load time is compared")
    parser.add_argument("--contender", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.contender:
        _contender(*args.contender)
        return 0
    events = 20_000 if args.quick else args.events
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.pt.trace.json"
        t = time.perf_counter()
        generate(path, events)
        print(
            f"trace: {events:,} events, {path.stat().st_size / 2**20:,.0f} MiB, "
            f"generated in {time.perf_counter() - t:.1f} s"
        )
        os.environ["RIDGELINE_CACHE_DIR"] = str(Path(folder) / "cache")
        ours = run("ridgeline", path)
        theirs = "skipped (--no-json-load)" if args.no_json_load else run("json.load", path)
        fallback = run("orjson-path", path) if args.orjson_path else "not run (give --orjson-path)"
        if args.hta_python:
            hta_result: dict[str, float] | str = run("hta", path, args.hta_python)
        else:
            hta_result = "not run (give --hta-python, a Python with HolisticTraceAnalysis installed)"
    if isinstance(ours, str):
        print(f"ridgeline failed: {ours}")
        return 1
    print(
        f"ridgeline ({'compiled scanner' if ours['scanner'] else 'orjson path: the scanner is not built'}): "
        f"parse {ours['parse_s']:.1f} s ({ours['parse_cpu_s']:.1f} s CPU), peak {ours['peak_mib']:,.0f} MiB, "
        f"overview {ours['overview_s']:.3f} s ({ours['overview_cpu_s']:.3f} s CPU), "
        f"first frame {ours['first_frame_s'] * 1000:.1f} ms, "
        f"zoom frames mean {ours['zoom_frame_mean_s'] * 1000:.1f} ms "
        f"max {ours['zoom_frame_max_s'] * 1000:.1f} ms"
    )
    if isinstance(theirs, str):
        print(f"json.load: failed ({theirs})")
    else:
        print(
            f"json.load: parse {theirs['parse_s']:.1f} s ({theirs['parse_cpu_s']:.1f} s CPU), "
            f"peak {theirs['peak_mib']:,.0f} MiB "
            f"(ratio: ridgeline parse CPU time ×{ours['parse_cpu_s'] / theirs['parse_cpu_s']:.2f}, "
            f"peak memory ×{ours['peak_mib'] / theirs['peak_mib']:.2f})"
        )
    if isinstance(fallback, str):
        print(f"ridgeline without the scanner: {fallback}")
    else:
        print(
            f"ridgeline without the scanner (orjson path): parse {fallback['parse_s']:.1f} s "
            f"({fallback['parse_cpu_s']:.1f} s CPU), peak {fallback['peak_mib']:,.0f} MiB "
            f"(ratio: the scanner's parse CPU time ×{ours['parse_cpu_s'] / fallback['parse_cpu_s']:.2f})"
        )
    if isinstance(hta_result, str):
        print(f"HTA TraceAnalysis: {hta_result}")
    else:
        print(
            f"HTA TraceAnalysis: load {hta_result['parse_s']:.1f} s ({hta_result['parse_cpu_s']:.1f} s CPU), "
            f"peak {hta_result['peak_mib']:,.0f} MiB "
            f"(ratio: ridgeline parse CPU time ×{ours['parse_cpu_s'] / hta_result['parse_cpu_s']:.2f}, "
            f"peak memory ×{ours['peak_mib'] / hta_result['peak_mib']:.2f})"
        )
    print("torch-tb-profiler: not installed (deprecated; it supports nothing newer than torch 2.0.1)")
    for label, ok in [
        ("parse under 30 s", ours["parse_s"] < 30),
        ("peak memory under 2 GiB", ours["peak_mib"] < 2048),
        ("overview under 1 s", ours["overview_s"] < 1),
        ("timeline frames under 16 ms", ours["zoom_frame_max_s"] < 0.016),
    ]:
        print(f"{'PASS' if ok else 'FAIL'} {label}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
