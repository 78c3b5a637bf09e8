"""The histograms scenario of bench/ui.py: time to first paint of ridgeline's histograms dashboard against
TensorBoard's, on one log directory of 50 histogram tags x 1,000 steps (1 run, written with ridgeline's
SummaryWriter, 64 equal bins per histogram; kept under ``--data-dir`` like the scalar ones).

Both servers over the same directory, each finished reading it first (ridgeline: ``/api/runs`` lists every tag
at the last step; TensorBoard: its histograms route answers every tag up to the last step). First paint: from
``page.goto`` in a fresh context until the first card's plot is drawn, checked on pixels as for the scalars:
ridgeline's ``document.body.dataset.chartsReady`` (every visible card drawn), TensorBoard's first
``vz-histogram-timeseries`` holding drawn paths once the first tag's histograms arrived; then a screenshot of the
plot must show coloured pixels. Median over ``--repeats`` loads, the dashboards taking turns.

    python bench/ui.py --only h [--repeats R] [--quick] [--no-tensorboard]
"""

from __future__ import annotations

import sys
import time
import urllib.parse
from pathlib import Path
from typing import Any

import numpy as np
from ingest import http_json  # bench/ingest.py, beside this file
from playwright.sync_api import Browser, Locator, Page
from ui import (
    LOAD_TIMEOUT_S,
    VIEWPORT,
    Server,
    first_drawn,
    first_paint_scenario,
    start_plugin_servers,
)

DATA_VERSION = 1
BINS = 64
RIDGELINE_PLOT = "[data-testid=histogram-canvas]"
TENSORBOARD_PLOT = "vz-histogram-timeseries svg"


def shape(quick: bool) -> tuple[int, int]:
    """(tags, steps)."""
    return (6, 60) if quick else (50, 1_000)


def tag_names(tags: int) -> list[str]:
    return [f"layer_{i // 10}/weights_{i:02d}" for i in range(tags)]


def ensure_logdir(root: Path, quick: bool) -> Path:
    """The log directory under ``root``, written unless already complete."""
    from ridgeline import SummaryWriter

    tags, steps = shape(quick)
    path = root / f"histograms-1x{tags}x{steps}-v{DATA_VERSION}"
    marker = path / ".complete"
    if marker.exists():
        return path
    start = time.perf_counter()
    rng = np.random.default_rng(DATA_VERSION)
    with SummaryWriter(path / "run_000", max_queue=100_000) as writer:
        for step in range(steps):
            for j, tag in enumerate(tag_names(tags)):
                values = rng.normal(step / steps * (1 + j % 5), 1.0 + step / steps, 1_000)
                writer.add_histogram(tag, values, step, bins=BINS, walltime=1_780_000_000.0 + step)
    print(
        f"wrote {tags} histogram tags x {steps:,} steps to {path} ({time.perf_counter() - start:.1f} s)",
        file=sys.stderr,
    )
    marker.write_text("ok\n")
    return path


def start_servers(path: Path, tags: list[str], steps: int, tensorboard: bool) -> dict[str, Server]:
    def complete(base: str) -> bool:  # TensorBoard serves the first and last tags' every step
        for tag in (tags[0], tags[-1]):
            query = urllib.parse.urlencode({"run": "run_000", "tag": tag})
            body = http_json(f"{base}/data/plugin/histograms/histograms?{query}", timeout=60)
            if not body or body[-1][1] != steps - 1:
                return False
        return True

    return start_plugin_servers(path, "run_000", "histograms", tags, steps, tensorboard, complete, "?tab=histograms")


def first_paint(browser: Browser, server: Server, first_tag: str, shot: Path | None) -> dict[str, Any]:
    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1, bypass_csp=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    arrived: list[float] = []
    quoted = urllib.parse.quote(first_tag, safe="")

    def is_first(request: Any) -> bool:
        return "/histograms" in request.url and (quoted in request.url or first_tag in request.url)

    page.on("requestfinished", lambda r: arrived.append(time.perf_counter()) if is_first(r) else None)
    ours = server.name == "ridgeline"
    plot = page.locator(RIDGELINE_PLOT if ours else TENSORBOARD_PLOT).first
    try:
        start = time.perf_counter()
        page.goto(server.url, wait_until="commit")
        load_s = wait_drawn(page, plot, ours, arrived, start) - start
        if shot is not None:
            page.screenshot(path=shot)
    finally:
        context.close()
    return {"load_s": load_s, "page_errors": errors}


def wait_drawn(page: Page, plot: Locator, ours: bool, arrived: list[float], start: float) -> float:
    deadline = start + LOAD_TIMEOUT_S

    def signalled() -> bool:
        if ours:
            return bool(page.evaluate("document.body?.dataset.chartsReady === 'true'"))
        return bool(arrived) and page.locator("vz-histogram-timeseries svg path").count() > 0

    while not signalled():
        if time.perf_counter() > deadline:
            raise TimeoutError(f"no histogram plot within {LOAD_TIMEOUT_S:.0f} s")
        page.wait_for_timeout(5)
    return first_drawn(plot, time.perf_counter(), deadline, "the histogram plot drew nothing")


def bench_histograms(
    browser: Browser, root: Path, repeats: int, quick: bool, shots: Path | None, tensorboard: bool
) -> dict[str, Any]:
    """The scenario's samples and medians (``{"label", "ridgeline": {...}, "TensorBoard": {...}}``)."""
    tags, steps = shape(quick)
    names = tag_names(tags)
    path = ensure_logdir(root, quick)
    label = f"(h) histograms: {tags} tags x {steps:,} steps"
    servers = start_servers(path, names, steps, tensorboard)
    return first_paint_scenario(
        "h", label, servers, repeats, lambda server, shot: first_paint(browser, server, names[0], shot), shots
    )
