"""The scalars dashboard's card controls clicked in a real browser: the combined two-axis card, another tag as
the x axis, pin, expand, CSV/JSON downloads, log axis labels and ignore-outliers on a 3.4e38 spike."""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import (
    card,
    choose_in_combobox,
    noisy_curve,
    open_dashboard,
    points,
    serve_logdir,
    wait_changed,
    write_runs,
)

RUNS = ("run_a", "run_b")
STEPS = 50
COMBINED = "train/loss ⇄ train/acc"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    logdir = tmp_path_factory.mktemp("controls")
    spike = noisy_curve(STEPS)
    spike[25] = 3.4e38
    gap = noisy_curve(STEPS)
    gap[10] = math.nan
    write_runs(
        logdir,
        {
            run: {
                "train/loss": noisy_curve(STEPS, 3.0, seed=i),
                "train/acc": [0.5 + 0.01 * step for step in range(STEPS)],
            }
            | ({"weird/spike": spike, "weird/nan": gap} if i == 0 else {})
            for i, run in enumerate(RUNS)
        },
    )
    server = serve_logdir(logdir, tmp_path_factory.mktemp("server"))
    yield server.url
    server.stop()


def chart(page: Page, tag: str, expression: str) -> Any:
    """``expression`` evaluated with ``u`` = the uPlot chart of ``tag``."""
    return page.evaluate(f"tag => {{ const u = window.__ridgeline?.charts?.get(tag); return {expression}; }}", tag)


def test_combined_two_axis_card(page: Page, served: str, artifacts: Path) -> None:
    open_dashboard(page, served)
    choose_in_combobox(page, "Left axis tag", "train/loss")
    choose_in_combobox(page, "Right axis tag", "train/acc")
    page.get_by_role("button", name="Combine").click()
    combined = card(page, COMBINED)
    expect(combined).to_have_attribute("data-ready", "true")
    assert points(page, COMBINED) == 2 * len(RUNS) * STEPS, "both tags of both runs"
    drawn = "u.series.slice(1).filter(s => !String(s.label).endsWith('(raw)')).map(s => s.scale)"
    scales = chart(page, COMBINED, drawn)
    assert sorted(scales) == ["y", "y", "y2", "y2"], "one tag per y axis"
    assert chart(page, COMBINED, "u.axes.map(a => a.scale)") == ["x", "y", "y2"], "a second y axis on the right"
    box = combined.locator(".u-over").bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + 0.8 * box["width"], box["y"] + box["height"] / 2)
    tooltip = combined.locator(".rl-tooltip")
    expect(tooltip).to_be_visible()
    expect(tooltip).to_contain_text("run_a · train/loss")
    expect(tooltip).to_contain_text("run_b · train/acc")
    tip, frame = tooltip.bounding_box(), combined.bounding_box()
    assert tip is not None and frame is not None
    assert tip["x"] >= frame["x"] - 8 and tip["x"] + tip["width"] <= frame["x"] + frame["width"] + 8, "inside the card"
    page.screenshot(path=artifacts / "scalars-combined.png")
    combined.get_by_role("button", name="Close the combined chart").click()
    expect(combined).to_have_count(0)


def test_another_tag_as_the_x_axis(page: Page, served: str) -> None:
    open_dashboard(page, served)
    page.locator("[data-testid=x-axis]").select_option("tag")
    choose_in_combobox(page, "X axis tag", "train/acc")
    page.wait_for_function("window.__ridgeline?.charts?.get('train/loss').axes[0].label === 'train/acc'")
    xs = chart(page, "train/loss", "Array.from(u.data[0])")
    assert min(xs) == pytest.approx(0.5) and max(xs) == pytest.approx(0.5 + 0.01 * (STEPS - 1)), "x = accuracy"


