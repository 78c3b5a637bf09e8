"""Search in the page (issue 6) in a real browser, against a real server: the global search box (``/``, hits
grouped by kind, choosing a hit selects runs and tags, errors with a caret) and the run selector's filter taking
search queries. The log directory: three trials written by torch's ``add_hparams`` (each a ``<run>/trial``
sub-run holding the hparams and the metric) and a run by ridgeline's writer with hparams, a text summary and an
annotation."""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

import ridgeline
from tests.browser.conftest import PAGE_ERRORS
from tests.browser.helpers import ServedLogdir, css_string, serve_logdir, wait_charts_ready
from tests.conftest import WAIT_S

WALL = 1_700_000_000.0
TORCH_TRIALS = {
    "resnet_a": {"lr": 0.001, "batch_size": 64, "dropout": 0.2},
    "resnet_b": {"lr": 0.01, "batch_size": 32, "dropout": 0.5},
    "vit_c": {"lr": 0.001, "batch_size": 32, "dropout": 0.1},
}
BASELINE_HPARAMS = {"lr": 0.1, "batch_size": 64, "optimizer": "sgd"}
NOTE = "nan detected at step 7"
ANNOTATION = "learning rate dropped"


def write_search_logs(root: Path) -> None:
    from torch.utils.tensorboard import SummaryWriter

    for index, (name, hparams) in enumerate(TORCH_TRIALS.items()):
        writer = SummaryWriter(str(root / name))
        for step in range(10):
            writer.add_scalar("train/loss", 2.0 / (step + 1 + index), step, walltime=WALL + step)
            writer.add_scalar("val/loss", 2.5 / (step + 1 + index), step, walltime=WALL + step)
        writer.add_hparams(hparams, {"hparam/val_loss": 0.3 + index / 10}, run_name="trial")
        writer.close()
    with ridgeline.SummaryWriter(root / "baseline", hparams=BASELINE_HPARAMS) as writer:
        for step in range(10):
            writer.add_scalar("train/loss", 3.0 / (step + 1), step, walltime=WALL + step)
        writer.add_text("notes", NOTE, 7, walltime=WALL + 7)
        writer.add_annotation(ANNOTATION, 5, walltime=WALL + 5)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServedLogdir]:
    root = tmp_path_factory.mktemp("search_logs")
    write_search_logs(root)
    server = serve_logdir(root, tmp_path_factory.mktemp("search_server"))
    yield server
    server.stop()


def api_search(served: ServedLogdir, q: str) -> tuple[int, dict[str, object]]:
    url = f"{served.url}api/search?{urllib.parse.urlencode({'q': q})}"
    try:
        with urllib.request.urlopen(url, timeout=WAIT_S) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def forgive_search_400s(request: pytest.FixtureRequest) -> None:
    """Chromium logs every 4xx answer as a console error; the 400s /api/search gave to the bad queries this test
    typed on purpose are expected (any other error still fails the test)."""
    errors = request.node.stash[PAGE_ERRORS]
    errors.errors = [e for e in errors.errors if not ("status of 400" in e and "/api/search?" in e)]


def open_page(page: Page, served: ServedLogdir, query: str = "") -> None:
    page.goto(served.url + query)
    expect(page.locator("[data-testid=run-selector] input[type=checkbox]")).to_have_count(7)
    wait_charts_ready(page)


def box(page: Page) -> Locator:
    return page.locator("[data-testid=search-box]")


def hits(page: Page, kind: str | None = None) -> Locator:
    selector = "[data-testid=search-results] [data-testid=search-hit]"
    return page.locator(selector + (f'[data-kind="{kind}"]' if kind else ""))


def search(page: Page, text: str) -> None:
    """Focus the box with the `/` shortcut (unless it has the focus) and type ``text``; returns once the answer is
    listed."""
    if not box(page).evaluate("el => el === document.activeElement"):
        page.locator("main#main").click(position={"x": 5, "y": 5})
        page.keyboard.press("/")
        expect(box(page)).to_be_focused()
    box(page).fill(text)
    results = page.locator("[data-testid=search-results]")
    expect(results).to_have_attribute("data-query", text.strip())  # the answer to this text, not the last one
    expect(results).to_have_attribute("aria-busy", "false")


