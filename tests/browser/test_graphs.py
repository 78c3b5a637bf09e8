"""The graphs dashboard in a real browser, on graphs written by torch's and ridgeline's ``add_graph``: node names
shown whole (the text fits its box), tensor shapes readable on the edges and clear of every box, scopes that
expand and collapse, search and the side panel, a corrupt graph explained in the page; screenshots in light and
dark themes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.conftest import PAGE_ERRORS
from tests.browser.helpers import ServedLogdir, css_string

pytest.importorskip("torch")
from ridgeline.format.proto import event_pb2
from tests.plugins.graphs.graph_logs import LONG_MODULE, big_graph, write_event_file, write_graph_logs

LONG_SCOPE = f"SmallCnn/Linear[{LONG_MODULE}]"


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_graph_logs(tmp_path_factory.mktemp("graphs"))
    write_event_file(root / "big", event_pb2.Event(wall_time=2.0, graph_def=big_graph(300).SerializeToString()))
    return root


@pytest.fixture(scope="module")
def url(logdir: Path, serve_module: Callable[[Path], ServedLogdir]) -> str:
    return serve_module(logdir).url


def open_graph(page: Page, url: str, run: str, theme: str = "light") -> Locator:
    page.goto(f"{url}?tab=graphs&g.run={run}&theme={theme}")
    view = page.locator("[data-testid=graph-view][data-ready=true]")
    expect(view).to_be_visible()
    page.wait_for_function("document.body?.dataset.chartsReady === 'true'")
    return view


def box(page: Page, name: str) -> Locator:
    return page.locator(f'[data-testid=graph-node][data-name="{css_string(name)}"]')


# The text's and its box's extents in the SVG's own coordinates (getBBox: unaffected by zoom or scrolling).
FITS = """g => {
  const rect = g.querySelector('rect[data-part=box]').getBBox();
  const text = g.querySelector('text[data-part=title]');
  const t = text.getBBox();
  return {text: text.firstChild.textContent, rect: [rect.x, rect.y, rect.width, rect.height],
          title: [t.x, t.y, t.width, t.height]};
}"""


def assert_fits(found: dict[str, Any]) -> None:
    rx, ry, rw, rh = found["rect"]
    tx, ty, tw, th = found["title"]
    assert tw > 0 and th > 0
    assert rx <= tx and tx + tw <= rx + rw, f"{found['text']!r} runs out of its box: {found}"
    assert ry <= ty and ty + th <= ry + rh, found


def test_long_names_shown_whole_and_shapes_on_edges(page: Page, url: str, artifacts: Path) -> None:
    view = open_graph(page, url, "torch_cnn")
    # The graph opens at its top level; opening the model's scope shows the long module as a box.
    box(page, "SmallCnn").locator("rect[data-part=box]").click()
    expect(box(page, "SmallCnn")).to_have_attribute("data-kind", "group")
    expect(page.locator("[data-testid=graph-view]")).to_have_attribute("data-ready", "true")
    long_box = box(page, LONG_SCOPE)
    expect(long_box).to_have_count(1)
    found = long_box.evaluate(FITS)
    assert found["text"] == f"Linear[{LONG_MODULE}]"  # the whole last part of the name, no ellipsis
    assert_fits(found)
    # The shape of the input flows on the edge out of input/x, readable and clear of every box.
    labels = page.locator("[data-testid=edge-shape]")
    expect(labels.filter(has_text="1×3×32×32")).not_to_have_count(0)
    expect(labels.filter(has_text="1×3×32×32").first).to_be_visible()
    overlap = page.evaluate(
        """() => {
      const leaves = '[data-testid=graph-node]:not([data-kind=group]) rect[data-part=box]';
      const boxes = [...document.querySelectorAll(leaves)].map(r => r.getBBox());
      const hit = [];
      for (const label of document.querySelectorAll('[data-testid=edge-shape]')) {
        const l = label.parentElement.querySelector('rect').getBBox();
        for (const b of boxes) {
          const apartX = l.x + l.width - 0.5 <= b.x || b.x + b.width - 0.5 <= l.x;
          if (!apartX && l.y < b.y + b.height - 0.5 && b.y < l.y + l.height - 0.5)
            hit.push([label.textContent, b]);
        }
      }
      return hit.length;
    }"""
    )
    assert overlap == 0
    # Legible on screen at the starting zoom: at least 9 px tall.
    height = labels.filter(has_text="1×3×32×32").first.evaluate("t => t.getBoundingClientRect().height")
    assert height >= 9
    view.screenshot(path=str(artifacts / "graphs_view.png"))
    page.screenshot(path=str(artifacts / "graphs.png"))


def test_expand_collapse_and_side_panel(page: Page, url: str, artifacts: Path) -> None:
    open_graph(page, url, "ridgeline_cnn")
    long_box = box(page, LONG_SCOPE)
    inside = page.locator(f'[data-testid=graph-node][data-kind=node][data-name^="{css_string(LONG_SCOPE)}/"]')
    # Expand all opens every scope. Finding the scope by name brings it into view, collapsed.
    page.locator("[data-testid=graph-expand-all]").click()
    expect(long_box).to_have_attribute("data-kind", "group")
    page.locator("[data-testid=graph-search]").fill("linear\\[a_really")
    page.locator("[data-testid=graph-results] button", has_text=LONG_SCOPE).first.click()
    expect(long_box).to_have_attribute("data-kind", "scope")
    expect(inside).to_have_count(0)
    expect(page.locator("[data-testid=graph-panel-name]")).to_have_text(LONG_SCOPE)
    assert_fits(long_box.evaluate(FITS))
    # A click on the collapsed box opens it; a click on its header's toggle closes it; and again it opens.
    long_box.locator("rect[data-part=box]").click()
    expect(long_box).to_have_attribute("data-kind", "group")
    long_box.locator(".rl-graph-toggle").first.click()
    expect(long_box).to_have_attribute("data-kind", "scope")
    long_box.locator("rect[data-part=box]").click()
    expect(long_box).to_have_attribute("data-kind", "group")
    expect(page.locator("[data-testid=graph-view]")).to_have_attribute("data-ready", "true")
    # Its nodes are now drawn, each with its full name and a title that fits.
    expect(inside.first).to_be_visible()
    assert inside.count() >= 2
    for index in range(inside.count()):
        assert_fits(inside.nth(index).evaluate(FITS))
    # The group header shows the whole long name too.
    header = long_box.locator("text[data-part=title]").evaluate("t => t.firstChild.textContent")
    assert header == f"Linear[{LONG_MODULE}]"
    # Selecting the linear op shows its full name, op, inputs with shapes and attributes in the side panel.
    addmm = inside.filter(has=page.locator("text[data-part=sub]", has_text="aten::linear"))
    if addmm.count() == 0:
        addmm = inside.filter(has=page.locator("text[data-part=sub]", has_text="aten::addmm"))
    addmm.first.locator("rect[data-part=box]").click()
    panel = page.locator("[data-testid=graph-panel]")
    name = addmm.first.get_attribute("data-name")
    assert name is not None
    expect(panel.locator("[data-testid=graph-panel-name]")).to_have_text(name)
    expect(panel).to_contain_text("Inputs")
    expect(panel.locator(".rl-graph-shape", has_text="1×16")).not_to_have_count(0)
    page.screenshot(path=str(artifacts / "graphs_selected.png"))
    # Collapse all, then a click on a collapsed scope expands it.
    page.locator("[data-testid=graph-collapse-all]").click()
    top = box(page, "SmallCnn")
    expect(top).to_have_attribute("data-kind", "scope")
    top.locator("rect[data-part=box]").click()
    expect(top).to_have_attribute("data-kind", "group")
    expect(box(page, "SmallCnn/Sequential[features]")).to_have_attribute("data-kind", "scope")


def test_search_reveals_a_node(page: Page, url: str) -> None:
    open_graph(page, url, "torch_cnn")
    page.locator("[data-testid=graph-collapse-all]").click()
    expect(box(page, "SmallCnn")).to_have_attribute("data-kind", "scope")
    search = page.locator("[data-testid=graph-search]")
    search.fill("(")
    expect(page.locator(".rl-graph-side [role=alert]")).to_contain_text("Not a valid regular expression")
    search.fill("block\\[2\\].*RELU")
    results = page.locator("[data-testid=graph-results] button")
    expect(results).to_have_count(2)  # the scope and its node, case-insensitively
    target = results.filter(has_text="/input").first
    node_name = target.inner_text()
    target.click()
    node = box(page, node_name)
    expect(node).to_be_visible()
    expect(node).to_have_class("rl-graph-box rl-graph-op rl-graph-selected rl-graph-match")
    expect(page.locator("[data-testid=graph-panel-name]")).to_have_text(node_name)


def test_corrupt_graph_is_explained(page: Page, url: str, request: pytest.FixtureRequest) -> None:
    page.goto(f"{url}?tab=graphs&g.run=corrupt")
    expect(page.locator("[data-testid=graph-error]")).to_contain_text("cannot be read")
    # The browser logs the 422 answer itself: expected here, and the only error allowed.
    recorded = request.node.stash[PAGE_ERRORS].errors
    expected = [e for e in recorded if "status of 422" in e and "run=corrupt" in e]
    assert len(expected) == 1
    recorded.remove(expected[0])
    page.locator("[data-testid=graph-run]").select_option("torch_cnn")
    expect(page.locator("[data-testid=graph-view][data-ready=true]")).to_be_visible()


def test_big_graph_starts_collapsed(page: Page, url: str) -> None:
    view = open_graph(page, url, "big")
    # 3,001 nodes in 301 scopes: the top level only (the input and one closed scope), drawn at once.
    expect(view).to_have_attribute("data-boxes", "2")
    model = box(page, "model")
    expect(model).to_have_attribute("data-kind", "scope")
    expect(model.locator("text[data-part=sub]")).to_have_text("3000 nodes")
    model.click()
    expect(model).to_have_attribute("data-kind", "group")
    expect(page.locator("[data-testid=graph-view][data-ready=true]")).to_have_attribute("data-boxes", "302")
    members = page.locator("[data-testid=graph-panel] .rl-graph-links button")
    assert members.all_inner_texts()[:3] == ["layer_0", "layer_1", "layer_2"]
    # The keyboard works too: Enter on a focused scope opens it.
    layer = box(page, "model/layer_0")
    layer.focus()
    page.keyboard.press("Enter")
    expect(layer).to_have_attribute("data-kind", "group")
    expect(box(page, "model/layer_0/op_9")).to_have_attribute("data-kind", "node")


def test_a_rewritten_graph_is_redrawn_on_reload(
    page: Page, tmp_path: Path, serve: Callable[[Path], ServedLogdir]
) -> None:
    import torch

    import ridgeline

    first = torch.nn.Sequential(torch.nn.Linear(4, 3))
    with ridgeline.SummaryWriter(tmp_path / "logs" / "run") as writer:
        writer.add_graph(first, torch.zeros(2, 4))
    url = serve(tmp_path / "logs").url
    open_graph(page, url, "run")
    expect(page.locator("[data-testid=edge-shape]", has_text="2×3")).not_to_have_count(0)
    stats = page.locator(".rl-graph-stats")
    before = stats.inner_text()
    second = torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.ReLU(), torch.nn.Linear(5, 3))
    with ridgeline.SummaryWriter(tmp_path / "logs" / "run") as writer:
        writer.add_graph(second, torch.zeros(2, 4))
    page.locator("[data-testid=reload]").click()
    expect(stats).not_to_have_text(before)  # the new graph is drawn (at its top level)
    page.locator("[data-testid=graph-expand-all]").click()
    expect(page.locator("[data-testid=edge-shape]", has_text="2×5").first).to_be_attached()


def test_dark_theme(page: Page, url: str, artifacts: Path) -> None:
    open_graph(page, url, "torch_cnn", theme="dark")
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    page.screenshot(path=str(artifacts / "graphs_dark.png"))
