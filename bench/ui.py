"""UI benchmark: ridgeline's scalars dashboard against TensorBoard's time series dashboard, in headless Chromium.

Three log directories, written with ridgeline's SummaryWriter once and kept (``--data-dir``, default ``.bench/ui``):

- (a) one series of 1,000,000 points (1 run x 1 tag);
- (b) 100 runs x 1 tag x 10,000 points;
- (c) 50 cards x 10 runs (50 tags in 5 groups, 1,000 points each).

Both servers run on 127.0.0.1 at the same time over the same directory: ``ridgeline serve --port 0
--reload-interval 0 --no-cache`` and ``tensorboard --logdir DIR --port P --host 127.0.0.1 --load_fast=true``
(its defaults otherwise: it keeps a reservoir sample of 1,000 points per series, ridgeline keeps every point and
reduces per request to the chart's width with each bucket's min and max). Each server has finished reading the
directory before the first page load: ridgeline's ``/api/runs`` reports the last step of every run, TensorBoard's
``scalars_multirun`` route returns every run's last step for every tag.

Two figures per dashboard, from Playwright driving Debian's chromium (1280x800, device scale 1, software
rendering, ``--disable-frame-rate-limit --disable-gpu-vsync`` so that frames are not held to 60 Hz and a frame's
interval is its real cost):

- first complete chart: from ``page.goto`` (a fresh browser context each time: no HTTP cache, no local storage)
  until the first chart has drawn all of its data. ridgeline: ``document.body.dataset.chartsReady === "true"``
  (set once every visible card has drawn). TensorBoard draws its charts on an OffscreenCanvas in a worker, so it
  has no such signal: the time is when the ``timeSeries`` response holding the first card's tag has arrived and
  the card's canvas is in the page. For both, a screenshot of the chart then has to show coloured line pixels
  (polled until it does; if the first screenshot already does, the signal's time is kept, which favours
  TensorBoard by the frames its worker needs to draw).
- hover frame time: the pointer is put over the first chart, then for 300 animation frames each
  ``requestAnimationFrame`` callback dispatches one ``pointermove`` + ``mousemove`` at the next x of a sweep across
  the chart (to the element under the point, as a real pointer would); the figure is the interval between
  consecutive callbacks, i.e. one move's handling, rendering and painting (median and 95th percentile).

Every figure is the median over ``--repeats`` page loads; the dashboards take turns and the order alternates.

Scenario (d), in bench/ui_distributed.py: first complete chart of one tag aggregated over 64 ranks x 10,000 steps
in the distributed dashboard against TensorBoard drawing the same 64 runs. Scenario (h), in bench/ui_histograms.py:
first paint of the histograms dashboard (50 tags x 1,000 steps) against TensorBoard's histograms dashboard.
Scenario (i), in bench/ui_images.py: first paint of the images dashboard (200 image tags) against TensorBoard's
images dashboard.

    python bench/ui.py [--repeats R] [--quick] [--only a,b,c,d,h,i] [--data-dir DIR] [--json PATH] [--no-tensorboard]
"""

from __future__ import annotations

import argparse
import io
import json
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
from ingest import cmdline, find_data_server, free_port, http_json, stop  # bench/ingest.py, beside this file
from PIL import Image
from playwright.sync_api import Browser, Locator, Page, Request, sync_playwright
from playwright.sync_api import Error as PlaywrightError

REPO = Path(__file__).resolve().parents[1]
DATA_VERSION = 1  # bump when the generated data changes
WALL0 = 1_780_000_000.0
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-frame-rate-limit",
    "--disable-gpu-vsync",
]
VIEWPORT = {"width": 1280, "height": 800}
HOVER_FRAMES = 300
LOAD_TIMEOUT_S = 60.0  # one page load
SERVER_TIMEOUT_S = 600.0  # a server reading a log directory
# Targets from the issue: first complete chart of (a) and (b) under 1 s, hover frames under 16 ms.
LOAD_TARGET_S = 1.0
FRAME_TARGET_MS = 16.0