def hit_runs(page: Page, kind: str) -> set[str]:
    return {hit.get_attribute("data-run") or "" for hit in hits(page, kind).all()}


def checkbox(page: Page, run: str) -> Locator:
    return page.locator(f'[data-testid=run-selector] input[data-run="{css_string(run)}"]')


def expect_selected(page: Page, runs: set[str]) -> None:
    """Wait until exactly ``runs`` are ticked in the run selector."""
    checked = page.locator("[data-testid=run-selector] input[type=checkbox]:checked")
    expect(checked).to_have_count(len(runs))
    for run in runs:
        expect(checkbox(page, run)).to_be_checked()


def shown_runs(page: Page) -> set[str]:
    boxes = page.locator("[data-testid=run-selector] input[type=checkbox]")
    return {b.get_attribute("data-run") or "" for b in boxes.all()}


def expect_drawn(page: Page, tag: str, runs: list[str]) -> None:
    """Wait until the scalars card of ``tag`` is ready and draws exactly ``runs`` (window.__ridgeline.series;
    a card stays ready while it swaps series, so the runs themselves are what is waited for)."""
    script = """([tag, want]) => {
        const card = [...document.querySelectorAll('[data-testid=scalar-card]')].find(c => c.dataset.tag === tag);
        if (!card || card.dataset.ready !== 'true' || !window.__ridgeline || !window.__ridgeline.series) return false;
        const got = (window.__ridgeline?.series?.get(tag) || []).map(s => s.run).sort();
        return JSON.stringify(got) === JSON.stringify(want);
    }"""
    try:
        page.wait_for_function(script, arg=[tag, sorted(runs)])
    except PlaywrightTimeoutError:
        got = page.evaluate("tag => (window.__ridgeline?.series?.get(tag) || []).map(s => s.run).sort()", tag)
        raise AssertionError(f"the card of {tag!r} draws {got}, expected {sorted(runs)}") from None


def test_slash_focuses_the_box_but_not_while_typing_elsewhere(page: Page, served: ServedLogdir) -> None:
    open_page(page, served)
    tag_filter = page.locator("[data-testid=tag-filter]")
    tag_filter.click()
    page.keyboard.type("a/b")
    expect(tag_filter).to_have_value("a/b")
    expect(box(page)).not_to_be_focused()
    tag_filter.fill("")

    page.locator("main#main").click(position={"x": 5, "y": 5})
    page.keyboard.press("/")
    expect(box(page)).to_be_focused()
    expect(box(page)).to_have_value("")  # the shortcut's "/" is not typed into the box
    box(page).fill("run:RESNET")  # case-insensitive by default, like the shell's filters
    expect(hits(page, "run")).to_have_count(4)
    page.locator("[data-testid=search-case]").click()  # "Aa": match case
    expect(page.locator("[data-testid=search-case]")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("[data-testid=search-results]")).to_contain_text("No match")
    expect(hits(page)).to_have_count(0)
    box(page).fill("run:resnet")
    expect(hits(page, "run")).to_have_count(4)
    page.keyboard.press("Escape")
    expect(page.locator("[data-testid=search-results]")).to_have_count(0)


def test_hparam_pattern_lists_the_runs_and_a_hit_selects_its_run(
    page: Page, served: ServedLogdir, artifacts: Path
) -> None:
    status, answer = api_search(served, r"hparam:lr=0\.001")
    assert status == 200 and answer["mode"] == "pattern"
    open_page(page, served)
    search(page, r"hparam:lr=0\.001")
    assert hit_runs(page, "hparam") == {"resnet_a/trial", "vit_c/trial"}
    assert hits(page).count() == hits(page, "hparam").count()  # the pattern is scoped to hyperparameters
    group_titles = page.locator("[data-testid=search-results] .search-group-title")
    expect(group_titles).to_have_count(1)
    expect(group_titles.first).to_contain_text("Hyperparameters")
    # The matched part is highlighted.
    expect(hits(page, "hparam").first.locator("mark")).to_have_text("lr=0.001")
    page.screenshot(path=str(artifacts / "search-hparam-light.png"))

    # Keyboard: down moves the active hit, Enter chooses it.
    first, second = hits(page).nth(0), hits(page).nth(1)
    expect(first).to_have_attribute("aria-selected", "true")
    page.keyboard.press("ArrowDown")
    expect(second).to_have_attribute("aria-selected", "true")
    expect(first).to_have_attribute("aria-selected", "false")
    chosen = second.get_attribute("data-run")
    assert chosen in {"resnet_a/trial", "vit_c/trial"}
    page.keyboard.press("Enter")

    expect(page.locator("[data-testid=search-results]")).to_have_count(0)
    expect_selected(page, {chosen})
    expect_drawn(page, "hparam/val_loss", [chosen])


