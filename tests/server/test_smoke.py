"""A first round through the API."""

from __future__ import annotations

import pytest

from tests.server.conftest import Api

pytestmark = pytest.mark.usefixtures("fast_hashing")


def test_a_virtual_black_jack_round_through_the_api(api: Api) -> None:
    api.user("ana", "player", chips=10_000)
    api.user("dora", "dealer")
    table = api.table("blackjack")
    api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 1000})
    state = api.ok("dora", "POST", f"/api/tables/{table}/deal")
    steps = 0
    while state["pending"] is not None:
        p = state["pending"]
        assert p["kind"] == "decision"
        action = "stand" if "stand" in p["legal"] else "decline"
        state = api.ok(
            "ana",
            "POST",
            f"/api/tables/{table}/actions",
            json={"seat": p["seat"], "action": action, "hand": p["hand"]},
        )
        steps += 1
        assert steps < 20
    view = state["view"]
    assert view["finished"]
    net = sum(h["outcome"] != "" for h in view["seats"][0]["hands"])
    assert net >= 1
    balance = api.balance("ana")
    assert balance != 10_000 or view["seats"][0]["hands"][0]["outcome"] == "push"
    verify = api.ok("admin", "GET", f"/api/tables/{table}/verify")
    assert verify["ok"]
    recall = api.ok("admin", "GET", f"/api/tables/{table}/rounds/1")
    assert recall["status"] == "finished" and recall["ledger"]
    assert sum(e["amount"] for e in recall["ledger"]) == 0
