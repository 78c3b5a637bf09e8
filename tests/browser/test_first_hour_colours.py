"""Issue 16, colours, in a real browser over a sweep written by torch's SummaryWriter: runs take the palette in
the run list's order (the first runs its most distinct colours), the HTML report gives the same runs the same
colours, grouped lines take colours of their own, named in a legend, and a shared link keeps every run's colour."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

import ridgeline
from ridgeline.report.collect import collect
from ridgeline.report.colours import PALETTE
from ridgeline.report.render import render_html
from tests.browser.conftest import VIEWPORT
from tests.browser.first_hour_logs import LEARNING_RATES, write_torch_sweep
from tests.browser.helpers import open_dashboard, serve_logdir, write_runs


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_torch_sweep(tmp_path_factory.mktemp("torch_sweep"))


@pytest.fixture(scope="module")
def sweep(logdir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    served = serve_logdir(logdir, tmp_path_factory.mktemp("server"))
    yield served.url
    served.stop()


def swatches(page: Page) -> list[tuple[str, str]]:
    """(run, colour as #rrggbb) of every row of the run list, in order."""
    rows = page.locator("[data-testid=run-selector] .run-row").evaluate_all(
        """rows => rows.map(r => [r.querySelector('input').dataset.run,
                                  getComputedStyle(r.querySelector('.swatch')).backgroundColor])"""
    )
    return [(run, hex_colour(css)) for run, css in rows]


def hex_colour(css: str) -> str:
    red, green, blue = (int(part) for part in re.findall(r"\d+", css)[:3])
    return f"#{red:02x}{green:02x}{blue:02x}"


def test_runs_take_the_palette_in_the_order_of_the_run_list(page: Page, sweep: str) -> None:
    open_dashboard(page, sweep)
    shown = swatches(page)
    assert len(shown) == 4 * len(LEARNING_RATES)  # each run, its add_hparams trial and two add_scalars sub-runs
    assert [colour for _, colour in shown] == list(PALETTE[: len(shown)])


def test_the_report_colours_the_same_runs_the_same(page: Page, sweep: str, logdir: Path) -> None:
    open_dashboard(page, sweep)
    page_colours = dict(swatches(page))
    html = render_html(collect(ridgeline.open(logdir), "sweep"))
    # Each chart's legend: a line in the run's colour, then the run's name.
    legend = re.findall(r'stroke="(#[0-9a-f]{6})" stroke-width="2"/>\s*<text [^>]*>([^<]+)</text>', html)
    assert legend, "the report drew no chart legend"
    for colour, run in legend:
        assert page_colours[run] == colour, f"{run}: the page draws it {page_colours[run]}, the report {colour}"


def test_groups_take_colours_of_their_own_named_in_a_legend(page: Page, sweep: str) -> None:
    open_dashboard(page, f"{sweep}?s.groupby=hparam&s.group=lr")
    items = page.locator("[data-testid=group-legend] li")
    expect(items).to_have_count(len(LEARNING_RATES) + 1)  # each lr, and the sub-runs without hyperparameters
    expect(items.first).to_contain_text(f"lr={LEARNING_RATES[0]}")
    colours = items.evaluate_all("items => items.map(i => i.dataset.colour)")
    assert colours == list(PALETTE[: len(colours)])  # their own sequence, not the runs' colours


def test_a_shared_link_keeps_every_runs_colour(page: Page, browser: Browser, tmp_path: Path, serve: object) -> None:
    logdir = write_torch_sweep(tmp_path / "logs")
    served = serve(logdir)  # type: ignore[operator]
    open_dashboard(page, served.url)
    rows = page.locator("[data-testid=run-selector] .run-row")
    expect(rows).to_have_count(4 * len(LEARNING_RATES))
    # A run written while the sender watches takes the next colour; sorted first, a fresh page would give it the
    # first colour and move every other run's.
    write_runs(logdir, {"adam_lr0.00001": {"loss/train": [(0, 1.0), (1, 0.5)]}})
    expect(rows).to_have_count(4 * len(LEARNING_RATES) + 1)
    sender = dict(swatches(page))
    assert sender["adam_lr0.00001"] == PALETTE[4 * len(LEARNING_RATES)]
    page.wait_for_function("() => new URLSearchParams(location.search).get('colours')?.split('.').length === 17")
    # Selecting one run also changes nothing for the receiver, who opens the link in a browser of their own.
    page.locator('[data-testid=run-selector] input[data-run="adam_lr0.1"]').click()
    page.wait_for_function("() => new URLSearchParams(location.search).has('runs')")
    link = page.url
    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1, bypass_csp=True)
    try:
        receiver = context.new_page()
        receiver.goto(link)
        expect(receiver.locator("[data-testid=run-selector] .run-row")).to_have_count(len(sender))
        assert dict(swatches(receiver)) == sender
        chart = receiver.locator('[data-testid=scalar-card][data-tag="loss/train"]')
        expect(chart).to_have_attribute("data-ready", "true")
    finally:
        context.close()
