"""The shell in a real browser: loading, the run selector, the run and tag filters, themes, the empty state."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import (
    ServedLogdir,
    card,
    noisy_curve,
    open_dashboard,
    points,
    serve_logdir,
    wait_changed,
    wait_points,
    write_runs,
)

RUNS = ("alpha/lr_0.1", "alpha/lr_0.01", "beta/lr_0.1")
TAGS = ("train/loss", "train/acc", "val/loss")


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Three runs x three tags, served for the whole module (every test gets a fresh browser context)."""
    logdir = tmp_path_factory.mktemp("sweep")
    write_runs(
        logdir,
        {
            run: {
                "train/loss": noisy_curve(100, 2.0, seed=i),
                "train/acc": [1 - v / 3 for v in noisy_curve(100, 2.0, seed=i)],
                "val/loss": [(step, v) for step, v in enumerate(noisy_curve(100, 2.5, seed=i)) if step % 5 == 0],
            }
            for i, run in enumerate(RUNS)
        },
    )
    served = serve_logdir(logdir, tmp_path_factory.mktemp("server"))
    yield served.url
    served.stop()


def test_page_loads_with_every_run_and_tag_and_no_console_errors(page: Page, sweep: str, artifacts: Path) -> None:
    open_dashboard(page, sweep)
    expect(page.locator('nav[aria-label="Dashboards"]').get_by_role("button", name="Scalars")).to_be_visible()
    for run in RUNS:
        expect(page.locator(f'[data-testid=run-selector] input[type=checkbox][data-run="{run}"]')).to_be_checked()
    for tag in TAGS:
        expect(card(page, tag)).to_have_count(1)
    for tag in ("train/loss", "train/acc"):
        expect(card(page, tag)).to_have_attribute("data-ready", "true")
        assert points(page, tag) >= 3 * 100, f"{tag}: every point of the three runs is drawn"
    page.screenshot(path=artifacts / "scalars-light.png")
    canvas = card(page, "train/loss").locator("canvas").first
    light = canvas.screenshot()
    page.locator("[data-testid=theme]").click()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    wait_changed(page, canvas.screenshot, light, "the dark theme")  # the charts redrew in the dark palette
    page.screenshot(path=artifacts / "scalars-dark.png")
    # The choice survives a reload (settings live in the URL and local storage).
    page.reload()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")


def test_runs_can_be_toggled(page: Page, sweep: str) -> None:
    open_dashboard(page, sweep)
    everything = points(page, "train/loss")
    beta = page.locator('[data-testid=run-selector] input[type=checkbox][data-run="beta/lr_0.1"]')
    beta.uncheck()
    fewer = wait_points(page, "train/loss", f"n < {everything}")
    assert fewer == everything * 2 // 3, "one run of three is no longer drawn"
    beta.check()
    wait_points(page, "train/loss", f"n === {everything}")
    page.get_by_role("button", name="Select none").click()
    for run in RUNS:
        expect(page.locator(f'input[type=checkbox][data-run="{run}"]')).not_to_be_checked()
    page.get_by_role("button", name="Select all").click()
    wait_points(page, "train/loss", f"n === {everything}")


def test_run_regex_filter_and_its_inline_error(page: Page, sweep: str) -> None:
    open_dashboard(page, sweep)
    everything = points(page, "train/loss")
    run_filter = page.locator("[data-testid=run-filter]")
    run_filter.fill("^alpha/")
    expect(page.locator('input[type=checkbox][data-run="beta/lr_0.1"]')).to_be_hidden()
    expect(page.locator('input[type=checkbox][data-run="alpha/lr_0.01"]')).to_be_visible()
    wait_points(page, "train/loss", f"n === {everything * 2 // 3}")
    run_filter.fill("alpha/(lr")
    expect(page.locator("[role=alert]:visible")).to_have_count(1)
    expect(page.locator("[role=alert]:visible")).not_to_be_empty()
    run_filter.fill("")
    expect(page.locator("[role=alert]:visible")).to_have_count(0)
    wait_points(page, "train/loss", f"n === {everything}")


