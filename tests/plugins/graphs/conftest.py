"""The browser fixtures of tests/browser (Debian's chromium, a real server, a page that fails the test on a console
error) for the graphs dashboard's tests here."""

from __future__ import annotations

from tests.browser.conftest import (  # noqa: F401 (fixtures and the hook that checks the page's errors)
    artifacts,
    browser,
    page,
    playwright_instance,
    pytest_runtest_call,
    serve,
)
