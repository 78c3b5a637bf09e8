"""A breakdown of scenario (d)'s first chart (bench/ui_distributed.py): one ridgeline server over the 64-rank log
directory, ``--loads`` fresh-context page loads after one warm-up, and for each the page's own clock
(``performance.now()`` from navigation start): every request's start, first byte and end with its size on the
wire, the long tasks (script evaluation, renders, the chart's draw), and the moment the aggregated chart's card
said it was ready. Prints one table per load and the medians of the main marks.

    python bench/ui_distributed_trace.py [--loads 5] [--src DIR] [--quick] [--json PATH]

``--src`` runs the server from another tree's ``ridgeline`` package (as bench/ui_distributed_ab.py's
``--before-src``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright
from ui import CHROMIUM, CHROMIUM_ARGS, SERVER_TIMEOUT_S, VIEWPORT, ensure_dataset, start_ridgeline
from ui_distributed import CHART, JOB, dataset

# Installed in every page before its scripts: long tasks and the chart's ready flag, on the page's clock.
OBSERVE = """
window.__trace = {longtasks: [], ready: null, marks: {}};
const MARKS = {shell: "#app > *", dashboard: ".rl-dist-page", card: "[data-testid=distributed-chart]",
               canvas: "[data-testid=distributed-chart] canvas"};
try {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__trace.longtasks.push([e.startTime, e.duration]);
  }).observe({type: "longtask", buffered: true});
} catch (e) {}
new MutationObserver(() => {
  const t = window.__trace;
  for (const [k, sel] of Object.entries(MARKS)) {
    if (!(k in t.marks) && document.querySelector(sel)) t.marks[k] = performance.now();
  }
  if (t.ready === null && document.querySelector(%s)) t.ready = performance.now();
}).observe(document, {subtree: true, childList: true, attributes: true, attributeFilter: ["data-ready"]});
"""

COLLECT = """() => {
  const nav = performance.getEntriesByType("navigation")[0];
  const res = performance.getEntriesByType("resource").map((e) => ({
    name: e.name.replace(location.origin, ""), start: e.startTime, ttfb: e.responseStart, end: e.responseEnd,
    wire: e.transferSize, body: e.decodedBodySize}));
  return {nav: {ttfb: nav.responseStart, end: nav.responseEnd, dcl: nav.domContentLoadedEventEnd},
          resources: res, trace: window.__trace};
}"""


def one_load(browser: Any, url: str) -> dict[str, Any]:
    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1, bypass_csp=True)
    context.add_init_script(OBSERVE % repr(CHART + "[data-ready=true]"))
    page = context.new_page()
    try:
        page.goto(url, wait_until="commit")
        page.wait_for_function("() => window.__trace && window.__trace.ready !== null", polling=20, timeout=30_000)
        page.wait_for_timeout(50)
        return page.evaluate(COLLECT)
    finally:
        context.close()


def show(load: dict[str, Any]) -> None:
    nav = load["nav"]
    print(f"  document: first byte {nav['ttfb']:.0f} ms, end {nav['end']:.0f}, DOMContentLoaded {nav['dcl']:.0f}")
    for r in load["resources"]:
        print(
            f"  {r['start']:6.0f} {r['ttfb']:6.0f} {r['end']:6.0f} ms  {r['wire']:>9,} B ({r['body']:>9,})  "
            f"{r['name'][:90]}"
        )
    tasks = load["trace"]["longtasks"]
    print("  long tasks:", ", ".join(f"{s:.0f}+{d:.0f}" for s, d in tasks))
    marks = ", ".join(f"{k} {v:.0f}" for k, v in load["trace"]["marks"].items())
    print(f"  marks: {marks}; ready at {load['trace']['ready']:.0f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--loads", type=int, default=5)
    parser.add_argument("--src", type=Path, default=None)
    parser.add_argument("--data-dir", type=Path, default=Path(".bench/ui"))
    parser.add_argument("--quick", action="store_true", help="4 ranks x 500 steps, one load (a smoke test)")
    parser.add_argument("--json", type=Path, default=None, help="write every load's breakdown here")
    args = parser.parse_args()
    data = dataset(args.quick)
    if args.quick:
        args.loads = 1
    path = ensure_dataset(args.data_dir, data)
    if args.src is not None:
        os.environ["PYTHONPATH"] = str(args.src)
    server = start_ridgeline(path, data, SERVER_TIMEOUT_S)
    url = server.url + f"?tab=distributed&dist.run={JOB}"
    ready: list[float] = []
    loads: list[dict[str, Any]] = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            one_load(browser, url)
            for i in range(args.loads):
                load = one_load(browser, url)
                print(f"load {i} (load average {os.getloadavg()[0]:.1f})")
                show(load)
                loads.append(load)
                ready.append(load["trace"]["ready"])
            browser.close()
    finally:
        server.stop()
    print(f"ready: median {statistics.median(ready):.0f} ms ({' / '.join(f'{r:.0f}' for r in ready)})")
    if args.json is not None:
        args.json.write_text(json.dumps({"ready_ms": statistics.median(ready), "loads": loads}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