def test_select_all_runs_of_a_result_in_a_narrow_window(page: Page, served: ServedLogdir, artifacts: Path) -> None:
    page.set_viewport_size({"width": 760, "height": 700})
    open_page(page, served)
    search(page, r"hparam:batch_size=32")
    panel = page.locator("[data-testid=search-results]").bounding_box()
    assert panel is not None and panel["x"] >= 0 and panel["x"] + panel["width"] <= 760, panel
    page.screenshot(path=str(artifacts / "search-narrow-light.png"))
    button = page.locator("[data-testid=search-select-runs]")
    expect(button).to_have_text("Select all 2 runs")
    button.click()
    expect_selected(page, {"resnet_b/trial", "vit_c/trial"})
    expect_drawn(page, "hparam/val_loss", ["resnet_b/trial", "vit_c/trial"])


def test_a_tag_hit_filters_the_tags_and_selects_its_run(page: Page, served: ServedLogdir) -> None:
    open_page(page, served)
    page.locator("[data-testid=run-filter]").fill("^vit")  # hides resnet_b: choosing it clears the filter
    expect(page.locator("[data-testid=run-selector] input[type=checkbox]")).to_have_count(2)
    search(page, "tag:^val/")
    assert hit_runs(page, "tag") == {"resnet_a", "resnet_b", "vit_c"}
    expect(hits(page, "tag").first.locator("mark")).to_have_text("val/")
    hits(page, "tag").and_(page.locator('[data-run="resnet_b"]')).click()

    expect(page.locator("[data-testid=tag-filter]")).to_have_value("^val/loss$")
    expect(page.locator('nav[aria-label="Dashboards"] button[data-dashboard="scalars"]')).to_have_attribute(
        "aria-current", "page"
    )
    expect_drawn(page, "val/loss", ["resnet_b"])
    expect(page.locator("[data-testid=run-filter]")).to_have_value("")
    expect(page.locator("[data-testid=scalar-card]")).to_have_count(1)
    expect_selected(page, {"resnet_b"})


def test_text_annotation_and_date_hits(page: Page, served: ServedLogdir) -> None:
    open_page(page, served)
    search(page, "text:nan detected")
    expect(hits(page, "text")).to_have_count(1)
    expect(hits(page, "text")).to_have_attribute("data-run", "baseline")
    expect(hits(page, "text").locator("mark")).to_have_text("nan detected")
    search(page, "annotation:rate dropped")
    expect(hits(page, "annotation")).to_have_count(1)
    expect(hits(page, "annotation")).to_have_attribute("data-run", "baseline")
    hits(page, "annotation").click()
    expect_selected(page, {"baseline"})
    expect_drawn(page, "train/loss", ["baseline"])

    # Start and end times (written at WALL = 2023-11-14T22:13:20 UTC, rendered in local time: the 14th or the
    # 15th depending on the time zone) and run metadata (ridgeline's writer).
    search(page, "date:2023-11-1[45]")
    assert hit_runs(page, "date") == {"baseline", "resnet_a", "resnet_b", "vit_c"}
    expect(page.locator("[data-testid=search-select-runs]")).to_have_text("Select all 4 runs")
    hits(page, "date").and_(page.locator('[data-run="vit_c"]')).first.click()
    expect_selected(page, {"vit_c"})
    search(page, "metadata:^host=")
    expect(hits(page, "metadata")).to_have_count(1)
    expect(hits(page, "metadata")).to_have_attribute("data-run", "baseline")


