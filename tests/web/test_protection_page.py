"""Player protection on the page (server.md, "Player protection"; docs/protection.md): the bar always in
view (previous login, the session's time, wagers and net), the reality check that play waits on at the
interval the player set himself (the browser's clock run forward: Playwright's clock), "Mi juego" with
his limits (a raise shown as pending) and his self-exclusion, the cashier's identity form and the
administrator's register upload. Screenshots for docs/screenshots/ come from `shots.doc`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.web.conftest import DOCS, WAIT, Site, log_in
from tests.web.helpers import money, until


def open_page(browser: Any, base: str, lang: str = "es", *, clock: bool = False) -> Any:
    """A page in its own context in `lang`; with `clock`, the browser's clock under the test's hand
    (installed before the page loads, so that every timer of the page runs on it)."""
    context = browser.new_context(viewport=DOCS, locale="en-US" if lang == "en" else "es-PE")
    context.add_init_script(f"window.localStorage.setItem('tapete.lang', '{lang}')")
    page = context.new_page()
    page.set_default_timeout(WAIT)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.js_errors = errors  # type: ignore[attr-defined]
    if clock:
        page.clock.install()
    page.goto(base + "/")
    return page


def _play_round(site: Site, table: int, holder: str) -> None:
    """Deal (the administrator) and stand on every decision through the API until the round ends."""
    state = site.call("admin", "POST", f"/api/tables/{table}/deal")
    for _ in range(50):
        pending = state["pending"]
        if pending is None:
            return
        action = "stand" if "stand" in pending["legal"] else "decline"
        body = {"seat": pending["seat"], "action": action, "hand": pending["hand"]}
        state = site.call(holder, "POST", f"/api/tables/{table}/actions", json=body)
    raise AssertionError("the round did not end")


def test_the_reality_check_at_the_players_interval_holds_play_until_acknowledged(
    site: Site, browser: Any, shots: Any
) -> None:
    """ana sets her reality check to every minute in "Mi juego" (a lowering: at once). A minute into the
    session the page shows the time played, her wagers and her net in a dialog that Escape does not
    dismiss and that keeps the table out of reach; once she acknowledges it play goes on, and the next
    minute it comes again. The bar always shows her previous login and the session's figures."""
    site.user("ana", chips=100_000)  # her first login (the API's): the page's is her second
    table = site.table("blackjack", turn_seconds=None, betting_seconds=None, name="Mesa 3 · Black Jack")
    page = open_page(browser, site.url, clock=True)
    log_in(page, "ana", site.passwords["ana"])
    page.wait_for_selector("#session-bar:not([hidden]) #session-time")
    previous = page.inner_text("#previous-login")
    assert "primero" not in previous and any(ch.isdigit() for ch in previous), previous

    page.click("#session-myplay")
    page.wait_for_selector("#limits-form")
    page.fill("#limit-reality_check_minutes", "1")
    page.click("#limits-submit")
    page.wait_for_selector("#limits-ok:has-text('en vigor')")
    assert site.call("ana", "GET", "/api/me")["limits"]["reality_check_minutes"] == 1

    # a round played: the session's wagers and net are not zero
    site.call("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    site.call("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 2_500})
    _play_round(site, table, "ana")
    session = site.call("ana", "GET", "/api/me")["session"]
    page.goto(f"{site.url}/#/table/{table}")
    page.wait_for_selector("#take-2")
    page.wait_for_selector(f"#session-wagered:has-text('{money(session['wagered'])}')")

    page.clock.fast_forward("01:05")
    page.wait_for_selector("#reality[open] #reality-continue")
    text = page.inner_text("#reality-text")
    assert "1 min" in text, text
    assert page.inner_text("#reality-wagered") == money(session["wagered"])
    shots(page, "reality-check")
    shots.doc(page, "reality-check")
    page.keyboard.press("Escape")
    assert page.is_visible("#reality[open]")  # Escape does not dismiss it
    with pytest.raises(PlaywrightTimeout):
        page.click("#take-2", timeout=1_500)  # the table is out of reach while it waits
    assert site.state("admin", table)["seats"][1]["holder"] is None

    page.click("#reality-continue")
    page.wait_for_selector("#reality:not([open])", state="attached")
    page.click("#take-2")
    until(lambda: site.state("admin", table)["seats"][1]["holder"] == "ana", what="ana's second box")

    page.clock.fast_forward("01:00")
    page.wait_for_selector("#reality[open] #reality-continue")
    assert "2 min" in page.inner_text("#reality-text")
    page.click("#reality-continue")
    page.wait_for_selector("#reality:not([open])", state="attached")
    assert not page.js_errors  # type: ignore[attr-defined]


