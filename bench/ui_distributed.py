"""The distributed scenario of bench/ui.py: time to the first complete chart of one tag aggregated over the 64
ranks of a job (ridgeline's distributed dashboard: the mean line with its min-max band, computed by step on the
server) against TensorBoard drawing the same 64 runs in its time series dashboard (it has no notion of ranks).

The log directory: ``job/rank0`` ... ``job/rank63``, 1 tag x 10,000 steps each (640,000 points), written with
ridgeline's SummaryWriter (kept under ``--data-dir`` like the other scenarios). Both servers over it, each finished
reading it first. First paint, from ``page.goto`` in a fresh context: ridgeline's chart card says it is ready
(``data-ready``), TensorBoard's first card is in the page once the ``timeSeries`` answer for the tag has arrived
(both polled every 5 ms); then a screenshot of the chart must show coloured pixels. Median over ``--repeats``
loads, taking turns.

    python bench/ui.py --only d [--repeats R] [--quick] [--no-tensorboard]
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page
from ui import (
    LOAD_TIMEOUT_S,
    SERVER_TIMEOUT_S,
    TENSORBOARD,
    VIEWPORT,
    Dataset,
    Server,
    ensure_dataset,
    first_drawn,
    first_paint_scenario,
    first_tag_request,
    start_ridgeline,
    start_tensorboard,
    wait_ready,
)

JOB = "job"
TAG = "train/loss"
CHART = f'[data-testid=distributed-chart][data-tag="{TAG}"]'


@dataclass(frozen=True)
class RankDataset(Dataset):
    """``runs`` ranks of one job, ``job/rank<N>``, one tag."""

    def run_names(self) -> list[str]:
        return [f"{JOB}/rank{i}" for i in range(self.runs)]

    def tag_names(self) -> list[str]:
        return [TAG]

    def spec(self) -> str:
        return f"ranks-{self.runs}x{self.steps}"


def dataset(quick: bool) -> RankDataset:
    return RankDataset("d", 4, 1, 500) if quick else RankDataset("d", 64, 1, 10_000)


def ridgeline_ready(page: Page, start: float) -> float:
    """When the aggregated chart was drawn (perf_counter time): its card's ``data-ready``, polled every 5 ms as
    ``wait_ready`` polls TensorBoard's card (a locator's ``wait_for`` backs off to 500 ms between checks, which
    would count up to half a second of waiting for the page), then line pixels on its canvas."""
    deadline = start + LOAD_TIMEOUT_S
    signal = f"!!document.querySelector({json.dumps(CHART + '[data-ready=true]')})"
    while not page.evaluate(signal):
        if time.perf_counter() > deadline:
            raise TimeoutError(f"ridgeline: no aggregated chart within {LOAD_TIMEOUT_S:.0f} s")
        page.wait_for_timeout(5)
    canvas = page.locator(f"{CHART} canvas").first
    return first_drawn(canvas, time.perf_counter(), deadline, "ridgeline: the aggregated chart drew no lines")


def first_paint(browser: Browser, server: Server, data: RankDataset, shot: Path | None) -> dict[str, Any]:
    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1, bypass_csp=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    arrived: list[float] = []
    is_first = first_tag_request(data)
    page.on("requestfinished", lambda r: arrived.append(time.perf_counter()) if is_first(r) else None)
    try:
        start = time.perf_counter()
        page.goto(server.url, wait_until="commit")
        if server.name == "ridgeline":
            drawn = ridgeline_ready(page, start)
        else:
            drawn = wait_ready(page, TENSORBOARD, arrived, start)
        if shot is not None:
            page.screenshot(path=shot)
    finally:
        context.close()
    return {"load_s": drawn - start, "page_errors": errors}


def bench_distributed(
    browser: Browser, root: Path, repeats: int, quick: bool, shots: Path | None, tensorboard: bool
) -> dict[str, Any]:
    """The scenario's samples and medians (``{"label", "ridgeline": {...}, "TensorBoard": {...}}``)."""
    data = dataset(quick)
    path = ensure_dataset(root, data)
    label = f"(d) distributed: one tag of {data.runs} ranks x {data.steps:,} steps, aggregated / {data.runs} runs"
    servers = {"ridgeline": start_ridgeline(path, data, SERVER_TIMEOUT_S)}
    servers["ridgeline"].url += f"?tab=distributed&dist.run={JOB}"
    if tensorboard:
        try:
            servers["TensorBoard"] = start_tensorboard(path, data, SERVER_TIMEOUT_S)
        except BaseException:
            servers["ridgeline"].stop()
            raise
    return first_paint_scenario(
        "d", label, servers, repeats, lambda server, shot: first_paint(browser, server, data, shot), shots
    )
