"""The void of a round in the consoles: the dealer asks for it with its reason (his console then says a
second staff member must confirm, and offers him no confirmation), the administrator's console shows who
asked and why and confirms it, and every stake goes back to its player."""

from __future__ import annotations

from typing import Any

from tests.web.conftest import Shots, Site, log_in, new_page
from tests.web.helpers import procedures, until


def test_a_void_asked_in_one_console_is_confirmed_in_another_and_returns_every_stake(
    site: Site, browser: Any, shots: Shots
) -> None:
    site.user("ana", chips=50_000)
    site.user("dora", "dealer")
    table = site.table("blackjack", "live", name="Mesa 7 · en vivo")
    site.call("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    site.call("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 2_000})

    procedures(site, "dora", table)  # the table's control procedures (the checklist's own test does them)
    dealer = new_page(browser, site.url)
    log_in(dealer, "dora", site.passwords["dora"])
    dealer.click(f"#console-{table}")
    dealer.wait_for_selector("#deal:enabled")
    assert dealer.locator("#void-ask").count() == 0  # between rounds there is nothing to void
    dealer.click("#deal")
    dealer.wait_for_selector("#card-input:enabled")
    for card in ("Ts", "9h"):
        dealer.fill("#card-input", card)
        dealer.press("#card-input", "Enter")
        dealer.wait_for_selector(f"#entered:has-text('{card[0] if card[0] != 'T' else '10'}')")
    assert site.balance("ana") == 48_000  # the stake is in the round

    dealer.click("#void-ask")
    dealer.wait_for_selector("#void-error:not(:empty)")  # no reason: refused, nothing asked
    assert site.state("admin", table)["void"] is None
    dealer.fill("#void-reason", "el zapato se cayó")
    dealer.click("#void-ask")
    dealer.wait_for_selector("#void-waiting:has-text('el zapato se cayó')")
    assert dealer.locator("#void-confirm").count() == 0  # not by the one who asked
    shots(dealer, "void-asked")

    admin = new_page(browser, site.url)
    log_in(admin, "admin", site.passwords["admin"])
    admin.goto(f"{site.url}/#/dealer/{table}")
    admin.wait_for_selector("#void-waiting:has-text('dora')")
    shots(admin, "void-to-confirm")
    admin.click("#void-confirm")
    until(lambda: site.state("admin", table)["phase"] == "betting", what="the round voided")
    assert site.balance("ana") == 50_000  # every stake returned
    dealer.wait_for_selector("#console-void", state="hidden")
    rounds = site.call("admin", "GET", f"/api/tables/{table}/rounds")["rounds"]
    assert rounds[0]["status"] == "voided" and rounds[0]["void_reason"] == "el zapato se cayó"
    assert not dealer.js_errors and not admin.js_errors
