"""The Runs dashboard in a real browser over runs that real training scripts wrote: status badges in the table and
the run selector, notes (sanitised Markdown) and tags, the traceback of a failed run, sorting, and the Logs view
filtering by regular expression and following a run that is still printing."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.conftest import PAGE_ERRORS
from tests.browser.helpers import ServedLogdir, css_string

SCRIPT = """
import sys
from ridgeline import SummaryWriter

writer = SummaryWriter(sys.argv[1], capture_console=True, hparams={"lr": float(sys.argv[3])})
writer.add_note("# Tried a smaller lr\\n<img src=x onerror=\\"window.__pwned=1\\"> **bold**", tags=["baseline"])
for step in range(3):
    writer.add_scalar("loss", 1.0 / (step + 1), step)
    print(f"tick {step} loss {1.0 / (step + 1):.3f}")
writer.flush()
ending = sys.argv[2]
if ending == "close":
    writer.close()
elif ending == "raise":
    raise RuntimeError("the loader broke")
else:
    print("ready", flush=True)
    step = 3
    while sys.stdin.readline():  # one more line per line the test sends, flushed at once
        writer.add_scalar("loss", 1.0 / (step + 1), step)
        print(f"tick {step} later")
        writer.flush()
        print("flushed", flush=True)
        step += 1