@dataclass(frozen=True)
class Dataset:
    key: str
    runs: int
    tags: int
    steps: int

    @property
    def label(self) -> str:
        if self.tags > 1:
            return f"({self.key}) {self.tags} cards x {self.runs} runs x {self.steps:,} points"
        if self.runs > 1:
            return f"({self.key}) {self.runs} runs x 1 tag x {self.steps:,} points"
        return f"({self.key}) 1 series of {self.steps:,} points"

    def run_names(self) -> list[str]:
        return [f"run_{i:03d}" for i in range(self.runs)]

    def tag_names(self) -> list[str]:
        if self.tags == 1:
            return ["loss"]
        return [f"group_{i // 10}/metric_{i:02d}" for i in range(self.tags)]

    def spec(self) -> str:
        return f"{self.runs}x{self.tags}x{self.steps}"


def datasets(quick: bool) -> list[Dataset]:
    if quick:
        return [Dataset("a", 1, 1, 5_000), Dataset("b", 5, 1, 500), Dataset("c", 3, 4, 200)]
    return [Dataset("a", 1, 1, 1_000_000), Dataset("b", 100, 1, 10_000), Dataset("c", 10, 50, 1_000)]


# --- the data -----------------------------------------------------------------------------------------------------
def series_values(run: int, tag: int, steps: int) -> np.ndarray:
    """A noisy decaying curve with a few spikes, different for every run and tag, reproducible."""
    rng = np.random.default_rng([DATA_VERSION, run, tag])
    x = np.arange(steps, dtype=np.float64) / max(steps, 1)
    curve = (1.0 + tag % 7) * np.exp(-3.0 * x) + 0.05 * run / max(1, run + 1)
    values = curve * (1 + 0.1 * rng.standard_normal(steps))
    values[rng.integers(0, steps, max(1, steps // 100_000))] *= 4  # spikes a reduction must keep visible
    return values


def ensure_dataset(root: Path, dataset: Dataset) -> Path:
    """The log directory of ``dataset`` under ``root``, written with SummaryWriter unless already there."""
    from ridgeline import SummaryWriter

    path = root / f"{dataset.spec()}-v{DATA_VERSION}"
    marker = path / ".complete"
    if marker.exists():
        return path
    import shutil

    shutil.rmtree(path, ignore_errors=True)
    start = time.perf_counter()
    walls = (WALL0 + 0.05 * np.arange(dataset.steps)).tolist()
    steps = range(dataset.steps)
    for i, run in enumerate(dataset.run_names()):
        with SummaryWriter(path / run, max_queue=100_000) as writer:
            for j, tag in enumerate(dataset.tag_names()):
                add = writer.add_scalar
                for step, value, wall in zip(steps, series_values(i, j, dataset.steps).tolist(), walls, strict=True):
                    add(tag, value, step, walltime=wall)
    print(f"wrote {dataset.label} to {path} ({time.perf_counter() - start:.1f} s)", file=sys.stderr)
    marker.write_text(json.dumps(asdict(dataset)) + "\n")
    return path


# --- the servers --------------------------------------------------------------------------------------------------
@dataclass
class Server:
    name: str
    url: str  # the page to open
    process: subprocess.Popen[bytes]
    log: Any
    data_server: list[Any] = field(default_factory=lambda: [None, []])  # TensorBoard's Rust server: pid, argv

    def stop(self) -> None:
        stop(self.process, self.data_server[0], self.data_server[1])
        self.log.close()


def wait_until(ready: Callable[[], bool], process: subprocess.Popen[bytes], what: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode}")
        try:
            if ready():
                return
        except (OSError, ValueError):
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{what} was not ready within {timeout:.0f} s")


def start_ridgeline(path: Path, dataset: Dataset, timeout: float) -> Server:
    log = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the server; Server.stop closes it)
    command = [sys.executable, "-m", "ridgeline.cli", "serve", "--logdir", str(path), "--port", "0"]
    command += ["--host", "127.0.0.1", "--reload-interval", "0", "--no-cache"]
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd=REPO)
    server = Server("ridgeline", "", process, log)

    def printed_url() -> bool:
        log.seek(0)
        match = re.search(rb"serving .* at (http://127\.0\.0\.1:\d+)", log.read())
        if match:
            server.url = match.group(1).decode() + "/"
        return match is not None

    def complete() -> bool:
        runs = {r["run"]: r for r in http_json(server.url + "api/runs", timeout=10)["runs"]}
        return all(
            run in runs
            and runs[run]["last_step"] == dataset.steps - 1
            and set(dataset.tag_names()) <= set(runs[run]["tags"].get("scalars", []))
            for run in dataset.run_names()
        )

    try:
        wait_until(printed_url, process, "ridgeline serve", timeout)
        wait_until(complete, process, "ridgeline serve (every run's last step)", timeout)
    except BaseException:
        server.stop()
        raise
    return server


def start_tensorboard(path: Path, dataset: Dataset, timeout: float) -> Server:
    log = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the server; Server.stop closes it)
    port = free_port()
    command = [str(Path(sys.executable).parent / "tensorboard"), "--logdir", str(path), "--port", str(port)]
    command += ["--host", "127.0.0.1", "--load_fast=true"]
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd=REPO)
    base = f"http://127.0.0.1:{port}"
    server = Server("TensorBoard", f"{base}/#timeseries", process, log)
    runs, tags = dataset.run_names(), dataset.tag_names()

    def complete() -> bool:
        if server.data_server[0] is None and (pid := find_data_server(process.pid)) is not None:
            server.data_server[:] = [pid, cmdline(pid)]
        index = http_json(f"{base}/data/plugin/scalars/tags", timeout=10)
        if not all(set(tags) <= set(index.get(run, {})) for run in runs):
            return False
        for tag in tags:
            form = urllib.parse.urlencode([("tag", tag)] + [("runs", run) for run in runs]).encode()
            body = http_json(f"{base}/data/plugin/scalars/scalars_multirun", data=form, timeout=60)
            if not all(body.get(run) and body[run][-1][1] == dataset.steps - 1 for run in runs):
                return False
        return True

    try:
        wait_until(complete, process, "tensorboard (every series' last step)", timeout)
    except BaseException:
        server.stop()
        raise
    return server


