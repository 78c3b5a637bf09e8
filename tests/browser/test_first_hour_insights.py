"""Issue 16, insights drill-downs show the evidence, in a real browser over runs written by torch's
SummaryWriter: an alert's link opens its card with outlier clipping and smoothing off (the flagged value stays on
the axis), and a finding's "show charts" zooms every tag it cites, validation loss included."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import card, serve_logdir, wait_charts_ready

STEPS = 300
SPIKE_STEP, SPIKE = 150, 60.0
OVERFIT_FROM = 100


def decay(i: int, seed: float = 0.0) -> float:
    return 0.1 + 2.0 * math.exp(-i / 60) * (1 + 0.02 * math.sin(i * 1.3 + seed))


def write_logs(root: Path) -> Path:
    from torch.utils.tensorboard import SummaryWriter

    spiky = SummaryWriter(str(root / "spiky"))
    for i in range(STEPS):
        spiky.add_scalar("train/loss", SPIKE if i == SPIKE_STEP else decay(i, 1), i, walltime=1.79e9 + i)
    spiky.close()
    overfit = SummaryWriter(str(root / "overfit"))
    for i in range(STEPS):
        overfit.add_scalar("train/loss", decay(i, 5) * 0.9, i, walltime=1.79e9 + i)
        overfit.add_scalar("val/loss", decay(i, 3) + 0.004 * max(0, i - OVERFIT_FROM), i, walltime=1.79e9 + i)
    overfit.close()
    return root


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    logdir = write_logs(tmp_path_factory.mktemp("insights"))
    served = serve_logdir(logdir, tmp_path_factory.mktemp("server"))
    yield served.url
    served.stop()


def open_insights(page: Page, url: str) -> None:
    page.goto(f"{url}?tab=insights")
    expect(page.locator("[data-testid=alerts-panel]")).to_be_visible()


def test_an_alert_link_keeps_the_flagged_value_on_the_axis(page: Page, logs: str) -> None:
    open_insights(page, logs)
    page.wait_for_function("document.querySelectorAll('[data-testid=alert-row][data-run=spiky]').length > 0")
    page.locator("[data-testid=alert-row][data-run=spiky] [data-testid=alert-link]").first.click()
    chart = card(page, "train/loss")
    expect(chart).to_have_attribute("data-ready", "true")
    # What hid the spike is off: outlier clipping (the spike fell off the axis) and smoothing (it flattened it).
    page.wait_for_function(
        """spike => {
            const u = window.__ridgeline?.charts?.get('train/loss');
            return !!u && u.scales.y.max >= spike;
        }""",
        arg=SPIKE,
    )
    assert "s.outliers=0" in page.url and "s.smooth=0" in page.url


def test_show_charts_zooms_every_tag_the_finding_cites(page: Page, logs: str) -> None:
    open_insights(page, logs)
    finding = page.locator('[data-testid=insight-finding][data-kind=overfitting][data-run="overfit"]')
    expect(finding).to_have_count(1)
    finding.locator("[data-testid=show-charts]").click()
    wait_charts_ready(page)
    for tag in ("train/loss", "val/loss"):
        page.wait_for_function(
            """([tag, steps]) => {
                const u = window.__ridgeline?.charts?.get(tag);  // the tab's charts may not exist yet
                return !!u && u.scales.x.max - u.scales.x.min < steps - 50;
            }""",
            arg=[tag, STEPS],
        )
