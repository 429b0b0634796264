"""What a player types as his bet's amount survives the pushes that re-render his chips while he types
(his seat taken, his balance changed by a bet at another table): the page used to put the last amount he
had confirmed back into the field, and the bet went in at that amount instead of the one he typed."""

from __future__ import annotations

from typing import Any

from tests.web.conftest import Site, log_in, new_page
from tests.web.helpers import money, until


def test_the_amount_being_typed_survives_a_push(site: Site, browser: Any) -> None:
    site.user("ana", chips=100_000)
    site.user("ben", chips=100_000)
    here = site.table("blackjack", "live", name="Mesa 7 · Black Jack")
    there = site.table("blackjack", "live", name="Mesa 8 · Black Jack")
    ana = new_page(browser, site.url)
    log_in(ana, "ana", site.passwords["ana"])
    ana.goto(f"{site.url}/#/table/{here}")
    ana.click("#take-1")
    ana.wait_for_selector("#spot-1-main")
    ana.fill("#bet-amount", "12.50")  # typed, not yet confirmed (no change event: he is still in the field)
    site.call("ana", "POST", f"/api/tables/{there}/seats", json={"seat": 1})
    site.call("ana", "POST", f"/api/tables/{there}/bets", json={"seat": 1, "spot": "main", "amount": 3_000})
    site.call("ben", "POST", f"/api/tables/{here}/seats", json={"seat": 2})  # a push here, with her new funds
    ana.wait_for_selector(f"#available:has-text('{money(97_000)}')")  # the chips panel was drawn again
    assert ana.input_value("#bet-amount") == "12.50"
    ana.dispatch_event("#bet-amount", "change")
    ana.click("#spot-1-main")
    ana.wait_for_selector("#spot-1-main.spot--on")
    bets = until(lambda: site.state("ana", here)["seats"][0]["bets"], what="ana's bet")
    assert [b["amount"] for b in bets] == [1_250]
