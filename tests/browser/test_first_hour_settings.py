"""Issue 16, the sticky settings bars, in a real browser over a sweep written by torch's SummaryWriter: on an
800 px high screen each dashboard's settings start folded to one line (its controls still reachable), unfold with
one click onto as many lines as they need, and the choice is remembered for every dashboard and the next visit;
a taller screen starts unfolded."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.first_hour_logs import serve_sweep
from tests.browser.helpers import open_dashboard

# Dashboards of the sweep with a settings bar (the sweep has no images, histograms or distributed ranks).
TABS = ("scalars", "time_series", "custom_scalars")


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from serve_sweep(tmp_path_factory)


def bar_lines(page: Page) -> int:
    """How many lines the visible settings bar's controls take: a control starts a new line when it lies wholly
    below the line before."""
    extents = page.locator(".rl-settings > .rl-toolbar").evaluate(
        "t => [...t.children].map(c => c.getBoundingClientRect()).map(r => [r.top, r.bottom])"
    )
    lines, bottom = 0, float("-inf")
    for top, low in sorted(extents):
        if top >= bottom:
            lines += 1
            bottom = low
        else:
            bottom = max(bottom, low)
    return lines


def test_settings_start_folded_to_one_line_on_an_800px_screen(page: Page, sweep: str) -> None:
    for tab in TABS:
        open_dashboard(page, f"{sweep}?tab={tab}")
        bar = page.locator("[data-testid=settings-bar]")
        expect(bar).to_have_attribute("data-open", "false")
        assert bar_lines(page) == 1, f"{tab}: the folded settings take one line"
        box = bar.bounding_box()
        assert box is not None and box["height"] <= 48, f"{tab}: the folded bar is {box} high"
        toggle = page.locator("[data-testid=settings-toggle]")
        expect(toggle).to_have_attribute("aria-expanded", "false")
    # Folded, the last control is still there: it scrolls into view and answers.
    open_dashboard(page, f"{sweep}?tab=scalars")
    page.locator("[data-testid=group-by]").select_option("regex")
    expect(page.locator("[data-testid=group-regex]")).to_be_visible()


def test_unfolding_shows_every_setting_and_is_remembered(page: Page, sweep: str) -> None:
    open_dashboard(page, f"{sweep}?tab=scalars")
    bar = page.locator("[data-testid=settings-bar]")
    folded = bar.bounding_box()
    page.locator("[data-testid=settings-toggle]").click()
    expect(bar).to_have_attribute("data-open", "true")
    expect(page.locator("[data-testid=settings-toggle]")).to_have_attribute("aria-expanded", "true")
    unfolded = bar.bounding_box()
    assert folded is not None and unfolded is not None and unfolded["height"] > folded["height"]
    assert bar_lines(page) > 1, "at 1280 px the scalars settings wrap"
    toolbar = page.locator(".rl-settings > .rl-toolbar")
    assert toolbar.evaluate("t => t.scrollWidth <= t.clientWidth"), "unfolded, nothing is off to the side"
    # Another dashboard's bar follows, and so does the next visit.
    page.locator('nav[aria-label="Dashboards"] button[data-dashboard="time_series"]').click()
    expect(page.locator("[data-testid=settings-bar]")).to_have_attribute("data-open", "true")
    page.reload()
    expect(page.locator("[data-testid=settings-bar]")).to_have_attribute("data-open", "true")
    page.locator("[data-testid=settings-toggle]").click()
    expect(page.locator("[data-testid=settings-bar]")).to_have_attribute("data-open", "false")
    page.reload()
    expect(page.locator("[data-testid=settings-bar]")).to_have_attribute("data-open", "false")


def test_a_tall_screen_starts_unfolded(browser: Browser, sweep: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 1000}, device_scale_factor=1, bypass_csp=True)
    try:
        page = context.new_page()
        open_dashboard(page, sweep)
        expect(page.locator("[data-testid=settings-bar]")).to_have_attribute("data-open", "true")
    finally:
        context.close()
