"""The page in Spanish (by default) and in English (a switch, remembered), the regulation's words and the
server's refusals in the page's language next to the field that caused them: the administrator's table
form (the regulation's bounds), a bet above the table's maximum, the cashier's cash-out; the phone's width."""

from __future__ import annotations

from typing import Any

from tapete.i18n import layout_lines
from tests.web.conftest import PHONE, Shots, Site, log_in, new_page
from tests.web.helpers import money


def test_the_page_in_spanish_and_in_english(site: Site, browser: Any, shots: Shots) -> None:
    site.user("ana", chips=50_000)
    site.user("caja", "cashier")
    page = new_page(browser, site.url, lang=None)
    page.wait_for_selector("#login-title")
    assert page.inner_text("#login-title") == "Entrar"  # Spanish by default
    assert page.get_attribute("html", "lang") == "es"
    page.click("#lang-en")
    page.wait_for_selector("#login-title:has-text('Log in')")
    assert page.get_attribute("html", "lang") == "en"
    assert page.get_attribute("#lang-en", "aria-pressed") == "true"
    shots(page, "login-en")
    log_in(page, "admin", site.passwords["admin"])

    # the administrator's form: each refusal of the regulation next to its field, in English...
    page.wait_for_selector("#table-form")
    page.fill("#table-name", "Mesa 9 · Black Jack")
    page.fill("#set-decks", "2")
    page.fill("#set-table_min", "50.00")
    page.fill("#set-table_max", "10.00")
    page.fill("#set-cut_card_depth", "10")
    page.click("#open-table")
    page.wait_for_selector("#error-decks:not(:empty)")
    assert "4 to 8 decks" in page.inner_text("#error-decks")
    assert "above the maximum" in page.inner_text("#error-table_min")
    assert "between 40 and" in page.inner_text("#error-cut_card_depth")
    assert page.inner_text("#error-name") == ""
    assert page.input_value("#set-decks") == "2"  # what he typed stays, beside its refusal
    shots(page, "admin-refusals-en")
    shots.doc(page, "admin-refusals-en")
    # ... and in Spanish, the same form, the same server, the page's other language
    page.click("#lang-es")
    page.wait_for_selector("#open-table:has-text('Abrir la mesa')")
    page.fill("#table-name", "Mesa 9 · Black Jack")
    page.fill("#set-decks", "2")
    page.fill("#set-table_min", "50.00")
    page.fill("#set-table_max", "10.00")
    page.click("#open-table")
    page.wait_for_selector("#error-decks:has-text('barajas')")
    assert "de 4 a 8 barajas" in page.inner_text("#error-decks")
    assert "supera el máximo" in page.inner_text("#error-table_min")
    shots(page, "admin-refusals-es")
    page.fill("#set-decks", "6")
    page.fill("#set-table_min", "10.00")
    page.fill("#set-table_max", "500.00")
    page.fill("#set-cut_card_depth", "")
    page.click("#open-table")
    page.wait_for_selector("#table-ok:has-text('Mesa 9')")
    table = site.call("admin", "GET", "/api/tables")["tables"][-1]
    assert table["rules"]["table_min"] == 1000 and table["rules"]["table_max"] == 50_000
    page.reload()
    page.wait_for_selector("#table-form")
    assert page.get_attribute("html", "lang") == "es"  # remembered

    # a player in English: the layout's phrases, a refused bet said next to the box
    player = new_page(browser, site.url, lang="en")
    log_in(player, "ana", site.passwords["ana"])
    player.click(f"#open-table-{table['id']}")
    player.click("#take-1")
    player.fill("#bet-amount", "600.00")
    player.dispatch_event("#bet-amount", "change")
    player.click("#spot-1-main")
    player.wait_for_selector("#seat-error-1:not(:empty)")
    assert "above the table maximum" in player.inner_text("#seat-error-1")
    assert money(50_000) in player.inner_text("#seat-error-1")
    for line in layout_lines("blackjack", "en"):
        assert line.upper() in player.inner_text("#felt .phrases").upper()
    player.click("#show-rules")
    player.wait_for_selector("#dialog[open] .house-rules")
    assert "back-betting" in player.inner_text("#dialog").lower()
    shots(player, "rules-en")
    player.click("#dialog-close")
    player.set_viewport_size(PHONE)
    shots(player, "table-phone-en")
    shots.doc(player, "phone-en")
    player.click("#lang-es")
    player.wait_for_selector("#show-rules:has-text('Reglas de la mesa')")
    for line in layout_lines("blackjack", "es"):
        assert line.upper() in player.inner_text("#felt .phrases").upper()
    shots(player, "table-phone-es")

    # the cashier: a buy-in, a cash-out the balance cannot cover refused under its field
    cashier = new_page(browser, site.url)
    log_in(cashier, "caja", site.passwords["caja"])
    cashier.click("#player-ana")
    cashier.wait_for_selector("#cashier-balance")
    cashier.fill("#buy-in-amount", "250.00")
    cashier.click("#buy-in-submit")
    cashier.wait_for_selector("#cashier-ok:has-text('S/ 250.00')")
    assert cashier.inner_text("#cashier-balance") == money(75_000)
    cashier.fill("#cash-out-amount", "5000.00")
    cashier.click("#cash-out-submit")
    cashier.wait_for_selector("#cash-out-error:not(:empty)")
    assert cashier.inner_text("#buy-in-error") == ""
    assert "compra de fichas" in cashier.inner_text("#movements")
    shots(cashier, "cashier")
    assert site.balance("ana") == 75_000
    assert not page.js_errors and not player.js_errors and not cashier.js_errors
