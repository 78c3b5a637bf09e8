"""Issue 16, the scalars toolbar and Time Series cards, in a real browser over runs written by torch's
SummaryWriter: a long tag name does not widen the toolbar's pickers past a 1280 px screen, "X axis: another tag…"
keeps the charts drawn (with a prompt) until a tag is chosen, the tag pickers are searchable comboboxes that stay
usable with 1,000 tags, and a scalar card next to a tall image card keeps its own height."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import card, choose_in_combobox, open_dashboard, serve_logdir

LONG_TAG = "metrics/" + "validation_top5_accuracy_on_the_held_out_imagenet_subset_" * 3 + "ema"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from torch.utils.tensorboard import SummaryWriter

    logdir = tmp_path_factory.mktemp("scalars")
    writer = SummaryWriter(str(logdir / "torch_run"))
    rng = np.random.default_rng(0)
    for step in range(20):
        writer.add_scalar("loss", 1.0 / (step + 1), step)
        writer.add_scalar("samples/loss", 1.0 / (step + 1), step)  # in the image's section: the same grid row
        writer.add_scalar(LONG_TAG, step / 20, step)
        if step % 10 == 0:
            writer.add_image("samples/tall", rng.random((3, 600, 120)), step)  # a tall image: a tall card
    writer.close()
    server = serve_logdir(logdir, tmp_path_factory.mktemp("server"))
    yield server.url
    server.stop()


def test_long_tag_names_do_not_push_the_toolbar_off_the_screen(page: Page, served: str) -> None:
    open_dashboard(page, f"{served}?s.x=tag")
    page.locator("[data-testid=settings-toggle]").click()  # unfolded: every control on screen, wrapped
    expect(page.locator("[data-testid=settings-bar]")).to_have_attribute("data-open", "true")
    toolbar = page.locator(".rl-toolbar")
    width = page.viewport_size["width"] if page.viewport_size else 1280
    for select in toolbar.locator("select, input").all():
        box = select.bounding_box()
        assert box is not None and box["x"] + box["width"] <= width, "a picker runs off the screen"
    assert toolbar.evaluate("t => t.scrollWidth <= t.clientWidth")


def test_choosing_another_tag_for_x_keeps_the_charts_drawn(page: Page, served: str) -> None:
    open_dashboard(page, served)
    page.locator("[data-testid=x-axis]").select_option("tag")
    expect(page.locator("[data-testid=x-tag-prompt]")).to_be_visible()
    loss = card(page, "loss")
    expect(loss).to_have_attribute("data-ready", "true")
    assert int(loss.get_attribute("data-points") or 0) == 20  # still drawn, against steps
    choose_in_combobox(page, "X axis tag", LONG_TAG)
    expect(page.locator("[data-testid=x-tag-prompt]")).to_have_count(0)


def test_a_scalar_card_beside_an_image_card_keeps_its_height(page: Page, served: str) -> None:
    page.goto(f"{served}?tab=time_series")
    scalar = page.locator('[data-testid=time_series-card][data-kind=scalars][data-tag="samples/loss"]')
    images = page.locator('[data-testid=time_series-card][data-kind=images][data-tag="samples/tall"]')
    expect(images.locator("img").first).to_be_visible()
    page.wait_for_function(
        """() => [...document.querySelectorAll('[data-testid=time_series-card][data-kind=images] img')]
            .every(i => i.complete && i.naturalHeight > 0)"""
    )
    scalar_box, image_box = scalar.bounding_box(), images.bounding_box()
    assert scalar_box is not None and image_box is not None
    assert image_box["height"] > scalar_box["height"] + 100  # not stretched to the image card's height


@pytest.fixture(scope="module")
def thousand_tags(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from torch.utils.tensorboard import SummaryWriter

    logdir = tmp_path_factory.mktemp("many_tags")
    writer = SummaryWriter(str(logdir / "run"))
    for step in range(2):
        for layer in range(1000):
            writer.add_scalar(f"grads/layer_{layer:04d}/norm", layer + step, step)
    writer.close()
    server = serve_logdir(logdir, tmp_path_factory.mktemp("server"))
    yield server.url
    server.stop()


def test_the_tag_pickers_are_searchable_with_a_thousand_tags(page: Page, thousand_tags: str) -> None:
    page.goto(thousand_tags)
    left = page.get_by_role("combobox", name="Left axis tag", exact=True)
    box = left.bounding_box()
    assert box is not None and box["width"] <= 320, "the picker keeps a bounded width"
    left.click()
    listbox = page.get_by_role("listbox", name="Left axis tag")
    expect(listbox).to_be_visible()
    options = listbox.get_by_role("option")
    expect(options.first).to_have_text("grads/layer_0000/norm")
    assert options.count() < 1000, "a thousand options are not all put in the page"
    expect(listbox).to_contain_text("type to narrow")
    left.press_sequentially("042")  # typing filters: layer_0042 and layer_0420 … layer_0429
    expect(options).to_have_count(11)
    left.press("ArrowDown")
    left.press("ArrowDown")
    third = options.nth(2)
    expect(third).to_have_attribute("aria-selected", "true")
    assert left.get_attribute("aria-activedescendant") == third.get_attribute("id")
    chosen = third.inner_text()
    left.press("Enter")
    expect(listbox).to_have_count(0)
    expect(left).to_have_value(chosen)
    choose_in_combobox(page, "Right axis tag", "grads/layer_0999/norm")
    page.get_by_role("button", name="Combine").click()
    combined = card(page, f"{chosen} ⇄ grads/layer_0999/norm")
    expect(combined).to_have_attribute("data-ready", "true")
