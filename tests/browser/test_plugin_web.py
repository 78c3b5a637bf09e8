"""A pip-installed dashboard in a real browser: the example plugin (examples/plugins/ridgeline-hello), installed the
way pip leaves it on the served process's PYTHONPATH, shows its tab after the built-ins, draws what its own route
answers for the selected runs, keeps its setting in the URL, follows the tag filter and new data; so does its web
half built with docs/plugins.md's TypeScript recipe."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from ridgeline import SummaryWriter
from tests.browser.conftest import check_prerequisites
from tests.browser.helpers import ServedLogdir, serve_logdir, write_runs
from tests.plugins.installed_example import build_typescript_recipe, install_example

# Values a float32 holds exactly, so the page's digits are known without the code under test.
RUNS = {"exp_a": {"loss": [2.0, 1.0, 0.375], "acc": [0.25, 0.5, 0.875]}, "exp_b": {"loss": [4.0, 0.1875]}}


def serve_example(tmp_path: Path, module: Path | None = None) -> ServedLogdir:
    """The example installed (its web half replaced by ``module`` if given) and served over RUNS."""
    check_prerequisites()
    package = install_example(tmp_path / "site-packages")
    if module is not None:
        shutil.copyfile(module, package / "web" / "index.js")
    logdir = write_runs(tmp_path / "logs", RUNS)
    return serve_logdir(logdir, tmp_path, pythonpath=[tmp_path / "site-packages"])


@pytest.fixture
def served(tmp_path: Path) -> Iterator[ServedLogdir]:
    server = serve_example(tmp_path)
    yield server
    server.stop()


def value_cell(page: Page, run: str, tag: str) -> Locator:
    return page.locator(f'[data-testid=hello-row][data-run="{run}"][data-tag="{tag}"] .hello-value')


def test_an_installed_dashboard_shows_its_tab_and_its_numbers(page: Page, served: ServedLogdir) -> None:
    page.goto(served.url)
    tabs = page.locator('nav[aria-label="Dashboards"]').get_by_role("button")
    expect(tabs.last).to_have_text("Hello")  # a third-party plugin without an order comes after the built-ins
    expect(tabs.first).to_have_text("Scalars")
    page.locator("[data-dashboard=hello]").click()
    expect(page.locator("[data-testid=hello-dashboard]")).to_be_visible()
    expect(page).to_have_title("Hello · ridgeline")
    for run, tags in RUNS.items():
        for tag, values in tags.items():
            expect(value_cell(page, run, tag)).to_have_text(f"{values[-1]:#.4g}")
    expect(page.locator("[data-testid=hello-row]")).to_have_count(3)

    # Its own setting lives in the URL, as the built-ins' do, and a link reopens the same view.
    page.locator("[data-testid=hello-digits]").fill("6")
    expect(value_cell(page, "exp_a", "loss")).to_have_text("0.375000")
    expect(page).to_have_url(re.compile(r"hello\.digits=6"))
    expect(page).to_have_url(re.compile(r"tab=hello"))
    page.goto(page.url)
    expect(page.locator("[data-dashboard=hello]")).to_have_attribute("aria-current", "page")
    expect(value_cell(page, "exp_b", "loss")).to_have_text("0.187500")

    # The shell's tag filter and run selection reach it as props.
    page.locator("[data-testid=tag-filter]").fill("^acc")
    expect(page.locator("[data-testid=hello-row]")).to_have_count(1)
    expect(value_cell(page, "exp_a", "acc")).to_have_text("0.875000")
    page.locator("[data-testid=tag-filter]").fill("")
    page.get_by_role("checkbox", name="exp_b").uncheck()
    expect(page.locator('[data-testid=hello-row][data-run="exp_b"]')).to_have_count(0)
    expect(page.locator("[data-testid=hello-row]")).to_have_count(2)


def test_it_fetches_again_when_new_data_arrives(page: Page, served: ServedLogdir, tmp_path: Path) -> None:
    page.goto(served.url + "?tab=hello")
    expect(value_cell(page, "exp_a", "loss")).to_have_text("0.3750")
    with SummaryWriter(tmp_path / "logs" / "exp_a") as writer:
        writer.add_scalar("loss", 0.125, 3)
    expect(value_cell(page, "exp_a", "loss")).to_have_text("0.1250")


def test_a_web_half_built_with_the_typescript_recipe_shows_its_tab(page: Page, tmp_path: Path) -> None:
    built = build_typescript_recipe(tmp_path / "project") / "index.js"
    server = serve_example(tmp_path, module=built)
    try:
        page.goto(server.url)
        page.locator("[data-dashboard=hello]").click()
        items = page.locator("[data-testid=hello-list] li")
        expect(items).to_have_count(3)
        for run, tags in RUNS.items():
            for tag, values in tags.items():
                expect(items.filter(has_text=f"{run} {tag} ")).to_have_text(f"{run} {tag} {values[-1]:#.4g}")
        page.goto(server.url + "?tab=hello&hello.digits=6")  # the setting it reads through ridgeline.settings
        expect(items.filter(has_text="exp_b loss ")).to_have_text("exp_b loss 0.187500")
    finally:
        server.stop()
