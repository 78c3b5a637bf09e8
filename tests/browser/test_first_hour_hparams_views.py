"""Issue 16, the hparams views at 1280×800, in a real browser over a sweep written by torch's add_hparams (one
value per metric and run, long hyperparameter and metric names): one column per metric (its final and best are
the same value), parallel coordinates that fit the panel with titles inside the plot and clear of each other, and
a scatter matrix whose points stay inside their frames, clear of the tick labels."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import css_string, open_dashboard, serve_logdir

METRICS = ("hparam/validation_accuracy_top1_ema", "hparam/train_loss_at_the_end_of_training")
OPTIMIZERS = ("adam", "sgd")
LEARNING_RATES = (0.0001, 0.001, 0.01, 0.1)


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from torch.utils.tensorboard import SummaryWriter

    logdir = tmp_path_factory.mktemp("torch_hparams")
    for i, (optimizer, lr) in enumerate((o, lr) for o in OPTIMIZERS for lr in LEARNING_RATES):
        writer = SummaryWriter(str(logdir / f"{optimizer}_lr{lr}"))
        for step in range(5):
            writer.add_scalar("loss/train", 1.0 / (step + 1 + i), step)
        hparams = {
            "lr": lr,
            "optimizer": optimizer,
            "batch_size": 32 * (1 + i % 2),
            "dropout_probability_of_attention_layers": 0.1 * (i % 3),
            "weight_decay_for_all_but_layer_norm": 0.01 * (i % 2),
        }
        writer.add_hparams(hparams, {METRICS[0]: 0.5 + i / 20, METRICS[1]: 1.0 - i / 10}, run_name="1796175606.5")
        writer.close()
    served = serve_logdir(logdir, tmp_path_factory.mktemp("server"))
    yield served.url
    served.stop()


def open_hparams(page: Page, url: str) -> None:
    open_dashboard(page, f"{url}?tab=hparams")
    for view in ("table", "parallel", "scatter"):
        expect(page.locator(f"[data-testid=hparams-card][data-tag={view}]")).to_have_attribute("data-ready", "true")


def intersects(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


def boxes(page: Page, selector: str) -> list[dict[str, Any]]:
    return page.locator(selector).evaluate_all(
        """els => els.map(e => {
            const r = e.getBoundingClientRect();
            return {x: r.x, y: r.y, width: r.width, height: r.height};
        })"""
    )


def test_a_metric_with_one_value_per_run_has_one_column(page: Page, sweep: str) -> None:
    open_hparams(page, sweep)
    headers = page.locator("[data-testid=hparams-table] thead th[aria-sort]")
    for metric in METRICS:
        final = headers.locator(f'xpath=self::*[@data-col="m:{metric}:final"]')
        expect(final).to_have_count(1)
        expect(final).not_to_contain_text("final")
        expect(headers.locator(f'xpath=self::*[@data-col="m:{metric}:best"]')).to_have_count(0)
    axes = page.locator("[data-testid=hparams-parallel] g.hp-axis")
    expect(axes).to_have_count(5 + len(METRICS))


def test_parallel_coordinates_fit_the_panel_with_titles_clear_of_each_other(page: Page, sweep: str) -> None:
    open_hparams(page, sweep)
    plot = page.locator("[data-testid=hparams-parallel]")
    svg = plot.locator("svg").first
    panel, drawn = plot.bounding_box(), svg.bounding_box()
    assert panel is not None and drawn is not None
    assert drawn["width"] <= panel["width"] + 1, "the plot fits the panel: no axis is cut off"
    assert drawn["width"] >= 0.9 * panel["width"], "the plot spreads over the panel's width"
    titles = boxes(page, "[data-testid=hparams-parallel] text.hp-axis-label")
    assert len(titles) == 5 + len(METRICS)
    for title in titles:  # the last axis's title included
        assert drawn["x"] - 0.5 <= title["x"] and title["x"] + title["width"] <= drawn["x"] + drawn["width"] + 0.5
        assert drawn["y"] - 0.5 <= title["y"]
    for i, a in enumerate(titles):
        for b in titles[i + 1 :]:
            assert not intersects(a, b), f"axis titles overlap: {a} and {b}"
    # A title cut to fit keeps its whole text on hover.
    last = page.locator("[data-testid=hparams-parallel] g.hp-axis").last
    assert last.locator("title").first.text_content() == METRICS[1]


def test_scatter_points_stay_inside_their_frames_clear_of_the_tick_labels(page: Page, sweep: str) -> None:
    open_hparams(page, sweep)
    cells = page.locator("[data-testid=hparams-scatter] svg.hp-cell")
    assert cells.count() == 5 * len(METRICS)  # one row per metric
    for index in range(cells.count()):
        cell = cells.nth(index)
        frame = cell.locator("rect.hp-cell-frame").bounding_box()
        assert frame is not None
        ticks = [t for t in (cell.locator("text.hp-tick").all()) if t.bounding_box()]
        tick_boxes = [t.bounding_box() for t in ticks]
        points = [p.bounding_box() for p in cell.locator("circle.hp-point").all()]
        assert len(points) == len(OPTIMIZERS) * len(LEARNING_RATES)
        name = f"{cell.get_attribute('data-y')} against {cell.get_attribute('data-x')}"
        for point in points:
            assert point is not None
            assert frame["x"] <= point["x"] and point["x"] + point["width"] <= frame["x"] + frame["width"], name
            assert frame["y"] <= point["y"] and point["y"] + point["height"] <= frame["y"] + frame["height"], name
            for tick in tick_boxes:
                assert tick is not None and not intersects(point, tick), f"{name}: a point on a tick label"
    # The selected point (drawn bigger) stays inside too.
    run = f"{OPTIMIZERS[0]}_lr{LEARNING_RATES[0]}"
    page.locator(f'[data-testid=hparams-table] tr[data-run="{css_string(run)}"]').click()
    chosen = page.locator("[data-testid=hparams-scatter] circle.hp-point-selected")
    expect(chosen.first).to_be_visible()
    for index in range(chosen.count()):
        box = chosen.nth(index).bounding_box()
        frame = chosen.nth(index).locator("xpath=..").locator("rect.hp-cell-frame").bounding_box()
        assert box is not None and frame is not None
        assert frame["x"] <= box["x"] and box["x"] + box["width"] <= frame["x"] + frame["width"]