def test_tag_regex_filter_and_its_inline_error(page: Page, sweep: str) -> None:
    open_dashboard(page, sweep)
    tag_filter = page.locator("[data-testid=tag-filter]")
    tag_filter.fill("^train/")
    expect(card(page, "val/loss")).to_be_hidden()
    expect(card(page, "train/loss")).to_be_visible()
    expect(card(page, "train/acc")).to_be_visible()
    tag_filter.fill("loss$")
    expect(card(page, "train/acc")).to_be_hidden()
    expect(card(page, "val/loss")).to_be_visible()
    tag_filter.fill("[val")
    expect(page.locator("[role=alert]:visible")).to_have_count(1)
    tag_filter.fill("")
    expect(page.locator("[role=alert]:visible")).to_have_count(0)
    for tag in TAGS:
        expect(card(page, tag)).to_have_count(1)


def test_an_empty_logdir_shows_how_to_write_logs(
    page: Page, tmp_path: Path, serve: Callable[[Path], ServedLogdir], artifacts: Path
) -> None:
    served = serve(tmp_path)
    page.goto(served.url)
    empty = page.locator("[data-testid=empty-state]")
    expect(empty).to_be_visible()
    expect(empty).to_contain_text("SummaryWriter")
    expect(page.locator("[data-testid=scalar-card]")).to_have_count(0)
    page.screenshot(path=artifacts / "empty-state.png")


def test_every_dashboard_tab_is_in_view_at_1280_px(
    page: Page, tmp_path: Path, serve: Callable[[Path], ServedLogdir], artifacts: Path
) -> None:
    # The demo has data for every dashboard (a graph, embeddings, audio, PR curves, hparams, ...) but the
    # profiler's: a trace beside one run's event files gives it that too. TensorBoard hides some of its tabs behind
    # an arrow at this width; ridgeline keeps each one on screen.
    from ridgeline.fixtures.demo import write_demo
    from tests.profile import handmade

    write_demo(tmp_path / "demo", steps=40)
    handmade.write(tmp_path / "demo" / "resnet" / "lr_0.1" / "gpu.1.pt.trace.json", handmade.gpu_trace(0))
    served = serve(tmp_path / "demo")
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(served.url)
    nav = page.locator('nav[aria-label="Dashboards"]')
    expected = ["Scalars", "Insights", "Distributions", "Histograms", "Images", "Graphs", "Audio", "Text"]
    expected += ["PR Curves", "Confusion", "Custom scalars", "HParams", "Runs", "Time Series", "Projector", "Profile"]
    expect(nav.get_by_role("button")).to_have_text(expected)
    boxes = nav.get_by_role("button").evaluate_all(
        "bs => bs.map(b => { const r = b.getBoundingClientRect(); return [r.left, r.right]; })"
    )
    assert all(left >= 0 and right <= 1280 for left, right in boxes), boxes
    assert nav.evaluate("n => n.scrollWidth <= n.clientWidth"), "the tab strip must not need scrolling"
    page.locator("header.topbar").screenshot(path=artifacts / "topbar-1280.png")


def test_a_log_directory_without_traces_has_no_profile_tab(
    page: Page, tmp_path: Path, serve: Callable[[Path], ServedLogdir]
) -> None:
    """The Profile tab shows for a log directory that has profiler traces, from the first paint (not only once the
    tab was opened), and never for one that has none: /api/runs lists the traces of each run."""
    from ridgeline.fixtures.demo import write_demo
    from tests.profile import handmade

    write_demo(tmp_path / "demo", steps=20)
    served = serve(tmp_path / "demo")
    page.goto(served.url)
    nav = page.locator('nav[aria-label="Dashboards"]')
    expect(nav.get_by_role("button", name="Projector", exact=True)).to_be_visible()  # every other tab is there
    expect(nav.get_by_role("button", name="Profile", exact=True)).to_have_count(0)
    page.goto(served.url + "?tab=profile")  # asked for by name: the first tab that has data instead
    expect(nav.get_by_role("button", name="Scalars", exact=True)).to_have_attribute("aria-current", "page")
    expect(nav.get_by_role("button", name="Profile", exact=True)).to_have_count(0)

    handmade.write(tmp_path / "demo" / "resnet" / "lr_0.1" / "gpu.1.pt.trace.json", handmade.gpu_trace(0))
    served = serve(tmp_path / "demo")  # a new server over the same directory, now with a trace
    page.goto(served.url)
    expect(nav.get_by_role("button", name="Profile", exact=True)).to_be_visible()
