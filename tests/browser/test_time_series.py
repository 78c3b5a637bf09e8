"""The Time Series page in a real browser, on a run written by torch's SummaryWriter: a card per tag of every
kind (scalars through the scalars card, histograms through the histograms card,
images through the images card), the tag filter, kind toggles, pins kept in the URL, the overlay card (a histogram's
bands, image-step and embedding-step marks), and every dashboard reachable at 1280 px."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.helpers import css_string, serve_logdir, wait_charts_ready


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from torch.utils.tensorboard import SummaryWriter

    logdir = tmp_path_factory.mktemp("time_series")
    rng = np.random.default_rng(0)
    writer = SummaryWriter(str(logdir / "torch_run"))
    for step in range(30):
        writer.add_scalar("train/loss", 1.0 / (step + 1), step)
        writer.add_scalar("train/acc", step / 30, step)
        if step % 5 == 0:
            writer.add_histogram("train/loss", rng.normal(0, 1, 200), step)
            writer.add_histogram("weights/w1", rng.normal(step / 10, 1, 200), step)
        if step % 10 == 0:
            writer.add_image("samples/x", rng.random((3, 8, 8)), step)
    for step in (5, 25):
        writer.add_embedding(rng.random((6, 3)), global_step=step, tag="feat")
    writer.close()
    server = serve_logdir(logdir, tmp_path_factory.mktemp("server"))
    yield server.url
    server.stop()


def ts_card(page: Page, kind: str, tag: str) -> Locator:
    return page.locator(f'[data-testid=time_series-card][data-kind={kind}][data-tag="{css_string(tag)}"]')


def ids(page: Page) -> list[str]:
    cards: list[str] = page.locator("[data-testid=time_series-card]").evaluate_all(
        "cs => cs.map(c => c.dataset.kind + ':' + c.dataset.tag)"
    )
    return cards


def test_a_card_per_tag_of_every_kind(page: Page, served: str, artifacts: Path) -> None:
    page.goto(served + "?tab=time_series")
    wait_charts_ready(page)
    assert ids(page) == [
        "images:samples/x",
        "scalars:train/acc",
        "scalars:train/loss",
        "histograms:train/loss",
        "histograms:weights/w1",
    ]
    expect(ts_card(page, "scalars", "train/loss").locator("[data-testid=scalar-card]")).to_have_attribute(
        "data-points", "30"
    )
    page.screenshot(path=str(artifacts / "time_series.png"))
    histogram = ts_card(page, "histograms", "weights/w1").locator("[data-testid=histogram-card]")
    histogram.scroll_into_view_if_needed()
    expect(histogram).to_have_attribute("data-ready", "true")
    # Every dashboard's tab is in the top bar at 1280 px, none cut off.
    nav = page.locator('nav[aria-label="Dashboards"]')
    right = nav.evaluate(
        "n => Math.max(...[...n.querySelectorAll('button')].map(b => b.getBoundingClientRect().right))"
    )
    assert right <= 1280


def test_filter_kinds_and_pins(page: Page, served: str) -> None:
    page.goto(served + "?tab=time_series")
    wait_charts_ready(page)
    page.locator("[data-testid=tag-filter]").fill("loss")
    expect(page.locator("[data-testid=time_series-card]")).to_have_count(2)
    page.locator("[data-testid=tag-filter]").fill("")
    page.locator("[data-testid=ts-kind-histograms]").uncheck()
    expect(page.locator("[data-testid=time_series-card][data-kind=histograms]")).to_have_count(0)
    page.locator("[data-testid=ts-kind-histograms]").check()

    ts_card(page, "histograms", "weights/w1").get_by_role(
        "button", name="Pin weights/w1 (histograms) to the top"
    ).click()
    pinned = page.locator('section[aria-label="Pinned"] [data-testid=time_series-card]')
    expect(pinned).to_have_count(1)
    expect(pinned).to_have_attribute("data-tag", "weights/w1")
    page.wait_for_function("() => new URLSearchParams(location.search).has('ts.pinned')")
    page.reload()
    expect(page.locator('section[aria-label="Pinned"] [data-testid=time_series-card]')).to_have_count(1)


def test_images_cards_show_the_image_and_link_to_their_dashboard(page: Page, served: str, artifacts: Path) -> None:
    page.goto(served + "?tab=time_series")
    wait_charts_ready(page)
    card = ts_card(page, "images", "samples/x").locator("[data-testid=image-card][data-run=torch_run]")
    expect(card).to_have_attribute("data-ready", "true")
    expect(card).to_have_attribute("data-step", "20")  # the slider starts on the last step
    image = card.locator("img")
    expect(image).to_have_count(1)
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=image.element_handle())
    assert image.evaluate("img => img.naturalWidth") == 8
    card.get_by_test_id("step-slider").focus()
    page.keyboard.press("Home")
    expect(card).to_have_attribute("data-step", "0")
    card.screenshot(path=str(artifacts / "time_series_images.png"))
    ts_card(page, "images", "samples/x").get_by_test_id("ts-open-images").click()
    expect(page.locator('nav[aria-label="Dashboards"] [data-dashboard=images]')).to_have_attribute(
        "aria-current", "page"
    )


def add_overlay(page: Page, served: str, **picks: str) -> Locator:
    """Opens the page, picks the overlay's parts ({"scalar": tag, "histogram": tag, "images": tag, "embeddings":
    tag}) and adds it."""
    page.goto(served + "?tab=time_series")
    wait_charts_ready(page)
    for part, tag in picks.items():
        page.get_by_test_id(f"ts-overlay-{part}").select_option(tag)
    page.get_by_test_id("ts-overlay-add").click()
    overlay = page.locator(f'[data-testid=ts-overlay-card][data-tag="{css_string(" + ".join(picks.values()))}"]')
    expect(overlay).to_have_attribute("data-ready", "true")
    return overlay


def test_overlay_of_a_scalar_and_a_histogram(page: Page, served: str, artifacts: Path) -> None:
    overlay = add_overlay(page, served, scalar="train/loss", histogram="weights/w1")
    state = page.evaluate(
        """() => {
            const u = window.__ridgeline?.charts?.get('overlay:train/loss + weights/w1');
            return {labels: u.series.slice(1).map(s => String(s.label)), scales: u.series.slice(1).map(s => s.scale),
                    bands: u.bands.length, steps: Array.from(u.data[0])};
        }"""
    )
    assert state["labels"][0] == "torch_run · train/loss" and state["scales"][0] == "y"
    assert "torch_run · weights/w1 median" in state["labels"]
    assert state["scales"][1:] == ["y2"] * 5 and state["bands"] == 2
    assert state["steps"] == list(range(30))  # one step axis: the scalar's steps hold the histogram's too
    page.wait_for_function("() => new URLSearchParams(location.search).has('ts.overlay')")
    overlay.screenshot(path=str(artifacts / "time_series-overlay.png"))
    overlay.get_by_role("button", name="Close the overlay of train/loss + weights/w1").click()
    expect(overlay).to_have_count(0)


def test_overlay_marks_the_image_steps(page: Page, served: str, artifacts: Path) -> None:
    overlay = add_overlay(page, served, scalar="train/acc", images="samples/x")
    marks = overlay.locator("[data-testid=ts-overlay-mark]")
    expect(marks).to_have_count(3)
    assert marks.evaluate_all("ms => ms.map(m => Number(m.dataset.step))") == [0, 10, 20]
    assert marks.nth(1).get_attribute("title") == "step 10 · samples/x (torch_run)"
    # Each mark sits where the chart's step axis puts its step.
    placed = page.evaluate(
        """() => {
            const u = window.__ridgeline?.charts?.get('overlay:train/acc + samples/x');
            return [...u.over.querySelectorAll('.rl-ts-mark')].map(m => Math.abs(
                parseFloat(m.style.left) - u.valToPos(Number(m.dataset.step), 'x')) < 0.5);
        }"""
    )
    assert placed == [True, True, True]
    page.wait_for_function("() => new URLSearchParams(location.search).get('ts.overlay')?.includes('samples/x')")
    page.reload()
    expect(page.locator("[data-testid=ts-overlay-card] [data-testid=ts-overlay-mark]")).to_have_count(3)
    overlay.screenshot(path=str(artifacts / "time_series_overlay_marks.png"))


def test_overlay_marks_the_embedding_steps(page: Page, served: str, artifacts: Path) -> None:
    overlay = add_overlay(page, served, scalar="train/loss", images="samples/x", embeddings="feat")
    embedding_marks = overlay.locator("[data-testid=ts-overlay-mark][data-kind=embeddings]")
    expect(embedding_marks).to_have_count(2)
    assert embedding_marks.evaluate_all("ms => ms.map(m => Number(m.dataset.step))") == [5, 25]
    assert embedding_marks.first.get_attribute("title") == "step 5 · embedding feat (torch_run)"
    expect(overlay.locator("[data-testid=ts-overlay-mark][data-kind=images]")).to_have_count(3)
    page.wait_for_function("() => new URLSearchParams(location.search).get('ts.overlay')?.includes('feat')")
    page.reload()
    expect(page.locator("[data-testid=ts-overlay-card] [data-kind=embeddings]")).to_have_count(2)
    overlay.screenshot(path=str(artifacts / "time_series_overlay_embeddings.png"))
