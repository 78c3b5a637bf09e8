"""The distributed dashboard in a real browser, over a simulated 3-rank job (tests/plugins/distributed/job_logs.py):
the straggler named, each rank's clock offset, one aggregated chart per tag with its min–max band, every rank's
line on request, and the system metrics in their own section, collapsed at first."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import ServedLogdir, card, open_dashboard
from tests.plugins.distributed.job_logs import STEPS, write_job


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory, serve_module: Callable[[Path], ServedLogdir]) -> str:
    return serve_module(write_job(tmp_path_factory.mktemp("logs"))).url + "?tab=distributed"


# The first request: the run list with the first chart's series, reduced to the window's width in device pixels
# (the browser tests' page is 1280 px wide at a ratio of 1).
FIRST = "distributed/runs?first_chart=&first_chart_points=1280"


def chart(page: Page, tag: str) -> dict[str, Any]:
    state: dict[str, Any] = page.evaluate(
        """tag => {
            const u = window.__ridgeline?.charts?.get(`distributed:job:${tag}`);
            return {labels: u.series.slice(1).map(s => s.label), x: Array.from(u.data[0]),
                    first: u.data.slice(1).map(d => d[0])};
        }""",
        tag,
    )
    return state


def test_the_straggler_offsets_and_an_aggregated_chart(page: Page, url: str, artifacts: Path) -> None:
    open_dashboard(page, url)
    expect(page.get_by_test_id("distributed-straggler")).to_contain_text("Straggler: rank 2")
    rows = page.get_by_test_id("distributed-ranks").locator("tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.nth(1).get_by_test_id("distributed-offset")).to_have_text("2000.0 ± 0.00")
    expect(rows.nth(2).get_by_test_id("distributed-flag")).to_have_text("straggler")
    expect(rows.nth(0).get_by_test_id("distributed-flag")).to_have_text("")
    expect(page.get_by_test_id("distributed-summary")).to_contain_text("sync delay median 40.0 ms")
    expect(page.locator('[data-testid=distributed-chart][data-tag="loss"][data-ready=true]')).to_have_count(1)
    state = chart(page, "loss")
    assert state["labels"] == ["mean", "max", "min"]
    assert state["x"] == list(range(STEPS))
    assert state["first"] == pytest.approx([11.0, 12.0, 10.0])  # ranks log 10 + rank at step 0
    page.screenshot(path=str(artifacts / "distributed.png"), full_page=True)


def test_every_ranks_line_and_the_statistic_selection(page: Page, url: str) -> None:
    open_dashboard(page, url)
    page.get_by_test_id("distributed-stat").select_option("max")
    page.get_by_test_id("distributed-band").select_option("none")
    page.wait_for_function("() => window.__ridgeline.charts?.get('distributed:job:loss')?.series.length === 2")
    assert chart(page, "loss")["first"] == pytest.approx([12.0])
    page.get_by_test_id("distributed-view").select_option("ranks")
    page.wait_for_function("() => window.__ridgeline.charts?.get('distributed:job:loss')?.series.length === 4")
    assert chart(page, "loss")["labels"] == ["rank 0", "rank 1", "rank 2"]
    page.get_by_test_id("distributed-x").select_option("relative")
    page.wait_for_function("() => window.__ridgeline.charts?.get('distributed:job:loss')?.data[0][1] < 1")
    # Aligned clocks: rank 1's 2 s lead is gone, so all ranks share the same relative times (a step every 0.14 s;
    # unaligned, rank 1's points would add 30 more x values, 2 s later).
    assert chart(page, "loss")["x"] == pytest.approx([0.14 * step for step in range(STEPS)], abs=1e-3)
    expect(page).to_have_url(re.compile(r"dist\.view=ranks.*dist\.x=relative|dist\.x=relative.*dist\.view=ranks"))


def test_the_first_chart_comes_with_the_run_list_and_rank_lines_only_when_shown(page: Page, url: str) -> None:
    """One request before the first chart draws (boot.js asks for the run list with the first chart's series), and
    each rank's own line is asked for only once the chart shows them."""
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url.split("/api/", 1)[1]) if "/api/distributed/" in r.url else None)
    open_dashboard(page, url + "&autoReload=false")  # no shell tick: every request below is the page's own
    expect(page.locator('[data-testid=distributed-chart][data-tag="loss"][data-ready=true]')).to_have_count(1)
    assert chart(page, "loss")["first"] == pytest.approx([11.0, 12.0, 10.0])
    assert asked == [FIRST]
    page.get_by_test_id("distributed-view").select_option("ranks")
    page.wait_for_function("() => window.__ridgeline.charts?.get('distributed:job:loss')?.series.length === 4")
    page.get_by_test_id("distributed-view").select_option("aggregate")  # drawn again from the lines' answer
    page.wait_for_function("() => window.__ridgeline.charts?.get('distributed:job:loss')?.series[1].label === 'mean'")
    assert asked == [FIRST, "distributed/series?run=job&tag=loss&lines=true"]


