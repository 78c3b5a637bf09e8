"""Scenario (d) of bench/ui.py (bench/ui_distributed.py) for two builds of the web UI at once, interleaved load by
load: ridgeline "before" (another source tree, e.g. an older commit's ``src`` with its ``_static`` built), ridgeline
"after" (this tree) and TensorBoard, one fresh-context load of each per round, the two ridgeline orders taking
turns, over the same log directory. On a shared machine whose load moves by the minute, this compares the two
builds under the same load, which two runs of bench/ui.py one after the other do not. The load average is printed
beside every load.

    python bench/ui_distributed_ab.py --before-src DIR [--rounds 5] [--no-tensorboard]

``DIR`` holds the ``ridgeline`` package of the "before" tree (compiled core and ``_static`` included); its server
runs with ``PYTHONPATH=DIR``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright
from ui import CHROMIUM, CHROMIUM_ARGS, SERVER_TIMEOUT_S, Server, ensure_dataset, start_ridgeline, start_tensorboard
from ui_distributed import JOB, dataset, first_paint


def start_before(path: Path, src: Path, data: Any) -> Server:
    previous = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(src)
    try:
        server = start_ridgeline(path, data, SERVER_TIMEOUT_S)
    finally:
        if previous is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = previous
    server.name = "ridgeline"
    return server


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before-src", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--data-dir", type=Path, default=Path(".bench/ui"))
    parser.add_argument("--no-tensorboard", action="store_true")
    args = parser.parse_args()
    data = dataset(False)
    path = ensure_dataset(args.data_dir, data)
    servers: dict[str, Server] = {}
    samples: dict[str, list[float]] = {}
    try:
        servers["before"] = start_before(path, args.before_src, data)
        servers["after"] = start_ridgeline(path, data, SERVER_TIMEOUT_S)
        for name in ("before", "after"):
            servers[name].url += f"?tab=distributed&dist.run={JOB}"
        if not args.no_tensorboard:
            servers["TensorBoard"] = start_tensorboard(path, data, SERVER_TIMEOUT_S)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            # One load each first: the servers' first answers (report, aggregate) are computed then.
            for name in ("before", "after"):
                first_paint(browser, servers[name], data, None)
            for round_ in range(args.rounds):
                order = ["before", "after"] if round_ % 2 == 0 else ["after", "before"]
                order += [n for n in servers if n not in order]
                for name in order:
                    load = first_paint(browser, servers[name], data, None)["load_s"] * 1000
                    samples.setdefault(name, []).append(load)
                    print(
                        f"  round {round_} {name:11s} {load:7.0f} ms  load average {os.getloadavg()[0]:.1f}", flush=True
                    )
            browser.close()
    finally:
        for server in servers.values():
            server.stop()
    print("\n| build | median (ms) | loads (ms) |\n| --- | ---: | --- |")
    for name, values in samples.items():
        print(f"| {name} | {statistics.median(values):,.0f} | {' / '.join(f'{v:,.0f}' for v in values)} |")
    if "TensorBoard" in samples:
        tb = statistics.median(samples["TensorBoard"])
        for name in ("before", "after"):
            print(f"TensorBoard / ridgeline {name}: {tb / statistics.median(samples[name]):.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
