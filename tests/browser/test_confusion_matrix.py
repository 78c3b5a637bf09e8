"""The confusion matrix dashboard in a real browser: a card per tag with each run's matrix of counts, the row %
toggle, the step slider, a cell's details on click, a tensor of the wrong shape named in its card, and the tab
shown only for log directories that have confusion matrices."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import Locator, Page, expect

from ridgeline import SummaryWriter
from tests.browser.helpers import ServedLogdir, css_string, open_dashboard
from tests.plugins.confusion_matrix.logs import CLASSES, expected_counts, labels, write_logs


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory, serve_module: Callable[[Path], ServedLogdir]) -> str:
    return serve_module(write_logs(tmp_path_factory.mktemp("logs"))).url + "?tab=confusion_matrix"


def cm_card(page: Page, tag: str) -> Locator:
    return page.locator(f'[data-testid=cm-card][data-tag="{css_string(tag)}"]')


def run_matrix(card: Locator, run: str) -> Locator:
    return card.locator(f'[data-testid=cm-run][data-run="{css_string(run)}"]')


def cell_texts(matrix: Locator) -> list[list[str]]:
    rows: list[list[str]] = matrix.locator("tbody tr").evaluate_all(
        "rows => rows.map(r => [...r.querySelectorAll('[data-testid=cm-cell]')].map(c => c.textContent))"
    )
    return rows


def counts_of(run: str, step: int) -> np.ndarray:
    return expected_counts(*labels(run, step), len(CLASSES))


def test_card_shows_each_runs_counts(page: Page, url: str, artifacts: Path) -> None:
    open_dashboard(page, url)
    expect(page.locator("[data-testid=cm-card]")).to_have_count(2)
    card = cm_card(page, "eval/confusion")
    expect(card).to_have_attribute("data-step", "10")
    expect(card.locator("[data-testid=cm-run]")).to_have_count(3)
    for run in ("model_a", "model_b"):
        matrix = run_matrix(card, run)
        expect(matrix.locator("thead th.rl-cm-col")).to_have_text(CLASSES)
        expect(matrix.locator("tbody th")).to_have_text(CLASSES)
        assert cell_texts(matrix) == [[str(v) for v in row] for row in counts_of(run, 10).tolist()]
    # odd's newest good step (1) is what it shows at step 10: its identity matrix of 4s.
    expect(run_matrix(card, "odd")).to_have_attribute("data-step", "1")
    assert cell_texts(run_matrix(card, "odd")) == [["4", "0", "0"], ["0", "4", "0"], ["0", "0", "4"]]
    page.screenshot(path=str(artifacts / "confusion_matrix.png"), full_page=True)


def test_normalised_toggle_shows_row_percentages(page: Page, url: str) -> None:
    open_dashboard(page, url)
    card = cm_card(page, "eval/confusion")
    matrix = run_matrix(card, "model_a")
    card.locator("[data-testid=cm-normalised]").click()
    expect(card).to_have_attribute("data-normalised", "true")
    expect(card.locator("[data-testid=cm-normalised]")).to_have_attribute("aria-pressed", "true")
    counts = counts_of("model_a", 10)
    shares = [[f"{100 * v / row.sum():.1f}%" for v in row] for row in counts]
    expect(matrix.locator("tbody tr").first.locator("[data-testid=cm-cell]")).to_have_text(shares[0])
    assert cell_texts(matrix) == shares
    card.locator("[data-testid=cm-counts]").click()
    expect(matrix.locator("tbody tr").first.locator("[data-testid=cm-cell]")).to_have_text([str(v) for v in counts[0]])


def test_step_slider_changes_the_step(page: Page, url: str) -> None:
    open_dashboard(page, url)
    card = cm_card(page, "eval/confusion")
    matrix = run_matrix(card, "model_a")
    card.locator("[data-testid=step-slider]").fill("2")  # steps 0, 1, 5, 10: index 2 is step 5
    expect(card).to_have_attribute("data-step", "5")
    expect(matrix).to_have_attribute("data-step", "5")
    expect(card.locator("[data-testid=step-label]")).to_contain_text("(3 of 4)")
    expected = [[str(v) for v in row] for row in counts_of("model_a", 5).tolist()]
    expect(matrix.locator("tbody tr").first.locator("[data-testid=cm-cell]")).to_have_text(expected[0])
    assert cell_texts(matrix) == expected
    expect(run_matrix(card, "model_b")).to_have_attribute("data-step", "0")  # model_b has no step 5


def test_clicking_a_cell_shows_its_details(page: Page, url: str, artifacts: Path) -> None:
    open_dashboard(page, url)
    card = cm_card(page, "eval/confusion")
    matrix = run_matrix(card, "model_b")
    counts = counts_of("model_b", 10)
    matrix.locator('[data-testid=cm-cell][data-row="1"][data-col="2"]').click()
    details = matrix.locator("[data-testid=cm-details]")
    expect(details.locator("[data-field=true]")).to_have_text("dog")
    expect(details.locator("[data-field=predicted]")).to_have_text("bird")
    expect(details.locator("[data-field=count]")).to_have_text(str(counts[1, 2]))
    expect(details.locator("[data-field=share]")).to_have_text(f"{100 * counts[1, 2] / counts[1].sum():.1f}%")
    expect(details).to_contain_text(f"of {counts[1].sum()}")
    card.screenshot(path=str(artifacts / "confusion_matrix_details.png"))
    # One cell selected per card: another run's click moves it there.
    run_matrix(card, "model_a").locator('[data-testid=cm-cell][data-row="0"][data-col="0"]').click()
    expect(run_matrix(card, "model_a").locator("[data-field=true]")).to_have_text("cat")
    expect(details).to_have_count(0)


def test_wrong_shape_is_named_in_its_card(page: Page, url: str) -> None:
    open_dashboard(page, url)
    card = cm_card(page, "eval/confusion")
    expect(card.locator("[role=alert]")).to_have_count(0)
    card.locator("[data-testid=step-slider]").fill("0")
    alert = card.locator("[role=alert]")
    expect(alert).to_contain_text("odd, step 0")
    expect(alert).to_contain_text("shape [n, n]")
    expect(alert).to_contain_text("[2, 3]")
    expect(run_matrix(card, "odd")).to_have_count(0)
    expect(run_matrix(card, "model_a").locator("[data-testid=cm-cell]")).to_have_count(9)


def test_the_tab_shows_only_with_confusion_matrices(
    page: Page, tmp_path: Path, serve: Callable[[Path], ServedLogdir]
) -> None:
    with SummaryWriter(tmp_path / "plain" / "run") as writer:
        writer.add_scalar("loss", 1.0, 0)
    open_dashboard(page, serve(tmp_path / "plain").url)
    nav = page.locator('nav[aria-label="Dashboards"]')
    expect(nav.get_by_role("button", name="Scalars")).to_be_visible()
    expect(nav.get_by_role("button", name="Confusion")).to_have_count(0)
    with SummaryWriter(tmp_path / "with" / "run") as writer:
        writer.add_confusion_matrix("cm", [0, 1], [1, 1], ["a", "b"], step=0)
    open_dashboard(page, serve(tmp_path / "with").url)
    nav.get_by_role("button", name="Confusion").click()
    expect(cm_card(page, "cm")).to_have_attribute("data-ready", "true")
    assert cell_texts(run_matrix(cm_card(page, "cm"), "run")) == [["0", "1"], ["0", "1"]]
