"""The text dashboard in a real browser: markdown and tables rendered, injected script shown as text and never
run, the step slider, long texts scrolling, full-width cards, bad values explained in their cards."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from ridgeline import SummaryWriter
from tests.browser.helpers import ServedLogdir, css_string, open_dashboard
from tests.plugins.text_pr_logs import write_logs


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory, serve_module: Callable[[Path], ServedLogdir]) -> str:
    return serve_module(write_logs(tmp_path_factory.mktemp("logs"))).url + "?tab=text"


def text_card(page: Page, tag: str) -> Locator:
    return page.locator(f'[data-testid=text-card][data-tag="{css_string(tag)}"]')


def run_block(page: Page, tag: str, run: str) -> Locator:
    return text_card(page, tag).locator(f'[data-testid=text-run][data-run="{css_string(run)}"]')


def test_injected_script_is_shown_as_text_and_never_runs(page: Page, url: str, artifacts: Path) -> None:
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    open_dashboard(page, url)
    body = run_block(page, "notes/text_summary", "torch").locator("[data-testid=text-body]")
    # The newest step (3) holds the payload: its markup is visible as text, not turned into elements.
    expect(body).to_contain_text("<script>window.__pwned = 'script'; alert('script')</script>")
    expect(body).to_contain_text("onerror=")
    assert body.locator("script, img, [onerror]").count() == 0
    # A sentinel <img src="x"> made now has failed to load (and fired onerror) when this returns: an injected
    # one rendered earlier would have too.
    page.evaluate(
        "() => new Promise(done => { const img = document.createElement('img'); img.onerror = done; img.src = 'x'; })"
    )
    assert page.evaluate("() => window.__pwned") is None
    assert dialogs == []
    assert (
        page.locator("script:not([type=module]):not([src])").evaluate_all(
            "els => els.filter(e => e.textContent.includes('__pwned')).length"
        )
        == 0
    )
    text_card(page, "notes/text_summary").screenshot(path=str(artifacts / "text_injection.png"))


def test_markdown_tables_and_the_step_slider(page: Page, url: str, artifacts: Path) -> None:
    open_dashboard(page, url)
    card = text_card(page, "notes/text_summary")
    slider = card.locator("[data-testid=step-slider]")
    expect(card).to_have_attribute("data-step", "5")  # the newest step of any run (ridgeline wrote step 5)
    slider.fill("1")  # the steps are 0, 1, 2, 3, 5: position 1 is step 1
    expect(card).to_have_attribute("data-step", "1")
    torch = run_block(page, "notes/text_summary", "torch")
    expect(torch.locator("h1")).to_have_text("Results 1")
    expect(torch.locator("table th").first).to_have_text("metric")
    expect(torch.locator("table td").nth(1)).to_have_text("0.15")
    expect(torch.locator("strong")).to_have_text("bold")
    expect(torch.locator("code")).to_have_text("code")
    # ridgeline's run has no step 1: it shows its text of step 0, saying so.
    ridgeline_run = run_block(page, "notes/text_summary", "ridgeline")
    expect(ridgeline_run.locator("strong")).to_have_text("ridgeline")
    expect(ridgeline_run).to_contain_text("step 0")
    expect(ridgeline_run.locator("[data-testid=text-runinfo]")).to_contain_text("Python")
    card.screenshot(path=str(artifacts / "text.png"))


def test_long_texts_scroll_and_cards_use_the_full_width(page: Page, url: str) -> None:
    open_dashboard(page, url)
    body = run_block(page, "long/text_summary", "torch").locator("[data-testid=text-body]")
    expect(body).to_contain_text("line 299")
    sizes = body.evaluate(
        "el => ({client: el.clientHeight, scroll: el.scrollHeight, overflow: getComputedStyle(el).overflowY})"
    )
    assert sizes["scroll"] > sizes["client"] > 100 and sizes["overflow"] == "auto"
    main_width = page.locator("main").evaluate("el => el.clientWidth")
    card_width = text_card(page, "long/text_summary").evaluate("el => el.getBoundingClientRect().width")
    assert card_width > 0.9 * main_width - 40  # one card per row, not a narrow cell


def test_tables_rank_three_and_invalid_utf8(page: Page, url: str, artifacts: Path) -> None:
    open_dashboard(page, url)
    table = run_block(page, "table", "odd").locator("table.rl-text-table")
    expect(table.locator("tr")).to_have_count(2)
    expect(table.locator("td strong")).to_have_text("a")  # each cell is markdown
    expect(table.locator("td").nth(3)).to_have_text("d")
    cube = run_block(page, "cube", "odd")
    expect(cube).to_contain_text("first 2-D slice")
    expect(cube.locator("td")).to_have_text(["x", "y", "z", "w"])
    bad = run_block(page, "bad_utf8", "odd")
    expect(bad.locator("[data-testid=text-invalid-utf8]")).to_be_visible()
    expect(bad.locator("[data-testid=text-body]")).to_have_text("caf\ufffd \ufffd ok")
    page.screenshot(path=str(artifacts / "text_page.png"), full_page=True)


def test_internal_tags_are_not_shown(page: Page, url: str) -> None:
    open_dashboard(page, url)
    tags = page.locator("[data-testid=text-card]").evaluate_all("cards => cards.map(c => c.dataset.tag)")
    assert sorted(tags) == ["bad_utf8", "cube", "long/text_summary", "notes/text_summary", "table"]


def test_a_text_flushed_after_the_page_loaded_appears(
    page: Page, tmp_path: Path, serve: Callable[[Path], ServedLogdir]
) -> None:
    with SummaryWriter(tmp_path / "live" / "run") as writer:
        writer.add_text("log", "first", 0)
        writer.flush()
        open_dashboard(page, serve(tmp_path / "live").url + "?tab=text")
        card = text_card(page, "log/text_summary")
        expect(card).to_have_attribute("data-step", "0")
        writer.add_text("log", "second *entry*", 7)
        writer.flush()
        # The slider was at the newest step, so it follows the new one (auto-reload, no page reload).
        expect(card).to_have_attribute("data-step", "7")
        expect(run_block(page, "log/text_summary", "run").locator("em")).to_have_text("entry")
