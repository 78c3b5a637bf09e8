"""The scalars dashboard in a real browser: smoothing, log scale, the linked crosshair, live updates, tags that
need escaping, non-finite values."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from ridgeline import SummaryWriter
from tests.browser.helpers import (
    ServedLogdir,
    card,
    chart_state,
    has_chart_handles,
    noisy_curve,
    open_dashboard,
    points,
    serve_logdir,
    wait_changed,
    wait_points,
    write_runs,
)


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    logdir = tmp_path_factory.mktemp("two_runs")
    write_runs(
        logdir,
        {
            run: {"train/loss": noisy_curve(200, 3.0, seed=i), "train/acc": [1 / (1 + v) for v in noisy_curve(200)]}
            for i, run in enumerate(("run_a", "run_b"))
        },
    )
    served = serve_logdir(logdir, tmp_path_factory.mktemp("server"))
    yield served.url
    served.stop()


def drawn(page: Page, tag: str) -> Any:
    """What the chart of ``tag`` draws: its data when the page exposes its charts, else the canvas's pixels."""
    if has_chart_handles(page):
        return json.dumps(chart_state(page, tag)["data"])
    return pixels(page, tag)


def pixels(page: Page, tag: str) -> bytes:
    return card(page, tag).locator("canvas").first.screenshot()


def test_smoothing_changes_the_drawn_curve(page: Page, two_runs: str) -> None:
    open_dashboard(page, two_runs)
    smoothing = page.locator("[data-testid=smoothing]")
    assert float(smoothing.input_value()) == pytest.approx(0.6), "TensorBoard's default smoothing"
    default = drawn(page, "train/loss")
    smoothing.fill("0")
    raw = wait_changed(page, lambda: drawn(page, "train/loss"), default, "smoothing 0.6 -> 0")
    smoothing.fill("0.95")
    wait_changed(page, lambda: drawn(page, "train/loss"), raw, "smoothing 0 -> 0.95")


def test_log_scale(page: Page, two_runs: str, artifacts: Path) -> None:
    open_dashboard(page, two_runs)
    before = pixels(page, "train/loss")
    page.locator("[data-testid=y-scale]").select_option("log")
    wait_changed(page, lambda: pixels(page, "train/loss"), before, "the log y scale")
    if has_chart_handles(page):
        page.wait_for_function("window.__ridgeline?.charts?.get('train/loss').scales.y.distr === 3")
    page.screenshot(path=artifacts / "scalars-log-scale.png")


def cursor_x(page: Page, tag: str) -> dict[str, Any]:
    """The crosshair of ``tag``'s chart: uPlot's cursor (left in CSS pixels, idx the data index) when the page
    exposes its charts, else the position of the vertical cursor line."""
    if has_chart_handles(page):
        cursor: dict[str, Any] = chart_state(page, tag)["cursor"]
        return cursor
    box = card(page, tag).locator(".u-cursor-x").bounding_box()
    return {"left": None if box is None else box["x"], "idx": None}


def test_the_crosshair_is_linked_across_charts(page: Page, two_runs: str, artifacts: Path) -> None:
    open_dashboard(page, two_runs)
    over = card(page, "train/loss").locator(".u-over")
    box = over.bounding_box()
    assert box is not None, "the chart's hover layer is not on screen"
    seen = []
    for fraction in (0.25, 0.75):
        before = cursor_x(page, "train/acc")
        page.mouse.move(box["x"] + fraction * box["width"], box["y"] + box["height"] / 2)
        other = wait_changed(page, lambda: cursor_x(page, "train/acc"), before, f"hovering train/loss at {fraction}")
        hovered = cursor_x(page, "train/loss")
        assert other["left"] is not None and other["left"] >= 0, f"the other chart's crosshair is hidden: {other}"
        if hovered["idx"] is not None:
            assert other["idx"] == hovered["idx"], "both charts mark the same step (they share the steps)"
        seen.append(other["left"])
    assert seen[1] > seen[0], f"the other chart's crosshair follows the mouse: {seen}"
    page.screenshot(path=artifacts / "scalars-crosshair.png")