def start_plugin_servers(
    path: Path,
    run: str,
    kind: str,
    tags: list[str],
    steps: int,
    tensorboard: bool,
    tensorboard_complete: Callable[[str], bool],
    ridgeline_query: str = "",
) -> dict[str, Server]:
    """ridgeline (and TensorBoard when asked) on a one-run log directory of ``kind`` tags (histograms, images),
    each once it lists every tag in ``tags``; ``tensorboard_complete(base)`` says whether TensorBoard's plugin
    route at ``base`` answers every step. ridgeline's page URL gets ``ridgeline_query``, TensorBoard's
    ``#<kind>``."""

    class Probe:  # what start_ridgeline/start_tensorboard wait for: the run's last step, no scalar tag
        def __init__(self) -> None:
            self.steps = steps

        def run_names(self) -> list[str]:
            return [run]

        def tag_names(self) -> list[str]:
            return []

    servers: dict[str, Server] = {}
    servers["ridgeline"] = ours = start_ridgeline(path, Probe(), SERVER_TIMEOUT_S)  # type: ignore[arg-type]
    api = ours.url
    ours.url = api + ridgeline_query
    wait_until(
        lambda: set(tags) <= set(http_json(api + "api/runs", timeout=10)["runs"][0]["tags"].get(kind, [])),
        ours.process,
        f"ridgeline serve (every {kind} tag)",
        SERVER_TIMEOUT_S,
    )
    if tensorboard:
        servers["TensorBoard"] = theirs = start_tensorboard(path, Probe(), SERVER_TIMEOUT_S)  # type: ignore[arg-type]
        base = theirs.url.split("#")[0].rstrip("/")
        theirs.url = f"{base}/#{kind}"

        def complete() -> bool:
            if theirs.data_server[0] is None and (pid := find_data_server(theirs.process.pid)) is not None:
                theirs.data_server[:] = [pid, cmdline(pid)]
            return tensorboard_complete(base)

        wait_until(complete, theirs.process, f"tensorboard (every {kind} tag)", SERVER_TIMEOUT_S)
    return servers


# --- the page -----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Dashboard:
    """How to tell that a dashboard's first chart is complete, and where its first chart is."""

    name: str
    chart: str  # CSS selector of the first chart's canvas
    hover: str  # CSS selector of the element the pointer moves over
    hover_effect: str  # a JS expression, true once hovering shows something (crosshair, tooltip)


