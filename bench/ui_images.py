"""The images scenario of bench/ui.py: time to first paint of ridgeline's images dashboard against TensorBoard's,
on one log directory of 200 image tags (1 run, 10 steps each, one 64x64 PNG per step, in 20 groups of 10; written
with ridgeline's SummaryWriter and kept under ``--data-dir`` like the scalar ones).

Both servers over the same directory, each finished reading it first (ridgeline: ``/api/runs`` lists every image
tag at the last step; TensorBoard: its images route answers the last tag's last step). First paint: from
``page.goto`` in a fresh context until the images in the viewport are on screen: at least one image of the
dashboard's blob route is in the viewport, every such image has loaded and decoded (``complete`` with a natural
width; found through shadow roots: TensorBoard's dashboard is Polymer), and no further image appears in the
viewport for half a second after (the time counted is when the screen became complete, not the half second).
TensorBoard keeps 10 images per tag by default, so both show the same images. Median over ``--repeats`` loads,
the dashboards taking turns.

    python bench/ui.py --only i [--repeats R] [--quick] [--no-tensorboard]
"""

from __future__ import annotations

import sys
import time
import urllib.parse
from pathlib import Path
from typing import Any

import numpy as np
from ingest import http_json  # bench/ingest.py, beside this file
from playwright.sync_api import Browser, Page
from ui import (
    LOAD_TIMEOUT_S,
    VIEWPORT,
    Server,
    first_paint_scenario,
    start_plugin_servers,
)

DATA_VERSION = 1
SIZE = 64
RUN = "run_000"
SETTLE_S = 0.5  # no new image on screen for this long after the paint
BLOB_ROUTES = {"ridgeline": "api/images/blob", "TensorBoard": "/data/plugin/images/individualImage"}

# The images of the blob route in the viewport (through open shadow roots): how many, and how many are decoded.
VISIBLE_IMAGES = """
(route) => {
    const images = [];
    const walk = root => {
        for (const el of root.querySelectorAll('*')) {
            if (el.tagName === 'IMG' && el.src.includes(route)) images.push(el);
            if (el.shadowRoot) walk(el.shadowRoot);
        }
    };
    walk(document);
    const shown = images.filter(i => {
        const r = i.getBoundingClientRect();
        return r.width > 0 && r.height > 0 && r.bottom > 0 && r.top < innerHeight && r.right > 0 && r.left < innerWidth;
    });
    return [shown.length, shown.filter(i => i.complete && i.naturalWidth > 0).length];
}
"""


def shape(quick: bool) -> tuple[int, int]:
    """(tags, steps)."""
    return (8, 2) if quick else (200, 10)


def tag_names(tags: int) -> list[str]:
    return [f"group_{i // 10:02d}/image_{i:03d}" for i in range(tags)]


def picture(tag: int, step: int) -> np.ndarray:
    """A smooth HWC uint8 picture, different for every tag and step (compresses like a real one, not like noise)."""
    y, x = np.mgrid[0:SIZE, 0:SIZE] / SIZE
    phase = tag * 0.37 + step * 0.21
    channels = [np.sin(6 * x + phase), np.cos(5 * y - phase), np.sin(4 * (x + y) + 2 * phase)]
    return ((np.stack(channels, axis=-1) + 1) * 127.5).astype(np.uint8)


def ensure_logdir(root: Path, quick: bool) -> Path:
    """The log directory under ``root``, written unless already complete."""
    from ridgeline import SummaryWriter

    tags, steps = shape(quick)
    path = root / f"images-1x{tags}x{steps}-v{DATA_VERSION}"
    marker = path / ".complete"
    if marker.exists():
        return path
    start = time.perf_counter()
    with SummaryWriter(path / RUN, max_queue=100_000) as writer:
        for step in range(steps):
            for j, tag in enumerate(tag_names(tags)):
                writer.add_image(tag, picture(j, step), step, walltime=1_780_000_000.0 + step, dataformats="HWC")
    print(f"wrote {tags} image tags x {steps} steps to {path} ({time.perf_counter() - start:.1f} s)", file=sys.stderr)
    marker.write_text("ok\n")
    return path


def start_servers(path: Path, tags: list[str], steps: int, tensorboard: bool) -> dict[str, Server]:
    def complete(base: str) -> bool:  # TensorBoard serves the last tag's every step
        query = urllib.parse.urlencode({"run": RUN, "tag": tags[-1]})
        body = http_json(f"{base}/data/plugin/images/images?{query}", timeout=60)
        return bool(body) and body[-1]["step"] == steps - 1

    return start_plugin_servers(path, RUN, "images", tags, steps, tensorboard, complete)


def first_paint(browser: Browser, server: Server, shot: Path | None) -> dict[str, Any]:
    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1, bypass_csp=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        start = time.perf_counter()
        page.goto(server.url, wait_until="commit")
        painted, shown = wait_painted(page, BLOB_ROUTES[server.name], start)
        load_s = painted - start
        if shot is not None:
            page.screenshot(path=shot)
    finally:
        context.close()
    return {"load_s": load_s, "images_shown": shown, "note": f"({shown} images on screen)", "page_errors": errors}


def wait_painted(page: Page, route: str, start: float) -> tuple[float, int]:
    """The time (perf_counter) from which the viewport's images of ``route`` were all loaded (at least one) and no
    other appeared for SETTLE_S (cards that render later must not count as painted); returns (time, how many)."""
    candidate: tuple[float, int] | None = None
    while time.perf_counter() < start + LOAD_TIMEOUT_S:
        now = time.perf_counter()
        shown, loaded = page.evaluate(VISIBLE_IMAGES, route)
        if not shown or loaded < shown:
            candidate = None
        elif candidate is None or shown != candidate[1]:
            candidate = (now, int(shown))
        elif now - candidate[0] >= SETTLE_S:
            return candidate
        page.wait_for_timeout(5)
    raise TimeoutError(f"no image on screen within {LOAD_TIMEOUT_S:.0f} s")


def bench_images(
    browser: Browser, root: Path, repeats: int, quick: bool, shots: Path | None, tensorboard: bool
) -> dict[str, Any]:
    """The scenario's samples and medians (``{"label", "ridgeline": {...}, "TensorBoard": {...}}``)."""
    tags, steps = shape(quick)
    names = tag_names(tags)
    path = ensure_logdir(root, quick)
    label = f"(i) images: {tags} tags x {steps} steps ({SIZE}x{SIZE} PNG)"
    servers = start_servers(path, names, steps, tensorboard)
    return first_paint_scenario(
        "i", label, servers, repeats, lambda server, shot: first_paint(browser, server, shot), shots
    )