def test_a_value_flushed_after_the_page_loaded_appears_without_a_reload(
    page: Page, tmp_path: Path, serve: Callable[[Path], ServedLogdir]
) -> None:
    with SummaryWriter(tmp_path / "live") as writer:
        for step in range(10):
            writer.add_scalar("live/loss", 1.0 / (step + 1), step)
        writer.flush()
        served = serve(tmp_path)
        open_dashboard(page, served.url)
        before = wait_points(page, "live/loss", "n >= 10")
        # A reload would start a new document: a mark left on this one says it was not. (framenavigated would also
        # count the page's own history.replaceState, e.g. when it writes the runs' colours into the URL.)
        page.evaluate("window.__sameDocument = true")
        for step in range(10, 15):
            writer.add_scalar("live/loss", 1.0 / (step + 1), step)
        writer.flush()
        after = wait_points(page, "live/loss", f"n >= {before + 5}")
    assert after == before + 5
    assert page.evaluate("window.__sameDocument === true"), "the page was reloaded"
    if has_chart_handles(page):
        assert max(chart_state(page, "live/loss")["data"][0]) == 14


def test_tags_that_need_escaping_and_a_single_point_render(
    page: Page, tmp_path: Path, serve: Callable[[Path], ServedLogdir], artifacts: Path
) -> None:
    tags = ("Loss/训练", "acc(top-1)[val]", 'quote"and\\backslash', "single")
    write_runs(
        tmp_path,
        {"run (1)": {tag: noisy_curve(50) for tag in tags[:-1]} | {"single": [(7, 0.5)]}},
    )
    served = serve(tmp_path)
    open_dashboard(page, served.url)
    for tag in tags:
        card(page, tag).scroll_into_view_if_needed()  # cards below the fold draw once scrolled to
        expect(card(page, tag)).to_have_attribute("data-ready", "true")
    for tag in tags[:-1]:
        assert points(page, tag) == 50, tag
    assert points(page, "single") == 1
    expect(card(page, "Loss/训练")).to_contain_text("训练")
    expect(card(page, "acc(top-1)[val]")).to_contain_text("acc(top-1)[val]")
    page.screenshot(path=artifacts / "scalars-escaped-tags.png")
    card(page, "Loss/训练").screenshot(path=artifacts / "scalars-cjk-tag.png")  # glyphs, not boxes


def test_nonfinite_values_are_drawn_and_counted(
    page: Page, tmp_path: Path, serve: Callable[[Path], ServedLogdir], artifacts: Path
) -> None:
    values = noisy_curve(60)
    values[10], values[30], values[50] = math.nan, math.inf, -math.inf
    write_runs(tmp_path, {"run": {"weird/loss": values}})
    served = serve(tmp_path)
    open_dashboard(page, served.url)
    weird = card(page, "weird/loss")
    expect(weird).to_have_attribute("data-ready", "true")
    # The count of non-finite points in the card's header.
    expect(weird).to_contain_text(re.compile(r"(?<!\d)3(?!\d)[^\n]*(non-finite|nan|inf)", re.IGNORECASE))
    # Smoothing across a NaN must not turn the rest of the smoothed curve into NaN.
    before = drawn(page, "weird/loss")
    page.locator("[data-testid=smoothing]").fill("0.9")
    wait_changed(page, lambda: drawn(page, "weird/loss"), before, "smoothing 0.6 -> 0.9")
    expect(weird).to_have_attribute("data-ready", "true")
    if has_chart_handles(page):
        data = chart_state(page, "weird/loss")["data"]
        assert any(series[-1] is not None for series in data[1:]), "every curve ends non-finite after the NaN"
    page.screenshot(path=artifacts / "scalars-nonfinite.png")


def test_a_reduced_series_that_grows_live_is_reduced_again(
    page: Page, tmp_path: Path, serve: Callable[[Path], ServedLogdir]
) -> None:
    with SummaryWriter(tmp_path / "live") as writer:
        for step in range(3000):
            writer.add_scalar("live/loss", 1.0 / (step + 1), step)
        writer.flush()
        served = serve(tmp_path)
        open_dashboard(page, served.url)
        before = wait_points(page, "live/loss", "n > 0")
        assert before < 1500, "the card asks for about two points per pixel: 3,000 points are reduced"
        for step in range(3000, 6000):
            writer.add_scalar("live/loss", 1.0 / (step + 1), step)
        writer.flush()
        # Appended as they come, 3,000 more points would make the series about four times what the card asked
        # for; past twice that, the cache fetches it again, reduced over the whole range.
        page.wait_for_function(
            "() => { const u = window.__ridgeline?.charts?.get('live/loss');"
            " return u && u.data[0][u.data[0].length - 1] === 5999 && u.data[0].length < 1500; }",
        )
        after = wait_points(page, "live/loss", "n > 0")
    assert after < 1500
