"""Issue 31 at a live table: with `dealer_completes_hand` the dealer draws to 17 after every box has
busted, and the card entry asks the dealer for those cards (the engine's pending card step drives the
console); without it the round ends with the last bust (rules.md §1 [A])."""

from __future__ import annotations

from typing import Any

import pytest

from tests.server.conftest import Api
from tests.server.support import live_deal

pytestmark = pytest.mark.usefixtures("fast_hashing")


def _bust_the_only_box(api: Api, completes: bool) -> tuple[int, Any]:
    """A live Black Jack table, ana's 1000 on box 1: Ts 6h against 6c up, Td in the hole; she hits Kh."""
    api.user("dora", "dealer")
    api.user("ana", "player", chips=10_000)
    rules = {"dealer_completes_hand": True} if completes else {}
    table = api.table("blackjack", "live", **rules)
    api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 1000})
    state = live_deal(api, "dora", table, ["Ts", "6c", "6h", "Td"])
    assert state["pending"]["decision"] == "surrender"
    api.ok("ana", "POST", f"/api/tables/{table}/actions", json={"seat": 1, "action": "decline"})
    api.ok("ana", "POST", f"/api/tables/{table}/actions", json={"seat": 1, "action": "hit"})
    return table, api.ok("dora", "POST", f"/api/tables/{table}/cards", json={"card": "Kh"})  # 26


def test_art14_a_live_table_with_dealer_completes_hand_asks_the_dealer_for_his_cards(api: Api) -> None:
    table, state = _bust_the_only_box(api, completes=True)
    pending = state["pending"]
    assert pending is not None and pending["kind"] == "card" and pending["to"] == "dealer", pending
    assert api.state("dora", table)["pending"]["to"] == "dealer"  # what the console shows
    state = api.ok("dora", "POST", f"/api/tables/{table}/cards", json={"card": "5s"})  # 6 + 10 + 5 = 21
    assert state["phase"] == "betting"
    recall = api.ok("admin", "GET", f"/api/tables/{table}/rounds/1")
    assert [c["card"] for c in recall["cards"]] == ["Ts", "6c", "6h", "Td", "Kh", "5s"]
    assert api.balance("ana") == 9_000


def test_art14_a_live_table_without_it_ends_the_round_with_the_last_bust(api: Api) -> None:
    table, state = _bust_the_only_box(api, completes=False)
    assert state["phase"] == "betting" and state["pending"] is None
    recall = api.ok("admin", "GET", f"/api/tables/{table}/rounds/1")
    assert [c["card"] for c in recall["cards"]] == ["Ts", "6c", "6h", "Td", "Kh"]
    assert api.balance("ana") == 9_000
