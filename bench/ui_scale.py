"""UI scale benchmark: the scalars dashboard with many tags or many runs, in headless Chromium.

Two log directories, written with ridgeline's SummaryWriter once and kept (``--data-dir``, default
``.bench/ui_scale``):

- ``tags``: 2 runs x 10,000 tags (100 sections ``layer{t // 100}/param{t}``) x 20 points;
- ``runs``: 1,000 runs x 10 tags (3 sections) x 50 points.

For each, ``ridgeline serve --port 0 --reload-interval 0 --no-cache`` is started on 127.0.0.1 and, once it has read
the directory, Playwright drives Debian's chromium (1280x800, software rendering, ``--disable-frame-rate-limit
--disable-gpu-vsync`` so a frame interval is its real cost, not a 60 Hz tick) through a fresh context per load:

- **ready**: from ``page.goto`` until ``document.body.dataset.chartsReady === "true"`` (every card on screen drawn);
  also how many card elements the page then holds;
- **scroll frames**: 60 animation frames, each scrolling the dashboard 400 px further, the interval between
  consecutive frames (median and 95th percentile): layout, newly built cards and their charts included;
- **tag filter**: typing a regex that matches one tag near the end of the list into the tag filter, until that
  card has drawn (includes the shell's 150 ms debounce of the filter).

Each figure is the median over ``--repeats`` loads. ``--url`` measures an already running server instead (e.g. an
older build, to compare) with the ``--only`` dataset's filter target.

    python bench/ui_scale.py [--only tags,runs] [--repeats R] [--data-dir DIR] [--url URL] [--json PATH] [--quick]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, sync_playwright
from ui import CHROMIUM, CHROMIUM_ARGS, VIEWPORT  # bench/ui.py, beside this file: the same browser settings

REPO = Path(__file__).resolve().parents[1]
DATA_VERSION = 1  # bump when the generated data changes
SCROLL_FRAMES = 60
SCROLL_STEP_PX = 400
TIMEOUT_MS = 60_000


@dataclass(frozen=True)
class Dataset:
    name: str
    runs: int
    tags: int
    steps: int
    per_section: int

    def run_name(self, r: int) -> str:
        return f"run{r:04d}"

    def tag_name(self, t: int) -> str:
        return f"layer{t // self.per_section}/param{t}"

    @property
    def filter_target(self) -> str:
        """A tag near the end of the (sorted) list, and a filter matching only it."""
        return self.tag_name(self.tags - 2)


def datasets(quick: bool) -> dict[str, Dataset]:
    if quick:
        return {"tags": Dataset("tags", 2, 300, 5, 30), "runs": Dataset("runs", 30, 10, 5, 4)}
    return {"tags": Dataset("tags", 2, 10_000, 20, 100), "runs": Dataset("runs", 1_000, 10, 50, 4)}


def ensure_dataset(root: Path, d: Dataset) -> Path:
    """The log directory of ``d`` under ``root``, written unless a complete one is already there."""
    from ridgeline import SummaryWriter  # the package under test; imported only when data must be written

    path = root / f"{d.name}-{d.runs}x{d.tags}x{d.steps}-v{DATA_VERSION}"
    marker = path / ".complete"
    if marker.exists():
        return path
    print(f"writing {path} ...", file=sys.stderr, flush=True)
    for r in range(d.runs):
        with SummaryWriter(path / d.run_name(r)) as writer:
            for t in range(d.tags):
                tag = d.tag_name(t)
                for s in range(d.steps):
                    writer.add_scalar(tag, float((s * (t + 1) + r) % 7), s, walltime=1_780_000_000.0 + s)
    marker.write_text("ok\n")
    return path


@contextmanager
def serve(path: Path, d: Dataset) -> Iterator[str]:
    """``ridgeline serve`` over ``path``, yielded once every run is read; stopped on exit."""
    with tempfile.TemporaryFile() as log:
        command = [sys.executable, "-m", "ridgeline.cli", "serve", "--logdir", str(path), "--port", "0"]
        command += ["--host", "127.0.0.1", "--reload-interval", "0", "--no-cache"]
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd=REPO)
        try:
            url = ""
            deadline = time.monotonic() + 600
            while time.monotonic() < deadline:
                if process.poll() is not None:
                    log.seek(0)
                    raise RuntimeError(f"ridgeline serve exited with {process.returncode}:\n{log.read().decode()}")
                if not url:
                    log.seek(0)
                    if match := re.search(rb"serving .* at (http://127\.0\.0\.1:\d+)", log.read()):
                        url = match.group(1).decode() + "/"
                if url and read_all(url, d):
                    break
                time.sleep(0.2)
            else:
                raise RuntimeError("ridgeline serve did not read the log directory within 600 s")
            yield url
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


def read_all(url: str, d: Dataset) -> bool:
    try:
        with urllib.request.urlopen(url + "api/runs", timeout=30) as response:
            runs = json.loads(response.read())["runs"]
    except OSError:
        return False
    return len(runs) >= d.runs and all(
        r["last_step"] == d.steps - 1 and len(r["tags"].get("scalars", [])) >= d.tags for r in runs
    )


SCROLL_JS = """async ([frames, step]) => {
    const main = document.querySelector('main');
    const times = [];
    let last = performance.now();
    for (let i = 0; i < frames; i++) {
        main.scrollTop += step;
        await new Promise(r => requestAnimationFrame(r));
        const now = performance.now();
        times.push(now - last);
        last = now;
    }
    return times;
}"""

CARD_READY_JS = """tag => {
    const c = [...document.querySelectorAll('[data-testid=scalar-card]')].find(c => c.dataset.tag === tag);
    return !!c && c.dataset.ready === 'true';
}"""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def measure_once(browser: Browser, url: str, d: Dataset) -> dict[str, Any]:
    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1, bypass_csp=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    try:
        start = time.perf_counter()
        page.goto(url)
        page.wait_for_function("document.body?.dataset.chartsReady === 'true'", timeout=TIMEOUT_MS)
        ready_s = time.perf_counter() - start
        cards = page.locator("[data-testid=scalar-card]").count()
        frames: list[float] = page.evaluate(SCROLL_JS, [SCROLL_FRAMES, SCROLL_STEP_PX])
        page.evaluate("document.querySelector('main').scrollTop = 0")
        target = d.filter_target
        start = time.perf_counter()
        page.locator("[data-testid=tag-filter]").fill(re.escape(target.split("/")[1]) + "$")
        page.wait_for_function(CARD_READY_JS, arg=target, timeout=TIMEOUT_MS)
        filter_s = time.perf_counter() - start
        return {
            "ready_s": ready_s,
            "cards": cards,
            "frame_ms_median": statistics.median(frames),
            "frame_ms_p95": percentile(frames, 0.95),
            "filter_s": filter_s,
            "errors": errors,
        }
    finally:
        context.close()


def measure(browser: Browser, url: str, d: Dataset, repeats: int) -> dict[str, Any]:
    samples = [measure_once(browser, url, d) for _ in range(repeats)]
    result: dict[str, Any] = {"dataset": d.name, "runs": d.runs, "tags": d.tags, "points": d.steps}
    for key in ("ready_s", "cards", "frame_ms_median", "frame_ms_p95", "filter_s"):
        result[key] = statistics.median(s[key] for s in samples)
    result["errors"] = sorted({e for s in samples for e in s["errors"]})
    return result


def describe(r: dict[str, Any]) -> str:
    return (
        f"{r['runs']:,} runs x {r['tags']:,} tags x {r['points']} points: ready {r['ready_s'] * 1000:,.0f} ms, "
        f"{r['cards']:,.0f} cards in the page, scroll frames {r['frame_ms_median']:.1f} / {r['frame_ms_p95']:.1f} ms "
        f"(median / p95), tag filter to one tag {r['filter_s'] * 1000:,.0f} ms"
        + (f", page errors: {r['errors']}" if r["errors"] else "")
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="tags,runs", help="datasets, comma separated: tags, runs")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--data-dir", type=Path, default=REPO / ".bench" / "ui_scale")
    parser.add_argument("--url", help="measure this running server (serving the --only dataset) instead")
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--quick", action="store_true", help="tiny directories, one load: a smoke run")
    args = parser.parse_args()
    all_sets = datasets(args.quick)
    chosen = [all_sets[name] for name in args.only.split(",")]
    repeats = 1 if args.quick else args.repeats
    results = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for d in chosen:
                if args.url:
                    result = measure(browser, args.url.rstrip("/") + "/", d, repeats)
                else:
                    with serve(ensure_dataset(args.data_dir, d), d) as url:
                        result = measure(browser, url, d, repeats)
                print(describe(result), flush=True)
                results.append(result)
        finally:
            browser.close()
    if args.json:
        args.json.write_text(json.dumps({"results": results}, indent=2) + "\n")
    return 1 if any(r["errors"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
