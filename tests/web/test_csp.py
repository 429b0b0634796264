"""The page and the API's page work under the server's Content-Security-Policy (no inline script, nothing
from another host): a player logs in, opens a table (its WebSocket included) and bets, and /docs shows
the operations, with no violation reported by the browser (server.md, "Logins and sessions")."""

from __future__ import annotations

from typing import Any

from tests.web.conftest import WAIT, Site, log_in, new_page

#: every violation the browser reports, kept where the test can read it (an init script is the browser's
#: own, not the page's: the policy does not apply to it)
WATCH = (
    "window.__csp = [];"
    " document.addEventListener('securitypolicyviolation',"
    " (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));"
)


def test_the_page_runs_under_its_content_security_policy(site: Site, browser: Any) -> None:
    site.user("ana", chips=100_000)
    table = site.table("blackjack", name="Mesa CSP", turn_seconds=120)
    policy = site.http.get("/").headers["content-security-policy"]
    assert "script-src 'self';" in policy and "'unsafe-inline'" not in policy.split("style-src")[0]
    page = new_page(browser, site.url)
    page.context.add_init_script(WATCH)
    page.reload()
    messages: list[str] = []
    page.on("console", lambda m: messages.append(m.text) if m.type == "error" else None)
    log_in(page, "ana", site.passwords["ana"])
    page.click(f"#open-table-{table}")
    page.wait_for_selector("#take-1")
    page.click("#take-1")
    page.wait_for_selector("#spot-1-main")
    assert page.evaluate("window.__csp") == []
    assert not [m for m in messages if "Content Security Policy" in m], messages
    assert page.js_errors == []  # type: ignore[attr-defined]
    # the watch works, and the policy holds: a script written into the page does not run
    page.evaluate(
        "() => { const s = document.createElement('script'); s.textContent = 'window.__ran = 1';"
        " document.body.appendChild(s); }"
    )
    page.wait_for_function("window.__csp.length > 0")
    assert page.evaluate("window.__ran") is None
    assert page.evaluate("window.__csp")[0].startswith("script-src")
    page.context.close()


def test_the_api_page_runs_under_its_content_security_policy(site: Site, browser: Any) -> None:
    context = browser.new_context()
    context.add_init_script(WATCH)
    page = context.new_page()
    page.set_default_timeout(WAIT)
    messages: list[str] = []
    page.on("console", lambda m: messages.append(m.text) if m.type == "error" else None)
    page.goto(site.url + "/docs")
    assert page.evaluate("document.contentType") == "text/html"
    policy = site.http.get("/docs").headers["content-security-policy"]
    assert "'unsafe-inline'" not in policy  # Swagger UI runs under the page's own policy
    page.wait_for_selector(".opblock-summary-path")
    assert page.evaluate("window.__csp") == []
    assert not [m for m in messages if "Content Security Policy" in m], messages
    context.close()
