"""A back-bettor never plays a box (BJ Art.7: the holder makes every decision; server.md, Bets, back-bets
and the round: a back-bet on a box not in play is refused when the bets close). Every box of a virtual
Black Jack table is taken (demo 1-5, ana 6-7) and nobody has bet; beto asks to join demo's box 3 and
demo accepts. The consent does not start the betting timer; the dealer's deal is bad_bet and nothing
moves; the timer returns beto's back-bet (a significant event says so) and deals nothing, or deals the
holders' bets without it; at no moment is beto asked a decision of the box or named its holder."""

from __future__ import annotations

import time
from typing import Any

import pytest
import sqlalchemy as sa

from tests.server.conftest import Api
from tests.server.support import changed, refused, snapshot

pytestmark = pytest.mark.usefixtures("fast_hashing")


def _full_table_nobody_bet(api: Api, **rules: Any) -> tuple[int, int]:
    """demo holds boxes 1-5 and ana 6-7; beto's S/ 10 back-bet on box 3, accepted by demo: (table, id)."""
    for name in ("demo", "ana", "beto"):
        api.user(name, "player", chips=100_000)
    table = api.table("blackjack", "virtual", **rules)
    for seat in range(1, 8):
        api.ok("demo" if seat <= 5 else "ana", "POST", f"/api/tables/{table}/seats", json={"seat": seat})
    asked = api.as_(
        "beto", "POST", f"/api/tables/{table}/bets", json={"seat": 3, "spot": "main", "amount": 1000}
    )
    assert asked.status_code == 202 and asked.json()["status"] == "waiting"
    rid = asked.json()["request"]
    api.ok("demo", "POST", f"/api/tables/{table}/requests/{rid}", json={"accept": True})
    return table, rid


def _wait(api: Api, table: int, name: str, done: Any, seconds: float = 10.0) -> Any:
    """The table's state as `name` sees it once `done(state)` holds (the timers run in the server)."""
    deadline = time.monotonic() + seconds
    while True:
        state = api.state(name, table)
        if done(state) or time.monotonic() > deadline:
            return state
        time.sleep(0.05)


def _never_the_holder(state: Any, seat: int = 3) -> None:
    """beto is never asked the box's decision, nor named its holder, in `state`."""
    box = next(s for s in state["seats"] if s["seat"] == seat)
    assert box["holder"] == "demo"
    pending = state.get("pending") or {}
    assert pending.get("holder") != "beto"
    for played in (state.get("view") or {}).get("seats", []):
        assert played["holder"] != "beto"


def test_art7_a_back_bet_on_a_box_whose_holder_did_not_bet_is_refused_at_the_deal(
    api: Api, sql: sa.Engine
) -> None:
    """The dealer (here the administrator) closes the bets: bad_bet naming beto and box 3, nothing moves;
    once demo bets box 3 and every other box is in play, the same back-bet is dealt behind demo."""
    table, _ = _full_table_nobody_bet(api, turn_seconds=None, betting_seconds=None)
    state = api.state("beto", table)
    assert state["deadline"] is None and state["deadline_kind"] is None  # the consent started no timer
    _never_the_holder(state)
    before = snapshot(sql)
    error = refused(api.as_("admin", "POST", f"/api/tables/{table}/deal"), 422, "bad_bet")
    assert error["key"] == "err.bet.back_box_not_in_play"
    assert error["params"]["player"] == "beto" and error["params"]["seat"] == 3
    assert error["params"]["holder"] == "demo"
    assert not changed(before, snapshot(sql))
    for seat in range(1, 8):
        who = "demo" if seat <= 5 else "ana"
        api.ok(who, "POST", f"/api/tables/{table}/bets", json={"seat": seat, "spot": "main", "amount": 500})
    api.ok("admin", "POST", f"/api/tables/{table}/deal")
    recall = api.ok("admin", "GET", f"/api/tables/{table}/rounds/1")
    stakes = {(e["seat"], e["player"]) for e in recall["events"] if e["type"] == "stake" and "hand" not in e}
    assert (3, "beto") in stakes and (3, "demo") in stakes
    decided = [e for e in recall["events"] if e["type"] == "decision"]
    assert all(e.get("player", "demo") != "beto" for e in decided)
    _never_the_holder(api.state("beto", table))


def test_art7_the_betting_timer_returns_a_back_bet_on_a_box_not_in_play_and_deals_nothing(
    api: Api, sql: sa.Engine
) -> None:
    """With a betting timer: the consent alone starts none and nothing is dealt; when demo bets box 1
    (the timer starts from a holder's bet), the timer returns beto's back-bet with a significant event
    and, the table not being full of bets, deals demo's box alone: beto is never asked anything."""
    table, _ = _full_table_nobody_bet(api, turn_seconds=None, betting_seconds=0.3)
    state = api.state("beto", table)
    assert state["deadline"] is None and state["deadline_kind"] is None
    time.sleep(0.6)
    state = api.state("beto", table)
    assert state["round"] is None and state["last_round"] in (None, 0)
    assert api.ok("admin", "GET", f"/api/tables/{table}/rounds")["rounds"] == []
    api.ok("demo", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 500})
    assert api.state("demo", table)["deadline_kind"] == "betting"
    # dealt: the round is on, or already over (a blackjack settles it at once and the table bets again)
    state = _wait(api, table, "beto", lambda s: s["round"] is not None or (s["last_round"] or 0) >= 1)
    assert state["round"] == 1 or state["last_round"] == 1
    _never_the_holder(state)
    assert state["me"] == {"name": "beto", "balance": 100_000, "available": 100_000}
    recall = api.ok("admin", "GET", f"/api/tables/{table}/rounds/1")
    stakes = {(e["seat"], e["player"]) for e in recall["events"] if e["type"] == "stake"}
    assert stakes == {(1, "demo")}
    events = api.ok("admin", "GET", "/api/events")["events"]
    returned = [e for e in events if e["kind"] == "bets_returned"]
    assert len(returned) == 1 and returned[0]["details"]["player"] == "beto"
    assert returned[0]["details"]["key"] == "err.bet.back_box_not_in_play"
    assert returned[0]["details"]["bets"] == [{"seat": 3, "spot": "main", "amount": 1000}]