def test_a_long_first_chart_draws_reduced_then_every_step(
    page: Page, tmp_path: Path, serve: Callable[[Path], ServedLogdir]
) -> None:
    """The first chart's series comes reduced to the window's width (the first paint needs no more), with the
    min-max band over every rank's extremes; once drawn, the chart asks for every step and draws those."""
    from ridgeline import SummaryWriter

    for rank in range(2):
        with SummaryWriter(tmp_path / "logs" / "job", rank=rank) as writer:
            for step in range(5000):
                writer.add_scalar("loss", 1.0 + rank + (9.0 if (rank, step) == (1, 2345) else 0.0), step)
    page.set_viewport_size({"width": 1280, "height": 800})
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url.split("/api/", 1)[1]) if "/api/distributed/" in r.url else None)
    open_dashboard(page, serve(tmp_path / "logs").url + "?tab=distributed&autoReload=false")
    expect(page.locator('[data-testid=distributed-chart][data-tag="loss"][data-ready=true]')).to_have_count(1)
    page.wait_for_function("() => window.__ridgeline.charts?.get('distributed:job:loss')?.data[0].length === 5000")
    assert asked == [FIRST, "distributed/series?run=job&tag=loss&lines=false"]
    assert page.evaluate("() => Math.max(...window.__ridgeline?.charts?.get('distributed:job:loss').data[2])") == 11.0


def test_the_tab_opened_from_another_asks_for_its_first_chart_itself(page: Page, url: str) -> None:
    """Without boot.js's request (the page opened on another tab), the dashboard's own first request brings the
    first chart along."""
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url.split("/api/", 1)[1]) if "/api/distributed/" in r.url else None)
    open_dashboard(page, url.replace("?tab=distributed", "?tab=scalars&autoReload=false"))
    assert asked == []
    page.locator("button.tab[data-dashboard=distributed]").click()
    expect(page.locator('[data-testid=distributed-chart][data-tag="loss"][data-ready=true]')).to_have_count(1)
    assert chart(page, "loss")["first"] == pytest.approx([11.0, 12.0, 10.0])
    assert asked == [FIRST]


def test_system_metrics_are_a_collapsed_section(page: Page, url: str) -> None:
    open_dashboard(page, url)
    system = page.locator('[data-testid=distributed-chart][data-tag="sys/cpu/system_percent"]')
    expect(page.get_by_test_id("distributed-system-toggle")).to_have_attribute("aria-expanded", "false")
    expect(system).to_have_count(0)
    page.get_by_test_id("distributed-system-toggle").click()
    expect(system.and_(page.locator("[data-ready=true]"))).to_have_count(1)


def test_the_scalars_page_starts_with_the_system_metrics_collapsed(page: Page, url: str) -> None:
    open_dashboard(page, url.replace("?tab=distributed", "?tab=scalars"))
    system = page.locator('section[data-group="sys"] h2 button')
    expect(system).to_have_attribute("aria-expanded", "false")
    expect(card(page, "loss")).to_be_visible()
    expect(card(page, "sys/cpu/system_percent")).to_have_count(0)
    system.click()
    expect(system).to_have_attribute("aria-expanded", "true")
    expect(card(page, "sys/cpu/system_percent")).to_be_visible()


def test_the_insights_panel_names_the_straggler(page: Page, url: str) -> None:
    page.goto(url.replace("?tab=distributed", "?tab=insights"))
    panel = page.get_by_test_id("insights-stragglers")
    expect(panel).to_contain_text("job: rank 2 keeps the others waiting (score 0.71)")


def test_the_chart_of_a_64_rank_job_is_in_view_below_its_ranks_table(
    page: Page, tmp_path: Path, serve: Callable[[Path], ServedLogdir]
) -> None:
    from ridgeline import SummaryWriter

    for rank in range(64):
        with SummaryWriter(tmp_path / "logs" / "big", rank=rank) as writer:
            for step in range(5):
                writer.add_scalar("loss", 1.0 / (step + 1) + rank, step, walltime=1_780_000_000.0 + step)
    page.set_viewport_size({"width": 1280, "height": 800})
    open_dashboard(page, serve(tmp_path / "logs").url + "?tab=distributed")
    expect(page.get_by_test_id("distributed-ranks").locator("tbody tr")).to_have_count(64)
    chart = page.locator('[data-testid=distributed-chart][data-tag="loss"]')
    expect(chart).to_have_attribute("data-ready", "true")  # drawn: in view without scrolling the page
    box = chart.bounding_box()
    assert box is not None and box["y"] < 800, box
