"""Issue 16, the graphs dashboard at 1280×800, in a real browser on a small CNN written by torch's ``add_graph``:
the first view opens at the graph's top level, fitted, every name inside the view and readable; "Fit" never
draws the graph smaller than its names read (the rest is a drag away); and the whole graph downloads as SVG and
as PNG."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image
from playwright.sync_api import Locator, Page, expect

from tests.browser.helpers import ServedLogdir, css_string

pytest.importorskip("torch")
from tests.plugins.graphs.graph_logs import write_graph_logs

# A title drawn at 13 px reads from about 9 px on screen (70 %): smaller, a box is a box without a name.
READABLE_PX = 9


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_graph_logs(tmp_path_factory.mktemp("graphs"))


@pytest.fixture(scope="module")
def url(logdir: Path, serve_module: Callable[[Path], ServedLogdir]) -> str:
    return serve_module(logdir).url


def open_graph(page: Page, url: str) -> Locator:
    page.goto(f"{url}?tab=graphs&g.run=torch_cnn")
    view = page.locator("[data-testid=graph-view][data-ready=true]")
    expect(view).to_be_visible()
    page.wait_for_function("document.body?.dataset.chartsReady === 'true'")
    return view


def box(page: Page, name: str) -> Locator:
    return page.locator(f'[data-testid=graph-node][data-name="{css_string(name)}"]')


def titles_on_screen(page: Page) -> list[dict[str, float]]:
    """Each drawn box's title, in page pixels."""
    return page.locator("[data-testid=graph-node] text[data-part=title]").evaluate_all(
        """ts => ts.map(t => { const r = t.getBoundingClientRect();
                               return {x: r.x, y: r.y, width: r.width, height: r.height}; })"""
    )


def test_the_first_view_is_the_top_level_fitted_with_every_name_readable(page: Page, url: str) -> None:
    open_graph(page, url)
    top = box(page, "SmallCnn")
    expect(top).to_have_attribute("data-kind", "scope")  # closed: the top level, as TensorBoard opens
    expect(page.locator('[data-testid=graph-node][data-name^="SmallCnn/"]')).to_have_count(0)
    expect(box(page, "input/x")).to_have_count(1)  # the input and output, by name
    svg = page.locator("[data-testid=graph-svg]").bounding_box()
    assert svg is not None
    titles = titles_on_screen(page)
    assert titles
    for title in titles:
        assert svg["x"] <= title["x"] and title["x"] + title["width"] <= svg["x"] + svg["width"], title
        assert svg["y"] <= title["y"] and title["y"] + title["height"] <= svg["y"] + svg["height"], title
        assert title["height"] >= READABLE_PX, title


def test_fit_keeps_the_names_readable(page: Page, url: str) -> None:
    open_graph(page, url)
    page.locator("[data-testid=graph-expand-all]").click()
    expect(box(page, "SmallCnn")).to_have_attribute("data-kind", "group")
    expect(page.locator("[data-testid=graph-view]")).to_have_attribute("data-ready", "true")
    for _ in range(3):  # zoomed out past readable, as "Fit" drew it
        page.get_by_role("button", name="Zoom out").click()
    header = box(page, "SmallCnn").locator("text[data-part=title]")
    page.wait_for_function("t => t.getBoundingClientRect().height < 9", arg=header.element_handle())
    page.locator("[data-testid=graph-fit]").click()
    page.wait_for_function(f"t => t.getBoundingClientRect().height >= {READABLE_PX}", arg=header.element_handle())
    # The graph's top-left (the top scope's header) in view; the rest is a drag away.
    svg, title = page.locator("[data-testid=graph-svg]").bounding_box(), header.bounding_box()
    assert svg is not None and title is not None
    assert (
        svg["x"] <= title["x"] and title["y"] >= svg["y"] and title["y"] + title["height"] <= svg["y"] + svg["height"]
    )
    assert all(t["height"] >= READABLE_PX for t in titles_on_screen(page))


def test_the_whole_graph_downloads_as_svg_and_png(page: Page, url: str) -> None:
    open_graph(page, url)
    page.locator("[data-testid=graph-expand-all]").click()
    expect(box(page, "SmallCnn")).to_have_attribute("data-kind", "group")
    expect(page.locator("[data-testid=graph-view]")).to_have_attribute("data-ready", "true")
    shown = page.locator("[data-testid=graph-node]").evaluate_all("gs => gs.map(g => g.dataset.name)")

    with page.expect_download() as info:
        page.locator("[data-testid=graph-download-svg]").click()
    assert info.value.suggested_filename == "graph_torch_cnn.svg"
    root = ET.fromstring(Path(info.value.path()).read_bytes())
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    width, height = float(root.attrib["width"]), float(root.attrib["height"])
    assert width > 200 and height > 200
    # Every box drawn in the page, the ones scrolled out of view included, with its styles written in.
    names = [g.attrib.get("data-name") for g in root.iter("{http://www.w3.org/2000/svg}g") if "data-box" in g.attrib]
    assert sorted(names) == sorted(shown)
    rects = [r for r in root.iter("{http://www.w3.org/2000/svg}rect") if r.attrib.get("data-part") == "box"]
    assert rects and all("fill:" in r.attrib.get("style", "") for r in rects)
    text = "".join(root.itertext())
    assert "SmallCnn" in text and "1×3×32×32" in text

    with page.expect_download() as info:
        page.locator("[data-testid=graph-download-png]").click()
    assert info.value.suggested_filename == "graph_torch_cnn.png"
    image = Image.open(io.BytesIO(Path(info.value.path()).read_bytes()))
    assert image.format == "PNG"
    assert image.size == (int(width * 2), int(height * 2))  # the whole graph at twice its size
    colours = image.convert("RGB").getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 10, "the PNG has the graph drawn in it"
