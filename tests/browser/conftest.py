"""Browser fixtures: Debian's chromium driven by Playwright, against a real ridgeline server on 127.0.0.1.

- ``browser``: one headless chromium per test process (pytest-xdist workers each start their own).
- ``serve``: serves a log directory with a real server on a free port and returns its base URL;
  ``serve_module``: the same, one server for a module whose tests only read it.
- ``page``: a fresh context (its own localStorage) at 1280x800 that records console errors and uncaught page
  errors; any of them fails the test at teardown. Its waits (and expect()'s) give up after WAIT_MS.

Nothing is skipped silently: a missing chromium or an unbuilt UI fails with what to run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Error, Page, Playwright, expect, sync_playwright

from tests.browser.helpers import CHROMIUM, CHROMIUM_ARGS, STATIC, WAIT_MS, ServedLogdir, serve_logdir

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
VIEWPORT = {"width": 1280, "height": 800}
expect.set_options(timeout=WAIT_MS)  # expect()'s own default is 5 s


def check_prerequisites() -> None:
    if not CHROMIUM.exists():
        message = f"{CHROMIUM} is missing: run `make test` (or scripts/install-browser.sh) to install it"
        pytest.fail(message, pytrace=False)
    if not (STATIC / "index.html").exists():
        message = f"the web UI is not built ({STATIC / 'index.html'} is missing): run `make build-web`"
        pytest.fail(message, pytrace=False)


@pytest.fixture(scope="session")
def playwright_instance() -> Iterator[Playwright]:
    check_prerequisites()
    with sync_playwright() as playwright:
        yield playwright


@pytest.fixture(scope="session")
def browser(playwright_instance: Playwright) -> Iterator[Browser]:
    browser = playwright_instance.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    yield browser
    browser.close()


def _servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[Path], ServedLogdir]]:
    check_prerequisites()
    started: list[ServedLogdir] = []

    def start(logdir: Path) -> ServedLogdir:
        served = serve_logdir(logdir, tmp_path_factory.mktemp("server"))
        started.append(served)
        return served

    yield start
    for served in started:
        served.stop()


@pytest.fixture
def serve(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[Path], ServedLogdir]]:
    """``serve(logdir)`` starts a server for ``logdir`` (stopped after the test) and returns it."""
    yield from _servers(tmp_path_factory)


@pytest.fixture(scope="module")
def serve_module(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[Path], ServedLogdir]]:
    """``serve`` for a module whose tests only read the log directory: one server (stopped after the module) for
    all of them, each test with its own browser context. A server costs some 1.5 s of CPU to start."""
    yield from _servers(tmp_path_factory)


class PageErrors:
    """Console errors and uncaught exceptions of one page while its test runs (not during teardown, when the
    servers it polls stop first)."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.recording = True

    def on_console(self, message: ConsoleMessage) -> None:
        if self.recording and message.type == "error":
            location = message.location
            self.errors.append(f"console.error: {message.text} ({location.get('url')}:{location.get('lineNumber')})")

    def on_page_error(self, error: Error) -> None:
        if self.recording:
            self.errors.append(f"uncaught: {error.message}\n{error.stack or ''}")


PAGE_ERRORS = pytest.StashKey[PageErrors]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """A test that used ``page`` fails if the page logged an error while it ran."""
    try:
        return (yield)
    finally:
        errors = item.stash.get(PAGE_ERRORS, None)
        if errors is not None:
            errors.recording = False
            if errors.errors:
                pytest.fail("the page logged errors:\n" + "\n".join(errors.errors), pytrace=False)


@pytest.fixture
def page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    """A page whose test may evaluate strings in it (wait_for_function): the server's Content-Security-Policy
    forbids eval, so this page's context bypasses it; ``strict_page`` keeps it (tests/browser/test_csp.py)."""
    yield from _page(browser, request, bypass_csp=True)


@pytest.fixture
def strict_page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    """A page under the server's Content-Security-Policy, as a user's browser enforces it."""
    yield from _page(browser, request, bypass_csp=False)


def _page(browser: Browser, request: pytest.FixtureRequest, *, bypass_csp: bool) -> Iterator[Page]:
    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1, bypass_csp=bypass_csp)
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    errors = PageErrors()
    request.node.stash[PAGE_ERRORS] = errors
    page.on("console", errors.on_console)
    page.on("pageerror", errors.on_page_error)
    yield page
    errors.recording = False
    context.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """tests/artifacts/ (git-ignored): screenshots for a person to review."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