def test_a_question_shows_its_translation_which_a_click_puts_in_the_box(
    page: Page, served: ServedLogdir, artifacts: Path
) -> None:
    question = "runs with lr 0.001"
    status, answer = api_search(served, question)
    assert status == 200 and answer["mode"] == "question"
    open_page(page, served, "?theme=dark")
    search(page, question)
    translation = page.locator("[data-testid=search-translation]")
    expect(translation).to_have_text(str(answer["query"]))
    expect(hits(page, "run")).to_have_count(2)
    assert hit_runs(page, "run") == {"resnet_a/trial", "vit_c/trial"}
    page.screenshot(path=str(artifacts / "search-question-dark.png"))
    translation.click()
    expect(box(page)).to_have_value(str(answer["query"]))
    expect(box(page)).to_be_focused()
    expect(page.locator("[data-testid=search-translation]")).to_have_count(0)  # now a query, not a question
    assert hit_runs(page, "run") == {"resnet_a/trial", "vit_c/trial"}


def test_a_bad_pattern_shows_the_error_with_a_caret(
    page: Page, served: ServedLogdir, artifacts: Path, request: pytest.FixtureRequest
) -> None:
    query = "hparam:lr=(0"
    status, answer = api_search(served, query)
    assert status == 400
    position = answer["position"]
    assert isinstance(position, int) and query.index("(") <= position <= len(query)
    open_page(page, served, "?theme=dark")
    search(page, query)
    error = page.locator("[data-testid=search-error]")
    expect(error).to_be_visible()
    expect(error).to_contain_text(str(answer["error"]))
    caret = error.locator("[data-testid=search-caret]")
    lines = caret.inner_text().split("\n")
    assert lines[0] == query
    assert lines[1] == " " * position + "^"
    expect(box(page)).to_have_attribute("aria-invalid", "true")
    page.screenshot(path=str(artifacts / "search-error-dark.png"))
    forgive_search_400s(request)


def test_run_filter_takes_search_queries(
    page: Page, served: ServedLogdir, artifacts: Path, request: pytest.FixtureRequest
) -> None:
    open_page(page, served)
    run_filter = page.locator("[data-testid=run-filter]")
    note = page.locator("[data-testid=run-filter-query]")
    run_filter.fill("hparam:batch_size=64")
    expect(note).to_have_attribute("data-query", "hparam:batch_size=64")
    expect(note).to_contain_text("2 runs")
    assert shown_runs(page) == {"resnet_a/trial", "baseline"}
    expect_drawn(page, "train/loss", ["baseline"])  # the trial sub-runs hold only the hparam metric

    # A structured query and a question work there too; a question shows its translation.
    run_filter.fill("hparams.lr < 0.01")
    expect(note).to_have_attribute("data-query", "hparams.lr < 0.01")
    expect(note).to_have_attribute("data-mode", "query")
    expect(page.locator("[data-testid=run-selector] input[type=checkbox]")).to_have_count(2)
    assert shown_runs(page) == {"resnet_a/trial", "vit_c/trial"}
    run_filter.fill("runs with batch size 32")
    expect(note).to_have_attribute("data-query", "runs with batch size 32")
    expect(note).to_have_attribute("data-mode", "question")
    expect(page.locator("[data-testid=run-selector] input[type=checkbox]")).to_have_count(2)
    assert shown_runs(page) == {"resnet_b/trial", "vit_c/trial"}

    # A plain regex still filters run names in the page.
    run_filter.fill("^resnet")
    expect(page.locator("[data-testid=run-selector] input[type=checkbox]")).to_have_count(4)
    expect(note).to_have_count(0)

    # A query the server rejects: the inline error with the caret, and no run hidden.
    run_filter.fill("hparam:lr=(0")
    expect(page.locator("[data-testid=run-selector] [role=alert]")).to_contain_text("Search: ")
    expect(page.locator("[data-testid=run-selector] [data-testid=search-caret]")).to_be_visible()
    expect(page.locator("[data-testid=run-selector] input[type=checkbox]")).to_have_count(7)
    page.screenshot(path=str(artifacts / "search-run-filter-light.png"))
    forgive_search_400s(request)
