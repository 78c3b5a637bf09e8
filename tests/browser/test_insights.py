"""Insights in a real browser, on a real server over event files written with ridgeline's SummaryWriter: a NaN
and a burst of outliers injected into two runs, an overfitting train/validation pair and a healthy run. The
alerts panel lists them (sortable, filterable by kind), an alert's link opens the scalars dashboard on its
run, tag and step, scalar cards count the markers they draw, the phases and forecast toggles draw, and the
diagnosis names the overfitting run with a link to its charts. Expectations come from how the logs were
written, not from the code under test."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from ridgeline import SummaryWriter
from tests.browser.helpers import card, serve_logdir, wait_charts_ready, write_runs

STEPS = 300
NAN_STEP = 120  # nan_run's train/loss is NaN here
OUTLIER_STEPS = (150, 151, 152)  # outlier_run's train/loss jumps far above its trend here
OVERFIT_FROM = 100  # overfit's val/loss turns upwards from here while its train/loss keeps falling
EVAL_STEPS = (0, 74, 149, 224, STEPS - 1)  # healthy's eval/loss: five points
WARMUP = 30  # healthy's train/loss stays flat (a warm-up) for this many steps before it falls


def decay(i: int, seed: float = 0.0) -> float:
    """A smooth decaying loss with a little deterministic wiggle (no outlier of its own)."""
    return 0.1 + 2.0 * math.exp(-i / 60) * (1 + 0.02 * math.sin(i * 1.3 + seed))


def write_logs(logdir: Path) -> Path:
    nan_run = [(i, math.nan if i == NAN_STEP else decay(i, 1)) for i in range(STEPS)]
    outlier_run = [(i, decay(i, 2) + (50.0 if i in OUTLIER_STEPS else 0.0)) for i in range(STEPS)]
    val = [(i, decay(i, 3) + 0.004 * max(0, i - OVERFIT_FROM)) for i in range(STEPS)]
    return write_runs(
        logdir,
        {
            "healthy": {
                "train/loss": [2.1 if i < WARMUP else decay(i - WARMUP, 4) for i in range(STEPS)],
                # Too few points for phases or a forecast (the server would answer 400: the page must not ask).
                "eval/loss": [(step, decay(step, 6)) for step in EVAL_STEPS],
            },
            "nan_run": {"train/loss": nan_run},
            "outlier_run": {"train/loss": outlier_run},
            "overfit": {"train/loss": [decay(i, 5) * 0.9 for i in range(STEPS)], "val/loss": val},
        },
    )


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    logdir = write_logs(tmp_path_factory.mktemp("insights"))
    served = serve_logdir(logdir, tmp_path_factory.mktemp("server"))
    yield served.url, logdir
    served.stop()


def rows(page: Page, **attrs: str | int) -> list[dict[str, str]]:
    """The alert rows' data attributes, optionally only those matching ``attrs``."""
    found: list[dict[str, str]] = page.locator("[data-testid=alert-row]").evaluate_all(
        "rows => rows.map(r => ({...r.dataset}))"
    )
    return [r for r in found if all(r.get(k) == str(v) for k, v in attrs.items())]


# The width of the x range a tag's chart shows (JavaScript, called with the tag).
X_SPAN = "(tag => { const x = window.__ridgeline?.charts?.get(tag).scales.x; return x.max - x.min; })"


def active_tab(page: Page) -> Locator:
    return page.locator('nav[aria-label="Dashboards"] [aria-current=page]')


def open_insights(page: Page, url: str) -> None:
    page.goto(f"{url}?tab=insights")
    expect(page.locator("[data-testid=alerts-panel]")).to_be_visible()
    wait_charts_ready(page)


