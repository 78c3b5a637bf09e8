"""Chart cards download as PNG and SVG: the PNG is the drawn canvas under the card's title and legend, the SVG a
vector drawing of what the chart plots (axes with their ticks, one path per run in its colour). Both parse as
images: the PNG with Pillow, the SVG with xml.etree. Checked on the scalars, time series and custom scalars cards."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image
from playwright.sync_api import Locator, Page, expect

from ridgeline import SummaryWriter
from tests.browser.helpers import ServedLogdir, card, css_string, noisy_curve, open_dashboard, write_runs

SVG = "{http://www.w3.org/2000/svg}"
RUNS = {"alpha": 1.0, "beta": 2.0, "gamma": 3.0}
STEPS = 60


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, serve_module: Callable[[Path], ServedLogdir]) -> str:
    logdir = tmp_path_factory.mktemp("logs")
    runs = {run: {"train/loss": noisy_curve(STEPS, scale, seed=i)} for i, (run, scale) in enumerate(RUNS.items())}
    write_runs(logdir, runs)
    with SummaryWriter(logdir / "alpha") as writer:
        writer.add_custom_scalars({"Losses": {"every loss": ["Multiline", ["train/loss"]]}})
    return serve_module(logdir).url


def run_colours(page: Page, runs: list[str]) -> dict[str, str]:
    """Each run's colour as the sidebar's swatch computes it (rgb(...))."""
    colours: dict[str, str] = page.evaluate(
        """runs => Object.fromEntries(runs.map(run => {
            const swatch = document.querySelector(`[data-testid=run-selector] input[data-run="${run}"]`)
                .closest('label').querySelector('.swatch');
            return [run, getComputedStyle(swatch).backgroundColor];
        }))""",
        runs,
    )
    return colours


def computed(page: Page, colour: str) -> str:
    """A CSS colour as the browser computes it (so that #rrggbb and rgb(...) compare equal)."""
    value: str = page.evaluate(
        """c => { const p = document.createElement('i'); document.body.append(p); p.style.color = c;
                  const v = getComputedStyle(p).color; p.remove(); return v; }""",
        colour,
    )
    return value


def download(page: Page, where: Locator, label: str) -> tuple[str, bytes]:
    with page.expect_download() as info:
        where.get_by_role("button", name=label).click()
    return info.value.suggested_filename, Path(info.value.path()).read_bytes()


def drawn_points(page: Page, handle: str) -> dict[str, int]:
    """Per drawn curve label (the raw curves left out), how many finite points the chart plots."""
    points: dict[str, int] = page.evaluate(
        """handle => {
            const u = window.__ridgeline?.charts?.get(handle);
            const out = {};
            u.series.forEach((s, i) => {
                if (i === 0 || !s.show || !s.width) return;
                const n = Array.from(u.data[i]).filter(v => v != null && Number.isFinite(v)).length;
                out[s.label] = Math.max(out[s.label] ?? 0, n);
            });
            return out;
        }""",
        handle,
    )
    return points


def check_png(data: bytes, canvas: dict[str, int]) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    assert image.format == "PNG"
    # The chart's canvas, at the screen's pixel ratio, under the title and legend.
    assert image.width == canvas["width"] and image.height > canvas["height"]
    return image.convert("RGB")


def check_svg(page: Page, data: bytes, title: str, runs: list[str]) -> ET.Element:
    root = ET.fromstring(data)
    assert root.tag == f"{SVG}svg"
    assert not list(root.iter(f"{SVG}image")), "a vector drawing, not an embedded bitmap"
    texts = ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]
    assert title in texts and all(run in texts for run in runs)  # the title and the legend
    axes = {g.get("data-axis"): g for g in root.iter(f"{SVG}g") if g.get("class") == "axis"}
    assert {"x", "y"} <= set(axes)
    for axis in ("x", "y"):
        labels = [t.text for t in axes[axis].iter(f"{SVG}text") if t.text]
        assert len(labels) >= 2, f"the {axis} axis has its tick labels"
    return root


def lines_of(root: ET.Element) -> dict[str, ET.Element]:
    paths = [p for p in root.iter(f"{SVG}path") if p.get("data-role") == "line"]
    by_label = {p.get("data-label", ""): p for p in paths}
    assert len(by_label) == len(paths), "one path per drawn run"
    return by_label


def vertices(path: ET.Element) -> int:
    d = path.get("d", "")
    return d.count("M") + d.count("L")


def canvas_size(where: Locator) -> dict[str, int]:
    size: dict[str, int] = where.locator("canvas").first.evaluate("c => ({width: c.width, height: c.height})")
    return size


def test_scalar_card_downloads_png_and_svg(page: Page, served: str, artifacts: Path) -> None:
    open_dashboard(page, served)
    loss = card(page, "train/loss")
    expect(loss).to_have_attribute("data-ready", "true")
    runs = list(RUNS)
    name, png = download(page, loss, "Download train/loss as PNG")
    assert name == "train_loss.png"
    image = check_png(png, canvas_size(loss))
    (artifacts / "chart_download.png").write_bytes(png)
    # Each run's colour is among the PNG's pixels (its curve, and its legend swatch).
    colours = run_colours(page, runs)
    pixels = {tuple(int(v) for v in pixel) for pixel in np.asarray(image).reshape(-1, 3)}
    for run, css in colours.items():
        rgb = tuple(int(v) for v in css.removeprefix("rgb(").removesuffix(")").split(","))
        assert rgb in pixels, f"{run}'s colour {css} is not in the PNG"

    name, svg = download(page, loss, "Download train/loss as SVG")
    assert name == "train_loss.svg"
    (artifacts / "chart_download.svg").write_bytes(svg)
    root = check_svg(page, svg, "train/loss", runs)
    lines = lines_of(root)
    assert sorted(lines) == runs
    points = drawn_points(page, "train/loss")
    for run, path in lines.items():
        assert computed(page, path.get("stroke", "")) == colours[run]
        assert vertices(path) == points[run]  # every plotted point, not a picture of them
    # The smoothed curves (the default) sit over faint raw ones: those are their own paths, one per run too.
    raw = [p.get("data-label", "") for p in root.iter(f"{SVG}path") if p.get("data-role") == "raw"]
    assert sorted(raw) == [f"{run} (raw)" for run in runs]