def test_mi_juego_shows_the_limits_a_pending_raise_and_the_self_exclusion(
    site: Site, browser: Any, shots: Any
) -> None:
    """ana lowers her daily loss limit to S/ 50.00 (in force at once), then raises it to S/ 80.00: the
    page shows S/ 50.00 in force and S/ 80.00 pending from 24 hours later; in English too. Then she
    excludes herself for 7 days (the box ticked first): the page says until when and her logins are
    refused from then on."""
    site.user("ana", chips=10_000)
    page = open_page(browser, site.url)
    log_in(page, "ana", site.passwords["ana"])
    page.click("#nav-myplay")
    page.wait_for_selector("#limits-form")
    assert page.inner_text("#now-loss_per_day") == "En vigor: sin límite"

    page.fill("#limit-loss_per_day", "50.00")
    page.fill("#limit-session_minutes", "120")
    page.click("#limits-submit")
    page.wait_for_selector("#now-loss_per_day:has-text('S/ 50.00')")
    page.fill("#limit-loss_per_day", "80.00")
    page.click("#limits-submit")
    page.wait_for_selector("#wait-loss_per_day:has-text('S/ 80.00')")
    assert "S/ 50.00" in page.inner_text("#now-loss_per_day")
    assert "24" in page.inner_text("#limits-ok")
    limits = site.call("ana", "GET", "/api/me")["limits"]
    assert limits["loss_per_day"] == 5_000 and limits["pending"]["loss_per_day"]["value"] == 8_000
    assert limits["session_minutes"] == 120
    shots(page, "myplay-es")
    shots.doc(page, "myplay-es")

    page.click("#lang-en")
    page.wait_for_selector("#myplay-title:has-text('My play')")
    page.wait_for_selector("#wait-loss_per_day:has-text('Pending')")
    shots(page, "myplay-en")
    shots.doc(page, "myplay-en")

    page.fill("#exclusion-days", "7")
    page.click("#exclusion-submit")
    page.wait_for_selector("#exclusion-error:has-text('Tick')")
    page.check("#exclusion-sure")
    page.click("#exclusion-submit")
    page.wait_for_selector("#exclusion-done")
    shots(page, "myplay-excluded")
    r = site.http.post("/api/login", json={"username": "ana", "password": site.passwords["ana"]})
    assert r.status_code == 403 and r.json()["error"]["key"] == "err.protection.excluded"
    assert not page.js_errors  # type: ignore[attr-defined]


def test_the_cashier_enters_an_identity_and_the_administrator_loads_the_register(
    site: Site, browser: Any, shots: Any, tmp_path: Path
) -> None:
    """The cashier types ana's DNI and birth date (an under-age date refused under the form); the
    administrator uploads a register holding that DNI, and the cashier's console then says she is on it."""
    site.user("ana", chips=1_000)
    site.user("caja", role="cashier")
    cashier = open_page(browser, site.url)
    log_in(cashier, "caja", site.passwords["caja"])
    cashier.goto(f"{site.url}/#/cashier/ana")
    cashier.wait_for_selector("#identity-form")
    cashier.fill("#identity-document", "40000123")
    cashier.fill("#identity-birth", "2015-01-01")
    cashier.click("#identity-submit")
    cashier.wait_for_selector("#identity-error:has-text('18')")
    cashier.fill("#identity-birth", "1990-05-17")
    cashier.click("#identity-submit")
    cashier.wait_for_selector("#identity-ok")
    assert site.call("admin", "GET", "/api/protection/players/ana")["document"] == "40000123"

    csv = tmp_path / "registro.csv"
    lines = (
        ["document,since"] + [f"{20_000_000 + i},2026-06-01" for i in range(2_000)] + ["40000123,2026-11-30"]
    )
    csv.write_text("\n".join(lines) + "\n")
    admin = open_page(browser, site.url)
    log_in(admin, "admin", site.passwords["admin"])
    admin.goto(f"{site.url}/#/admin/register")
    admin.wait_for_selector("#register-form")
    admin.set_input_files("#register-file", str(csv))
    admin.click("#register-submit")
    admin.wait_for_selector("#register-ok:has-text('ana')")
    assert "2" in admin.inner_text("#register-status")
    shots(admin, "register")
    shots.doc(admin, "register-upload")

    cashier.reload()
    cashier.wait_for_selector("#identity-prohibited")
    shots(cashier, "identity")
    shots.doc(cashier, "cashier-identity")
    assert not cashier.js_errors and not admin.js_errors  # type: ignore[attr-defined]