RIDGELINE = Dashboard(
    "ridgeline",
    chart="[data-testid=scalar-card] canvas",
    hover="[data-testid=scalar-card] .u-over",
    hover_effect="(() => { const c = document.querySelector('[data-testid=scalar-card] .u-cursor-x');"
    " return !!c && c.getBoundingClientRect().left >= 0 && getComputedStyle(c).display !== 'none'; })()",
)
TENSORBOARD = Dashboard(
    "TensorBoard",
    chart="scalar-card line-chart canvas",
    hover="scalar-card line-chart-interactive-view",
    hover_effect="document.querySelectorAll('scalar-card line-chart-interactive-view svg.dots circle').length > 0"
    " || document.querySelectorAll('.cdk-overlay-container tr, .cdk-overlay-container .row').length > 0",
)

HOVER_SCRIPT = """
async ([x0, x1, y, frames]) => {
    const intervals = [];
    let last = null;
    const move = i => {
        const phase = (i % 200) / 100;  // a triangle sweep: left to right and back every 200 frames
        const x = x0 + (x1 - x0) * (phase <= 1 ? phase : 2 - phase);
        const target = document.elementFromPoint(x, y) || document.body;
        const init = {clientX: x, clientY: y, bubbles: true, cancelable: true, composed: true, view: window};
        target.dispatchEvent(new PointerEvent('pointermove', {...init, pointerType: 'mouse', isPrimary: true}));
        target.dispatchEvent(new MouseEvent('mousemove', init));
    };
    await new Promise(resolve => {
        let i = 0;
        const frame = () => {
            const now = performance.now();
            if (last !== null) intervals.push(now - last);
            last = now;
            if (i === frames) { resolve(); return; }
            move(i++);
            requestAnimationFrame(frame);
        };
        requestAnimationFrame(frame);
    });
    return intervals;
}
"""


def coloured_pixels(png: bytes) -> int:
    """Pixels whose channels differ by more than 25: line colours, not the white/black background, grey grid
    lines or antialiased text."""
    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.int16)
    return int(((pixels.max(axis=2) - pixels.min(axis=2)) > 25).sum())


def first_tag_request(dataset: Dataset) -> Callable[[Request], bool]:
    first = dataset.tag_names()[0]
    quoted = json.dumps(first)

    def matches(request: Request) -> bool:
        if "/timeSeries" not in request.url or request.post_data is None:
            return False
        body = urllib.parse.unquote_plus(request.post_data)
        return quoted in body or first in body

    return matches


def measure(browser: Browser, server: Server, dashboard: Dashboard, dataset: Dataset, shot: Path | None) -> dict:
    """One page load in a fresh context: first complete chart, then the hover frames."""
    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1, bypass_csp=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    arrived: list[float] = []
    is_first = first_tag_request(dataset)
    page.on("requestfinished", lambda r: arrived.append(time.perf_counter()) if is_first(r) else None)
    try:
        start = time.perf_counter()
        page.goto(server.url, wait_until="commit")
        ready_at = wait_ready(page, dashboard, arrived, start)
        load_s = ready_at - start
        if shot is not None:
            page.screenshot(path=shot)
        hover = measure_hover(page, dashboard)
    finally:
        context.close()
    return {"load_s": load_s, **hover, "page_errors": errors}


def wait_ready(page: Page, dashboard: Dashboard, arrived: list[float], start: float) -> float:
    """When the first chart was complete (perf_counter time): the dashboard's signal, then line pixels on the
    chart. If the first screenshot after the signal shows them the signal's time counts, otherwise the time of
    the first screenshot that does."""
    deadline = start + LOAD_TIMEOUT_S
    canvas = page.locator(dashboard.chart).first
    if dashboard is RIDGELINE:
        signal = "document.body?.dataset.chartsReady === 'true'"  # no body yet while head scripts load
    else:
        signal = f"!!document.querySelector({json.dumps(dashboard.chart)})"
    while not ((dashboard is RIDGELINE or arrived) and page.evaluate(signal)):
        if time.perf_counter() > deadline:
            raise TimeoutError(f"{dashboard.name}: no chart within {LOAD_TIMEOUT_S:.0f} s")
        page.wait_for_timeout(5)
    return first_drawn(canvas, time.perf_counter(), deadline, f"{dashboard.name}: the chart drew no lines")


