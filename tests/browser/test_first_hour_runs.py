"""Issue 16, runs and their hyperparameters, in a real browser over a sweep written by torch's SummaryWriter:
add_hparams trials attached to the run they were written from (grouping, the hparams table), sub-runs nested
under their run in the run list, and the natural run order (decimals as numbers, sub-runs under their run)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.first_hour_logs import LEARNING_RATES, TRIAL, serve_sweep, sweep_run
from tests.browser.helpers import chart_state, css_string, open_dashboard


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from serve_sweep(tmp_path_factory)


def run_rows(page: Page) -> list[dict[str, str]]:
    """The run list's rows in order: each checkbox's run, the row's nesting depth and what it shows."""
    return page.locator("[data-testid=run-selector] .run-row").evaluate_all(
        """rows => rows.map(r => ({
            run: r.querySelector('input').dataset.run,
            depth: r.dataset.depth,
            label: r.querySelector('.run-name').textContent,
        }))"""
    )


def checkbox(page: Page, run: str) -> Locator:
    return page.locator(f'[data-testid=run-selector] input[data-run="{css_string(run)}"]')


def test_grouping_by_a_hyperparameter_reads_the_trial_attached_to_each_run(page: Page, sweep: str) -> None:
    open_dashboard(page, f"{sweep}?s.groupby=hparam&s.group=lr&tagFilter=%5Eloss%2Ftrain%24")
    # The hyperparameters arrive after the first drawing: wait until the chart is grouped by some value of lr.
    page.wait_for_function(
        """() => {
            const chart = window.__ridgeline?.charts?.get('loss/train');
            return !!chart && chart.series.some(s => /^lr=\\d/.test(String(s.label)));
        }"""
    )
    labels = [s["label"] for s in chart_state(page, "loss/train")["series"][1:]]
    lines = [label for label in labels if label.endswith(")")]
    # One band per learning rate, each holding the run with the curves (not one "lr=(none)" band of every run).
    assert lines == [f"lr={lr} (n=1)" for lr in LEARNING_RATES]


def test_the_hparams_table_lists_each_run_by_its_own_name(page: Page, sweep: str) -> None:
    open_dashboard(page, f"{sweep}?tab=hparams")
    table = page.locator("[data-testid=hparams-table]")
    rows = table.locator("tbody tr")
    expect(rows).to_have_count(len(LEARNING_RATES))
    assert sorted(rows.evaluate_all("rows => rows.map(r => r.dataset.run)")) == sorted(
        sweep_run(lr) for lr in LEARNING_RATES
    )
    # The run selector's tick decides which trials the table shows: the run with the curves is the trial.
    checkbox(page, sweep_run(0.1)).uncheck()
    expect(rows).to_have_count(len(LEARNING_RATES) - 1)
    expect(table.locator(f'tbody tr[data-run="{css_string(sweep_run(0.1))}"]')).to_have_count(0)


def test_sub_runs_are_nested_under_their_run_in_natural_order(page: Page, sweep: str) -> None:
    open_dashboard(page, sweep)
    expected = []
    for lr in LEARNING_RATES:  # 0.0001 < 0.001 < 0.01 < 0.1, each run followed by its sub-runs
        run = sweep_run(lr)
        expected += [
            {"run": run, "depth": "0", "label": run},
            {"run": f"{run}/{TRIAL}", "depth": "1", "label": TRIAL},
            {"run": f"{run}/loss_train", "depth": "1", "label": "loss_train"},
            {"run": f"{run}/loss_val", "depth": "1", "label": "loss_val"},
        ]
    assert run_rows(page) == expected
    # A sub-run is part of its run: unticking the run unticks them, ticking it ticks them again.
    run = sweep_run(0.01)
    checkbox(page, run).uncheck()
    for sub in (f"{run}/{TRIAL}", f"{run}/loss_train", f"{run}/loss_val"):
        expect(checkbox(page, sub)).not_to_be_checked()
    expect(checkbox(page, sweep_run(0.1))).to_be_checked()
    checkbox(page, run).check()
    expect(checkbox(page, f"{run}/loss_val")).to_be_checked()


@pytest.mark.parametrize("fmt", ["csv", "json", "tex"])
def test_the_hparams_table_downloads_as_shown(page: Page, sweep: str, fmt: str) -> None:
    open_dashboard(page, f"{sweep}?tab=hparams&hp.sort=h%3Alr&hp.dir=desc")
    expect(page.locator("[data-testid=hparams-table] tbody tr")).to_have_count(len(LEARNING_RATES))
    with page.expect_download() as info:
        page.locator(f"[data-testid=hparams-download-{fmt}]").click()
    download = info.value
    assert download.suggested_filename == f"hparams.{fmt}"
    text = Path(download.path()).read_text(encoding="utf-8")
    runs = [sweep_run(lr) for lr in sorted(LEARNING_RATES, reverse=True)]  # the table's order: lr descending
    if fmt == "csv":
        lines = text.splitlines()
        assert lines[0].split(",")[:3] == ["run", "lr", "optimizer"]
        assert [line.split(",")[0] for line in lines[1:]] == runs
        assert lines[1].split(",")[1:3] == ["0.1", "adam"]
    elif fmt == "json":
        rows = json.loads(text)
        assert [row["run"] for row in rows] == runs
        assert rows[0]["lr"] == 0.1 and rows[0]["optimizer"] == "adam"
    else:
        assert text.startswith("\\begin{tabular}")
        assert "adam\\_lr0.1 & 0.1 & adam" in text