"""


def start(logdir: Path, run: str, ending: str, lr: float) -> subprocess.Popen[str]:
    script = logdir.parent / "train.py"
    script.write_text(SCRIPT)
    return subprocess.Popen(
        [sys.executable, str(script), str(logdir / run), ending, str(lr)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for(process: subprocess.Popen[str], line: str) -> None:
    assert process.stdout is not None
    while process.stdout.readline() != line + "\n":
        assert process.poll() is None, f"the training script ended before printing {line!r}"


def row(page: Page, run: str) -> Locator:
    return page.locator(f'[data-testid=runs-table] tr[data-run="{css_string(run)}"]')


@pytest.fixture
def ended_runs(tmp_path: Path) -> Path:
    logdir = tmp_path / "logs"
    logdir.mkdir()
    for run, ending, lr in (("finished", "close", 0.1), ("failed", "raise", 0.2)):
        start(logdir, run, ending, lr).communicate(timeout=120)
    killed = start(logdir, "crashed", "wait", 0.3)
    wait_for(killed, "ready")
    killed.kill()
    killed.communicate(timeout=120)
    return logdir


@pytest.fixture
def live_run(tmp_path: Path) -> Iterator[tuple[Path, subprocess.Popen[str]]]:
    logdir = tmp_path / "live_logs"
    logdir.mkdir()
    process = start(logdir, "live", "wait", 0.5)
    wait_for(process, "ready")
    try:
        yield logdir, process
    finally:
        process.kill()
        process.communicate(timeout=120)


def test_the_table_shows_status_badges_notes_tags_and_the_traceback(
    page: Page,
    ended_runs: Path,
    serve: Callable[[Path], ServedLogdir],
    monkeypatch: pytest.MonkeyPatch,
    artifacts: Path,
) -> None:
    monkeypatch.setenv("RIDGELINE_CRASHED_AFTER", "0")  # the killed run has been quiet "for a while" at once
    page.goto(serve(ended_runs).url + "?tab=runs")
    for run in ("finished", "failed", "crashed"):
        expect(row(page, run).locator("[data-col=status] .status-badge")).to_have_attribute("data-status", run)
    expect(row(page, "finished").locator("[data-testid=notes-excerpt]")).to_have_text("Tried a smaller lr")
    expect(row(page, "finished").locator("[data-tag=baseline]")).to_be_visible()
    expect(row(page, "failed").locator("[data-col=status]")).to_contain_text("RuntimeError: the loader broke")
    # the run selector marks the runs that need a look, not the finished one
    selector = page.locator("[data-testid=run-selector]")
    expect(selector.locator(".status-badge[data-status=failed]")).to_have_count(1)
    expect(selector.locator(".status-badge[data-status=crashed]")).to_have_count(1)
    expect(selector.locator(".status-badge[data-status=finished]")).to_have_count(0)

    row(page, "failed").get_by_role("button", name="details of failed").click()
    details = page.locator('[data-details="failed"]')
    expect(details.locator("h1")).to_have_text("Tried a smaller lr")  # Markdown rendered
    expect(details.locator("strong")).to_have_text("bold")
    expect(details).to_contain_text('<img src=x onerror="window.__pwned=1">')  # raw HTML shown as text
    assert details.locator("img").count() == 0 and page.evaluate("() => window.__pwned") is None
    traceback = details.locator("[data-testid=traceback]")
    expect(traceback).to_contain_text("Traceback (most recent call last):")
    expect(traceback).to_contain_text("RuntimeError: the loader broke")
    page.screenshot(path=str(artifacts / "runs_table.png"))

    names = page.locator("[data-testid=runs-table] tbody tr[data-run]")
    page.locator("th[data-sort=status] button").click()
    page.locator("th[data-sort=status] button").click()  # ascending: failed, crashed, ..., finished
    expect(names.nth(0)).to_have_attribute("data-run", "failed")
    expect(names.nth(1)).to_have_attribute("data-run", "crashed")
    expect(names.nth(2)).to_have_attribute("data-run", "finished")


def test_the_logs_view_filters_by_regex_and_follows_a_growing_run(
    page: Page,
    live_run: tuple[Path, subprocess.Popen[str]],
    serve: Callable[[Path], ServedLogdir],
    request: pytest.FixtureRequest,
    artifacts: Path,
) -> None:
    logdir, process = live_run
    page.goto(serve(logdir).url + "?tab=runs")
    expect(row(page, "live").locator(".status-badge")).to_have_attribute("data-status", "running")
    row(page, "live").get_by_role("button", name="Logs").click()
    logs = page.locator("[data-testid=logs-view]")
    lines = logs.locator(".rl-logs-line .rl-logs-text")
    # "ready" was printed after the last flush: it waits in the writer for the next batch
    expect(lines).to_have_text(["tick 0 loss 1.000", "tick 1 loss 0.500", "tick 2 loss 0.333"])
    expect(logs.locator(".rl-logs-line").first.locator(".rl-logs-stream")).to_have_text("stdout")
    expect(logs.locator(".rl-logs-line").nth(1).locator(".rl-logs-step")).to_have_text("1")

    search = logs.get_by_role("searchbox", name="filter lines by regular expression")
    search.fill(r"tick [02] ")
    expect(lines).to_have_text(["tick 0 loss 1.000", "tick 2 loss 0.333"])
    search.fill("tick (")
    expect(logs.locator("[data-testid=logs-error]")).to_contain_text("is not a valid regular expression")
    # Chromium logs the 400 of the pattern typed wrong on purpose as a console error: expected, no other is
    errors = request.node.stash[PAGE_ERRORS]
    errors.errors = [e for e in errors.errors if not ("status of 400" in e and "/api/runs/logs?" in e)]
    search.fill("tick")
    expect(lines).to_have_count(3)

    assert process.stdin is not None
    process.stdin.write("more\n")
    process.stdin.flush()
    wait_for(process, "flushed")
    expect(lines.last).to_have_text("tick 3 later")  # followed: the server re-read the file, the page asked
    process.stdin.write("more\n")
    process.stdin.flush()
    wait_for(process, "flushed")
    earlier = ["tick 0 loss 1.000", "tick 1 loss 0.500", "tick 2 loss 0.333"]
    expect(lines).to_have_text([*earlier, "tick 3 later", "tick 4 later"])
    logs.screenshot(path=str(artifacts / "runs_logs.png"))


def test_note_and_log_search_hits_open_the_runs_row_and_its_logs(
    page: Page, ended_runs: Path, serve: Callable[[Path], ServedLogdir]
) -> None:
    page.goto(serve(ended_runs).url)
    expect(page.locator("[data-testid=run-selector] input[type=checkbox]")).to_have_count(3)
    box = page.locator("[data-testid=search-box]")
    results = page.locator("[data-testid=search-results]")
    page.locator("main#main").click(position={"x": 5, "y": 5})
    page.keyboard.press("/")
    expect(box).to_be_focused()
    box.fill("log:^tick 1")
    expect(results).to_have_attribute("data-query", "log:^tick 1")
    expect(results).to_have_attribute("aria-busy", "false")
    log_hits = results.locator('[data-testid=search-hit][data-kind="log"]')
    expect(log_hits).to_have_count(3)  # each run printed it
    log_hits.and_(page.locator('[data-run="failed"]')).click()
    runs_tab = page.locator('nav[aria-label="Dashboards"] button[data-dashboard="runs"]')
    expect(runs_tab).to_have_attribute("aria-current", "page")
    expect(page.locator("[data-testid=runs-table] tbody tr[data-run]")).to_have_count(1)  # only its run selected
    logs = page.locator('[data-testid=logs-view][aria-label="logs of failed"]')
    expect(logs.locator(".rl-logs-text").first).to_have_text("tick 0 loss 1.000")

    page.keyboard.press("/")
    expect(box).to_be_focused()
    box.fill("note:smaller")
    expect(results).to_have_attribute("data-query", "note:smaller")
    expect(results).to_have_attribute("aria-busy", "false")
    results.locator('[data-testid=search-hit][data-kind="note"]').and_(page.locator('[data-run="crashed"]')).click()
    expect(page.locator("[data-testid=runs-table] tbody tr[data-run]")).to_have_attribute("data-run", "crashed")
