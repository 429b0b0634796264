"""Idempotency-Key (server.md, Conventions): a retry of a bet, a back-bet request, a decision, a card,
a deal or a cashier operation with the same key gets the first answer again and moves chips once; the
same key for another request is 409 conflict; a refused request retried gets the same refusal (even once
it would now pass); keys are each user's own."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa

from tests.server.conftest import Api
from tests.server.support import changed, live_deal, procedures, refused, snapshot

pytestmark = pytest.mark.usefixtures("fast_hashing")


def key(k: str, **headers: str) -> dict[str, str]:
    """Headers with an Idempotency-Key."""
    return {"Idempotency-Key": k, **headers}


def records(api: Api, table: int) -> int:
    """The table's chain length."""
    return int(api.ok("admin", "GET", f"/api/tables/{table}/verify")["records"])


def twice(api: Api, who: str, method: str, path: str, k: str, body: Any = None) -> tuple[Any, Any]:
    """The same request sent twice with the same key."""
    first = api.as_(who, method, path, json=body, headers=key(k))
    second = api.as_(who, method, path, json=body, headers=key(k))
    return first, second


def test_a_retried_bet_is_placed_once(api: Api) -> None:
    api.user("ana", "player", chips=10_000)
    table = api.table("blackjack", turn_seconds=None)
    api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    body = {"seat": 1, "spot": "main", "amount": 1000}
    first, second = twice(api, "ana", "POST", f"/api/tables/{table}/bets", "bet-1", body)
    assert first.status_code == second.status_code == 200
    assert first.json() == second.json()
    state = api.state("ana", table)
    assert state["seats"][0]["bets"] == [{"player": "ana", "spot": "main", "amount": 1000}]
    assert state["me"] == {"name": "ana", "balance": 10_000, "available": 9_000}
    third = api.as_("ana", "POST", f"/api/tables/{table}/bets", json=body, headers=key("bet-2"))
    assert third.status_code == 200 and third.json()["bet"] != first.json()["bet"]
    assert api.state("ana", table)["me"]["available"] == 8_000


def test_a_retried_back_bet_request_waits_once(api: Api) -> None:
    api.user("ana", "player", chips=10_000)
    api.user("luis", "player", chips=10_000)
    table = api.table("blackjack", turn_seconds=None)
    for seat in range(1, 8):
        api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": seat})
    body = {"seat": 3, "spot": "main", "amount": 500}
    first, second = twice(api, "luis", "POST", f"/api/tables/{table}/bets", "ask", body)
    assert first.status_code == second.status_code == 202
    assert first.json() == second.json() and first.json()["status"] == "waiting"
    assert len(api.state("luis", table)["requests"]) == 1


def test_a_retried_decision_card_and_deal_are_taken_once(api: Api) -> None:
    """At a live table: the deal, a card and a double (which takes chips), each sent twice with its
    key: one event each in the chain, the double's chips taken once."""
    api.user("ana", "player", chips=10_000)
    api.user("dora", "dealer")
    table = api.table("blackjack", "live")
    api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 1000})
    procedures(api, "dora", table)  # the control procedures it owes first
    first, second = twice(api, "dora", "POST", f"/api/tables/{table}/deal", "deal")
    assert first.status_code == second.status_code == 200 and first.json() == second.json()
    assert api.ok("admin", "GET", f"/api/tables/{table}/rounds")["rounds"][-1]["round"] == 1
    n = records(api, table)
    first, second = twice(api, "dora", "POST", f"/api/tables/{table}/cards", "card-1", {"card": "6h"})
    assert first.status_code == second.status_code == 200 and first.json() == second.json()
    assert records(api, table) == n + 1
    for card in ("9c", "5d", "7s"):
        api.ok("dora", "POST", f"/api/tables/{table}/cards", json={"card": card})
    api.ok("ana", "POST", f"/api/tables/{table}/actions", json={"seat": 1, "action": "decline"})
    balance, n = api.balance("ana"), records(api, table)
    double = {"seat": 1, "action": "double"}
    first, second = twice(api, "ana", "POST", f"/api/tables/{table}/actions", "double", double)
    assert first.status_code == second.status_code == 200 and first.json() == second.json()
    assert api.balance("ana") == balance - 1000
    assert records(api, table) == n + 2  # the decision and its stake, once
    recall = api.ok("admin", "GET", f"/api/tables/{table}/rounds/1")
    assert [d["action"] for d in recall["decisions"] if d.get("action") == "double"] == ["double"]


def test_a_retried_cashier_operation_moves_chips_once(api: Api) -> None:
    api.user("ana", "player")
    api.user("cash", "cashier")
    first, second = twice(
        api, "cash", "POST", "/api/cashier/buy-in", "in-1", {"player": "ana", "amount": 5000}
    )
    assert first.status_code == second.status_code == 200
    assert first.json() == second.json() == {"player": "ana", "balance": 5000}
    first, second = twice(
        api, "cash", "POST", "/api/cashier/cash-out", "out-1", {"player": "ana", "amount": 2000}
    )
    assert first.json() == second.json() == {"player": "ana", "balance": 3000}
    assert api.balance("ana") == 3000


