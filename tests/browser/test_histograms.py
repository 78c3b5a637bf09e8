"""The histograms and distributions dashboards in a real browser, on histograms written by torch, ridgeline
and a TF2-style writer (tests/plugins/histogram_logs.py): offset and overlay plots, hover, the step slider
reaching a step outside the drawn sample, percentile bands, and the bad cases shown in their cards."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import Locator, Page, expect

import ridgeline
from tests.browser.helpers import css_string, open_dashboard, serve_logdir
from tests.plugins.histogram_logs import STEPS, write_histogram_logs

LONG = 120  # steps of long/w: more than the 50 a card draws


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    logdir = write_histogram_logs(tmp_path_factory.mktemp("histograms"))
    with ridgeline.SummaryWriter(str(logdir / "long")) as writer:
        rng = np.random.default_rng(0)
        for step in range(LONG):
            writer.add_histogram("long/w", rng.normal(step / 40, 1.0, 300), step, walltime=1e9 + step)
    served = serve_logdir(logdir, tmp_path_factory.mktemp("server"))
    yield served.url
    served.stop()


def hcard(page: Page, tag: str, kind: str = "histogram") -> Locator:
    return page.locator(f'[data-testid={kind}-card][data-tag="{css_string(tag)}"]')


def test_histograms_offset(page: Page, url: str, artifacts: Path) -> None:
    open_dashboard(page, url + "?tab=histograms")
    expect(page.locator('nav[aria-label="Dashboards"] [data-dashboard=histograms]')).to_be_visible()
    for group in ("dense", "grad", "long", "odd", "weights"):
        expect(page.locator(f"section[data-group={group}] h2 button")).to_have_attribute("aria-expanded", "true")
    fc1 = hcard(page, "grad/fc1")
    expect(fc1).to_have_attribute("data-ready", "true")
    # One ridgeline plot per run that has the tag, each with every step (40 < the 50 drawn).
    expect(fc1.locator("[data-testid=histogram-canvas]")).to_have_count(2)
    assert fc1.locator("[data-testid=histogram-canvas]").first.get_attribute("data-curves") == str(STEPS)
    page.screenshot(path=str(artifacts / "histograms-offset.png"))
    fc1.screenshot(path=str(artifacts / "histograms-card.png"))


def test_hover_names_step_bucket_and_count(page: Page, url: str) -> None:
    open_dashboard(page, url + "?tab=histograms")
    canvas = hcard(page, "dense/kernel_0").locator("[data-testid=histogram-canvas]")
    box = canvas.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] * 0.4, box["y"] + box["height"] - 30)
    tip = hcard(page, "dense/kernel_0").locator("[data-testid=histogram-tooltip]")
    expect(tip).to_contain_text("keras · step")
    expect(tip).to_contain_text("count")
    expect(tip).to_contain_text("[")


def test_bad_input_is_shown_in_its_card(page: Page, url: str, artifacts: Path) -> None:
    open_dashboard(page, url + "?tab=histograms")
    expect(hcard(page, "dense/kernel_0").locator("[data-testid=histogram-problem]")).to_contain_text(
        "1 step could not be read"
    )
    odd = hcard(page, "odd/empty")
    odd.scroll_into_view_if_needed()
    expect(odd.locator("[data-testid=histogram-problem]")).to_contain_text("every histogram is empty")
    single = hcard(page, "odd/single")
    expect(single).to_have_attribute("data-ready", "true")
    assert single.locator("[data-testid=histogram-canvas]").get_attribute("data-curves") == str(STEPS)
    single.screenshot(path=str(artifacts / "histograms-single-bucket.png"))


def test_step_slider_reaches_steps_outside_the_sample(page: Page, url: str) -> None:
    open_dashboard(page, url + "?tab=histograms&tagFilter=long")
    long = hcard(page, "long/w")
    expect(long.locator(".rl-badge")).to_have_text("sampled")
    canvas = long.locator("[data-testid=histogram-canvas]")
    drawn = int(canvas.get_attribute("data-curves") or 0)
    assert drawn == 50
    slider = long.locator("[data-testid=histogram-step]")
    assert slider.get_attribute("max") == str(LONG - 1)
    slider.focus()
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")  # step 1: not among the sampled steps
    expect(long.locator("[data-testid=histogram-step-value]")).to_have_text("1")
    expect(canvas).to_have_attribute("data-curves", str(drawn + 1))


def test_overlay_mode(page: Page, url: str, artifacts: Path) -> None:
    open_dashboard(page, url + "?tab=histograms")
    page.locator("[data-testid=histogram-mode]").select_option("overlay")
    fc1 = hcard(page, "grad/fc1")
    expect(fc1.locator("[data-testid=histogram-canvas]")).to_have_count(1)
    expect(fc1.locator("[data-testid=histogram-canvas]")).to_have_attribute("data-curves", str(2 * STEPS))
    page.wait_for_function("new URLSearchParams(location.search).get('h.mode')?.includes('overlay')")
    fc1.screenshot(path=str(artifacts / "histograms-overlay.png"))


def test_distributions(page: Page, url: str, artifacts: Path) -> None:
    open_dashboard(page, url + "?tab=distributions")
    fc2 = hcard(page, "weights/fc2", "distribution")
    fc2.scroll_into_view_if_needed()
    expect(fc2).to_have_attribute("data-ready", "true")
    plots = fc2.locator("[data-testid=distribution-plot]")
    expect(plots).to_have_count(2)
    assert plots.first.get_attribute("data-steps") == str(STEPS)
    box = plots.first.locator("canvas").first.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] * 0.5, box["y"] + box["height"] * 0.5)
    tip = fc2.locator("[data-testid=distribution-tooltip]")
    expect(tip).to_contain_text("step")
    expect(tip).to_contain_text("median")
    empty = hcard(page, "odd/empty", "distribution")
    empty.scroll_into_view_if_needed()
    expect(empty.locator("[data-testid=distribution-problem]")).to_contain_text("every histogram is empty")
    page.screenshot(path=str(artifacts / "distributions.png"))
    fc2.screenshot(path=str(artifacts / "distributions-card.png"))


def test_dark_theme(page: Page, url: str, artifacts: Path) -> None:
    open_dashboard(page, url + "?tab=histograms&theme=dark&tagFilter=weights")
    expect(hcard(page, "weights/fc1")).to_have_attribute("data-ready", "true")
    page.screenshot(path=str(artifacts / "histograms-dark.png"))
