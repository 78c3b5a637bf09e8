"""Issue 16, names cut off, in a real browser over runs written by torch's SummaryWriter whose long names differ
only at the end: the run list keeps each name's tail visible, shows the full name on hover and on keyboard focus,
and can be made wider by dragging its edge (or with the arrow keys), which the next visit remembers."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.first_hour_logs import LONG_NAMES, serve_sweep
from tests.browser.helpers import css_string, open_dashboard


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from serve_sweep(tmp_path_factory, long_names=True)


def row(page: Page, run: str) -> Locator:
    return page.locator(f'[data-testid=run-selector] .run-row:has(input[data-run="{css_string(run)}"])')


def sidebar_width(page: Page) -> float:
    box = page.locator("[data-testid=run-selector]").bounding_box()
    assert box is not None
    return box["width"]


def test_long_names_keep_the_end_that_tells_them_apart(page: Page, sweep: str) -> None:
    open_dashboard(page, sweep)
    list_box = page.locator("[data-testid=run-selector] .run-list").bounding_box()
    assert list_box is not None
    for name in LONG_NAMES:
        tail = row(page, name).locator(".rl-mid-tail")
        expect(tail).to_be_visible()
        seed = name.rpartition("_")[2]  # "seed1": the only part that differs
        assert tail.inner_text().endswith(seed)
        box = tail.bounding_box()
        assert box is not None and box["x"] + box["width"] <= list_box["x"] + list_box["width"], f"{name}: tail cut"
    # The name is longer than the row: the head is what is cut (an ellipsis), not the tail.
    head = row(page, LONG_NAMES[0]).locator(".rl-mid-head")
    assert head.evaluate("e => e.scrollWidth > e.clientWidth")


def test_the_full_name_shows_on_hover_and_on_keyboard_focus(page: Page, sweep: str) -> None:
    open_dashboard(page, sweep)
    full = page.locator("[data-testid=run-full-name]")
    row(page, LONG_NAMES[1]).hover()
    expect(full).to_have_text(LONG_NAMES[1])
    expect(row(page, LONG_NAMES[1])).to_have_attribute("title", LONG_NAMES[1])
    page.mouse.move(900, 700)  # away from the list
    row(page, LONG_NAMES[2]).locator("input").focus()
    expect(full).to_have_text(LONG_NAMES[2])


def test_the_run_list_resizes_and_remembers_its_width(page: Page, sweep: str) -> None:
    open_dashboard(page, sweep)
    before = sidebar_width(page)
    handle = page.locator("[data-testid=sidebar-resize]")
    box = handle.bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + 200
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 300, y, steps=5)
    page.mouse.up()
    page.wait_for_function(f"() => document.querySelector('[data-testid=run-selector]').offsetWidth >= {before + 290}")
    # Wide enough now that every long name shows whole.
    head = row(page, LONG_NAMES[0]).locator(".rl-mid-head")
    assert head.evaluate("e => e.scrollWidth <= e.clientWidth")
    handle.focus()
    page.keyboard.press("ArrowLeft")
    dragged = sidebar_width(page)
    assert before + 290 - 16 <= dragged < before + 300
    page.reload()
    open_dashboard(page, sweep)
    assert sidebar_width(page) == dragged
