"""The images and audio dashboards in a real browser, on files written by torch's and ridgeline's writers
(tests/plugins/media_logs.py): step sliders, batches as grids, fit/native, brightness and contrast, the
full-size overlay, audio players with labels and sample rate, and placeholders for bad values."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import Locator, Page, expect

from ridgeline import SummaryWriter
from tests.browser.helpers import ServedLogdir, css_string, serve_logdir, wait_charts_ready
from tests.plugins.media_logs import LABELS, STEPS, TF2_IMAGES, write_media_logs


@pytest.fixture(scope="module")
def media(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = write_media_logs(tmp_path_factory.mktemp("media"))
    served = serve_logdir(root, tmp_path_factory.mktemp("server"))
    yield served.url
    served.stop()


def media_card(page: Page, kind: str, run: str, tag: str) -> Locator:
    testid = "image-card" if kind == "images" else "audio-card"
    return page.locator(f'[data-testid={testid}][data-run="{css_string(run)}"][data-tag="{css_string(tag)}"]')


def ready(card: Locator) -> Locator:
    card.scroll_into_view_if_needed()
    expect(card).to_have_attribute("data-ready", "true")
    return card


def natural_sizes(card: Locator) -> list[list[int]]:
    sizes: list[list[int]] = card.locator("img").evaluate_all(
        "imgs => imgs.map(i => [i.naturalWidth, i.naturalHeight])"
    )
    return sizes


def test_images_dashboard(page: Page, media: str, artifacts: Path) -> None:
    page.goto(media + "?tab=images&tagFilter=images|tf2|plots")
    wait_charts_ready(page)
    expect(page.locator('nav[aria-label="Dashboards"] [data-dashboard=images]')).to_have_attribute(
        "aria-current", "page"
    )
    for run, tag in [("torch", "images/single"), ("torch", "images/batch_nhwc"), ("ridgeline", "images/single")]:
        expect(media_card(page, "images", run, tag)).to_have_count(1)
    single = ready(media_card(page, "images", "torch", "images/single"))
    expect(single).to_have_attribute("data-step", str(STEPS[-1]))  # the newest step first
    assert natural_sizes(single) == [[40, 24]]
    expect(single.get_by_test_id("step-label")).to_contain_text(f"step {STEPS[-1]}")
    # The step slider shows another step's image.
    single.get_by_test_id("step-slider").fill("0")
    expect(single).to_have_attribute("data-step", "0")
    expect(single.locator("img")).to_have_attribute("src", re.compile(r"api/images/blob\?.*step=0&"))
    expect(single).to_have_attribute("data-ready", "true")
    page.screenshot(path=artifacts / "images.png")

    # A TensorFlow 2 batch: every image of the value in a grid.
    batch = ready(media_card(page, "images", "ridgeline", "tf2/images"))
    expect(batch.locator("img")).to_have_count(TF2_IMAGES)
    assert natural_sizes(batch) == [[12, 10]] * TF2_IMAGES

    # Fit to card (the default) scales a small image up; native shows its own size.
    img = single.locator("img")
    assert img.evaluate("i => i.getBoundingClientRect().width") > 100
    page.get_by_test_id("image-fit").uncheck()
    expect(img).to_have_js_property("clientWidth", 40)

    # Brightness and contrast are CSS filters on every image.
    page.get_by_test_id("image-brightness").fill("1.5")
    page.get_by_test_id("image-contrast").fill("0.5")
    assert img.evaluate("i => i.style.filter") == "brightness(1.5) contrast(0.5)"
    page.get_by_role("button", name="Reset").click()
    assert img.evaluate("i => i.style.filter") == ""

    # A click opens the image at native resolution; Escape closes it.
    batch.locator("img").nth(1).click()
    overlay = page.get_by_test_id("image-overlay")
    expect(overlay).to_be_visible()
    expect(overlay.locator(".rl-overlay-body img")).to_have_js_property("clientWidth", 12)
    href = overlay.get_by_role("link", name="Open in a new tab").get_attribute("href")
    assert href is not None and "index=1" in href
    page.screenshot(path=artifacts / "images-overlay.png")
    page.keyboard.press("Escape")
    expect(overlay).to_have_count(0)


def test_bad_images_show_placeholders_and_the_page_keeps_working(page: Page, media: str, artifacts: Path) -> None:
    page.goto(media + "?tab=images&tagFilter=bad|images/single")
    wait_charts_ready(page)
    for tag, text in [
        ("bad/not_an_image", "not an image format"),
        ("bad/zero_sized", "no image bytes"),
        ("bad/corrupt_png", "cannot be decoded"),
    ]:
        card = ready(media_card(page, "images", "ridgeline", tag))
        expect(card.get_by_test_id("media-placeholder")).to_contain_text(text)
    good = ready(media_card(page, "images", "ridgeline", "images/single"))
    assert natural_sizes(good) == [[16, 16]]
    page.screenshot(path=artifacts / "images-bad.png")


def test_groups_collapse(page: Page, media: str) -> None:
    page.goto(media + "?tab=images")
    wait_charts_ready(page)
    section = page.locator('section[aria-label="plots"]')
    toggle = section.locator("h2 button")
    expect(toggle).to_have_attribute("aria-expanded", "true")
    toggle.click()
    expect(section.get_by_test_id("image-card")).to_have_count(0)
    toggle.click()
    expect(section.get_by_test_id("image-card")).to_have_count(2)


def test_audio_dashboard(page: Page, media: str, artifacts: Path) -> None:
    page.goto(media + "?tab=audio")
    wait_charts_ready(page)
    tone = ready(media_card(page, "audio", "torch", "audio/tone"))
    expect(tone.get_by_test_id("audio-meta")).to_contain_text("8,000 Hz")
    expect(tone.locator("audio")).to_have_count(1)
    expect(tone).to_have_attribute("data-step", str(STEPS[-1]))
    # The clip loads and its length is what was written (a quarter of a second).
    tone.locator("audio").evaluate(
        "a => new Promise(ok => a.readyState >= 1 ? ok() : a.addEventListener('loadedmetadata', ok, {once: true}))"
    )
    assert tone.locator("audio").evaluate("a => a.duration") == pytest.approx(0.25, abs=0.01)
    tone.get_by_test_id("step-slider").fill("1")
    expect(tone).to_have_attribute("data-step", str(STEPS[1]))
    labelled = ready(media_card(page, "audio", "ridgeline", "tf2/audio"))
    expect(labelled.locator("audio")).to_have_count(len(LABELS))
    expect(labelled.get_by_test_id("audio-label")).to_have_text(list(LABELS))  # as text, markdown not rendered
    broken = ready(media_card(page, "audio", "ridgeline", "bad/audio"))
    expect(broken.get_by_test_id("media-placeholder")).to_contain_text("cannot be played")
    expect(broken.get_by_test_id("audio-label")).to_have_text("broken")
    page.screenshot(path=artifacts / "audio.png", full_page=True)


def test_a_new_step_appears_and_the_slider_follows_it(
    page: Page, tmp_path: Path, serve: Callable[[Path], ServedLogdir]
) -> None:
    """Auto-reload: a card at the newest step moves to a step written after the page loaded; a card whose slider
    was moved back stays where it was."""
    logdir = tmp_path / "live"
    with SummaryWriter(logdir / "run") as writer:
        for step in (0, 1):
            writer.add_image("live/a", np.full((3, 8, 8), step / 5), step)
            writer.add_image("live/b", np.full((3, 8, 8), step / 5), step)
    served = serve(logdir)
    page.goto(served.url + "?tab=images")
    wait_charts_ready(page)
    a, b = media_card(page, "images", "run", "live/a"), media_card(page, "images", "run", "live/b")
    expect(a).to_have_attribute("data-step", "1")
    b.get_by_test_id("step-slider").fill("0")
    expect(b).to_have_attribute("data-step", "0")
    with SummaryWriter(logdir / "run") as writer:
        writer.add_image("live/a", np.full((3, 8, 8), 0.9), 5)
        writer.add_image("live/b", np.full((3, 8, 8), 0.9), 5)
    expect(a).to_have_attribute("data-step", "5")
    expect(a.get_by_test_id("step-label")).to_contain_text("(3 of 3)")
    expect(b.get_by_test_id("step-label")).to_contain_text("(1 of 3)")
    expect(b).to_have_attribute("data-step", "0")
