"""Issue 16, browser history, in a real browser over a sweep written by torch's SummaryWriter: each tab switch
and each drill-down is one history entry, Back returns to the view before (inside the app), and a drill-down's
filters are not remembered for the next visit."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.first_hour_logs import serve_sweep, sweep_run
from tests.browser.helpers import css_string, open_dashboard


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from serve_sweep(tmp_path_factory)


def tab(page: Page, name: str) -> Locator:
    return page.locator(f'nav[aria-label="Dashboards"] button[data-dashboard="{name}"]')


def test_back_returns_to_the_previous_tab(page: Page, sweep: str) -> None:
    open_dashboard(page, sweep)
    expect(tab(page, "scalars")).to_have_attribute("aria-current", "page")
    tab(page, "hparams").click()
    expect(tab(page, "hparams")).to_have_attribute("aria-current", "page")
    tab(page, "time_series").click()
    expect(tab(page, "time_series")).to_have_attribute("aria-current", "page")
    page.go_back()
    expect(tab(page, "hparams")).to_have_attribute("aria-current", "page")
    page.go_back()
    expect(tab(page, "scalars")).to_have_attribute("aria-current", "page")
    assert page.url.startswith(sweep)  # still in the app
    page.go_forward()
    expect(tab(page, "hparams")).to_have_attribute("aria-current", "page")


def test_back_undoes_a_drill_down_whose_filter_is_not_remembered(page: Page, sweep: str) -> None:
    open_dashboard(page, f"{sweep}?tab=hparams")
    run = sweep_run(0.01)
    page.locator(f'[data-testid=hparams-table] tr[data-run="{css_string(run)}"]').click()
    page.locator("[data-testid=hparams-selection] [data-testid=hparams-scalars-link]").click()
    expect(tab(page, "scalars")).to_have_attribute("aria-current", "page")
    run_filter = page.locator("[data-testid=run-filter]")
    expect(run_filter).not_to_have_value("")
    page.go_back()
    expect(tab(page, "hparams")).to_have_attribute("aria-current", "page")
    expect(run_filter).to_have_value("")
    # A new visit (same browser, same localStorage) does not open on the drill-down's filter.
    again = page.context.new_page()
    again.goto(sweep)
    expect(again.locator("[data-testid=run-selector] .run-row").first).to_be_visible()
    expect(again.locator("[data-testid=run-filter]")).to_have_value("")
    again.close()


def test_a_tab_without_data_for_the_selection_stays_and_says_so(page: Page, sweep: str) -> None:
    open_dashboard(page, f"{sweep}?tab=hparams")
    expect(page.locator("[data-testid=hparams-table] tbody tr")).to_have_count(4)
    tabs_before = page.locator('nav[aria-label="Dashboards"] button').evaluate_all(
        "bs => bs.map(b => b.dataset.dashboard)"
    )
    page.locator("[data-testid=run-filter]").fill("loss_")  # only add_scalars' sub-runs: no hyperparameters
    expect(page.locator("[data-testid=tab-empty]")).to_contain_text("None of the selected runs has data for HParams")
    expect(tab(page, "hparams")).to_have_attribute("aria-current", "page")  # not dropped onto Scalars
    expect(tab(page, "hparams")).to_have_attribute("data-empty", "true")
    tabs_after = page.locator('nav[aria-label="Dashboards"] button').evaluate_all(
        "bs => bs.map(b => b.dataset.dashboard)"
    )
    assert tabs_after == tabs_before  # the bar does not reflow
    assert "tab=hparams" in page.url
    page.locator("[data-testid=run-filter]").fill("")
    expect(page.locator("[data-testid=hparams-table] tbody tr")).to_have_count(4)


def focused(page: Page) -> dict[str, str | None]:
    return page.evaluate(
        "() => ({run: document.activeElement?.dataset?.run ?? null,"
        " dashboard: document.activeElement?.dataset?.dashboard ?? null})"
    )


def expect_focus(page: Page, run: str | None) -> None:
    """Wait until the focused element is run ``run``'s checkbox (None: no run's): a key moves the focus when the
    list has redrawn, which on a busy machine is not at once."""
    page.wait_for_function("r => (document.activeElement?.dataset?.run ?? null) === r", arg=run, timeout=60_000)


def test_the_run_list_is_one_tab_stop_and_the_tab_bar_takes_arrow_keys(page: Page, sweep: str) -> None:
    open_dashboard(page, sweep)
    boxes = page.locator("[data-testid=run-selector] .run-row input")
    first = sweep_run(0.0001)
    page.locator(f'[data-testid=run-selector] input[data-run="{css_string(first)}"]').focus()
    page.keyboard.press("ArrowDown")
    expect_focus(page, f"{first}/1796175606.5")
    page.keyboard.press("End")
    expect_focus(page, f"{sweep_run(0.1)}/loss_val")
    page.keyboard.press("Home")
    expect_focus(page, first)
    page.keyboard.press("Tab")  # out of the list at once, not onto the next of its 16 checkboxes
    expect_focus(page, None)
    page.keyboard.press("Shift+Tab")  # back onto the row that holds the list's tab stop
    expect_focus(page, first)
    page.keyboard.press("Space")
    expect(boxes.first).not_to_be_checked()

    tab(page, "scalars").focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "() => !['scalars', undefined].includes(document.activeElement?.dataset?.dashboard)", timeout=60_000
    )
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("() => document.activeElement?.dataset?.dashboard === 'scalars'", timeout=60_000)