def test_the_same_key_for_another_request_is_409_and_changes_nothing(api: Api, sql: sa.Engine) -> None:
    api.user("ana", "player", chips=10_000)
    api.user("cash", "cashier")
    table = api.table("blackjack", turn_seconds=None)
    api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    bet = {"seat": 1, "spot": "main", "amount": 1000}
    api.ok("ana", "POST", f"/api/tables/{table}/bets", json=bet, headers=key("k"))
    api.ok("cash", "POST", "/api/cashier/buy-in", json={"player": "ana", "amount": 1}, headers=key("c"))
    before = snapshot(sql)
    others = [
        ("ana", f"/api/tables/{table}/bets", {**bet, "amount": 2000}, "k"),
        ("ana", f"/api/tables/{table}/seats", {"seat": 2}, "k"),
        ("cash", "/api/cashier/buy-in", {"player": "ana", "amount": 2}, "c"),
        ("cash", "/api/cashier/cash-out", {"player": "ana", "amount": 1}, "c"),
    ]
    for who, path, body, k in others:
        error = refused(api.as_(who, "POST", path, json=body, headers=key(k)), 409, "conflict")
        assert error["key"] == "err.api.idempotency_reused"
    assert not changed(before, snapshot(sql))
    assert api.balance("ana") == 10_001


def test_a_refused_request_retried_gets_the_same_refusal(api: Api) -> None:
    """A bet refused for want of chips, retried with its key after a buy-in that would cover it: the
    same refusal, word for word in the caller's language, and no bet; a new key places it."""
    api.user("ana", "player", chips=500)
    table = api.table("blackjack", turn_seconds=None)
    api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    bet = {"seat": 1, "spot": "main", "amount": 1000}
    path = f"/api/tables/{table}/bets"
    first = api.as_("ana", "POST", path, json=bet, headers=key("b", **{"Accept-Language": "en"}))
    refused(first, 422, "insufficient_funds")
    api.ok("admin", "POST", "/api/cashier/buy-in", json={"player": "ana", "amount": 5000})
    second = api.as_("ana", "POST", path, json=bet, headers=key("b", **{"Accept-Language": "en"}))
    assert second.status_code == 422 and second.json() == first.json()
    assert api.state("ana", table)["seats"][0]["bets"] == []
    assert api.as_("ana", "POST", path, json=bet, headers=key("b2")).status_code == 200


def test_a_refused_decision_retried_gets_the_same_refusal(api: Api) -> None:
    """An illegal decision with a key, retried: the same 422, and the round waits as it did."""
    api.user("ana", "player", chips=10_000)
    api.user("dora", "dealer")
    table = api.table("blackjack", "live")
    api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 1000})
    live_deal(api, "dora", table, ["6h", "9c", "5d", "7s"])
    pending = api.state("ana", table)["pending"]
    first, second = twice(
        api, "ana", "POST", f"/api/tables/{table}/actions", "x", {"seat": 1, "action": "split"}
    )
    refused(first, 422, "illegal_action")
    assert second.status_code == 422 and second.json() == first.json()
    assert api.state("ana", table)["pending"] == pending


def test_keys_are_each_users_own(api: Api) -> None:
    """ana's key does not answer luis's request: both bets are placed."""
    api.user("ana", "player", chips=10_000)
    api.user("luis", "player", chips=10_000)
    table = api.table("blackjack", turn_seconds=None)
    for who, seat in (("ana", 1), ("luis", 2)):
        api.ok(who, "POST", f"/api/tables/{table}/seats", json={"seat": seat})
        body = {"seat": seat, "spot": "main", "amount": 1000}
        assert (
            api.as_(who, "POST", f"/api/tables/{table}/bets", json=body, headers=key("same")).status_code
            == 200
        )
    seats = api.state("admin", table)["seats"]
    assert [len(s["bets"]) for s in seats[:2]] == [1, 1]


def test_long_keys_that_differ_after_200_characters_are_two_keys(api: Api) -> None:
    """A key is any string: two keys alike in their first 200 characters are still two requests (they
    were cut to 200 and the second buy-in answered as the first, moving nothing)."""
    api.user("ana", "player", chips=0)
    body = {"player": "ana", "amount": 5}
    stem = "z" * 200
    first = api.as_("admin", "POST", "/api/cashier/buy-in", json=body, headers=key(stem + "-one"))
    second = api.as_("admin", "POST", "/api/cashier/buy-in", json=body, headers=key(stem + "-two"))
    again = api.as_("admin", "POST", "/api/cashier/buy-in", json=body, headers=key(stem + "-two"))
    assert [r.status_code for r in (first, second, again)] == [200, 200, 200]
    assert first.json()["balance"] == 5 and second.json()["balance"] == 10
    assert again.json() == second.json()
    other = api.as_(
        "admin", "POST", "/api/cashier/buy-in", json={**body, "amount": 6}, headers=key(stem + "-two")
    )
    assert other.status_code == 409 and other.json()["error"]["code"] == "conflict"
