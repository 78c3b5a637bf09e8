"""The hparams dashboard in a real browser, over sweeps written by torch's add_hparams and the TF2 hparams
plugin: values as written, sorting and filtering (mixed types included), hidden columns, every column
reachable, a click highlighting a trial in the three views, and the link to its scalars."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

import ridgeline
from tests.browser.helpers import after_next_frame, card, css_string, open_dashboard, serve_logdir
from tests.plugins.hparams.hparams_logs import (
    write_bad_hparams,
    write_ridgeline_sweep,
    write_tf2_sweep,
    write_torch_sweep,
)

# torch's add_hparams trials (lr_0.1/1700000000.0, ...) are listed as the runs they were written from.
FAST = "lr_0.1"  # lr 0.1, batch 32, augment true
SLOW = "lr_0.01"  # lr 0.01, batch "auto", augment false, NaN loss
SMALL = "lr_0.001"  # lr 0.001, batch 128


@pytest.fixture(scope="module")
def torch_sweep(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    logdir = tmp_path_factory.mktemp("torch_sweep")
    write_torch_sweep(logdir)
    served = serve_logdir(logdir, tmp_path_factory.mktemp("server"))
    yield served.url
    served.stop()


def table(page: Page) -> Locator:
    return page.locator("[data-testid=hparams-table]")


def cell(page: Page, run: str, column: str) -> Locator:
    return table(page).locator(f'tr[data-run="{css_string(run)}"] td[data-col="{css_string(column)}"]')


def header(page: Page, column: str) -> Locator:
    return table(page).locator(f'thead th[aria-sort][data-col="{css_string(column)}"]')


def row_order(page: Page) -> list[str]:
    return table(page).locator("tbody tr").evaluate_all("rows => rows.map(r => r.dataset.run)")


# A point of a parallel-coordinates line a little right of its first axis (where every trial has its own height,
# clear of the axis' brush strip), in page coordinates: what a person clicks.
ON_THE_LINE = """path => {
  const p = path.getPointAtLength(45).matrixTransform(path.getScreenCTM());
  return [p.x, p.y];
}"""


def open_hparams(page: Page, url: str, query: str = "") -> None:
    open_dashboard(page, f"{url}?tab=hparams{query}")
    for view in ("table", "parallel", "scatter"):
        expect(page.locator(f"[data-testid=hparams-card][data-tag={view}]")).to_have_attribute("data-ready", "true")


def screenshot(page: Page, path: Path) -> None:
    """The whole dashboard (its page scrolls inside the shell's main area: a taller window shows all of it)."""
    page.set_viewport_size({"width": 1280, "height": 1700})
    after_next_frame(page)  # laid out and painted at the new size
    page.screenshot(path=path)


def test_values_as_written(page: Page, torch_sweep: str, artifacts: Path) -> None:
    open_hparams(page, torch_sweep)
    expect(page.locator('nav[aria-label="Dashboards"] button[data-dashboard="hparams"]')).to_have_attribute(
        "aria-current", "page"
    )
    expect(table(page).locator("tbody tr")).to_have_count(3)
    expect(cell(page, FAST, "h:lr")).to_have_text("0.1")
    expect(cell(page, FAST, "h:batch")).to_have_text("32")  # not 32.000
    expect(cell(page, SMALL, "h:batch")).to_have_text("128")
    expect(cell(page, SLOW, "h:batch")).to_have_text("auto")  # the mixed column shows both types
    expect(cell(page, FAST, "h:augment")).to_have_text("true")  # torch's 1.0, declared a bool by its domain
    expect(cell(page, SLOW, "h:augment")).to_have_text("false")
    expect(cell(page, FAST, "h:ema")).to_have_text("1")  # a bool torch wrote without a domain: only 1 is known
    expect(cell(page, SLOW, "m:hparam/loss:final")).to_have_text("NaN")
    expect(cell(page, FAST, "m:hparam/loss:final")).to_have_text("0.9")  # float32 0.8999999761581421
    expect(header(page, "h:batch")).to_contain_text("mixed")
    row = table(page).locator(f'tr[data-run="{css_string(SMALL)}"]')
    row.focus()
    page.keyboard.press("Enter")  # rows are reachable with the keyboard too
    expect(row).to_have_attribute("aria-selected", "true")
    screenshot(page, artifacts / "hparams-torch.png")


def test_sorting_and_filtering_mixed_types(page: Page, torch_sweep: str) -> None:
    open_hparams(page, torch_sweep)
    sort = table(page).locator('button.hp-sort[data-col="h:batch"]')
    sort.click()
    assert row_order(page) == [FAST, SMALL, SLOW]  # 32, 128, then the string "auto"
    sort.click()
    assert row_order(page) == [SLOW, SMALL, FAST]
    table(page).locator('button.hp-sort[data-col="m:hparam/loss:final"]').click()
    assert row_order(page) == [SMALL, FAST, SLOW]  # 0.25, 0.9, NaN

    values = table(page).locator('[data-testid=hparams-filter-values][data-col="h:batch"]')
    values.locator("summary").click()
    values.locator('input[data-key="s:auto"]').uncheck()
    expect(table(page).locator("tbody tr")).to_have_count(2)
    expect(page.locator("[data-testid=hparams-count]")).to_contain_text("2 of 3 trials")
    values.locator("summary").click()

    table(page).locator('[data-testid=hparams-filter-min][data-col="h:lr"]').fill("0.005")
    table(page).locator('[data-testid=hparams-filter-min][data-col="h:lr"]').press("Enter")
    expect(table(page).locator("tbody tr")).to_have_count(1)
    assert row_order(page) == [FAST]
    expect(page.locator("[data-testid=hparams-parallel] path.hp-line")).to_have_count(1)
    page.locator("[data-testid=hparams-clear-filters]").click()
    expect(table(page).locator("tbody tr")).to_have_count(3)

    # Brushing the lr axis from its middle (0.01 on the log axis) to the top keeps 0.01 and 0.1.
    strip = page.locator('[data-testid=hparams-brush][data-col="h:lr"]').bounding_box()
    assert strip
    x, top, height = strip["x"] + strip["width"] / 2, strip["y"] + 4, strip["height"] - 8
    page.mouse.move(x, top + height * 0.6)
    page.mouse.down()
    page.mouse.move(x, top + height * 0.3, steps=4)
    page.mouse.move(x, top - 3, steps=4)  # past the top: no upper bound
    page.mouse.up()
    expect(table(page).locator("tbody tr")).to_have_count(2)
    assert sorted(row_order(page)) == sorted([FAST, SLOW])
    expect(page.locator('[data-testid=hparams-parallel] rect.hp-brush[data-col="h:lr"]')).to_have_count(1)
    low = table(page).locator('[data-testid=hparams-filter-min][data-col="h:lr"]').input_value()
    assert 0.001 < float(low) < 0.01  # the table shows the brushed range
    page.mouse.click(x, top + height * 0.5)  # a click on the axis clears its filter
    expect(table(page).locator("tbody tr")).to_have_count(3)


def test_columns_hide_and_every_column_is_reachable(page: Page, torch_sweep: str) -> None:
    open_hparams(page, torch_sweep)
    last = header(page, "m:hparam/loss:final")
    wrap = page.locator("[data-testid=hparams-table-wrap]")
    run_header = table(page).locator("thead th.hp-run-col").first
    last.scroll_into_view_if_needed()
    wrap_box, header_box, run_box = wrap.bounding_box(), last.bounding_box(), run_header.bounding_box()
    assert wrap_box and header_box and run_box
    assert header_box["x"] + header_box["width"] <= wrap_box["x"] + wrap_box["width"] + 1  # the last column shows
    assert wrap.evaluate("el => el.scrollLeft") > 0
    assert abs(run_box["x"] - wrap_box["x"]) <= 2  # the run column stays at the left edge

    menu = page.locator("[data-testid=hparams-columns]")
    menu.locator("summary").click()
    menu.locator('input[data-col="m:hparam/loss:final"]').uncheck()
    menu.locator('input[data-col="h:ema"]').uncheck()
    menu.locator("summary").click()
    expect(header(page, "m:hparam/loss:final")).to_have_count(0)
    expect(page.locator('[data-testid=hparams-parallel] g.hp-axis[data-col="h:ema"]')).to_have_count(0)
    expect(page.locator('[data-testid=hparams-scatter] svg[data-x="h:ema"]')).to_have_count(0)
    page.reload()  # hidden columns are kept in the URL
    expect(header(page, "h:ema")).to_have_count(0)


def test_a_click_highlights_the_trial_everywhere_and_links_to_its_scalars(page: Page, torch_sweep: str) -> None:
    open_hparams(page, torch_sweep)
    table(page).locator(f'tr[data-run="{css_string(SLOW)}"]').click()
    expect(table(page).locator(f'tr[data-run="{css_string(SLOW)}"]')).to_have_attribute("aria-selected", "true")
    expect(page.locator("[data-testid=hparams-parallel-selected]")).to_have_attribute("data-run", SLOW)
    scatter = page.locator("[data-testid=hparams-scatter]")
    expect(scatter.locator(f'circle.hp-point-selected[data-run="{css_string(SLOW)}"]').first).to_be_visible()

    line = page.locator(f'[data-testid=hparams-parallel] path.hp-hit[data-run="{css_string(FAST)}"]')
    x, y = line.evaluate(ON_THE_LINE)
    page.mouse.click(x, y)
    expect(table(page).locator(f'tr[data-run="{css_string(FAST)}"]')).to_have_attribute("aria-selected", "true")
    expect(table(page).locator(f'tr[data-run="{css_string(SLOW)}"]')).to_have_attribute("aria-selected", "false")
    scatter.locator(f'circle[data-run="{css_string(SMALL)}"]').first.click()
    expect(page.locator("[data-testid=hparams-selection]")).to_contain_text(SMALL)

    page.locator("[data-testid=hparams-selection] [data-testid=hparams-scalars-link]").click()
    nav = page.locator('nav[aria-label="Dashboards"]')
    expect(nav.locator('button[data-dashboard="scalars"]')).to_have_attribute("aria-current", "page")
    expect(page.locator("[data-testid=run-filter]")).to_have_value(r"^(lr_0\.001|lr_0\.001/1700000002\.0)$")
    expect(card(page, "train/loss")).to_have_attribute("data-ready", "true")
    expect(page.locator('[data-testid=run-selector] input[data-run="lr_0.1"]')).to_have_count(0)


def test_tf2_sweep_in_the_dark_theme(page: Page, tmp_path: Path, serve: object, artifacts: Path) -> None:
    write_tf2_sweep(tmp_path / "logs")
    served = serve(tmp_path / "logs")  # type: ignore[operator]
    open_hparams(page, served.url, "&theme=dark")
    expect(table(page).locator("tbody tr")).to_have_count(2)
    expect(cell(page, "run-1", "h:batch_norm")).to_have_text("false")
    expect(cell(page, "run-0", "h:units")).to_have_text("16")
    expect(cell(page, "run-1", "m:validation/epoch_accuracy:final")).to_have_text("0.75")
    expect(header(page, "h:optimizer")).to_contain_text("Optimizer")
    page.locator("[data-testid=hparams-colour]").select_option("m:validation/epoch_loss:final")
    table(page).locator('tr[data-run="run-0"]').click()
    screenshot(page, artifacts / "hparams-tf2-dark.png")


def test_bad_input_keeps_the_page_working(page: Page, tmp_path: Path, serve: object, artifacts: Path) -> None:
    write_bad_hparams(tmp_path / "logs")
    served = serve(tmp_path / "logs")  # type: ignore[operator]
    open_hparams(page, served.url)
    problems = page.locator("[data-testid=hparams-problems]")
    expect(problems).to_contain_text("2 hyperparameter records could not be read")
    expect(table(page).locator("tbody tr")).to_have_count(4)
    expect(cell(page, "torch/nan", "h:lr")).to_have_text("NaN")
    expect(header(page, "h:width")).to_contain_text("mixed")
    texts = {run: cell(page, run, "h:width").inner_text() for run in ("number", "string", "bool", "torch/nan")}
    assert texts == {"number": "32", "string": "wide", "bool": "true", "torch/nan": "64"}
    header(page, "h:width").locator("button").click()
    assert row_order(page) == ["number", "torch/nan", "bool", "string"]  # 32, 64, true, "wide"
    values = table(page).locator('[data-testid=hparams-filter-values][data-col="h:width"]')
    values.locator("summary").click()
    assert values.locator("input[type=checkbox]").evaluate_all("els => els.map(e => e.dataset.key)") == [
        "n:32",
        "n:64",
        "b:true",
        "s:wide",
    ]
    values.locator('input[data-key="b:true"]').uncheck()
    expect(table(page).locator("tbody tr")).to_have_count(3)
    expect(page.locator("[data-testid=hparams-parallel] path.hp-line")).to_have_count(3)
    screenshot(page, artifacts / "hparams-bad-input.png")


def test_a_new_trial_appears_on_reload(page: Page, tmp_path: Path, serve: object) -> None:
    write_ridgeline_sweep(tmp_path / "logs")
    served = serve(tmp_path / "logs")  # type: ignore[operator]
    open_hparams(page, served.url)
    expect(table(page).locator("tbody tr")).to_have_count(2)
    with ridgeline.SummaryWriter(tmp_path / "logs" / "c", hparams={"lr": 0.2, "layers": 3, "residual": True}) as w:
        w.add_scalar("loss", 0.3, 0)
        w.add_scalar("accuracy", 0.7, 0)
    expect(table(page).locator("tbody tr")).to_have_count(3)  # auto-reload is on: the next tick fetches it
    expect(cell(page, "c", "m:loss:final")).to_have_text("0.3")
