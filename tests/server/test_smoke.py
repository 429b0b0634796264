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


@pytest.mark.parametrize("game", ["blackjack", "punto_y_banca", "showdown_poker", "majestic_21"])
def test_a_table_that_dealt_no_round_has_the_state_server_md_shows(api: Api, game: str) -> None:
    """server.md's state from the first moment: `view` an object (no round, no cards, nothing pending),
    for a player, a spectator's role and the inspector alike."""
    api.user("ana", "player", chips=10_000)
    api.user("ivan", "inspector")
    table = api.table(game)
    for who in ("ana", "ivan", "admin"):
        state = api.state(who, table)
        assert {"table", "phase", "round", "pending", "view", "seats"} <= set(state)
        assert {"id", "game", "mode", "rules"} <= set(state["table"]) and state["table"]["game"] == game
        assert (state["phase"], state["round"], state["pending"]) == ("betting", None, None)
        view = state["view"]
        assert isinstance(view, dict) and view["game"] == game and view["round"] is None
        assert view["seats"] == [] and view["pending"] is None and not view["finished"]
