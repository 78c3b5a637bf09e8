"""The profile timeline while zooming: server frame time and wheel-to-screen time in headless Chromium.

A synthetic Kineto trace (bench/profile_traces.py's ``generate``, ``--events`` events) is put in a run of a log
directory and served by the real app (``create_app``, uvicorn on 127.0.0.1, in a process of its own), which parses
it once into its cache and memory-maps the columns from then on, as ``ridgeline serve`` does. Then:

- **server frame time**, in this process, over the trace as the server holds it: after the first frame (the
  whole trace, as the page asks first), for 12 windows zooming in by halves around the middle of the trace, the
  frame itself (``timeline.window``, wall and CPU time) and its encoding as JSON (the route's ``OrjsonResponse``)
  and in the binary form (``frame_bytes.encode``), with the answer's size; and each window's HTTP round trip
  from a client here (``?format=json`` against ``?format=binary``);
- **wheel-to-screen**, in Playwright driving Debian's chromium (1280x900, 60 Hz animation frames): the timeline
  tab is opened, the pointer put in the middle of the canvas, and 12 wheel notches sent one at a time, each after
  the previous one's exact frame is on screen. An init script stamps each wheel event (``performance.now()`` in a
  capture listener) and each redraw of the timeline canvas (its ``clearRect``): a redraw inside an animation frame
  callback shows in that frame, one outside (a task) in the next, whose start is then its time. Figures: wheel to
  the first redraw (what the user sees move) and wheel to the redraw of the exact frame (the server's answer
  drawn), median and maximum, with the request's own timing (Resource Timing: wheel to the request's start, and
  its start to the answer's end); then a burst of 8 notches, one an animation frame (dispatched in the page): the
  requests aborted, and the last notch to its exact frame.

With ``--before-static DIR`` (a build of the web UI from before a change, e.g. ``vite build --outDir``) a second
app serves that build over the same cache and the page is measured on both, the same run, turn about.

    .venv/bin/python bench/profile_timeline.py                          # 10 M events, about 2 GB
    .venv/bin/python bench/profile_timeline.py --events 1000000 --before-static /tmp/static-before
    .venv/bin/python bench/profile_timeline.py --data-dir .bench/profile  # generate the trace once, keep it
    .venv/bin/python bench/profile_timeline.py --quick                  # a smoke run; its figures mean nothing
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import orjson
import uvicorn

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from profile_traces import generate  # noqa: E402

import ridgeline  # noqa: E402
from ridgeline.profile import frame_bytes, timeline  # noqa: E402
from ridgeline.server.app import create_app  # noqa: E402
from ridgeline.services.profile import ProfileService  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking"]
RUN, TRACE = "job", "rank0.1.pt.trace.json"
WIDTH = 1000  # the page's canvas width

# Stamps wheel events and the timeline canvas's redraws (see the docstring).
STAMPS = """
(() => {
  const stamps = { wheels: [], draws: [] };
  window.__bench = stamps;
  let inFrame = false;
  const raf = window.requestAnimationFrame.bind(window);
  window.requestAnimationFrame = (callback) => raf((t) => {
    inFrame = true;
    try { callback(t); } finally { inFrame = false; }
  });
  addEventListener("wheel", () => stamps.wheels.push(performance.now()), { capture: true, passive: true });
  const clear = CanvasRenderingContext2D.prototype.clearRect;
  CanvasRenderingContext2D.prototype.clearRect = function (...args) {
    if (this.canvas.dataset.testid === "timeline-canvas") {
      const index = stamps.draws.length;
      stamps.draws.push(null);
      if (inFrame) stamps.draws[index] = performance.now();
      else raf(() => { stamps.draws[index] = performance.now(); });
    }
    return clear.apply(this, args);
  };
})();
"""


def load() -> str:
    return ", ".join(f"{value:.2f}" for value in os.getloadavg())


def serve(logdir: str, static: str, port: int) -> None:
    """Runs in a child process (as ``ridgeline serve`` would): the app over ``logdir``, the UI from ``static``."""
    app = create_app(ridgeline.open(logdir), static_dir=Path(static) if static else None)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


@contextmanager
def serving(logdir: Path, static: Path | None) -> Iterator[str]:
    """The app in a process of its own (the browser's requests must not wait for this process's GIL)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, __file__, "--serve", str(logdir), str(static or ""), str(port)]
    child = subprocess.Popen(command, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    base = f"http://127.0.0.1:{port}"
    try:
        while True:
            try:
                httpx.get(f"{base}/api/profile/runs", timeout=5).raise_for_status()
                break
            except httpx.TransportError:
                if child.poll() is not None:
                    raise RuntimeError("the server exited") from None
                time.sleep(0.1)
        yield base
    finally:
        child.terminate()
        child.wait()


def zoom_windows(first: float, last: float, count: int = 12) -> list[tuple[float, float]]:
    """The windows the page asks for when the wheel zooms in by halves at the canvas's middle."""
    windows, start, end = [], first, last
    for _ in range(count):
        span = (end - start) / 2
        middle = (start + end) / 2
        start, end = max(first, middle - span / 2), min(last, middle - span / 2 + span)
        windows.append((start, end))
    return windows


def ms(values: list[float]) -> str:
    return f"median {statistics.median(values):.1f} ms, max {max(values):.1f} ms"


def server_frames(logdir: Path, base: str) -> dict[str, Any]:
    service = ProfileService.of(ridgeline.open(str(logdir)))
    loaded = service.loaded(ridgeline.open(str(logdir)), RUN, TRACE)  # memory-mapped from the cache the app wrote
    first, last = timeline.extent(loaded.trace)
    lanes = timeline.lanes(loaded.trace, loaded.rows)
    figures: dict[str, list[float]] = {k: [] for k in ("frame", "frame_cpu", "json", "binary", "json_kb", "binary_kb")}
    t = time.perf_counter()
    timeline.window(loaded.trace, loaded.rows, first, last, WIDTH)  # as the page does first: touches the columns
    figures["first"] = [(time.perf_counter() - t) * 1000]
    for start, end in zoom_windows(first, last):
        t, c = time.perf_counter(), time.process_time()
        frame = timeline.window(loaded.trace, loaded.rows, start, end, WIDTH)
        figures["frame"].append((time.perf_counter() - t) * 1000)
        figures["frame_cpu"].append((time.process_time() - c) * 1000)
        answer = {"run": RUN, "trace": TRACE, "extent": [first, last], "lanes": lanes, **frame}
        t = time.perf_counter()
        text = orjson.dumps(answer, option=orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS)
        figures["json"].append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        data = frame_bytes.encode(answer)
        figures["binary"].append((time.perf_counter() - t) * 1000)
        figures["json_kb"].append(len(text) / 1024)
        figures["binary_kb"].append(len(data) / 1024)
    trips: dict[str, list[float]] = {"json": [], "binary": []}
    with httpx.Client(base_url=base, timeout=120) as client:
        for _ in range(2):  # turn about, twice
            for fmt in ("json", "binary"):
                for start, end in zoom_windows(first, last):
                    params: dict[str, str | float] = {
                        "run": RUN,
                        "trace": TRACE,
                        "start": start,
                        "end": end,
                        "width": WIDTH,
                        "format": fmt,
                    }
                    t = time.perf_counter()
                    client.get("/api/profile/timeline", params=params).raise_for_status()
                    trips[fmt].append((time.perf_counter() - t) * 1000)
    return {"figures": figures, "trips": trips}


def page_zoom(browser: Any, base: str, notches: int = 12) -> dict[str, Any]:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.add_init_script(STAMPS)
    failed: list[str] = []
    flight = {"open": 0}

    def ours(request: Any) -> bool:
        return "/api/profile/timeline" in request.url

    def opened(request: Any) -> None:
        flight["open"] += ours(request)

    def finished(request: Any) -> None:
        flight["open"] -= ours(request)

    def aborted(request: Any) -> None:
        if ours(request):
            failed.append(request.url)
            flight["open"] -= 1

    page.on("request", opened)
    page.on("requestfinished", finished)
    page.on("requestfailed", aborted)
    page.goto(f"{base}/?tab=profile", wait_until="load")
    page.locator("[data-view=timeline]").click()
    timeline_box = page.get_by_test_id("profile-timeline")
    page.wait_for_function(
        "() => document.querySelector('[data-testid=profile-timeline]')?.dataset.frames === '1'", timeout=600_000
    )
    canvas = page.get_by_test_id("timeline-canvas")
    box = canvas.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + 180 + WIDTH / 2, box["y"] + 20)
    first_draw, exact_draw, to_request, request = [], [], [], []

    def settle(frames: int) -> None:
        timeline_box.wait_for()
        page.wait_for_function(
            f"() => document.querySelector('[data-testid=profile-timeline]').dataset.frames === '{frames}'",
            timeout=120_000,
        )
        # two animation frames: the exact frame's redraw has its time
        page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")

    settle(1)
    for notch in range(notches):
        before = page.evaluate("() => window.__bench.draws.length")
        page.mouse.wheel(0, -100)
        settle(notch + 2)
        stamps = page.evaluate("() => window.__bench")
        wheel = stamps["wheels"][-1]
        draws = [d for d in stamps["draws"][before:] if d is not None]
        first_draw.append(draws[0] - wheel)
        exact_draw.append(draws[-1] - wheel)
        fetched = page.evaluate(
            """() => performance.getEntriesByType("resource").filter((e) => e.name.includes("/api/profile/timeline"))
              .map((e) => [e.startTime, e.responseEnd])"""
        )
        start, end = fetched[-1]
        to_request.append(start - wheel)
        request.append(end - start)
    # a burst: 8 notches at once, then the last one's exact frame
    frames = notches + 1
    aborted_before = len(failed)
    before = page.evaluate("() => window.__bench.draws.length")
    # one notch an animation frame, as a wheel spun fast sends them, at the pointer's place
    page.evaluate(
        """([x, y]) => new Promise((done) => {
          const canvas = document.querySelector("[data-testid=timeline-canvas]");
          let left = 8;
          const next = () => {
            const init = { deltaY: 100, clientX: x, clientY: y, bubbles: true, cancelable: true };
            canvas.dispatchEvent(new WheelEvent("wheel", init));
            if (--left) requestAnimationFrame(next); else done();
          };
          requestAnimationFrame(next);
        })""",
        [box["x"] + 180 + WIDTH / 2, box["y"] + 20],
    )
    page.wait_for_function(
        f"() => Number(document.querySelector('[data-testid=profile-timeline]').dataset.frames) > {frames}",
        timeout=120_000,
    )
    while flight["open"]:  # the page may have more than one of the burst's requests answered
        page.wait_for_timeout(50)
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    stamps = page.evaluate("() => window.__bench")
    burst_draws = [d for d in stamps["draws"][before:] if d is not None]
    frames_after = int(timeline_box.get_attribute("data-frames") or 0)
    page.close()
    return {
        "first_draw": first_draw,
        "exact_draw": exact_draw,
        "to_request": to_request,
        "request": request,
        "burst_aborted": len(failed) - aborted_before,
        "burst_answered": frames_after - frames,
        "burst_last_to_exact": burst_draws[-1] - stamps["wheels"][-1] if burst_draws else float("nan"),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=10_000_000)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--before-static", type=Path, help="a build of the web UI to compare against")
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--data-dir", type=Path, help="keep the generated trace here (DIR/EVENTS/) and reuse it")
    parser.add_argument("--serve", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve[0], args.serve[1], int(args.serve[2]))
        return 0
    events = 20_000 if args.quick else args.events
    from playwright.sync_api import sync_playwright

    results: dict[str, Any] = {"events": events, "load_start": load()}
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.data_dir / str(events) if args.data_dir else Path(scratch)
        logdir = folder / "logs"
        path = logdir / RUN / TRACE
        if not (folder / "complete").exists():
            with ridgeline.SummaryWriter(str(logdir / RUN)) as writer:
                writer.add_scalar("loss", 1.0, 0)
            t = time.perf_counter()
            generate(path, events)
            (folder / "complete").touch()
            print(f"trace generated in {time.perf_counter() - t:.1f} s (load {load()})")
        print(f"trace: {events:,} events, {path.stat().st_size / 2**20:,.0f} MiB")
        os.environ["RIDGELINE_CACHE_DIR"] = str(Path(scratch) / "cache")
        builds = {"after": None} if args.before_static is None else {"before": args.before_static, "after": None}
        with serving(logdir, None) as base:
            t = time.perf_counter()
            httpx.get(f"{base}/api/profile/overview", params={"run": RUN, "trace": TRACE}, timeout=3600)
            print(f"parsed and cached by the server in {time.perf_counter() - t:.1f} s (load {load()})")
            results["server"] = server_frames(logdir, base)
            results["load_server"] = load()
            pages: dict[str, list[dict[str, Any]]] = {name: [] for name in builds}
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                for _ in range(1 if args.quick else 2):
                    for name, static in builds.items():
                        if static is None:
                            pages[name].append(page_zoom(browser, base))
                        else:
                            with serving(logdir, static) as other:
                                pages[name].append(page_zoom(browser, other))
                browser.close()
            results["pages"] = pages
        results["load_end"] = load()

    figures = results["server"]["figures"]
    print(f"server, 12 zoomed windows (load {results['load_server']}):")
    print(f"  first frame (the whole trace, the memory-mapped columns first touched): {figures['first'][0]:.1f} ms")
    print(f"  frame (timeline.window): {ms(figures['frame'])}; CPU {ms(figures['frame_cpu'])}")
    print(f"  JSON encoding: {ms(figures['json'])}, {statistics.median(figures['json_kb']):.0f} KiB median")
    print(f"  binary encoding: {ms(figures['binary'])}, {statistics.median(figures['binary_kb']):.0f} KiB median")
    trips = results["server"]["trips"]
    print(f"  HTTP round trip: JSON {ms(trips['json'])}; binary {ms(trips['binary'])}")
    for name, runs in results["pages"].items():
        first = [v for run in runs for v in run["first_draw"]]
        exact = [v for run in runs for v in run["exact_draw"]]
        print(f"page ({name}): wheel to first redraw {ms(first)}; wheel to the exact frame {ms(exact)}")
        to_request = [v for run in runs for v in run["to_request"]]
        request = [v for run in runs for v in run["request"]]
        print(f"  wheel to the request's start {ms(to_request)}; the request {ms(request)}")
        for run in runs:
            print(
                f"  burst of 8 notches: {run['burst_aborted']} requests aborted, {run['burst_answered']} answered, "
                f"last notch to its exact frame {run['burst_last_to_exact']:.1f} ms"
            )
    print(f"load average: {results['load_start']} at the start, {results['load_end']} at the end")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    worst = max(figures["frame"])
    print(f"{'PASS' if worst < 16 else 'FAIL'} timeline frames under 16 ms (server, at most {worst:.1f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
