"""The graphs dashboard on a deep model traced by torch's ``add_graph`` (16 residual blocks of convolutions and
batch norms: hundreds of nodes in hundreds of scopes), in a real browser: it opens fitted (never cut off at the
left or right), "Expand all" draws every node (from the top-left, at a scale its names read at), and a toggle
afterwards lays out only the scopes it changed; the regex search finds a node deep inside and opens the scopes
around it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import ServedLogdir, css_string

torch = pytest.importorskip("torch")
nn = torch.nn


class Residual(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU()

    def forward(self, x: Any) -> Any:
        return self.relu(x + self.bn2(self.conv2(self.relu(self.bn1(self.conv1(x))))))


class Deep(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.stages = nn.Sequential(*(nn.Sequential(*(Residual(8) for _ in range(4))) for _ in range(4)))
        self.head = nn.Linear(8, 10)

    def forward(self, x: Any) -> Any:
        return self.head(self.stages(self.stem(x)).mean(dim=(2, 3)))


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from torch.utils.tensorboard import SummaryWriter

    root = tmp_path_factory.mktemp("graphs")
    writer = SummaryWriter(str(root / "deep"))
    writer.add_graph(Deep().eval(), torch.zeros(1, 3, 8, 8))
    writer.close()
    return root


@pytest.fixture(scope="module")
def url(logdir: Path, serve_module: Callable[[Path], ServedLogdir]) -> str:
    return serve_module(logdir).url


def ready(page: Page) -> None:
    expect(page.locator("[data-testid=graph-view]")).to_have_attribute("data-ready", "true", timeout=60_000)


def drawn_extent(page: Page) -> dict[str, float]:
    """The drawn boxes' extent on screen, and the SVG's."""
    found: dict[str, float] = page.evaluate(
        """() => {
        const svg = document.querySelector('[data-testid=graph-svg]').getBoundingClientRect();
        const boxes = [...document.querySelectorAll('[data-testid=graph-node] rect[data-part=box]')]
          .map(r => r.getBoundingClientRect());
        return {left: Math.min(...boxes.map(b => b.left)), right: Math.max(...boxes.map(b => b.right)),
                svgLeft: svg.left, svgRight: svg.right};
    }"""
    )
    return found


def stats(page: Page) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate("() => window.__ridgeline.graphLayoutStats")
    return found


def test_opens_fitted_and_expands_incrementally(page: Page, url: str, artifacts: Path) -> None:
    page.goto(f"{url}?tab=graphs&g.run=deep")
    ready(page)
    extent = drawn_extent(page)
    assert extent["svgLeft"] <= extent["left"] and extent["right"] <= extent["svgRight"]  # nothing cut off
    page.locator("[data-testid=graph-expand-all]").click()
    view = page.locator("[data-testid=graph-view]")
    page.wait_for_function(
        "() => { const v = document.querySelector('[data-testid=graph-view]');"
        " return v.dataset.ready === 'true' && Number(v.dataset.boxes) > 300 }",
        timeout=120_000,
    )
    everything = int(view.get_attribute("data-boxes") or 0)
    expanded = stats(page)
    assert expanded["scopes"] > 100
    # Most scopes of a traced model are laid out directly (one box, or parameters feeding one op), not by ELK.
    assert expanded["laidOut"] < expanded["scopes"] / 2
    extent = drawn_extent(page)
    assert extent["svgLeft"] <= extent["left"] + 0.5  # its left edge in view; what is wider is a drag away
    title = page.locator("[data-testid=graph-node] text[data-part=title]").first.bounding_box()
    assert title is not None and title["height"] >= 9  # names read (13 px titles at 70 % or more)
    page.screenshot(path=str(artifacts / "graphs_expanded.png"))
    # One scope closed: it and the scopes around it are laid out, the rest is reused.
    scope = "Deep/Sequential[stages]/Sequential[2]/Residual[1]"
    header = page.locator(f'[data-testid=graph-node][data-name="{css_string(scope)}"] .rl-graph-group-header')
    header.focus()  # the keyboard toggles it wherever the view is
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => document.querySelector('[data-testid=graph-view]').dataset.boxes !== '{everything}'")
    ready(page)
    toggled = stats(page)
    # At most the scope's parents are laid out again (Sequential[2], Sequential[stages], Deep, the top level; chains,
    # which quick.ts lays out without ELK); every other scope keeps its layout.
    assert toggled["laidOut"] <= 4, toggled
    closed = page.locator(f'[data-testid=graph-node][data-name="{css_string(scope)}"]')
    expect(closed).to_have_attribute("data-kind", "scope")


def test_search_opens_the_scopes_around_a_node(page: Page, url: str) -> None:
    page.goto(f"{url}?tab=graphs&g.run=deep")
    ready(page)
    page.locator("[data-testid=graph-collapse-all]").click()
    ready(page)
    page.locator("[data-testid=graph-search]").fill(r"Sequential\[3\]/Residual\[3\]/BatchNorm2d\[bn1\]/input")
    results = page.locator("[data-testid=graph-results] button")
    expect(results).to_have_count(1)
    name = results.first.inner_text()
    results.first.click()
    node = page.locator(f'[data-testid=graph-node][data-name="{css_string(name)}"]')
    expect(node).to_have_attribute("data-kind", "node", timeout=60_000)
    expect(node).to_have_class("rl-graph-box rl-graph-op rl-graph-selected rl-graph-match")
