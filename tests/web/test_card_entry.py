"""The dealer's card field at a live table is empty again once a card is taken, even when the table's
push of that card redraws the console before the card's own answer comes back: pressing Enter again
posts nothing (it posted the same card a second time, and the pack could take it)."""

from __future__ import annotations

from typing import Any

from tests.web.conftest import Site, log_in, new_page
from tests.web.helpers import procedures


def test_the_card_field_is_empty_after_each_card_and_enter_again_posts_nothing(
    site: Site, browser: Any
) -> None:
    site.user("ana", chips=50_000)
    site.user("dora", "dealer")
    site.user("ines", "inspector")  # the only one who reads a round in progress whole (server.md)
    table = site.table("blackjack", "live")
    site.call("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    site.call("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 2_000})
    procedures(site, "dora", table)  # the table's control procedures (the checklist's own test does them)
    dealer = new_page(browser, site.url)
    log_in(dealer, "dora", site.passwords["dora"])
    dealer.click(f"#console-{table}")
    dealer.wait_for_selector("#deal:enabled")
    dealer.click("#deal")
    dealer.wait_for_selector("#card-input:enabled")
    for card, shown in (("Ts", "10♠"), ("9h", "9♥"), ("9c", "9♣")):
        dealer.fill("#card-input", card)
        dealer.press("#card-input", "Enter")
        dealer.wait_for_selector(f"#entered:has-text('{shown}')")
        dealer.wait_for_timeout(300)  # the push and the answer have both been drawn
        assert dealer.input_value("#card-input") == "", card
    taken = site.call("ines", "GET", f"/api/tables/{table}/rounds/1")["cards"]
    dealer.press("#card-input", "Enter")  # an empty field: nothing to send
    dealer.wait_for_timeout(500)
    assert site.call("ines", "GET", f"/api/tables/{table}/rounds/1")["cards"] == taken
    assert [c["card"] for c in taken] == ["Ts", "9h", "9c"]
    assert not dealer.js_errors
