"""Issue 16, browser history, in a real browser over a sweep written by torch's SummaryWriter: each tab switch
and each drill-down is one history entry, Back returns to the view before (inside the app), and a drill-down's
filters are not remembered for the next visit."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.first_hour_logs import sweep_run, write_torch_sweep
from tests.browser.helpers import css_string, open_dashboard, serve_logdir


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    logdir = write_torch_sweep(tmp_path_factory.mktemp("torch_sweep"))
    served = serve_logdir(logdir, tmp_path_factory.mktemp("server"))
    yield served.url
    served.stop()


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