def test_hidden_runs_are_left_out_of_the_svg(page: Page, served: str) -> None:
    open_dashboard(page, served)
    page.locator('[data-testid=run-selector] input[data-run="beta"]').uncheck()
    loss = card(page, "train/loss")
    page.wait_for_function(
        "() => window.__ridgeline?.charts?.get('train/loss').series.filter(s => s.label === 'beta').length === 0"
    )
    expect(loss).to_have_attribute("data-ready", "true")
    _, svg = download(page, loss, "Download train/loss as SVG")
    assert sorted(lines_of(check_svg(page, svg, "train/loss", ["alpha", "gamma"]))) == ["alpha", "gamma"]


def test_time_series_card_downloads_png_and_svg(page: Page, served: str) -> None:
    open_dashboard(page, served + "?tab=time_series")
    scalar = page.locator(
        f'[data-testid=time_series-card][data-kind=scalars][data-tag="{css_string("train/loss")}"] '
        "[data-testid=scalar-card]"
    )
    expect(scalar).to_have_attribute("data-ready", "true")
    _, png = download(page, scalar, "Download train/loss as PNG")
    check_png(png, canvas_size(scalar))
    _, svg = download(page, scalar, "Download train/loss as SVG")
    assert sorted(lines_of(check_svg(page, svg, "train/loss", list(RUNS)))) == list(RUNS)


def test_custom_scalars_chart_downloads_png_and_svg(page: Page, served: str) -> None:
    open_dashboard(page, served + "?tab=custom_scalars")
    chart = page.locator('[data-testid=custom_scalars-card][data-tag="every loss"]')
    expect(chart).to_have_attribute("data-ready", "true")
    name, png = download(page, chart, "Download every loss as PNG")
    assert name == "every_loss.png"
    check_png(png, canvas_size(chart))
    _, svg = download(page, chart, "Download every loss as SVG")
    root = ET.fromstring(svg)
    lines: list[Any] = [p for p in root.iter(f"{SVG}path") if p.get("data-role") == "line"]
    assert len(lines) == len(RUNS)  # one per run (each has the one matching tag)
    assert all(vertices(p) == STEPS for p in lines)


def test_distributed_chart_downloads_png_and_svg(
    page: Page, tmp_path: Path, serve: Callable[[Path], ServedLogdir]
) -> None:
    from tests.plugins.distributed.job_logs import STEPS as JOB_STEPS
    from tests.plugins.distributed.job_logs import write_job

    open_dashboard(page, serve(write_job(tmp_path / "job")).url + "?tab=distributed")
    chart = page.locator('[data-testid=distributed-chart][data-tag="loss"]')
    expect(chart).to_have_attribute("data-ready", "true")
    _, svg = download(page, chart, "Download job · loss as SVG")
    root = ET.fromstring(svg)
    assert [p.get("data-label") for p in root.iter(f"{SVG}path") if p.get("data-role") == "line"] == ["mean"]
    assert len([p for p in root.iter(f"{SVG}path") if p.get("data-role") == "band"]) == 1  # min to max
    page.get_by_test_id("distributed-view").select_option("ranks")
    page.wait_for_function("() => window.__ridgeline.charts?.get('distributed:job:loss')?.series.length === 4")
    name, png = download(page, chart, "Download job · loss as PNG")
    assert name == "job_loss.png"
    check_png(png, canvas_size(chart))
    _, svg = download(page, chart, "Download job · loss as SVG")
    lines = lines_of(ET.fromstring(svg))
    assert sorted(lines) == ["rank 0", "rank 1", "rank 2"]  # one path per rank
    assert all(vertices(path) == JOB_STEPS for path in lines.values())


def test_pr_curve_card_downloads_png_and_svg(page: Page, tmp_path: Path, serve: Callable[[Path], ServedLogdir]) -> None:
    from tests.plugins.text_pr_logs import write_logs

    open_dashboard(page, serve(write_logs(tmp_path / "logs")).url + "?tab=pr_curves")
    pr = page.locator('[data-testid=pr-card][data-tag="pr/raw"]')
    expect(pr).to_have_attribute("data-ready", "true")
    step = pr.get_attribute("data-step")
    title = f"pr/raw · step {step}"
    name, png = download(page, pr, f"Download {title} as PNG")
    assert name == "pr_raw.png"
    check_png(png, canvas_size(pr))
    _, svg = download(page, pr, f"Download {title} as SVG")
    root = check_svg(page, svg, title, ["ridgeline", "torch"])
    lines = lines_of(root)
    assert sorted(lines) == ["ridgeline", "torch"]
    # Each curve's own x (recall) and y (precision): every drawn point of it is a vertex of its path.
    drawn: dict[str, int] = page.evaluate(
        """() => { const u = window.__ridgeline?.prCharts?.get('pr/raw');
                   return Object.fromEntries(u.series.slice(1).map((s, i) => [s.label, u.data[i + 1][0].length])); }"""
    )
    for run, path in lines.items():
        assert vertices(path) == drawn[run]