def test_the_alerts_panel_lists_injected_anomalies(page: Page, logs: tuple[str, Path], artifacts: Path) -> None:
    url, _ = logs
    open_insights(page, url)
    page.wait_for_function("document.querySelectorAll('[data-testid=alert-row][data-kind=nan]').length > 0")
    nan = rows(page, kind="nan", run="nan_run")
    assert [(r["tag"], r["step"]) for r in nan] == [("train/loss", str(NAN_STEP))]
    burst = [r for r in rows(page, run="outlier_run") if r["kind"] in ("outlier", "spike")]
    assert burst, "the burst of outliers raised no alert"
    assert all(int(r["step"]) in OUTLIER_STEPS or int(r["step"]) > OUTLIER_STEPS[0] for r in burst)
    assert any(int(r["step"]) in OUTLIER_STEPS for r in burst)
    assert not rows(page, run="healthy", kind="nan") and not rows(page, run="healthy", kind="inf")
    # The row says what was expected: the NaN row's value is "NaN".
    nan_row = page.locator('[data-testid=alert-row][data-kind=nan][data-run="nan_run"]')
    expect(nan_row).to_contain_text("NaN")
    page.screenshot(path=artifacts / "insights-alerts-light.png", full_page=True)

    # Filter by kind: only NaN rows; then both NaN and the outlier kinds.
    page.locator("[data-testid=alert-kind-filter][data-kind=nan]").click()
    expect(page.locator("[data-testid=alert-row]")).to_have_count(1)
    assert {r["kind"] for r in rows(page)} == {"nan"}
    page.locator("[data-testid=alert-kind-filter][data-kind=nan]").click()

    # Sort by step, ascending then descending.
    page.locator("[data-testid=alerts-sort-step]").click()
    steps = [int(r["step"]) for r in rows(page)]
    ordered = sorted(steps, reverse=True) if steps != sorted(steps) else sorted(steps)
    assert steps == ordered
    page.locator("[data-testid=alerts-sort-step]").click()
    assert [int(r["step"]) for r in rows(page)] == list(reversed(steps))

    page.locator("[data-testid=theme]").click()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    page.screenshot(path=artifacts / "insights-alerts-dark.png", full_page=True)


def test_an_alert_opens_the_scalars_chart_on_its_step(page: Page, logs: tuple[str, Path], artifacts: Path) -> None:
    url, _ = logs
    open_insights(page, url)
    link = page.locator('[data-testid=alert-row][data-kind=nan][data-run="nan_run"] [data-testid=alert-link]')
    link.click()
    expect(active_tab(page)).to_have_attribute("data-dashboard", "scalars")
    expect(page.locator("[data-testid=tag-filter]")).to_have_value("^train/loss$")
    chart = card(page, "train/loss")
    expect(chart).to_have_attribute("data-ready", "true")
    expect(page.locator("[data-testid=scalar-card]")).to_have_count(1)
    # Only nan_run is shown, and the card draws its alert marker.
    shown = page.locator("[data-testid=run-selector] input[type=checkbox]:checked")
    assert shown.evaluate_all("els => els.map(e => e.dataset.run)") == ["nan_run"]
    expect(chart).to_have_attribute("data-alerts", "1")
    # Zoomed in around the step: the x range holds NAN_STEP and is narrower than the run's 300 steps.
    page.wait_for_function(
        """step => {
            const u = window.__ridgeline?.charts?.get('train/loss');
            const {min, max} = u.scales.x;
            return min < step && step < max && max - min < 200;
        }""",
        arg=NAN_STEP,
    )
    page.screenshot(path=artifacts / "insights-alert-link.png")
    # Resetting the zoom shows the whole run again and forgets the link's spot.
    chart.locator("button", has_text="Reset zoom").click()
    page.wait_for_function(f"{X_SPAN}('train/loss') >= {STEPS - 10}")
    page.wait_for_function("() => !new URLSearchParams(location.search).has('s.focus')")