def first_drawn(target: Locator, signalled: float, deadline: float, failure: str) -> float:
    """When ``target`` showed drawn pixels, once its page signalled at ``signalled`` (perf_counter time): the
    signal's time if the first screenshot already shows them, otherwise that of the first screenshot that does.
    Raises TimeoutError(``failure`` ...) at ``deadline``."""
    first = True
    while time.perf_counter() < deadline:
        shot_at = time.perf_counter()
        if coloured_pixels(target.screenshot(animations="disabled")) >= 100:
            return signalled if first else shot_at
        first = False
        target.page.wait_for_timeout(10)
    raise TimeoutError(f"{failure} within {LOAD_TIMEOUT_S:.0f} s")


def measure_hover(page: Page, dashboard: Dashboard) -> dict[str, Any]:
    box = page.locator(dashboard.hover).first.bounding_box()
    assert box is not None, f"{dashboard.name}: the chart's hover layer is not on screen"
    x0, x1, y = box["x"] + 5, box["x"] + box["width"] - 5, box["y"] + box["height"] / 2
    page.mouse.move(x0, y)  # a real pointer first: hover state, mouseenter
    page.wait_for_timeout(100)
    intervals = page.evaluate(HOVER_SCRIPT, [x0, x1, y, HOVER_FRAMES])
    effect = bool(page.evaluate(dashboard.hover_effect))
    intervals = intervals[5:]  # the first frames include the switch from idle
    return {
        "frame_ms_median": statistics.median(intervals),
        "frame_ms_p95": float(np.percentile(intervals, 95)),
        "hover_effect": effect,
    }


# --- the run ------------------------------------------------------------------------------------------------------
def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def first_paint_scenario(
    key: str,
    label: str,
    servers: dict[str, Server],
    repeats: int,
    paint: Callable[[Server, Path | None], dict[str, Any]],
    shots: Path | None,
) -> dict[str, Any]:
    """``repeats`` first-paint loads of each server's dashboard, taking turns (the order alternates); stops the
    servers. ``paint(server, screenshot path or None)`` returns ``{"load_s", "page_errors", ...}`` (an optional
    ``note`` is printed). Returns ``{"label", "samples", name: {"load_s" (median), "failed", "page_errors"}}``."""
    samples: dict[str, list[dict[str, Any]]] = {name: [] for name in servers}
    try:
        for repeat in range(repeats):
            for name in list(servers) if repeat % 2 == 0 else list(servers)[::-1]:
                shot = None if shots is None or repeat else shots / f"{key}-{name}.png"
                try:
                    sample = paint(servers[name], shot)
                except (TimeoutError, AssertionError, PlaywrightError) as error:
                    sample = {"failed": f"{type(error).__name__}: {error}".splitlines()[0]}
                samples[name].append(sample)
                shown = sample.get("failed") or f"first paint {sample['load_s'] * 1e3:7.0f} ms {sample.get('note', '')}"
                print(f"  {key} {name:<11} {shown}", file=sys.stderr)
    finally:
        for server in servers.values():
            server.stop()
    result: dict[str, Any] = {"label": label, "samples": samples}
    for name, runs in samples.items():
        done = [s for s in runs if "failed" not in s]
        result[name] = {
            "load_s": median([s["load_s"] for s in done]),
            "failed": [s["failed"] for s in runs if "failed" in s],
            "page_errors": sum(len(s["page_errors"]) for s in done),
        }
    return result


def first_paint_report(result: dict[str, Any]) -> str:
    """A first-paint scenario's line of the table under :data:`FIRST_PAINT_HEADER`."""
    ours = result["ridgeline"]["load_s"]
    line = f"| {result['label']} | {ours * 1e3:,.0f} ms |"
    if "TensorBoard" in result:
        theirs = result["TensorBoard"]["load_s"]
        return line + f" {theirs * 1e3:,.0f} ms | {theirs / ours:.1f}x |"
    return line + " - | - |"


FIRST_PAINT_HEADER = "| scenario | first paint: ridgeline | TensorBoard | ratio |\n| --- | ---: | ---: | ---: |"


