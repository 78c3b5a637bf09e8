"""The page while ``serve``'s first pass still reads the log directory (issue 15): it shows how far the pass got,
lists the runs read so far, and the rest as they arrive; the notice goes once everything is read. A real server
(the built UI, the app behind the front, uvicorn on 127.0.0.1) over real event files; the first pass is held
after its first run by its own progress callback, so the state in between is there for as long as the test needs
it."""

from __future__ import annotations

import threading
from pathlib import Path

from playwright.sync_api import Page, expect

import ridgeline.api
from ridgeline.server import create_app
from ridgeline.server.front import Front, protect
from tests.conftest import WAIT_S, write_ridgeline_run
from tests.server.conftest import in_thread


def test_the_page_shows_the_first_pass_and_its_runs_as_they_arrive(tmp_path: Path, page: Page) -> None:
    for name in ("alpha", "beta"):
        write_ridgeline_run(tmp_path / "logs" / name, {"loss": [(step, 1.0 / (step + 1)) for step in range(20)]})
    opening = ridgeline.api.opening(tmp_path / "logs", cache=False)
    paused, go_on = threading.Event(), threading.Event()

    def progress(done: int, total: int) -> None:
        if done == 1:
            paused.set()
            go_on.wait(WAIT_S)

    reading = threading.Thread(target=opening.load, args=(progress,), daemon=True)
    reading.start()
    assert paused.wait(WAIT_S), "the first pass never read its first run"
    front = Front()
    front.ready(create_app(opening.logdir, loading=opening.state, reload_interval=30, with_middleware=False))
    try:
        with in_thread(protect(front, token=None, prefix="")) as client:
            page.goto(str(client.base_url) + "/")
            expect(page.get_by_test_id("loading")).to_have_text("Reading event files: 1 of 2")
            expect(page.locator('input[data-run="alpha"]')).to_be_visible()
            expect(page.locator('input[data-run="beta"]')).to_have_count(0)
            go_on.set()
            reading.join(WAIT_S)
            # The page polls every 0.5 s while loading (its reload interval is 30 s): the rest arrives by itself.
            expect(page.locator('input[data-run="beta"]')).to_be_visible()
            expect(page.get_by_test_id("loading")).to_have_count(0)
    finally:
        go_on.set()
