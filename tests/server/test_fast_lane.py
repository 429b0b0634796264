"""The fast lane (`api.FastLane`) takes a well-formed decision, bet, deal or card itself, with the same
body model, session check and handler as FastAPI's endpoint; anything it does not take whole — a malformed
body, a body that is not JSON, an id out of range, another path or method — reaches FastAPI untouched and
gets FastAPI's own answer."""

from __future__ import annotations

from typing import Any

import pytest

from tapete.server import api as api_module
from tests.server.conftest import Api


@pytest.fixture
def lane_calls(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How many lane requests the fast lane answered itself, and how many it handed to FastAPI."""
    seen = {"lane": 0, "fastapi": 0}
    fast = api_module.FastLane._fast

    async def counted(self: Any, lane: Any, table_id: int, scope: Any, receive: Any, send: Any) -> None:
        inner, handed = self.app, []

        async def fastapi(scope: Any, receive: Any, send: Any) -> None:
            handed.append(True)
            await inner(scope, receive, send)

        self.app = fastapi
        try:
            await fast(self, lane, table_id, scope, receive, send)
        finally:
            self.app = inner
        seen["fastapi" if handed else "lane"] += 1

    monkeypatch.setattr(api_module.FastLane, "_fast", counted)
    return seen


def _seated(api: Api) -> int:
    api.user("ana", "player", chips=10_000)
    api.user("dora", "dealer")
    table = api.table("blackjack", turn_seconds=None)
    api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    return table


def test_a_well_formed_bet_deal_and_decision_take_the_lane(api: Api, lane_calls: dict[str, int]) -> None:
    table = _seated(api)
    sent = 0
    while True:  # a Black Jack dealt to the box ends the round at the deal: another round
        bet = {"seat": 1, "spot": "main", "amount": 500}
        assert api.ok("ana", "POST", f"/api/tables/{table}/bets", json=bet)["status"] == "placed"
        state = api.ok("dora", "POST", f"/api/tables/{table}/deal")
        sent += 2
        if state["phase"] == "playing":
            break
    assert state["pending"]["seat"] == 1
    legal = state["pending"]["legal"]
    answer = api.ok(
        "ana",
        "POST",
        f"/api/tables/{table}/actions",
        json={"seat": 1, "action": "decline" if "decline" in legal else "stand"},
    )
    assert answer["seq"] == state["seq"] + 1
    assert lane_calls["lane"] == sent + 1 and lane_calls["fastapi"] == 0


def test_what_the_lane_does_not_take_whole_gets_fastapi_s_answer(
    api: Api, lane_calls: dict[str, int]
) -> None:
    table = _seated(api)
    broken = api.as_(
        "ana",
        "POST",
        f"/api/tables/{table}/bets",
        content=b'{"seat": 1, "spot": "main", "amount": ',
        headers={"Content-Type": "application/json"},
    )
    wrong = api.as_(
        "ana", "POST", f"/api/tables/{table}/bets", json={"seat": "1", "spot": "main", "amount": 5}
    )
    fraction = api.as_(
        "ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 5.5}
    )
    for r in (broken, wrong, fraction):
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request", r.text
    assert "seat" in wrong.json()["error"]["message"]
    assert lane_calls["fastapi"] == 3  # each handed over whole, its body replayed to FastAPI
    out_of_range = api.as_(
        "ana", "POST", f"/api/tables/{2**31}/bets", json={"seat": 1, "spot": "main", "amount": 5}
    )
    assert out_of_range.status_code == 400  # FastAPI's path validation: not a lane request at all
    assert lane_calls["lane"] == 0


def test_the_lane_refuses_as_the_endpoint_does(api: Api, lane_calls: dict[str, int]) -> None:
    table = _seated(api)
    body = {"seat": 1, "spot": "main", "amount": 500}
    no_token = api.client.post(f"/api/tables/{table}/bets", json=body)
    assert no_token.status_code == 401 and no_token.json()["error"]["code"] == "unauthorized"
    dealer = api.as_(
        "dora", "POST", f"/api/tables/{table}/bets", json=body, headers={"Accept-Language": "en"}
    )
    assert dealer.status_code == 403 and dealer.json()["error"]["code"] == "forbidden"
    assert "player" in dealer.json()["error"]["message"]
    player_deals = api.as_("ana", "POST", f"/api/tables/{table}/deal")
    assert player_deals.status_code == 403
    no_table = api.as_("ana", "POST", "/api/tables/999/bets", json=body)
    assert no_table.status_code == 404 and no_table.json()["error"]["code"] == "not_found"
    assert lane_calls["lane"] == 4 and lane_calls["fastapi"] == 0