def bench_dataset(
    browser: Browser, path: Path, dataset: Dataset, repeats: int, shots: Path | None, tensorboard: bool = True
) -> dict:
    """Both servers over ``path``, ``repeats`` page loads of each dashboard; a failed load is recorded, not fatal.
    Without ``tensorboard``, ridgeline's alone (for iterating on ridgeline's figures)."""
    samples: dict[str, list[dict]] = {"ridgeline": [], "TensorBoard": []} if tensorboard else {"ridgeline": []}
    servers = {}
    try:
        servers["ridgeline"] = start_ridgeline(path, dataset, SERVER_TIMEOUT_S)
        if tensorboard:
            servers["TensorBoard"] = start_tensorboard(path, dataset, SERVER_TIMEOUT_S)
        dashboards = [RIDGELINE, TENSORBOARD] if tensorboard else [RIDGELINE]
        for repeat in range(repeats):
            for dashboard in dashboards if repeat % 2 == 0 else dashboards[::-1]:
                shot = None if shots is None or repeat else shots / f"{dataset.key}-{dashboard.name}.png"
                try:
                    sample = measure(browser, servers[dashboard.name], dashboard, dataset, shot)
                except (TimeoutError, AssertionError, PlaywrightError) as error:
                    sample = {"failed": f"{type(error).__name__}: {error}".splitlines()[0]}
                samples[dashboard.name].append(sample)
                print(f"  {dataset.key} {dashboard.name:<11} {describe(sample)}", file=sys.stderr)
    finally:
        for server in servers.values():
            server.stop()
    summary: dict[str, Any] = {"dataset": asdict(dataset), "label": dataset.label, "samples": samples}
    for name, runs in samples.items():
        done = [s for s in runs if "failed" not in s]
        summary[name] = {key: median([s[key] for s in done]) for key in ("load_s", "frame_ms_median", "frame_ms_p95")}
        summary[name]["failed"] = [s["failed"] for s in runs if "failed" in s]
        summary[name]["hover_effect"] = all(s["hover_effect"] for s in done)
        summary[name]["page_errors"] = sum(len(s["page_errors"]) for s in done)
    return summary


def describe(sample: dict[str, Any]) -> str:
    if "failed" in sample:
        return f"FAILED: {sample['failed']}"
    return (
        f"load {sample['load_s'] * 1e3:7.0f} ms   hover frame {sample['frame_ms_median']:6.2f} ms "
        f"(p95 {sample['frame_ms_p95']:6.2f})"
        + ("" if sample["hover_effect"] else "   [hovering showed nothing]")
        + (f"   [page errors: {sample['page_errors'][0]}]" if sample["page_errors"] else "")
    )


def machine() -> dict[str, Any]:
    cpuinfo = Path("/proc/cpuinfo").read_text().splitlines()
    cpu = next((line.split(":", 1)[1].strip() for line in cpuinfo if "model name" in line), platform.processor())
    chromium = subprocess.run([CHROMIUM, "--version"], capture_output=True, text=True, check=False).stdout.strip()
    return {
        "cpu": cpu,
        "cores": sum(line.startswith("processor") for line in cpuinfo),
        "python": platform.python_version(),
        "chromium": chromium,
        "playwright": metadata.version("playwright"),
        "tensorboard": metadata.version("tensorboard"),
        "date": datetime.now(UTC).strftime("%Y-%m-%d"),
    }