def test_markers_phases_and_forecast_on_scalar_cards(page: Page, logs: tuple[str, Path], artifacts: Path) -> None:
    url, _ = logs
    page.goto(f"{url}?tab=scalars&runFilter=%5E(outlier_run%7Cnan_run)%24&tagFilter=%5Etrain%2Floss%24")
    wait_charts_ready(page)
    chart = card(page, "train/loss")
    # The NaN and at least one alert of the burst, as markers on the card.
    page.wait_for_function(
        "() => Number(document.querySelector('[data-testid=scalar-card][data-tag=\"train/loss\"]').dataset.alerts) >= 2"
    )
    expect(chart).to_have_attribute("data-phases", "0")
    expect(chart).to_have_attribute("data-forecast", "false")

    # Hovering the NaN's step names the alert.
    hover(page, "train/loss", NAN_STEP)
    expect(chart.locator(".rl-tooltip")).to_contain_text("Alert: nan")

    page.locator("[data-testid=toggle-phases]").check()
    page.wait_for_function(
        "() => Number(document.querySelector('[data-testid=scalar-card][data-tag=\"train/loss\"]').dataset.phases) > 0"
    )
    page.locator("[data-testid=toggle-forecast]").check()
    expect(chart).to_have_attribute("data-forecast", "true")
    # The x axis grows past the last logged step to show the forecast, and the legend says where it ends.
    page.wait_for_function("last => window.__ridgeline?.charts?.get('train/loss').scales.x.max > last", arg=STEPS - 1)
    badge = chart.locator("[data-testid=forecast-final]")
    expect(badge).to_contain_text("forecast ×2")
    title = badge.get_attribute("title") or ""
    found = re.findall(r"^(\w+): forecast .* at step ([\d,]+)", title, re.M)
    finals = {run: int(step.replace(",", "")) for run, step in found}
    assert set(finals) == {"nan_run", "outlier_run"}, title
    assert all(step > STEPS - 1 for step in finals.values()), title
    # Both stay on across a reload (kept in the URL and localStorage).
    page.reload()
    wait_charts_ready(page)
    expect(page.locator("[data-testid=toggle-phases]")).to_be_checked()
    expect(card(page, "train/loss")).to_have_attribute("data-forecast", "true")
    card(page, "train/loss").screenshot(path=artifacts / "insights-card-light.png")
    page.locator("[data-testid=theme]").click()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    card(page, "train/loss").screenshot(path=artifacts / "insights-card-dark.png")


def test_the_y_axis_grows_to_show_a_rising_forecast(page: Page, tmp_path: Path, artifacts: Path) -> None:
    # A validation loss that keeps rising: its forecast ends above everything logged, so the y axis (from the
    # logged values alone) would cut the dashed line off a few steps past the last one.
    logdir = write_runs(
        tmp_path / "logs", {"rising": {"val/loss": [0.5 + 0.004 * i + 0.02 * math.sin(i) for i in range(STEPS)]}}
    )
    served = serve_logdir(logdir, tmp_path)
    try:
        forecast = page.request.get(f"{served.url}api/forecast", params={"run": "rising", "tag": "val/loss"}).json()
        final = forecast["final"]["value"]
        top = max(forecast["value"])
        assert final > 0.5 + 0.004 * (STEPS - 1) + 0.02 * 1.2, forecast["final"]  # leaves the logged values' range
        base = f"{served.url}?tab=scalars&tagFilter=%5Eval%2Floss%24&s.forecast=1"
        # Ignoring outliers (the default, a range from the curves' percentiles), the plain extent, a log scale.
        for extra in ("", "&s.outliers=0", "&s.y=log"):
            page.goto(base + extra)
            wait_charts_ready(page)
            chart = card(page, "val/loss")
            expect(chart).to_have_attribute("data-forecast", "true")
            page.wait_for_function(
                "last => window.__ridgeline?.charts?.get('val/loss').scales.x.max > last", arg=STEPS - 1
            )
            page.wait_for_function("top => window.__ridgeline?.charts?.get('val/loss').scales.y.max >= top", arg=top)
            y = page.evaluate(
                "() => { const y = window.__ridgeline?.charts?.get('val/loss').scales.y; return [y.min, y.max]; }"
            )
            assert y[0] <= 0.5 and y[1] >= final >= top - 1e-9, (extra, y, final)
            if not extra:
                chart.screenshot(path=artifacts / "insights-forecast-rising.png")
        # A Y max the user fixed still wins over the forecast.
        page.goto(base + "&s.ymax=1.5")
        wait_charts_ready(page)
        expect(card(page, "val/loss")).to_have_attribute("data-forecast", "true")
        page.wait_for_function("last => window.__ridgeline?.charts?.get('val/loss').scales.x.max > last", arg=STEPS - 1)
        assert page.evaluate("() => window.__ridgeline?.charts?.get('val/loss').scales.y.max") == 1.5
    finally:
        served.stop()


def hover(page: Page, tag: str, step: int) -> None:
    """Moves the mouse over the chart of ``tag`` at ``step``, halfway up."""
    over = card(page, tag).locator(".u-over")
    box = over.bounding_box()
    assert box
    x = page.evaluate("([tag, step]) => window.__ridgeline?.charts?.get(tag).valToPos(step, 'x')", [tag, step])
    page.mouse.move(box["x"] + x, box["y"] + box["height"] / 2)


