"""A live table in the browser: the dealer enters each card of a physical shoe in his console (a card the
pack cannot hold is refused on the spot, under the field, and the console says whose card comes next),
the player decides in his page, and the payout shown equals the scenario's net for the same cards."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import DOCS, Shots, Site, log_in, new_page
from tests.web.helpers import decide, money, procedures, signed, until

EXAMPLES = Path(__file__).resolve().parents[1] / "scenarios" / "examples"


def whose(state: dict[str, Any]) -> str:
    """What the dealer's console must say the next card is for (the page's Spanish words)."""
    p = state["pending"]
    if p["to"] == "seat":
        box = next(s for s in state["view"]["seats"] if s["seat"] == p["seat"])
        if len(box["hands"]) > 1:  # once the box has split, the console names the hand too
            return f"Casilla {p['seat']}, mano {p.get('hand', 0) + 1}"
        return f"Casilla {p['seat']}"
    if p["to"] == "dealer":
        return "dealer"
    return str(p["to"])


@pytest.mark.postgres
def test_the_dealer_enters_the_cards_the_player_decides_the_payout_is_the_scenarios(
    site: Site, browser: Any, shots: Shots
) -> None:
    scenario = json.loads((EXAMPLES / "blackjack-split-and-double.json").read_text())
    expected = json.loads((EXAMPLES / "blackjack-split-and-double.expected.json").read_text())
    site.user("ana", chips=100_000)
    site.user("ben", chips=100_000)
    site.user("dora", "dealer")
    table = site.table(
        "blackjack", "live", name="Mesa 5 · Black Jack en vivo", **{**scenario["rules"], "burn": 6}
    )
    bets = {b["player"]: b for b in scenario["bets"]}

    ana = new_page(browser, site.url)
    log_in(ana, "ana", site.passwords["ana"])
    ana.goto(f"{site.url}/#/table/{table}")
    ana.click("#take-1")
    ana.fill("#bet-amount", f"{bets['ana']['amount'] / 100:.2f}")
    ana.dispatch_event("#bet-amount", "change")
    ana.click("#spot-1-main")
    ana.wait_for_selector("#spot-1-main.spot--on")
    site.call("ben", "POST", f"/api/tables/{table}/seats", json={"seat": 2})
    site.call("ben", "POST", f"/api/tables/{table}/bets", json={"seat": 2, "spot": "main", "amount": 500})

    procedures(site, "dora", table, upto="burn")  # the new pack's procedures up to its burn
    dealer = new_page(browser, site.url)
    log_in(dealer, "dora", site.passwords["dora"])
    dealer.click(f"#console-{table}")
    dealer.wait_for_selector("#proc-burn")
    # six Kh burned (the table burns six): six decks hold no seventh, so one typed later is refused
    dealer.fill("#procedure-cards", " ".join(["Kh"] * 6))
    dealer.click("#proc-burn")
    dealer.wait_for_selector("#procedure-ok:has-text('Quemar')")
    start = site.balance("ana")
    dealer.click("#deal")
    dealer.wait_for_selector("#card-input:enabled")
    assert "Casilla 1" in dealer.inner_text("#card-for")
    shots(dealer, "console-first-card")
    dealer.fill("#card-input", "Zz")
    dealer.press("#card-input", "Enter")
    dealer.wait_for_selector("#card-error:has-text('Zz')")
    dealer.fill("#card-input", "Kh")
    dealer.press("#card-input", "Enter")
    dealer.wait_for_selector("#card-error:not(:empty):not(:has-text('Zz'))")
    refused = site.state("admin", table)
    assert refused["pending"]["kind"] == "card" and refused["view"]["seats"][0]["hands"][0]["cards"] == []
    shots(dealer, "card-refused")

    cards = list(scenario["cards"])
    actions = list(scenario["actions"])
    seen_whose: list[str] = []
    for _ in range(40):
        state = site.state("admin", table)
        p = state["pending"]
        if p is None:
            break
        if p["kind"] == "card":
            card = cards.pop(0)
            dealer.wait_for_selector("#card-input:enabled")
            # the console says so once the step's push reached it (the API may answer before it renders)
            dealer.wait_for_selector(f'#card-for:has-text("{whose(state)}")')
            said = dealer.inner_text("#card-for")
            assert whose(state) in said, (said, p)
            seen_whose.append(said)
            dealer.fill("#card-input", card)
            dealer.press("#card-input", "Enter")
            if len(seen_whose) == 3:
                shots(dealer, "dealer-card-entered")
            if "tapada" in said:
                dealer.set_viewport_size(DOCS)
                shots.doc(dealer, "dealer-console")
        else:
            offer = p["decision"] != "play"
            entry = None if offer else actions.pop(0)
            action = "decline" if offer else entry["action"]
            if p["holder"] == "ana":
                if action == "split":
                    ana.wait_for_selector(f'[data-turn="{state["round"]}:1:0:play"]')
                    ana.set_viewport_size(DOCS)
                    shots.doc(ana, "blackjack-decision")
                decide(ana, state, action)
                if action in ("split", "double"):
                    shots(ana, f"player-{action}")
            else:
                site.call(
                    "ben",
                    "POST",
                    f"/api/tables/{table}/actions",
                    json={**(entry or {}), "seat": p["seat"], "action": action},
                )
        until(lambda seq=state["seq"]: site.state("admin", table)["seq"] > seq, what="the step")
    assert not cards and not actions
    assert any("mano 2" in s for s in seen_whose)  # after the split the console names the hand
    assert any("tapada" in s for s in seen_whose)  # and the dealer's hole card

    net = expected["players"]["ana"]
    net = net["net"] if isinstance(net, dict) else net
    ana.wait_for_selector("#my-result")
    assert ana.inner_text("#my-result") == f"Su resultado: {signed(net)}"
    assert site.balance("ana") == start + net
    assert ana.inner_text("#balance") == money(start + net)
    payouts = ana.inner_text("#payouts")
    assert "Casilla 1" in payouts and "voló" in payouts
    shots(ana, "player-payout")
    dealer.wait_for_selector("#deal")
    shots(dealer, "dealer-after-round")
    assert not ana.js_errors and not dealer.js_errors
