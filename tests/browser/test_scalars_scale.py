"""The scalars dashboard with thousands of tags: only the cards near the view are in the page, yet every tag is
reachable, by the tag filter or by scrolling, and draws when it gets there. (Timings: bench/ui_scale.py.)"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from ridgeline import SummaryWriter
from tests.browser.helpers import card, open_dashboard, points, serve_logdir

GROUPS = 40
PER_GROUP = 50
TAGS = GROUPS * PER_GROUP
POINTS = 3


def tag_name(t: int) -> str:
    return f"g{t // PER_GROUP:02d}/tag{t:04d}"


def write_many_tags(logdir: Path) -> Path:
    with SummaryWriter(logdir / "run") as writer:
        for t in range(TAGS):
            for step in range(POINTS):
                writer.add_scalar(tag_name(t), float((t + step) % 7), step, walltime=1_700_000_000.0 + step)
    return logdir


@pytest.fixture(scope="module")
def many_tags(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    logdir = write_many_tags(tmp_path_factory.mktemp("many_tags"))
    served = serve_logdir(logdir, tmp_path_factory.mktemp("server"))
    yield served.url
    served.stop()


def cards(page: Page) -> int:
    return page.locator("[data-testid=scalar-card]").count()


def test_first_cards_draw_and_only_cards_near_the_view_are_in_the_page(page: Page, many_tags: str) -> None:
    open_dashboard(page, many_tags)
    expect(card(page, tag_name(0))).to_have_attribute("data-ready", "true")
    assert points(page, tag_name(0)) == POINTS
    # Every section is listed with its full count, but the cards of far sections are not built.
    expect(page.locator("section[data-group]")).to_have_count(GROUPS)
    expect(page.get_by_role("button", name=f"{tag_name(TAGS - 1).split('/')[0]} ({PER_GROUP})")).to_be_attached()
    assert 0 < cards(page) < TAGS // 10


def test_the_tag_filter_narrows_to_a_tag_deep_in_the_list(page: Page, many_tags: str) -> None:
    open_dashboard(page, many_tags)
    deep = tag_name(1777)
    page.locator("[data-testid=tag-filter]").fill(f"tag{deep[-4:]}$")
    expect(card(page, deep)).to_have_attribute("data-ready", "true")
    expect(page.locator("[data-testid=scalar-card]")).to_have_count(1)
    assert points(page, deep) == POINTS
    # Clearing it brings back the first cards.
    page.locator("[data-testid=tag-filter]").fill("")
    expect(card(page, tag_name(0))).to_have_attribute("data-ready", "true")


def test_the_last_section_is_reachable_by_scrolling_and_draws(page: Page, many_tags: str) -> None:
    open_dashboard(page, many_tags)
    middle = tag_name(TAGS // 2)
    page.get_by_role("button", name=f"{middle.split('/')[0]} ({PER_GROUP})").scroll_into_view_if_needed()
    expect(card(page, middle)).to_have_attribute("data-ready", "true")
    last = tag_name(TAGS - 1)
    # Scroll to the bottom until the last card is built (sections mount and take their real height on the way).
    page.wait_for_function(
        """tag => {
            const main = document.querySelector('main');
            main.scrollTop = main.scrollHeight;
            const c = [...document.querySelectorAll('[data-testid=scalar-card]')].find(c => c.dataset.tag === tag);
            return !!c && c.dataset.ready === 'true';
        }""",
        arg=last,
    )
    assert points(page, last) == POINTS
    # Its neighbours in the last section drew too; the cards far above were let go (the page stays small).
    expect(card(page, tag_name(TAGS - 2))).to_have_attribute("data-ready", "true")
    expect(card(page, middle)).to_have_count(0)
    assert cards(page) < TAGS // 10