def test_phases_colour_a_warm_up(page: Page, logs: tuple[str, Path], artifacts: Path) -> None:
    url, _ = logs
    # The toggle's setting travels in the URL: a shared link opens with the phases drawn.
    page.goto(f"{url}?tab=scalars&runFilter=%5Ehealthy%24&tagFilter=%5Etrain%2Floss%24&s.phases=1&s.smooth=0")
    wait_charts_ready(page)
    chart = card(page, "train/loss")
    expect(page.locator("[data-testid=toggle-phases]")).to_be_checked()
    expect(chart).to_have_attribute("data-phases", "3")
    tip = chart.locator(".rl-tooltip")
    hover(page, "train/loss", WARMUP // 2)
    expect(tip).to_contain_text("Phase: warm-up")
    hover(page, "train/loss", WARMUP + 20)
    expect(tip).to_contain_text("Phase: descent")
    hover(page, "train/loss", STEPS - 5)
    expect(tip).to_contain_text("Phase: convergence")
    page.mouse.move(0, 0)
    chart.screenshot(path=artifacts / "insights-phases-light.png")
    page.locator("[data-testid=theme]").click()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    chart.screenshot(path=artifacts / "insights-phases-dark.png")


def test_a_short_series_asks_for_no_phases_or_forecast(page: Page, logs: tuple[str, Path]) -> None:
    url, _ = logs
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(f"{url}?tab=scalars&runFilter=%5Ehealthy%24&tagFilter=%5Eeval%2Floss%24&s.phases=1&s.forecast=1")
    wait_charts_ready(page)
    chart = card(page, "eval/loss")
    expect(chart).to_have_attribute("data-points", str(len(EVAL_STEPS)))
    expect(chart.locator("[data-testid=insight-note]")).to_contain_text("finite points")
    expect(chart).to_have_attribute("data-phases", "0")
    expect(chart).to_have_attribute("data-forecast", "false")
    assert not [u for u in requests if "/api/phases" in u or "/api/forecast" in u]


def test_the_diagnosis_names_the_overfitting_run(page: Page, logs: tuple[str, Path], artifacts: Path) -> None:
    url, _ = logs
    open_insights(page, url)
    finding = page.locator('[data-testid=insight-finding][data-kind=overfitting][data-run="overfit"]')
    expect(finding).to_have_count(1)
    expect(finding).to_contain_text("% confidence")
    finding.screenshot(path=artifacts / "insights-finding.png")
    finding.locator("[data-testid=show-charts]").click()
    expect(active_tab(page)).to_have_attribute("data-dashboard", "scalars")
    wait_charts_ready(page)
    tags = page.locator("[data-testid=scalar-card]").evaluate_all("cards => cards.map(c => c.dataset.tag)")
    assert "val/loss" in tags
    shown = page.locator("[data-testid=run-selector] input[type=checkbox]:checked")
    assert shown.evaluate_all("els => els.map(e => e.dataset.run)") == ["overfit"]


def test_new_alerts_arrive_live_and_notify(page: Page, logs: tuple[str, Path], tmp_path: Path) -> None:
    url, logdir = logs
    page.context.grant_permissions(["notifications"])
    # Record the notifications the page shows (the browser's own API, wrapped; nothing of ours is replaced).
    page.add_init_script(
        """(() => {
            const Real = window.Notification;
            window.__notes = [];
            class Recording extends Real {
                constructor(title, options) {
                    super(title, options);
                    window.__notes.push([title, options && options.body]);
                }
            }
            window.Notification = Recording;
        })()"""
    )
    open_insights(page, url)
    page.locator("[data-testid=alerts-notify]").check()
    expect(page.locator("[data-testid=alerts-notify]")).to_be_checked()
    page.wait_for_function("document.querySelectorAll('[data-testid=alert-row]').length > 0")
    # A NaN logged after the page opened, in a new event file of the healthy run.
    late = STEPS + 10
    with SummaryWriter(logdir / "healthy") as writer:
        writer.add_scalar("train/loss", math.nan, late, walltime=1_700_000_000.0 + late)
    row = page.locator(f'[data-testid=alert-row][data-kind=nan][data-run="healthy"][data-step="{late}"]')
    expect(row).to_have_count(1)
    page.wait_for_function("window.__notes.some(([title, body]) => body && body.includes('healthy'))")
