"""The projector in a real browser (WebGL through SwiftShader in headless chromium), on embeddings written by
ridgeline's SummaryWriter at three steps, with metadata and sprites: every point drawn, PCA → UMAP (the job
finishes), colour by a label, metadata search, a click on a point listing its true neighbours (checked against
numpy), the step slider, 3D, bad input explained in the card, the Time Series marks that open it; screenshots."""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import PAGE_ERRORS
from tests.browser.helpers import ServedLogdir
from tests.plugins.projector import logs

JOB_TIMEOUT = 900_000  # ms: UMAP's first run compiles with numba; a busy 2-core machine takes minutes


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("projector")
    logs.write_ridgeline(root)
    logs.write_bad(root)
    return root


@pytest.fixture
def url(
    logdir: Path, serve: Callable[[Path], ServedLogdir], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[str]:
    monkeypatch.setenv("RIDGELINE_CACHE_DIR", str(tmp_path / "cache"))  # the server's projections go here
    yield serve(logdir).url


def open_projector(page: Page, url: str, query: str = "", **view: object) -> None:
    params = "&p.view=" + urllib.parse.quote(json.dumps(view)) if view else ""
    page.goto(f"{url}?tab=projector&p.run=ridgeline&p.tag=features{query}{params}")
    wait_drawn(page)


def wait_drawn(page: Page, timeout: float = 60_000) -> None:
    expect(page.locator("[data-testid=projector-view]")).to_have_attribute("data-ready", "true", timeout=timeout)
    page.wait_for_function("document.body.dataset.chartsReady === 'true'", timeout=timeout)


def hook(page: Page, expression: str) -> object:
    return page.evaluate(f"() => {{ const h = window.__ridgeline.projector; return {expression}; }}")


def canvas_pixels(page: Page) -> int:
    """Pixels of the plot that are not the background: something was drawn with WebGL."""
    # Switching between 2-D and 3-D replaces the canvas: wait for the new one to be in the page.
    page.wait_for_function(
        "() => (document.querySelector('[data-testid=projector-canvas]')?.width ?? 0) > 0", timeout=60_000
    )
    counted: int = page.evaluate(
        """() => {
        const source = document.querySelector('[data-testid=projector-canvas]');
        const copy = document.createElement('canvas');
        copy.width = source.width; copy.height = source.height;
        const ctx = copy.getContext('2d');
        ctx.drawImage(source, 0, 0);
        const data = ctx.getImageData(0, 0, copy.width, copy.height).data;
        let n = 0;
        for (let i = 0; i < data.length; i += 4) if (data[i] < 235 || data[i + 1] < 235 || data[i + 2] < 235) n++;
        return n;
    }"""
    )
    return counted


def forgive(request: pytest.FixtureRequest, status: int, path: str) -> None:
    """Chromium logs every 4xx answer as a console error: the ones this test asked for on purpose (a bad query, a
    broken file) are expected; any other error still fails the test."""
    errors = request.node.stash[PAGE_ERRORS]
    errors.errors = [e for e in errors.errors if not (f"status of {status}" in e and f"{path}?" in e)]


def click_point(page: Page, index: int) -> None:
    box = hook(page, "h.canvasBox()")
    at = hook(page, f"h.screenPosition({index})")
    assert isinstance(box, dict) and isinstance(at, list), (box, at)
    x, y = box["x"] + at[0], box["y"] + at[1]
    # The 2-D camera pans by how far the mouse moved between two of its animation frames while the button was
    # down. A move and a press inside one frame (a busy machine's slow frames) read as a drag from where the mouse
    # was before, so the click lands on a panned view: let a frame see the mouse at the point before pressing.
    page.mouse.move(x, y)
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    page.mouse.click(x, y)


def test_every_point_is_drawn_and_coloured(page: Page, url: str, artifacts: Path) -> None:
    open_projector(page, url)
    view = page.locator("[data-testid=projector-view]")
    expect(view).to_have_attribute("data-points", str(logs.POINTS))
    expect(view).to_have_attribute("data-step", "10")  # the last step when none is asked for
    expect(page.locator("[data-testid=projector-summary]")).to_contain_text("All 120 points")
    expect(page.locator("[data-testid=projector-summary]")).to_contain_text("variance explained")
    assert canvas_pixels(page) > 200
    page.locator("[data-testid=projector-colour]").select_option("label")
    legend = page.locator("[data-testid=projector-legend] li")
    expect(legend).to_have_count(4)
    expect(legend.first).to_contain_text("bird")
    expect(legend.first).to_contain_text("(30)")
    page.screenshot(path=str(artifacts / "projector.png"))
    page.locator("[data-testid=projector-sample]").select_option("100")
    expect(page.locator("[data-testid=projector-summary]")).to_contain_text(
        "A stratified sample of 100 of 120 points (by label)"
    )
    expect(view).to_have_attribute("data-points", "100")


def test_a_click_lists_the_true_neighbours(page: Page, url: str, artifacts: Path) -> None:
    open_projector(page, url, "&p.step=5")
    click_point(page, 17)
    panel = page.locator("[data-testid=projector-point]")
    expect(panel).to_be_visible()
    items = page.locator("[data-testid=projector-neighbours] li")
    expect(items).to_have_count(20)
    chosen = hook(page, "h.selected[0]")
    assert isinstance(chosen, int)
    matrix = logs.clusters(5).astype(np.float64)
    unit = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    distances = 1 - unit @ unit[chosen]
    distances[chosen] = np.inf
    expected = np.argsort(distances, kind="stable")[:20].tolist()
    listed = items.evaluate_all("li => li.map(l => Number(l.dataset.index))")
    assert listed == expected
    shown = items.evaluate_all("li => li.map(l => Number(l.dataset.distance))")
    np.testing.assert_allclose(shown, distances[expected], rtol=1e-4, atol=1e-5)
    # Highlighted in the plot, with labels and sprite thumbnails beside them.
    assert hook(page, "h.selected.length") == 21
    expect(page.locator("[data-testid=projector-marker]").first).to_be_visible()
    expect(panel.locator("[data-testid=projector-thumb]").first).to_be_visible()
    page.screenshot(path=str(artifacts / "projector_neighbours.png"))
    # Euclidean instead: the list is the euclidean one.
    page.locator("[data-testid=projector-metric]").select_option("euclidean")
    expect(page.locator("[data-testid=projector-neighbours]")).to_have_attribute("data-metric", "euclidean")
    euclidean = np.linalg.norm(matrix - matrix[chosen], axis=1)
    euclidean[chosen] = np.inf
    listed = items.evaluate_all("li => li.map(l => Number(l.dataset.index))")
    assert listed == np.argsort(euclidean, kind="stable")[:20].tolist()
    assert "p.point=" in page.url  # the chosen point is in the link


def test_search_the_metadata(page: Page, url: str, request: pytest.FixtureRequest) -> None:
    open_projector(page, url)
    page.locator("[data-testid=projector-search]").fill("meta:^cat$")
    expect(page.locator("[data-testid=projector-search-count]")).to_have_attribute("data-count", "30")
    cats = [i for i in range(logs.POINTS) if logs.labels()[i] == 0]
    page.wait_for_function("() => window.__ridgeline.projector.selected.length === 30")
    assert hook(page, "h.selected") == cats
    page.locator("[data-testid=projector-search]").fill("meta:(")
    expect(page.locator("[data-testid=projector-search-error]")).to_contain_text("missing )")
    forgive(request, 400, "/api/projector/search")


def test_pca_then_umap_and_3d(page: Page, url: str, artifacts: Path) -> None:
    open_projector(page, url, "&p.step=0")
    first = page.locator("[data-testid=projector-view]").get_attribute("data-key")
    page.locator("[data-testid=projector-method]").select_option("umap")
    view = page.locator("[data-testid=projector-view]")
    expect(view).to_have_attribute("data-method", "umap", timeout=JOB_TIMEOUT)
    expect(view).not_to_have_attribute("data-key", first or "", timeout=JOB_TIMEOUT)
    wait_drawn(page, JOB_TIMEOUT)
    expect(view).to_have_attribute("data-points", str(logs.POINTS))
    assert canvas_pixels(page) > 200
    page.screenshot(path=str(artifacts / "projector_umap.png"))
    page.locator("[data-testid=projector-method]").select_option("pca")
    page.locator("[data-testid=projector-dims-3]").click()
    expect(view).to_have_attribute("data-dims", "3")
    wait_drawn(page)
    assert canvas_pixels(page) > 200
    page.screenshot(path=str(artifacts / "projector_3d.png"))


def test_the_step_slider_keeps_the_points(page: Page, url: str) -> None:
    open_projector(page, url, "&p.step=0")
    view = page.locator("[data-testid=projector-view]")
    keys = {view.get_attribute("data-key")}
    slider = page.locator("[data-testid=projector-step]")
    for position, step in [(1, "5"), (2, "10")]:
        slider.fill(str(position))
        expect(page.locator("[data-testid=projector-step-value]")).to_have_text(step)
        expect(view).to_have_attribute("data-step", step)
        # The step shows at once; the step's own projection (a new key) arrives after it.
        page.wait_for_function(
            "seen => !seen.includes(document.querySelector('[data-testid=projector-view]')?.dataset.key)",
            arg=sorted(k for k in keys if k),
            timeout=JOB_TIMEOUT,
        )
        wait_drawn(page)
        keys.add(view.get_attribute("data-key"))
        expect(view).to_have_attribute("data-points", str(logs.POINTS))
    assert len(keys) == 3  # one aligned projection per step
    assert "p.step=10" in page.url


def test_bad_input_is_explained_in_the_card(
    page: Page, url: str, artifacts: Path, request: pytest.FixtureRequest
) -> None:
    page.goto(f"{url}?tab=projector&p.run=bad&p.tag=short_meta")
    wait_drawn(page)
    expect(page.locator("[data-testid=projector-problems]")).to_contain_text(
        "19 rows after its header line for 20 points"
    )
    page.goto(f"{url}?tab=projector&p.run=bad&p.tag=truncated")
    expect(page.locator("[data-testid=projector-error]")).to_contain_text("the file looks truncated")
    page.screenshot(path=str(artifacts / "projector_error.png"))
    forgive(request, 422, "/api/projector/embedding")


def test_time_series_marks_open_the_projector(page: Page, url: str) -> None:
    overlay = urllib.parse.quote(json.dumps([["loss", "", "", "features"]]))
    page.goto(f"{url}?tab=time_series&ts.overlay={overlay}")
    marks = page.locator("[data-testid=ts-overlay-mark][data-kind=embeddings]")
    expect(marks).to_have_count(3)
    marks.nth(1).click()
    expect(page.locator("[data-testid=projector]")).to_be_visible()
    wait_drawn(page)
    expect(page.locator("[data-testid=projector-view]")).to_have_attribute("data-step", "5")
    expect(page.locator("[data-testid=projector-step-value]")).to_have_text("5")
