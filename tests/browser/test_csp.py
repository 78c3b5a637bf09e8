"""The web UI runs under the server's Content-Security-Policy (issue 13): no inline script, no other
origin. The demo (data for every dashboard, and a profiler trace for the Profile tab: the demo writes none) is
toured tab by tab in a page that enforces the policy, as a
user's browser does; any violation is recorded by a listener the page cannot remove and fails the test, as does
any console error (the other browser tests bypass the policy, since they evaluate strings in the page)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page, expect

from ridgeline.fixtures.demo import write_demo
from tests.browser.helpers import ServedLogdir
from tests.profile import handmade

RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__cspViolations.push(`${e.violatedDirective}: ${e.blockedURI || "inline"} (${e.sourceFile}:${e.lineNumber})`);
});
"""


def test_every_dashboard_works_under_the_content_security_policy(
    strict_page: Page, tmp_path: Path, serve: Callable[[Path], ServedLogdir], artifacts: Path
) -> None:
    write_demo(tmp_path / "demo", steps=40)
    handmade.write(tmp_path / "demo" / "resnet" / "lr_0.1" / "gpu.1.pt.trace.json", handmade.gpu_trace(0))
    served = serve(tmp_path / "demo")
    strict_page.add_init_script(RECORD_VIOLATIONS)
    response = strict_page.goto(served.url)
    assert response is not None and "script-src 'self'" in response.headers["content-security-policy"]
    expect(strict_page.locator("[data-testid=scalar-card]").first).to_be_visible(timeout=60_000)
    nav = strict_page.locator('nav[aria-label="Dashboards"]')
    tabs = nav.get_by_role("button")
    expect(tabs).to_have_count(16)  # the Profile tab among them: a run has a trace
    for name in tabs.all_inner_texts():
        nav.get_by_role("button", name=name, exact=True).click()
        expect(nav.get_by_role("button", name=name, exact=True)).to_have_attribute("aria-current", "page")
        expect(strict_page.locator("main")).not_to_be_empty()
    assert strict_page.evaluate("window.__cspViolations") == []
    strict_page.screenshot(path=artifacts / "csp-tour.png")