def report(results: list[dict]) -> str:
    lines = [
        "| log directory | first complete chart: ridgeline | TensorBoard | ratio | hover frame (median / p95): "
        "ridgeline | TensorBoard | ratio (median) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]

    def ms(value: float) -> str:
        return "failed" if value != value else f"{value * 1e3:,.0f} ms"

    def frames(figures: dict[str, Any]) -> str:
        return "failed" if figures["failed"] else f"{figures['frame_ms_median']:.1f} / {figures['frame_ms_p95']:.1f} ms"

    for result in results:
        if "TensorBoard" not in result:  # --no-tensorboard
            ours = result["ridgeline"]
            lines.append(f"| {result['label']} | {ms(ours['load_s'])} | - | - | {frames(ours)} | - | - |")
            continue
        ours, theirs = result["ridgeline"], result["TensorBoard"]
        lines.append(
            f"| {result['label']} | {ms(ours['load_s'])} | {ms(theirs['load_s'])} | "
            f"{theirs['load_s'] / ours['load_s']:.1f}x | {frames(ours)} | {frames(theirs)} | "
            f"{theirs['frame_ms_median'] / ours['frame_ms_median']:.1f}x |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="tiny log directories, one repeat (a smoke test)")
    parser.add_argument(
        "--only",
        default="a,b,c,d,h,i",
        help="which log directories, e.g. a,b (d: 64 ranks aggregated, h: histograms, i: images)",
    )
    parser.add_argument("--data-dir", type=Path, default=None, help="where the log directories are kept")
    parser.add_argument("--screenshots", type=Path, default=None, help="save each dashboard's first load here")
    parser.add_argument("--json", type=Path, default=None, help="write every sample and summary here")
    parser.add_argument("--no-tensorboard", action="store_true", help="ridgeline's dashboard only (when iterating)")
    args = parser.parse_args()
    repeats = 1 if args.quick else args.repeats
    wanted = set(args.only.split(","))
    with tempfile.TemporaryDirectory() as scratch:
        root = args.data_dir or (Path(scratch) if args.quick else REPO / ".bench" / "ui")
        root.mkdir(parents=True, exist_ok=True)
        if args.screenshots:
            args.screenshots.mkdir(parents=True, exist_ok=True)
        chosen = [d for d in datasets(args.quick) if d.key in wanted]
        paths = {d.key: ensure_dataset(root, d) for d in chosen}
        results = []
        histograms = images = distributed = None
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                for dataset in chosen:
                    results.append(
                        bench_dataset(
                            browser, paths[dataset.key], dataset, repeats, args.screenshots, not args.no_tensorboard
                        )
                    )
                if "d" in wanted:
                    from ui_distributed import bench_distributed  # bench/ui_distributed.py (imports this module)

                    distributed = bench_distributed(
                        browser, root, repeats, args.quick, args.screenshots, not args.no_tensorboard
                    )
                if "h" in wanted:
                    from ui_histograms import bench_histograms  # bench/ui_histograms.py (imports this module)

                    histograms = bench_histograms(
                        browser, root, repeats, args.quick, args.screenshots, not args.no_tensorboard
                    )
                if "i" in wanted:
                    from ui_images import bench_images  # bench/ui_images.py (imports this module)

                    images = bench_images(browser, root, repeats, args.quick, args.screenshots, not args.no_tensorboard)
            finally:
                browser.close()
    info = machine()
    print(f"\n{info['cpu']}, {info['cores']} cores; {info['chromium']}; TensorBoard {info['tensorboard']}")
    print(f"median of {repeats} page loads each; ratio = TensorBoard / ridgeline\n")
    if results:
        print(report(results))
    found = (("distributed", distributed), ("histograms", histograms), ("images", images))
    scenarios = {name: r for name, r in found if r is not None}
    if scenarios:
        print("\n" + "\n".join([FIRST_PAINT_HEADER, *(first_paint_report(r) for r in scenarios.values())]))
    targets = [r for r in results if r["dataset"]["key"] in ("a", "b")]
    goals = [f"{r['label']} {r['ridgeline']['load_s']:.2f} s" for r in scenarios.values()]
    print(
        f"\ntargets: first complete chart of (a) and (b) under {LOAD_TARGET_S:.0f} s: "
        + ", ".join(f"{r['dataset']['key']} {r['ridgeline']['load_s']:.2f} s" for r in targets)
        + f"; hover frames under {FRAME_TARGET_MS:.0f} ms: "
        + ", ".join(f"{r['dataset']['key']} {r['ridgeline']['frame_ms_p95']:.1f} ms p95" for r in results)
        + (f"; first paint under {LOAD_TARGET_S:.0f} s: " + ", ".join(goals) if goals else "")
    )
    if args.json:
        args.json.write_text(
            json.dumps({"machine": info, "repeats": repeats, "results": results, **scenarios}, indent=1) + "\n"
        )
    failed = any(
        result[name]["failed"]
        for result in [*results, *scenarios.values()]
        for name in ("ridgeline", "TensorBoard")
        if name in result
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
