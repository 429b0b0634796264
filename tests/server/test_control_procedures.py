"""The control procedures at a live table through HTTP (server.md "Control procedures at a live table";
BJ/PyB/M21 Art.4-6, SP Art.5-7): a table that refuses to deal before them, each step out of order refused
naming the expected one, the cut's window and who cut, the cut card's reshuffle, Showdown's shuffle and cut
before every round; deck-change requests from a seated player and an inspector, closed by the dealer's
`deck_change`; and a claim filed, seen beside its recall and resolved (rules.md §0). On SQLite and
PostgreSQL."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa

from tests.server.conftest import Api
from tests.server.support import changed, live_deal, play_out, procedures, refused, snapshot

pytestmark = pytest.mark.usefixtures("fast_hashing")

NEW_PACK = ["new_pack", "inspect", "show", "turn", "mix", "shuffle", "cut", "load", "burn"]
BODIES: dict[str, dict[str, Any]] = {
    "inspect": {"result": "complete", "jokers_removed": 2},
    "cut": {"by": "ana"},
}
ONE_ROUND = ["Ts", "9h", "9c"]  # ana 19 against the dealer's 9: she stands
REST = ["6c", "2d", "5s", "4h", "3c", "Qd"]


def _table(api: Api, game: str = "blackjack") -> int:
    """A live table with its dealer dora, the inspector ivan, ana seated on box 1 and bruno not seated."""
    api.user("dora", "dealer")
    api.user("ivan", "inspector")
    api.user("ana", "player", chips=100_000)
    api.user("bruno", "player", chips=100_000)
    table = api.table(game, "live")
    api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    return table


def _bet(api: Api, table: int, amount: int = 1000) -> None:
    api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": amount})


def _step(api: Api, table: int, step: str, **body: Any) -> Any:
    return api.as_("dora", "POST", f"/api/tables/{table}/procedures", json={"type": step, **body})


def test_art5_a_live_table_deals_only_after_its_procedures_in_the_regulations_order(
    api: Api, sql: sa.Engine
) -> None:
    table = _table(api)
    _bet(api, table)
    assert api.state("dora", table)["procedures_due"] == NEW_PACK
    assert "procedures_due" not in api.state("ana", table)  # staff see what is due
    before = snapshot(sql)
    error = refused(api.as_("dora", "POST", f"/api/tables/{table}/deal"), 409, "conflict")
    assert error["key"] == "err.procedures.due" and error["params"]["due"] == NEW_PACK
    assert "new_pack" in error["message"]
    assert changed(before, snapshot(sql)) == []
    for i, step in enumerate(NEW_PACK):
        for later in NEW_PACK[i + 1 :]:  # every later step is out of order now, and names this one
            before = snapshot(sql)
            error = refused(_step(api, table, later, **BODIES.get(later, {})), 409, "conflict")
            assert error["key"] == "err.procedures.order" and error["params"]["expected"] == [step], later
            assert step in error["message"]
            assert changed(before, snapshot(sql)) == []
        if step != "new_pack":
            refused(api.as_("dora", "POST", f"/api/tables/{table}/deal"), 409, "conflict")
        api.ok("dora", "POST", f"/api/tables/{table}/procedures", json={"type": step, **BODIES.get(step, {})})
        assert api.state("dora", table)["procedures_due"] == NEW_PACK[i + 1 :]
    state = live_deal(api, "dora", table, ONE_ROUND)
    assert state["phase"] == "playing" and state["procedures_due"] == []
    recall = api.ok("ivan", "GET", f"/api/tables/{table}/rounds/1")
    steps = [(p.get("step", p["type"]), p["by"]) for p in recall["procedures"]]
    assert steps == [(step, "dora") for step in NEW_PACK]
    inspected = next(p for p in recall["procedures"] if p.get("step") == "inspect")
    assert inspected["result"] == "complete" and inspected["jokers_removed"] == 2
    cut = next(p for p in recall["procedures"] if p.get("step") == "cut")
    assert cut["event_by"] == "ana" and cut["cut_card_depth"] == 78  # a quarter of six decks by default
    assert api.ok("ivan", "GET", f"/api/tables/{table}/verify")["ok"]


def test_art5e_a_cut_card_depth_outside_its_window_or_a_cut_by_someone_not_seated_is_refused(
    api: Api, sql: sa.Engine
) -> None:
    table = _table(api)
    procedures(api, "dora", table, upto="cut")
    for body, status, code, key in (
        ({"by": "dealer", "cut_card_depth": 30}, 422, "invalid_rules", "err.rules.cut_card"),
        ({"by": "dealer", "cut_card_depth": 157}, 422, "invalid_rules", "err.rules.cut_card"),  # half: 156
        ({"by": "bruno"}, 400, "bad_request", "err.procedures.cut_by"),
        ({"by": "nobody"}, 400, "bad_request", "err.procedures.cut_by"),
    ):
        before = snapshot(sql)
        assert refused(_step(api, table, "cut", **body), status, code)["key"] == key, body
        assert changed(before, snapshot(sql)) == []
    assert api.state("dora", table)["procedures_due"] == ["cut", "load", "burn"]
    api.ok(
        "dora",
        "POST",
        f"/api/tables/{table}/procedures",
        json={"type": "cut", "by": "ana", "cut_card_depth": 40},
    )
    api.ok("ana", "GET", "/api/me")
    log = api.client.get(
        f"/api/tables/{table}/log", headers={"Authorization": f"Bearer {api.tokens['ivan']}"}
    )
    assert '"cut_card_depth": 40' in log.text and '"by": "ana"' in log.text


def test_art6_after_the_cut_card_the_next_deal_waits_for_shuffle_cut_load_and_burn(api: Api) -> None:
    table = _table(api)
    _bet(api, table)
    live_deal(api, "dora", table, ONE_ROUND)
    api.ok("dora", "POST", f"/api/tables/{table}/procedures", json={"type": "cut_card"})
    play_out(api, table, {1: "ana"}, "dora", iter(REST))
    _bet(api, table)
    assert api.state("dora", table)["procedures_due"] == ["shuffle", "cut", "load", "burn"]
    for step in ("shuffle", "cut", "load", "burn"):
        error = refused(api.as_("dora", "POST", f"/api/tables/{table}/deal"), 409, "conflict")
        assert error["params"]["due"][0] == step
        if step == "shuffle":  # the faces may be shown, turned and mixed first (rules.md §0)
            assert error["params"]["expected"] == ["show", "turn", "mix", "shuffle"]
            refused(_step(api, table, "cut"), 409, "conflict")
        api.ok("dora", "POST", f"/api/tables/{table}/procedures", json={"type": step, **BODIES.get(step, {})})
    assert api.ok("dora", "POST", f"/api/tables/{table}/deal")["phase"] == "playing"


def test_sp_art7_a_live_showdown_tables_second_round_waits_for_shuffle_and_cut(api: Api) -> None:
    table = _table(api, "showdown_poker")
    api.user("beto", "player", chips=100_000)
    api.ok("beto", "POST", f"/api/tables/{table}/seats", json={"seat": 2})

    def bets() -> None:
        for seat, who in ((1, "ana"), (2, "beto")):
            for spot, amount in (("bet", 500), ("pot", 100)):
                body = {"seat": seat, "spot": spot, "amount": amount}
                api.ok(who, "POST", f"/api/tables/{table}/bets", json=body)

    assert api.state("dora", table)["procedures_due"] == NEW_PACK[:7]  # no shoe to load, no burn
    bets()
    procedures(api, "dora", table)
    deck = iter(["As", "Kd", "Qh", "Jc", "9s", "2h", "3d", "4c", "5s", "7h", "8d", "9c", "Tc", "2s", "3s"])
    state = api.ok("dora", "POST", f"/api/tables/{table}/deal")
    for _ in range(100):
        pending = state["pending"]
        if pending is None:
            break
        if pending["kind"] == "card":
            state = api.ok("dora", "POST", f"/api/tables/{table}/cards", json={"card": next(deck)})
            continue
        who = {1: "ana", 2: "beto"}[pending["seat"]]
        action = "stand" if "stand" in pending["legal"] else "decline"
        body = {"seat": pending["seat"], "action": action, "hand": pending["hand"]}
        state = api.ok(who, "POST", f"/api/tables/{table}/actions", json=body)
    assert state["pending"] is None
    bets()
    assert api.state("dora", table)["procedures_due"] == ["shuffle", "cut"]
    error = refused(api.as_("dora", "POST", f"/api/tables/{table}/deal"), 409, "conflict")
    assert error["params"]["due"] == ["shuffle", "cut"]
    api.ok("dora", "POST", f"/api/tables/{table}/procedures", json={"type": "shuffle"})
    refused(api.as_("dora", "POST", f"/api/tables/{table}/deal"), 409, "conflict")
    refused(_step(api, table, "cut", cut_card_depth=60), 400, "bad_request")  # a one-handed cut
    api.ok("dora", "POST", f"/api/tables/{table}/procedures", json={"type": "cut", "by": "beto"})
    assert api.ok("dora", "POST", f"/api/tables/{table}/deal")["phase"] == "playing"


def test_art4_deck_change_requests_by_a_seated_player_and_an_inspector_closed_by_the_dealer(
    api: Api, sql: sa.Engine
) -> None:
    table = _table(api)
    procedures(api, "dora", table)
    path = f"/api/tables/{table}/deck-change-requests"
    r = api.as_(
        "ana", "POST", path, json={"reason": "the 7 of hearts is bent"}, headers={"Idempotency-Key": "k"}
    )
    assert r.status_code == 201, r.text
    ana = r.json()
    again = api.as_(
        "ana", "POST", path, json={"reason": "the 7 of hearts is bent"}, headers={"Idempotency-Key": "k"}
    )
    assert again.status_code == 201 and again.json() == ana  # a retry asks nothing more
    assert ana["status"] == "open" and isinstance(ana["request"], int)
    r = api.as_("ivan", "POST", path, json={"reason": "a routine change"})
    assert r.status_code == 201, r.text
    ivan = r.json()
    for who, status, code in (
        ("bruno", 403, "forbidden"),
        ("dora", 403, "forbidden"),
        ("admin", 403, "forbidden"),
    ):
        before = snapshot(sql)
        refused(api.as_(who, "POST", path, json={"reason": "why not"}), status, code)
        assert changed(before, snapshot(sql)) == []
    refused(api.as_("ana", "POST", path, json={"reason": "  "}), 400, "bad_request")
    listed = api.state("dora", table)["deck_change_requests"]
    assert [(r["request"], r["by"], r["reason"]) for r in listed] == [
        (ana["request"], "ana", "the 7 of hearts is bent"),
        (ivan["request"], "ivan", "a routine change"),
    ]
    assert "deck_change_requests" not in api.state("ana", table)
    refused(_step(api, table, "deck_change", reason="x", request=9999), 404, "not_found")
    api.ok(
        "dora",
        "POST",
        f"/api/tables/{table}/procedures",
        json={"type": "deck_change", "request": ana["request"]},
    )
    refused(_step(api, table, "deck_change", reason="again", request=ana["request"]), 409, "conflict")
    state = api.state("dora", table)
    assert [r["request"] for r in state["deck_change_requests"]] == [ivan["request"]]
    assert state["procedures_due"] == NEW_PACK  # new decks: the whole sequence again
    body = {"type": "deck_change", "reason": "the inspector asked", "request": ivan["request"]}
    api.ok("dora", "POST", f"/api/tables/{table}/procedures", json=body)
    assert api.state("dora", table)["deck_change_requests"] == []
    events = api.ok("ivan", "GET", "/api/events")["events"]
    asked = [e for e in events if e["kind"] == "deck_change_requested"]
    closed = [e for e in events if e["kind"] == "deck_change_request_closed"]
    assert {(e["actor"], e["details"]["reason"]) for e in asked} == {
        ("ana", "the 7 of hearts is bent"),
        ("ivan", "a routine change"),
    }
    assert {e["details"]["request"] for e in closed} == {ana["request"], ivan["request"]}
    log = api.client.get(
        f"/api/tables/{table}/log", headers={"Authorization": f"Bearer {api.tokens['ivan']}"}
    )
    assert '"requested_by": "ana"' in log.text and '"reason": "the 7 of hearts is bent"' in log.text
    listing = api.ok("ivan", "GET", "/api/deck-change-requests")["requests"]
    assert {r["status"] for r in listing} == {"closed"} and all(r["closed_by"] == "dora" for r in listing)
    virtual = api.table("blackjack")
    api.ok("ana", "POST", f"/api/tables/{virtual}/seats", json={"seat": 2})
    refused(
        api.as_("ana", "POST", f"/api/tables/{virtual}/deck-change-requests", json={"reason": "x"}),
        409,
        "conflict",
    )


def test_rules_0_a_claim_filed_seen_beside_its_recall_and_resolved(api: Api, sql: sa.Engine) -> None:
    table = _table(api)
    _bet(api, table)
    live_deal(api, "dora", table, ONE_ROUND)
    play_out(api, table, {1: "ana"}, "dora", iter(REST))
    claim = {"table": table, "round": 1, "text": "the dealer's third card was a 5, not a 4"}
    for who, body, status, code in (
        ("bruno", claim, 403, "forbidden"),  # he did not bet in it
        ("ivan", claim, 403, "forbidden"),
        ("ana", {**claim, "round": 7}, 404, "not_found"),
        ("ana", {**claim, "text": ""}, 400, "bad_request"),
    ):
        before = snapshot(sql)
        refused(api.as_(who, "POST", "/api/claims", json=body), status, code)
        assert changed(before, snapshot(sql)) == []
    r = api.as_("ana", "POST", "/api/claims", json=claim, headers={"Idempotency-Key": "claim-1"})
    assert r.status_code == 201, r.text
    filed = r.json()
    again = api.as_("ana", "POST", "/api/claims", json=claim, headers={"Idempotency-Key": "claim-1"})
    assert again.status_code == 201 and again.json() == filed  # a retry files nothing more
    assert filed["status"] == "open" and isinstance(filed["id"], int)
    seen = api.ok("ivan", "GET", "/api/claims")["claims"]
    assert [(c["id"], c["table"], c["round"], c["player"], c["text"], c["status"]) for c in seen] == [
        (filed["id"], table, 1, "ana", claim["text"], "open")
    ]
    assert api.ok("bruno", "GET", "/api/claims")["claims"] == []
    beside = api.ok("ivan", "GET", f"/api/claims/{filed['id']}")
    assert beside["claim"]["id"] == filed["id"] and beside["recall"]["round"] == 1
    assert [c["card"] for c in beside["recall"]["cards"]][:3] == ONE_ROUND
    path = f"/api/claims/{filed['id']}/resolution"
    resolution = {"outcome": "rejected", "text": "the recall shows the 4 of hearts"}
    refused(api.as_("ana", "POST", path, json=resolution), 403, "forbidden")
    refused(api.as_("ivan", "POST", path, json={**resolution, "outcome": "maybe"}), 400, "bad_request")
    done = api.ok("ivan", "POST", path, json=resolution)
    assert done["status"] == "resolved"
    assert (
        done["resolution"]["outcome"] == done["outcome"] == "rejected" and done["resolution"]["by"] == "ivan"
    )
    refused(api.as_("ivan", "POST", path, json=resolution), 409, "conflict")
    (mine,) = api.ok("ana", "GET", "/api/claims")["claims"]
    assert mine["status"] == "resolved" and mine["resolution"]["text"] == resolution["text"]
    kinds = {e["kind"]: e for e in api.ok("ivan", "GET", "/api/events")["events"]}
    assert kinds["claim_filed"]["actor"] == "ana" and kinds["claim_filed"]["details"]["round"] == 1
    assert kinds["claim_resolved"]["actor"] == "ivan"
    assert kinds["claim_resolved"]["details"]["outcome"] == "rejected"
    recall = api.ok("ivan", "GET", f"/api/tables/{table}/rounds/1")
    assert recall["status"] == "finished"  # nothing of the round changed


def test_the_inspector_reads_every_claim_however_many(api: Api, sql: sa.Engine) -> None:
    """server.md: the inspector and the administrator read all the claims (the list stopped at 500)."""
    table = _table(api)
    _bet(api, table)
    live_deal(api, "dora", table, ONE_ROUND)
    play_out(api, table, {1: "ana"}, "dora", iter(REST))
    for n in range(502):
        api.ok("ana", "POST", "/api/claims", json={"table": table, "round": 1, "text": f"claim {n}"})
    for who in ("ivan", "admin", "ana"):
        assert len(api.ok(who, "GET", "/api/claims")["claims"]) == 502, who
