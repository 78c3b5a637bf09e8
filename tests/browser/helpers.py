"""What the browser tests share: the chromium they drive, a real server over a log directory, log directories
written with ridgeline's SummaryWriter, and readers of the scalars dashboard's DOM hooks (see the web contract:
``data-testid`` attributes, ``data-ready``/``data-points`` on cards, ``body[data-charts-ready]`` and
``window.__ridgeline.charts``)."""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.sync_api import Locator, Page, expect

import ridgeline
from ridgeline import SummaryWriter
from tests.conftest import WAIT_S

CHROMIUM = Path("/usr/bin/chromium")
# Playwright cannot download its own browsers here: it drives Debian's chromium, sandboxless (tests run as root
# in containers), without a GPU, with /tmp instead of a small /dev/shm, and never phoning home.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking"]
STATIC = Path(ridgeline.__file__).resolve().parent / "_static"
RELOAD_INTERVAL = 0.3  # seconds: the server re-reads the log directory this often
# How long anything the page should do may take before the test fails (Playwright's waits, expect included):
# generous, as every wait of the suite (tests/conftest.py); how fast the page is is measured in bench/ui*.py.
WAIT_MS = WAIT_S * 1000


@dataclass
class ServedLogdir:
    """``ridgeline serve`` for one log directory, listening on 127.0.0.1."""

    url: str  # base URL with a trailing slash
    process: subprocess.Popen[bytes]
    log: Path  # the server's stdout and stderr

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def serve_logdir(logdir: Path, workdir: Path, pythonpath: Sequence[Path] = ()) -> ServedLogdir:
    """``ridgeline serve --port 0`` in a subprocess (a free port of 127.0.0.1, no persistent cache), re-reading
    ``logdir`` every RELOAD_INTERVAL seconds; returns once it printed its URL. ``pythonpath``: folders put first on
    the server's ``PYTHONPATH`` (a plugin installed there is served)."""
    log = workdir / "serve.log"
    command = [sys.executable, "-m", "ridgeline.cli", "serve", "--logdir", str(logdir), "--port", "0"]
    command += ["--host", "127.0.0.1", "--reload-interval", str(RELOAD_INTERVAL), "--no-cache"]
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = os.pathsep.join([*map(str, pythonpath), *filter(None, [env.get("PYTHONPATH")])])
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env)
    served = ServedLogdir("", process, log)
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        if match := re.search(r"serving .* at (http://127\.0\.0\.1:\d+/?)", log.read_text(errors="replace")):
            served.url = match.group(1).rstrip("/") + "/"
            return served
        if process.poll() is not None:
            break
        time.sleep(0.02)
    served.stop()
    raise AssertionError(f"ridgeline serve printed no URL (exit code {process.returncode}):\n{log.read_text()}")


# --- log directories --------------------------------------------------------------------------------------------
Series = Sequence[float] | Sequence[tuple[int, float]]


def write_runs(logdir: Path, runs: Mapping[str, Mapping[str, Series]]) -> Path:
    """``{run: {tag: values}}`` written with SummaryWriter into ``logdir/run``; values are either plain values
    (steps 0, 1, ...) or (step, value) pairs."""
    for run, tags in runs.items():
        with SummaryWriter(logdir / run) as writer:
            for tag, series in tags.items():
                for i, point in enumerate(series):
                    step, value = point if isinstance(point, tuple) else (i, point)
                    writer.add_scalar(tag, value, step, walltime=1_700_000_000.0 + step)
    return logdir


def noisy_curve(steps: int, scale: float = 1.0, seed: int = 0) -> list[float]:
    """A positive decaying curve with deterministic high-frequency noise, so smoothing visibly changes it and a
    log scale can draw it."""
    return [scale * math.exp(-3 * i / steps) * (1 + 0.3 * math.sin(i * 2.7 + seed)) for i in range(steps)]


# --- the page -----------------------------------------------------------------------------------------------------
def card(page: Page, tag: str) -> Locator:
    return page.locator(f'[data-testid=scalar-card][data-tag="{css_string(tag)}"]')


