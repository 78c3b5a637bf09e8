"""The PR curves dashboard in a real browser: a card per tag with each run's curve in its colour, the step slider,
hovering for threshold/precision/recall/TP/FP/TN/FN, and a tensor of the wrong shape explained in its card."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

from ridgeline import SummaryWriter
from tests.browser.helpers import ServedLogdir, css_string, open_dashboard
from tests.plugins.text_pr_logs import RAW_PR, write_logs


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory, serve_module: Callable[[Path], ServedLogdir]) -> str:
    return serve_module(write_logs(tmp_path_factory.mktemp("logs"))).url + "?tab=pr_curves"


def pr_card(page: Page, tag: str) -> Locator:
    return page.locator(f'[data-testid=pr-card][data-tag="{css_string(tag)}"]')


def chart(page: Page, tag: str) -> dict[str, Any]:
    """The card's uPlot: series labels and colours, and each series' [recall, precision] arrays."""
    state: dict[str, Any] = page.evaluate(
        """tag => {
            const u = window.__ridgeline?.prCharts?.get(tag);
            return {
                labels: u.series.slice(1).map(s => s.label),
                strokes: u.series.slice(1).map(s => typeof s.stroke === 'function' ? s.stroke(u, 1) : s.stroke),
                data: u.data.slice(1).map(d => [Array.from(d[0]), Array.from(d[1])]),
            };
        }""",
        tag,
    )
    return state


def test_one_curve_per_run_in_its_colour(page: Page, url: str, artifacts: Path) -> None:
    open_dashboard(page, url)
    expect(page.locator("[data-testid=pr-card]")).to_have_count(3)
    state = chart(page, "pr/raw")
    assert state["labels"] == ["ridgeline", "torch"]
    # Each curve has its run's colour: the sidebar swatch's, compared as computed CSS colours.
    same = page.evaluate(
        """([labels, strokes]) => labels.map((run, i) => {
            const swatch = document.querySelector(`[data-testid=run-selector] input[data-run="${run}"]`)
                .closest('label').querySelector('.swatch');
            const probe = document.createElement('i');
            document.body.append(probe);
            probe.style.color = strokes[i];
            const stroke = getComputedStyle(probe).color;
            probe.remove();
            return stroke === getComputedStyle(swatch).backgroundColor;
        })""",
        [state["labels"], state["strokes"]],
    )
    assert same == [True, True] and len(set(state["strokes"])) == 2
    for recall, precision in state["data"]:  # drawn in recall order, without threshold 1 (TP + FP = 0 there)
        assert recall == pytest.approx(RAW_PR["recall"][2::-1])
        assert precision == pytest.approx(RAW_PR["precision"][2::-1])
    page.screenshot(path=str(artifacts / "pr_curves.png"), full_page=True)


def test_step_slider_changes_the_curve(page: Page, url: str) -> None:
    open_dashboard(page, url)
    card = pr_card(page, "pr/cat")
    expect(card).to_have_attribute("data-step", "2")

    def torch_curve() -> list[list[float]]:
        state = chart(page, "pr/cat")
        curve: list[list[float]] = state["data"][state["labels"].index("torch")]
        return curve

    newest = torch_curve()
    card.locator("[data-testid=step-slider]").fill("0")
    expect(card).to_have_attribute("data-step", "0")
    expect(card.locator("[data-testid=step-label]")).to_contain_text("(1 of 3)")
    assert torch_curve() != newest  # torch's curve of step 0 is another curve


def test_hover_shows_threshold_precision_recall_and_counts(page: Page, url: str, artifacts: Path) -> None:
    open_dashboard(page, url)
    card = pr_card(page, "pr/raw")
    card.scroll_into_view_if_needed()
    # The point at recall 0.75, precision 0.625 (threshold 1/3: TP 8, FP 5, TN 5, FN 2), in page pixels.
    x, y = page.evaluate(
        """() => {
            const u = window.__ridgeline?.prCharts?.get('pr/raw');
            const r = u.over.getBoundingClientRect();
            return [r.left + u.valToPos(0.75, 'x'), r.top + u.valToPos(0.625, 'y')];
        }"""
    )
    page.mouse.move(x + 2, y + 1)
    tooltip = card.locator("[data-testid=pr-tooltip]")
    expect(tooltip).to_be_visible()
    row = tooltip.locator('tr[data-run="torch"] td')
    expect(row).to_have_text(["torch", "0.333", "0.625", "0.75", "8", "5", "5", "2", "0"])
    expect(tooltip.locator("thead th")).to_have_text(
        ["Run", "Threshold", "Precision", "Recall", "TP", "FP", "TN", "FN", "Step"]
    )
    card.screenshot(path=str(artifacts / "pr_curves_hover.png"))
    page.mouse.move(5, 5)
    expect(tooltip).to_have_count(0)


def test_wrong_shape_is_a_readable_error_in_its_card(page: Page, url: str, artifacts: Path) -> None:
    open_dashboard(page, url)
    card = pr_card(page, "pr/bad")
    expect(card).to_have_attribute("data-step", "1")
    expect(card.locator("[role=alert]")).to_have_count(0)  # step 1 is a good curve
    card.locator("[data-testid=step-slider]").fill("0")
    alert = card.locator("[role=alert]")
    expect(alert).to_contain_text("odd, step 0")
    expect(alert).to_contain_text("must have shape [6, n]")
    expect(alert).to_contain_text("[5, 4]")
    card.screenshot(path=str(artifacts / "pr_curves_bad_shape.png"))
    # The rest of the page keeps working.
    expect(pr_card(page, "pr/cat")).to_have_attribute("data-ready", "true")


def test_a_curve_flushed_after_the_page_loaded_appears(
    page: Page, tmp_path: Path, serve: Callable[[Path], ServedLogdir]
) -> None:
    with SummaryWriter(tmp_path / "live" / "run") as writer:
        writer.add_pr_curve_raw("pr/live", *RAW_PR.values(), global_step=0, num_thresholds=4)
        writer.flush()
        open_dashboard(page, serve(tmp_path / "live").url + "?tab=pr_curves")
        card = pr_card(page, "pr/live")
        expect(card).to_have_attribute("data-step", "0")
        flipped = {key: values[::-1] for key, values in RAW_PR.items()}  # recall rising with the threshold
        writer.add_pr_curve_raw("pr/live", *flipped.values(), global_step=3, num_thresholds=4)
        writer.flush()
        expect(card).to_have_attribute("data-step", "3")
        expect(card.locator("[data-testid=step-label]")).to_contain_text("(2 of 2)")
