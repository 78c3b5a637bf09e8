"""Zooming in refetches the visible steps at full resolution; the smoothed curve inside the window continues the
whole run's smoothing instead of restarting at the window's first point (docs/scalars.md, Zoom)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import card, drag_zoom, noisy_curve, open_dashboard, serve_logdir, wait_points, write_runs

TAG = "train/loss"
STEPS = 300


@pytest.fixture(scope="module")
def one_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    logdir = write_runs(tmp_path_factory.mktemp("zoom"), {"run": {TAG: noisy_curve(STEPS, 3.0)}})
    served = serve_logdir(logdir, tmp_path_factory.mktemp("server"))
    yield served.url
    served.stop()


def smoothed_by_step(page: Page) -> dict[int, float]:
    pairs: list[list[float]] = page.evaluate(
        """tag => {
            const [s] = window.__ridgeline?.series?.get(tag);
            return Array.from(s.x, (x, i) => [x, s.smoothed[i]]);
        }""",
        TAG,
    )
    return {int(x): y for x, y in pairs}


@pytest.mark.parametrize("smoother", ["ema", "time-ema", "gaussian"])
def test_zoomed_smoothing_continues_the_whole_run(page: Page, one_run: str, smoother: str) -> None:
    open_dashboard(page, f"{one_run}?s.smooth=0.9&s.smoother={smoother}")
    before = smoothed_by_step(page)
    assert len(before) == STEPS
    drag_zoom(page, card(page, TAG), 0.4, 0.6)
    expect(card(page, TAG).get_by_role("button", name="Reset zoom")).to_be_visible()
    wait_points(page, TAG, f"n < {STEPS}")
    after = smoothed_by_step(page)
    assert 10 < len(after) < STEPS and min(after) > 50
    # The window starts well after the run's first point, yet its smoothed values are the unzoomed ones.
    for step, value in after.items():
        assert value == pytest.approx(before[step], rel=1e-9, abs=1e-12), step