def css_string(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def choose_in_combobox(page: Page, name: str, option: str) -> None:
    """Types ``option`` into the searchable picker named ``name`` (web/src/app/Combobox.tsx) and takes it with
    Enter, as a keyboard user does; waits until the picker shows it chosen."""
    box = page.get_by_role("combobox", name=name, exact=True)
    box.fill(option)
    expect(page.get_by_role("option", name=option, exact=True)).to_have_attribute("aria-selected", "true")
    box.press("Enter")
    expect(box).to_have_value(option)


def open_dashboard(page: Page, url: str) -> None:
    """Navigate to ``url`` and wait until every visible chart has drawn its data."""
    page.goto(url)
    wait_charts_ready(page)


def wait_charts_ready(page: Page, timeout: float = WAIT_MS) -> None:
    page.wait_for_function("document.body?.dataset.chartsReady === 'true'", timeout=timeout)


def points(page: Page, tag: str) -> int:
    """The card's ``data-points``: how many points its chart draws."""
    value = card(page, tag).get_attribute("data-points")
    assert value is not None, f"the card of {tag!r} has no data-points"
    return int(value)


def wait_points(page: Page, tag: str, predicate: str, timeout: float = WAIT_MS) -> int:
    """Wait until the ready card's point count ``n`` satisfies the JS expression ``predicate`` (e.g. ``n < 10``)."""
    page.wait_for_function(
        """([tag, predicate]) => {
            const card = [...document.querySelectorAll('[data-testid=scalar-card]')].find(c => c.dataset.tag === tag);
            if (!card || card.dataset.ready !== 'true') return false;
            const n = Number(card.dataset.points);
            return new Function('n', 'return ' + predicate)(n);
        }""",
        arg=[tag, predicate],
        timeout=timeout,
    )
    return points(page, tag)


def wait_changed(page: Page, read: Callable[[], Any], before: Any, what: str, timeout: float = WAIT_S) -> Any:
    """Polls ``read()`` (every 50 ms of the page's time) until it differs from ``before`` and returns it; fails
    after ``timeout`` seconds saying that ``what`` changed nothing."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        now = read()
        if now != before:
            return now
        page.wait_for_timeout(50)
    raise AssertionError(f"{what} did not change the drawn chart within {timeout:.0f} s")


def after_next_frame(page: Page) -> None:
    """Returns once the page drew two more frames: whatever a resize or a state change laid out is painted."""
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")


def has_chart_handles(page: Page) -> bool:
    return bool(page.evaluate("() => !!(window.__ridgeline && window.__ridgeline.charts)"))


def chart_state(page: Page, tag: str) -> dict[str, Any]:
    """What the uPlot chart of ``tag`` holds (through ``window.__ridgeline.charts``): its data arrays (non-finite
    values as None), its series labels and visibility, the y scale's distribution (1 linear, 3 log), the
    cursor's position."""
    state: dict[str, Any] | None = page.evaluate(
        """tag => {
            const chart = window.__ridgeline?.charts?.get(tag);
            if (!chart) return null;
            const clean = a => Array.from(a, v => (v == null || !Number.isFinite(v)) ? null : v);
            return {
                data: chart.data.map(clean),
                series: chart.series.map(s => ({label: String(s.label ?? ''), show: s.show !== false})),
                distr: chart.scales.y ? chart.scales.y.distr : null,
                cursor: {left: chart.cursor.left ?? null, idx: chart.cursor.idx ?? null},
            };
        }""",
        tag,
    )
    assert state is not None, f"window.__ridgeline.charts has no chart for {tag!r}"
    return state


def drag_zoom(page: Page, chart: Locator, start: float, end: float) -> None:
    """Drag across ``chart`` (a card or its plot) at mid height, from ``start`` to ``end`` as fractions of the
    plotting area's width: uPlot's drag-to-zoom."""
    box = chart.locator(".u-over").bounding_box()
    assert box is not None, "the chart is not drawn"
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + box["width"] * start, y)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * end, y, steps=5)
    page.mouse.up()