def test_pin_and_expand(page: Page, served: str) -> None:
    open_dashboard(page, served)
    card(page, "train/loss").get_by_role("button", name="Pin train/loss to the top").click()
    pinned = page.locator("section[aria-label=Pinned]")
    expect(pinned.locator('[data-testid=scalar-card][data-tag="train/loss"]')).to_have_count(1)
    page.wait_for_function("new URLSearchParams(location.search).has('s.pinned')")  # kept in the URL
    acc, loss = card(page, "train/acc"), card(page, "train/loss")
    narrow = acc.bounding_box()
    acc.get_by_role("button", name="Expand train/acc to full width").click()
    expect(acc).to_have_class(re.compile(r"\brl-card-expanded\b"))
    page.wait_for_function(
        "w => window.__ridgeline?.charts?.get('train/acc').width > w", arg=(narrow or {"width": 0})["width"] * 1.5
    )
    wide, other = acc.bounding_box(), loss.bounding_box()
    assert wide is not None and other is not None and wide["width"] > 1.8 * other["width"]
    card(page, "train/loss").get_by_role("button", name="Unpin train/loss").click()
    expect(pinned).to_have_count(0)


def test_csv_and_json_downloads(page: Page, served: str) -> None:
    open_dashboard(page, served)
    loss = card(page, "train/loss")
    with page.expect_download() as download:
        loss.get_by_role("button", name="Download train/loss as CSV").click()
    assert download.value.suggested_filename == "train_loss.csv"
    rows = list(csv.DictReader(io.StringIO(Path(download.value.path()).read_text())))
    assert len(rows) == len(RUNS) * STEPS and {r["run"] for r in rows} == set(RUNS)
    assert rows[0]["tag"] == "train/loss" and float(rows[0]["value"]) == pytest.approx(noisy_curve(STEPS, 3.0)[0])
    with page.expect_download() as download:
        loss.get_by_role("button", name="Download train/loss as JSON").click()
    assert download.value.suggested_filename == "train_loss.json"
    series = json.loads(Path(download.value.path()).read_text())
    assert [s["run"] for s in series] == list(RUNS) and all(len(s["value"]) == STEPS for s in series)


def test_log_axis_labels_and_ignore_outliers(page: Page, served: str) -> None:
    open_dashboard(page, served + "?s.y=log")
    page.wait_for_function("window.__ridgeline?.charts?.get('train/loss').scales.y.distr === 3")
    labels = [v for v in chart(page, "train/loss", "u.axes[1]._values") if v]
    assert labels and "–" not in labels and "1" in labels, labels
    mantissas = {round(float(v) / 10 ** math.floor(math.log10(float(v))), 6) for v in labels}
    assert mantissas <= {1, 2, 5}, f"powers of ten with 2 and 5 between them: {labels}"
    # Ignore outliers is on by default: one 3.4e38 among values below 1.3 keeps the curve readable...
    spike = card(page, "weird/spike")
    spike.scroll_into_view_if_needed()
    expect(spike).to_have_attribute("data-ready", "true")
    page.locator("[data-testid=y-scale]").select_option("linear")
    expect(page.locator("[data-testid=outliers]")).to_be_checked()
    page.wait_for_function("window.__ridgeline?.charts?.get('weird/spike').scales.y.distr === 1")
    assert chart(page, "weird/spike", "u.scales.y.max") < 10
    # ...and turning it off shows the full range.
    page.locator("[data-testid=outliers]").uncheck()
    page.wait_for_function("window.__ridgeline?.charts?.get('weird/spike').scales.y.max > 1e38")


def test_theme_toggle_redraws_in_place_and_nan_markers_explain_themselves(page: Page, served: str) -> None:
    open_dashboard(page, served)
    page.evaluate("window.__before = window.__ridgeline?.charts?.get('train/loss')")
    canvas = card(page, "train/loss").locator("canvas").first
    light = canvas.screenshot()
    page.locator("[data-testid=theme]").click()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    # The grid and axes are redrawn in the dark theme's colours.
    wait_changed(page, canvas.screenshot, light, "the dark theme")
    assert page.evaluate("window.__before === window.__ridgeline?.charts?.get('train/loss')"), "without a rebuild"
    # A NaN is marked on the bottom edge at its step; hovering it says what it is.
    nan = card(page, "weird/nan")
    nan.scroll_into_view_if_needed()
    expect(nan).to_have_attribute("data-ready", "true")
    box = nan.locator(".u-over").bounding_box()
    assert box is not None
    x = chart(page, "weird/nan", "u.valToPos(10, 'x')")
    page.mouse.move(box["x"] + x, box["y"] + box["height"] - 4)
    expect(nan.locator(".rl-tooltip")).to_contain_text("NaN at step 10")
