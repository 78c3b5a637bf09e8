"""The custom scalars dashboard in a real browser, on layouts written by torch's SummaryWriter and ridgeline's:
categories as collapsible sections, multiline charts (runs in their colours, tags by dash, named in a legend),
margin charts (a filled band), a bad regex and an empty chart shown in their cards, the tag filter, live data."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

from ridgeline import SummaryWriter
from ridgeline.format.proto import custom_scalars_pb2
from ridgeline.writer import summaries
from tests.browser.helpers import ServedLogdir, css_string, drag_zoom, noisy_curve, serve_logdir, wait_charts_ready

TORCH_LAYOUT = {
    "Losses": {
        # Regexes match from the tag's start (re.match, as TensorBoard): "$" keeps loss/train_min out.
        "train and val": ["Multiline", ["loss/train$", "loss/val"]],
        "train loss with its range": ["Margin", ["loss/train", "loss/train_min", "loss/train_max"]],
    },
    "Accuracy": {"every accuracy": ["Multiline", [r"acc/.*"]]},
}
RIDGELINE_LAYOUT = {
    "Losses": {"all losses": ["Multiline", ["loss/", "(bad"]]},  # merged into torch's category
    "Other": {"nothing matches": ["Multiline", ["^nope$"]]},
}


def write_logdir(logdir: Path) -> Path:
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    torch_writer = TorchWriter(str(logdir / "torch_run"))
    torch_writer.add_custom_scalars(TORCH_LAYOUT)
    train = noisy_curve(100, 2.0, seed=1)
    for step in range(100):
        torch_writer.add_scalar("loss/train", train[step], step)
        torch_writer.add_scalar("loss/train_min", train[step] * 0.7, step)
        torch_writer.add_scalar("loss/train_max", train[step] * 1.3, step)
        torch_writer.add_scalar("loss/val", train[step] * 1.1 + 0.1, step)
        torch_writer.add_scalar("acc/top1", 1 - math.exp(-step / 30), step)
        torch_writer.add_scalar("acc/top5", 1 - 0.5 * math.exp(-step / 20), step)
    torch_writer.close()
    with SummaryWriter(logdir / "z_empty") as writer:
        # An empty chart (neither multiline nor margin), as another writer might leave one.
        layout = custom_scalars_pb2.Layout(category=[custom_scalars_pb2.Category(title="Other")])
        layout.category[0].chart.add(title="empty chart")
        summary = summaries.custom_scalars({"Other": {"x": ["Multiline", ["x"]]}})
        summary.value[0].tensor.string_val[0] = layout.SerializeToString()
        writer._write_summary("add_custom_scalars", summary, None, None)
    with SummaryWriter(logdir / "ridgeline_run") as writer:
        writer.add_custom_scalars(RIDGELINE_LAYOUT)
        for step, value in enumerate(noisy_curve(80, 1.5, seed=2)):
            writer.add_scalar("loss/train", value, step)
            writer.add_scalar("loss/aux", value / 2, step)
    with SummaryWriter(logdir / "plain_run") as writer:
        writer.add_scalar("loss/train", 1.0, 0)
    return logdir


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    logdir = write_logdir(tmp_path_factory.mktemp("custom_scalars"))
    server = serve_logdir(logdir, tmp_path_factory.mktemp("server"))
    yield server.url
    server.stop()


def cs_card(page: Page, title: str) -> Locator:
    return page.locator(f'[data-testid=custom_scalars-card][data-tag="{css_string(title)}"]')


def chart(page: Page, handle: str) -> dict[str, Any]:
    state: dict[str, Any] | None = page.evaluate(
        """handle => {
            const u = window.__ridgeline && window.__ridgeline?.charts?.get('custom_scalars:' + handle);
            if (!u) return null;
            return {
                labels: u.series.slice(1).map(s => String(s.label)),
                dashes: u.series.slice(1).map(s => s.dash ? s.dash.join(',') : ''),
                strokes: u.series.slice(1).map(s => String(typeof s.stroke === 'function' ? s.stroke(u, 1) : s.stroke)),
                bands: (u.bands || []).length,
                columns: u.data.length,
            };
        }""",
        handle,
    )
    assert state is not None, f"no chart {handle!r}"
    return state


def open_custom_scalars(page: Page, url: str) -> None:
    page.goto(url)
    page.locator('nav[aria-label="Dashboards"] button[data-dashboard="custom_scalars"]').click()
    expect(page.locator("[data-testid=custom_scalars-card]").first).to_be_visible()
    wait_charts_ready(page)


def test_categories_multiline_and_margin_charts(page: Page, served: str, artifacts: Path) -> None:
    open_custom_scalars(page, served)
    sections = page.locator(".rl-custom-scalars section.rl-group")
    # Merged in run order (ridgeline_run, torch_run, z_empty): a category seen again gets the new charts appended.
    assert sections.evaluate_all("s => s.map(x => x.dataset.category)") == ["Losses", "Other", "Accuracy"]
    titles = page.locator("[data-testid=custom_scalars-card]").evaluate_all("c => c.map(x => x.dataset.tag)")
    assert titles == [
        "all losses",
        "train and val",
        "train loss with its range",
        "nothing matches",
        "empty chart",
        "every accuracy",
    ]
    for title in ("train and val", "train loss with its range", "all losses", "every accuracy"):
        expect(cs_card(page, title)).to_have_attribute("data-ready", "true")
        assert int(cs_card(page, title).get_attribute("data-points") or 0) > 0

    # Multiline: each (run, tag) a line, the run's colour, one dash per tag; the legend names the tags.
    both = chart(page, "Losses/train and val")
    main = [
        i for i, label in enumerate(both["labels"]) if "(raw)" not in label and not label.endswith((" max", " min"))
    ]
    assert [both["labels"][i] for i in main] == [
        "plain_run · loss/train",
        "ridgeline_run · loss/train",
        "torch_run · loss/train",
        "torch_run · loss/val",
    ]
    dash = {both["labels"][i]: both["dashes"][i] for i in main}
    assert dash["torch_run · loss/train"] == dash["ridgeline_run · loss/train"] == ""
    assert dash["torch_run · loss/val"] != ""
    stroke = {both["labels"][i]: both["strokes"][i] for i in main}
    assert stroke["torch_run · loss/train"] == stroke["torch_run · loss/val"] != stroke["ridgeline_run · loss/train"]
    legend = cs_card(page, "train and val").locator("[data-legend-tag]")
    assert legend.evaluate_all("l => l.map(x => x.dataset.legendTag)") == ["loss/train", "loss/val"]

    # Margin: the value line plus two band edges and a filled band for the run that has the bounds; the value
    # line alone for the runs that have only the value tag.
    margin = chart(page, "Losses/train loss with its range")
    assert margin["labels"] == [
        "plain_run · loss/train",
        "ridgeline_run · loss/train",
        "torch_run · loss/train",
        "torch_run · loss/train upper (loss/train_max)",
        "torch_run · loss/train lower (loss/train_min)",
    ]
    assert margin["bands"] == 1

    # The merged category: ridgeline's chart and its regexes, across every run's tags (re.match from the start).
    all_losses = chart(page, "Losses/all losses")
    tags = {label.split(" · ")[1] for label in all_losses["labels"] if "(raw)" not in label}
    assert {"loss/aux", "loss/train", "loss/val", "loss/train_min", "loss/train_max"} <= tags
    expect(cs_card(page, "all losses").locator("[role=note]")).to_contain_text("(bad")
    expect(cs_card(page, "nothing matches").locator("[data-testid=custom_scalars-placeholder]")).to_contain_text(
        "^nope$"
    )
    expect(cs_card(page, "empty chart").locator("[data-testid=custom_scalars-placeholder]")).to_contain_text("neither")
    page.screenshot(path=str(artifacts / "custom_scalars.png"), full_page=True)


def test_collapse_filter_and_run_selection(page: Page, served: str) -> None:
    open_custom_scalars(page, served)
    toggle = page.locator('section[data-category="Accuracy"] h2 button')
    expect(toggle).to_have_attribute("aria-expanded", "true")
    toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "false")
    expect(cs_card(page, "every accuracy")).to_have_count(0)
    toggle.click()
    expect(cs_card(page, "every accuracy")).to_have_count(1)

    page.locator("[data-testid=tag-filter]").fill("acc/")
    expect(page.locator("[data-testid=custom_scalars-card]")).to_have_count(1)
    expect(cs_card(page, "every accuracy")).to_be_visible()
    page.locator("[data-testid=tag-filter]").fill("")
    expect(cs_card(page, "train and val")).to_be_visible()

    # Deselecting a run takes its lines away.
    page.locator('[data-testid=run-selector] input[data-run="plain_run"]').uncheck()
    page.wait_for_function(
        """() => {
            const u = window.__ridgeline?.charts?.get('custom_scalars:Losses/train and val');
            return u && !u.series.some(s => String(s.label).startsWith('plain_run'));
        }"""
    )


def test_smoothing_setting_applies(page: Page, served: str) -> None:
    open_custom_scalars(page, served)
    before = chart(page, "Losses/train and val")
    assert any("(raw)" in label for label in before["labels"]), "smoothing 0.6 by default draws the raw curve faintly"
    page.locator("[data-testid=smoothing]").fill("0")
    page.wait_for_function(
        """() => {
            const u = window.__ridgeline?.charts?.get('custom_scalars:Losses/train and val');
            return u && !u.series.some(s => String(s.label).includes('(raw)'));
        }"""
    )


def test_tab_hidden_without_a_layout(page: Page, tmp_path: Path, serve: Callable[[Path], ServedLogdir]) -> None:
    with SummaryWriter(tmp_path / "only_scalars") as writer:
        writer.add_scalar("loss", 1.0, 0)
    served = serve(tmp_path)
    page.goto(served.url)
    expect(page.locator('nav[aria-label="Dashboards"] button[data-dashboard="scalars"]')).to_be_visible()
    expect(page.locator('nav[aria-label="Dashboards"] button[data-dashboard="custom_scalars"]')).to_have_count(0)


def test_live_points_appear(page: Page, tmp_path: Path, serve: Callable[[Path], ServedLogdir]) -> None:
    with SummaryWriter(tmp_path / "live") as writer:
        writer.add_custom_scalars({"Live": {"loss": ["Multiline", ["loss"]]}})
        for step in range(10):
            writer.add_scalar("loss", 1.0 / (step + 1), step)
        writer.flush()
        served = serve(tmp_path)
        open_custom_scalars(page, served.url)
        expect(cs_card(page, "loss")).to_have_attribute("data-points", "10")
        for step in range(10, 15):
            writer.add_scalar("loss", 1.0 / (step + 1), step)
        writer.flush()
        expect(cs_card(page, "loss")).to_have_attribute("data-points", "15")


@pytest.mark.parametrize("title", ["loss", "loss with bounds"])
def test_zooming_in_refetches_the_window_at_full_resolution(
    page: Page, tmp_path: Path, serve: Callable[[Path], ServedLogdir], title: str
) -> None:
    steps = 5000  # more than the chart's width asks for: the server reduces the series
    layout = {"Long": {"loss": ["Multiline", ["^loss$"]], "loss with bounds": ["Margin", ["loss", "lo", "hi"]]}}
    with SummaryWriter(tmp_path / "long") as writer:
        writer.add_custom_scalars(layout)
        for step, value in enumerate(noisy_curve(steps, 2.0, seed=3)):
            writer.add_scalar("loss", value, step)
            writer.add_scalar("lo", value * 0.8, step)
            writer.add_scalar("hi", value * 1.2, step)
    served = serve(tmp_path)
    open_custom_scalars(page, served.url)
    handle = f"Long/{title}"
    steps_in = """([handle, lo, hi]) => {
        const u = window.__ridgeline?.charts?.get('custom_scalars:' + handle);
        return Array.from(u.data[0]).filter(x => x >= lo && x <= hi);
    }"""
    before = page.evaluate(steps_in, [handle, 2000, 2500])
    assert 0 < len(before) < 400, "the whole run is drawn reduced"
    drag_zoom(page, cs_card(page, title), 0.4, 0.5)
    expect(cs_card(page, title).get_by_role("button", name="Reset zoom")).to_be_visible()
    # The window's steps at full resolution: every one from 2100 to 2400 (the reduced series has about 1 in 6).
    page.wait_for_function(
        f"([handle, lo, hi]) => ({steps_in})([handle, lo, hi]).length === hi - lo + 1", arg=[handle, 2100, 2400]
    )
    shown = page.evaluate(steps_in, [handle, 2100, 2400])
    assert shown == list(range(2100, 2401)), "every step of the window, as logged"
