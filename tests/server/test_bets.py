"""Seats, bets, back-bets and the deal (server.md, Bets, back-bets and the round): a back-bet request is
202 waiting only when every box is taken and the operator allows it, the holder's consent places it and
a refusal does not; the whole table's bets are judged when they close (deal refused with bad_bet and
nothing moves); a bet the free chips cannot cover is insufficient_funds at once (bets at other tables
count); a taken seat is 409; a seat is left between rounds only; a decision cannot spend the chips
other bets wait with; a step's answer is the committed state."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from tests.server.conftest import Api
from tests.server.support import changed, live_deal, refused, snapshot

pytestmark = pytest.mark.usefixtures("fast_hashing")


def full_table(api: Api, **rules: object) -> int:
    """A virtual Black Jack table whose seven boxes are taken (ana 1-4, eva 5-7), each with a main bet."""
    for name in ("ana", "eva", "luis"):
        api.user(name, "player", chips=100_000)
    table = api.table("blackjack", turn_seconds=None, **rules)
    for seat in range(1, 8):
        who = "ana" if seat <= 4 else "eva"
        api.ok(who, "POST", f"/api/tables/{table}/seats", json={"seat": seat})
        api.ok(who, "POST", f"/api/tables/{table}/bets", json={"seat": seat, "spot": "main", "amount": 1000})
    return table


def test_a_back_bet_request_waits_for_the_holder_who_places_or_refuses_it(api: Api) -> None:
    table = full_table(api)
    path = f"/api/tables/{table}/bets"
    r = api.as_("luis", "POST", path, json={"seat": 2, "spot": "main", "amount": 700})
    assert r.status_code == 202
    first = r.json()
    assert first["status"] == "waiting" and isinstance(first["request"], int)
    r = api.as_("luis", "POST", path, json={"seat": 6, "spot": "main", "amount": 300})
    second = r.json()
    assert r.status_code == 202 and second["status"] == "waiting"
    me = api.state("luis", table)["me"]
    assert me == {"name": "luis", "balance": 100_000, "available": 99_000}  # promised, not yet staked
    assert [q["request"] for q in api.state("ana", table)["requests"]] == [first["request"]]
    assert [q["request"] for q in api.state("eva", table)["requests"]] == [second["request"]]
    answer = f"/api/tables/{table}/requests"
    assert (
        api.ok("ana", "POST", f"{answer}/{first['request']}", json={"accept": True})["status"] == "accepted"
    )
    assert (
        api.ok("eva", "POST", f"{answer}/{second['request']}", json={"accept": False})["status"] == "refused"
    )
    refused(api.as_("eva", "POST", f"{answer}/{second['request']}", json={"accept": True}), 409, "conflict")
    state = api.state("luis", table)
    assert state["requests"] == [] and state["me"]["available"] == 99_300
    assert {"player": "luis", "spot": "main", "amount": 700} in state["seats"][1]["bets"]
    assert all(b["player"] != "luis" for b in state["seats"][5]["bets"])
    api.ok("admin", "POST", f"/api/tables/{table}/deal")
    recall = api.ok("admin", "GET", f"/api/tables/{table}/rounds/1")
    stakes = [
        (e["seat"], e["player"], e["amount"])
        for e in recall["events"]
        if e["type"] == "stake" and "hand" not in e
    ]
    assert (2, "luis", 700) in stakes and all(p != "luis" or s == 2 for s, p, _ in stakes)


def test_a_back_bet_is_refused_unless_every_box_is_taken_and_the_operator_allows_it(
    api: Api, sql: sa.Engine
) -> None:
    for name in ("ana", "luis"):
        api.user(name, "player", chips=100_000)
    table = api.table("blackjack", turn_seconds=None)
    api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    off = api.table("blackjack", turn_seconds=None, back_betting=False)
    for seat in range(1, 8):
        api.ok("ana", "POST", f"/api/tables/{off}/seats", json={"seat": seat})
    poker = api.table("showdown_poker", turn_seconds=None)  # one position per player, none to join
    api.ok("ana", "POST", f"/api/tables/{poker}/seats", json={"seat": 1})
    body = {"seat": 1, "spot": "main", "amount": 500}
    for t, spot, key in (
        (table, "main", "err.bet.back_boxes_free"),
        (off, "main", "err.bet.back_betting_off"),
        (poker, "bet", "err.bet.no_back_betting"),
    ):
        before = snapshot(sql)
        r = api.as_("luis", "POST", f"/api/tables/{t}/bets", json={**body, "spot": spot})
        assert refused(r, 422, "bad_bet")["key"] == key
        assert not changed(before, snapshot(sql))


def test_art1n_a_box_joined_counts_as_one_of_a_players_hands(api: Api, sql: sa.Engine) -> None:
    """BJ Art.1ñ / M21 Art.1n: the operator's maximum counts every postura a player takes part in. ana
    holds four boxes of four allowed: a request to join a fifth is bad_bet at once and nothing changes;
    eva (three) joins one, and the holder's consent is refused once she would be over (a box taken)."""
    table = full_table(api, max_boxes_per_player=4)
    path = f"/api/tables/{table}/bets"
    before = snapshot(sql)
    error = refused(
        api.as_("ana", "POST", path, json={"seat": 5, "spot": "main", "amount": 500}), 422, "bad_bet"
    )
    assert error["key"] == "err.bet.too_many_hands" and error["params"]["seat"] == 5
    assert not changed(before, snapshot(sql))
    first = api.as_("eva", "POST", path, json={"seat": 1, "spot": "main", "amount": 500}).json()
    second = api.as_("eva", "POST", path, json={"seat": 2, "spot": "main", "amount": 500}).json()
    assert first["status"] == second["status"] == "waiting"  # each alone is her fourth hand
    answer = f"/api/tables/{table}/requests"
    api.ok("ana", "POST", f"{answer}/{first['request']}", json={"accept": True})
    before = snapshot(sql)
    late = api.as_("ana", "POST", f"{answer}/{second['request']}", json={"accept": True})
    assert refused(late, 422, "bad_bet")["key"] == "err.bet.too_many_hands"
    assert not changed(before, snapshot(sql))
    api.ok("ana", "DELETE", f"/api/tables/{table}/seats/4")  # a box frees: eva already plays four hands
    before = snapshot(sql)
    taken = api.as_("eva", "POST", f"/api/tables/{table}/seats", json={"seat": 4})
    assert refused(taken, 422, "bad_bet")["key"] == "err.bet.too_many_boxes"
    assert not changed(before, snapshot(sql))
    api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 4})
    api.ok("ana", "POST", path, json={"seat": 4, "spot": "main", "amount": 1000})
    api.ok("admin", "POST", f"/api/tables/{table}/deal")
    recall = api.ok("admin", "GET", f"/api/tables/{table}/rounds/1")
    eva = [e["amount"] for e in recall["events"] if e["type"] == "stake" and e.get("player") == "eva"]
    assert sum(eva) == 3500  # her three boxes and the one she joined


def test_a_back_bet_on_a_table_no_longer_full_is_refused_at_the_deal(api: Api, sql: sa.Engine) -> None:
    """The holder of box 7 takes his bet back after luis's back-bet was accepted: the boxes are no longer
    all in play, so the deal is bad_bet and nothing moves; with box 7 bet again, it deals."""
    table = full_table(api)
    r = api.as_("luis", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 500})
    api.ok("ana", "POST", f"/api/tables/{table}/requests/{r.json()['request']}", json={"accept": True})
    api.ok("eva", "DELETE", f"/api/tables/{table}/bets")
    for seat in (5, 6):
        api.ok(
            "eva", "POST", f"/api/tables/{table}/bets", json={"seat": seat, "spot": "main", "amount": 1000}
        )
    before = snapshot(sql)
    error = refused(api.as_("admin", "POST", f"/api/tables/{table}/deal"), 422, "bad_bet")
    assert error["key"] == "err.bet.back_boxes_free"
    assert not changed(before, snapshot(sql))
    api.ok("eva", "POST", f"/api/tables/{table}/bets", json={"seat": 7, "spot": "main", "amount": 1000})
    api.ok("admin", "POST", f"/api/tables/{table}/deal")
    events = api.ok("admin", "GET", f"/api/tables/{table}/rounds/1")["events"]
    assert {"seat": 1, "player": "luis", "spot": "main", "amount": 500} in [
        {k: e[k] for k in ("seat", "player", "spot", "amount")} for e in events if e["type"] == "stake"
    ]


@pytest.mark.parametrize(
    ("game", "bets", "key"),
    [
        ("showdown_poker", [("bet", 1000)], "err.bet.required"),
        ("majestic_21", [("over_13", 500)], "err.bet.side_needs_main"),
    ],
)
def test_a_deal_is_refused_with_bad_bet_when_the_tables_bets_do_not_stand_together(
    api: Api, sql: sa.Engine, game: str, bets: list[tuple[str, int]], key: str
) -> None:
    """Showdown without its pot bet, a side bet without its main bet: each is accepted as it is placed
    (a later bet of the box may complete it) and judged when the bets close: the deal is bad_bet,
    nothing moves, the bets wait as they were."""
    api.user("ana", "player", chips=10_000)
    table = api.table(game, turn_seconds=None)
    api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    for spot, amount in bets:
        api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": spot, "amount": amount})
    before, state = snapshot(sql), api.state("ana", table)
    error = refused(api.as_("admin", "POST", f"/api/tables/{table}/deal"), 422, "bad_bet")
    assert error["key"] == key
    assert not changed(before, snapshot(sql))
    assert api.state("ana", table) == state
    assert api.balance("ana") == 10_000


def test_a_bet_under_the_tables_minimum_is_refused_when_placed(api: Api, sql: sa.Engine) -> None:
    """server.md: what concerns one bet, the limits among it, is checked when it is placed. A bet whose
    bettor's total on its spot stays under the minimum (Black Jack's main, Punto y Banca's Empate) is
    bad_bet at once and changes nothing; a bet that brings the total up to it is placed."""
    api.user("ana", "player", chips=10_000)
    bj = api.table("blackjack", turn_seconds=None, table_min=100)
    pyb = api.table("punto_y_banca", turn_seconds=None)
    for t in (bj, pyb):
        api.ok("ana", "POST", f"/api/tables/{t}/seats", json={"seat": 1})
    api.ok("ana", "POST", f"/api/tables/{pyb}/bets", json={"seat": 1, "spot": "punto", "amount": 1000})
    for t, spot in ((bj, "main"), (pyb, "empate")):
        before = snapshot(sql)
        body = {"seat": 1, "spot": spot, "amount": 99}
        error = refused(api.as_("ana", "POST", f"/api/tables/{t}/bets", json=body), 422, "bad_bet")
        assert error["key"] == "err.bet.below_min" and error["params"]["limit"] == 100
        assert not changed(before, snapshot(sql))
    api.ok("ana", "POST", f"/api/tables/{bj}/bets", json={"seat": 1, "spot": "main", "amount": 100})
    api.ok("ana", "POST", f"/api/tables/{bj}/bets", json={"seat": 1, "spot": "main", "amount": 1})  # 101
    api.ok("admin", "POST", f"/api/tables/{bj}/deal")
    stakes = [
        e for e in api.ok("admin", "GET", f"/api/tables/{bj}/rounds/1")["events"] if e["type"] == "stake"
    ]
    assert [(e["player"], e["amount"]) for e in stakes] == [("ana", 101)]


def test_a_back_bet_off_the_holders_side_is_refused_when_asked(api: Api, sql: sa.Engine) -> None:
    """PyB Art.7a: a back-bettor joins the holder's side. Once the holder has bet Punto, a request for
    Banca (or Empate, which he has not bet) is bad_bet at once and nothing is asked of him; Punto waits
    for his answer."""
    players = [f"p{seat}" for seat in range(1, 8)]
    for name in (*players, "luis"):
        api.user(name, "player", chips=100_000)
    table = api.table("punto_y_banca", turn_seconds=None)
    for seat, name in enumerate(players, start=1):
        api.ok(name, "POST", f"/api/tables/{table}/seats", json={"seat": seat})
        api.ok(
            name, "POST", f"/api/tables/{table}/bets", json={"seat": seat, "spot": "punto", "amount": 1000}
        )
    for spot in ("banca", "empate"):
        before = snapshot(sql)
        body = {"seat": 3, "spot": spot, "amount": 500}
        error = refused(api.as_("luis", "POST", f"/api/tables/{table}/bets", json=body), 422, "bad_bet")
        assert error["key"] == "err.bet.back_same_side" and error["params"]["holder"] == "p3"
        assert not changed(before, snapshot(sql))
    assert api.state("p3", table)["requests"] == []
    r = api.as_("luis", "POST", f"/api/tables/{table}/bets", json={"seat": 3, "spot": "punto", "amount": 500})
    assert r.status_code == 202 and r.json()["status"] == "waiting"


def test_a_bet_the_free_chips_cannot_cover_is_refused_at_once(api: Api, sql: sa.Engine) -> None:
    """ana has 2,000: 1,500 on one table leaves 500 free for the other."""
    api.user("ana", "player", chips=2_000)
    one, other = api.table("blackjack", turn_seconds=None), api.table("blackjack", turn_seconds=None)
    for t in (one, other):
        api.ok("ana", "POST", f"/api/tables/{t}/seats", json={"seat": 1})
    api.ok("ana", "POST", f"/api/tables/{one}/bets", json={"seat": 1, "spot": "main", "amount": 1500})
    before = snapshot(sql)
    body = {"seat": 1, "spot": "main", "amount": 1000}
    error = refused(api.as_("ana", "POST", f"/api/tables/{other}/bets", json=body), 422, "insufficient_funds")
    assert error["params"]["balance"] == 500 and error["params"]["amount"] == 1000
    assert not changed(before, snapshot(sql))
    api.ok("ana", "POST", f"/api/tables/{other}/bets", json={**body, "amount": 500})


def test_a_decision_cannot_spend_the_chips_other_bets_wait_with(api: Api) -> None:
    """ana has 2,000: 1,000 in play at a live table and 1,000 on a bet waiting at another. Her double
    (1,000 more) is refused for want of free chips, so the other table can still deal her bet."""
    api.user("ana", "player", chips=2_000)
    api.user("dora", "dealer")
    live, other = api.table("blackjack", "live"), api.table("blackjack", turn_seconds=None)
    for t in (live, other):
        api.ok("ana", "POST", f"/api/tables/{t}/seats", json={"seat": 1})
        api.ok("ana", "POST", f"/api/tables/{t}/bets", json={"seat": 1, "spot": "main", "amount": 1000})
    live_deal(api, "dora", live, ["6h", "9c", "5d", "7s"])
    api.ok("ana", "POST", f"/api/tables/{live}/actions", json={"seat": 1, "action": "decline"})
    double = {"seat": 1, "action": "double"}
    refused(api.as_("ana", "POST", f"/api/tables/{live}/actions", json=double), 422, "insufficient_funds")
    api.ok("ana", "POST", f"/api/tables/{live}/actions", json={"seat": 1, "action": "stand"})
    api.ok("dora", "POST", f"/api/tables/{other}/deal")


def test_seats_taken_limited_and_left_between_rounds_only(api: Api, sql: sa.Engine) -> None:
    for name in ("ana", "luis"):
        api.user(name, "player", chips=10_000)
    api.user("dora", "dealer")
    table = api.table("blackjack", "live", max_boxes_per_player=2)
    api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 2})
    before = snapshot(sql)
    assert (
        refused(api.as_("luis", "POST", f"/api/tables/{table}/seats", json={"seat": 1}), 409, "conflict")[
            "key"
        ]
        == "err.api.seat_taken"
    )
    assert (  # the operator's maximum of boxes per player (BJ Art.1ñ): a bet rule, bad_bet
        refused(api.as_("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 3}), 422, "bad_bet")["key"]
        == "err.bet.too_many_boxes"
    )
    assert not changed(before, snapshot(sql))
    pyb = api.table("punto_y_banca", turn_seconds=None)
    api.ok("ana", "POST", f"/api/tables/{pyb}/seats", json={"seat": 1})
    two = refused(api.as_("ana", "POST", f"/api/tables/{pyb}/seats", json={"seat": 2}), 422, "bad_bet")
    assert two["key"] == "err.bet.two_zones"  # PyB Art.7b: never two zones
    api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 1000})
    api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 2, "spot": "main", "amount": 1000})
    api.ok("ana", "DELETE", f"/api/tables/{table}/seats/2")  # between rounds: his bet on it goes too
    assert api.ok("ana", "GET", "/api/me")["available"] == 9_000
    assert api.state("luis", table)["seats"][1] == {"seat": 2, "holder": None, "bets": []}
    live_deal(api, "dora", table, ["6h", "9c", "5d", "7s"])
    before = snapshot(sql)
    error = refused(api.as_("ana", "DELETE", f"/api/tables/{table}/seats/1"), 409, "conflict")
    assert error["key"] == "err.api.not_betting"
    assert not changed(before, snapshot(sql))
    api.ok(
        "luis", "POST", f"/api/tables/{table}/seats", json={"seat": 2}
    )  # taken during a round: plays the next
    state = api.ok("ana", "POST", f"/api/tables/{table}/actions", json={"seat": 1, "action": "surrender"})
    assert state["pending"] is None
    api.ok("ana", "DELETE", f"/api/tables/{table}/seats/1")
    assert [s["holder"] for s in api.state("ana", table)["seats"][:2]] == [None, "luis"]


def test_a_steps_answer_is_the_committed_state(api: Api) -> None:
    """The state a deal or a decision answers with is the one GET state then gives: the same seq, the
    same pending decision with its deadline."""
    api.user("ana", "player", chips=10_000)
    api.user("dora", "dealer")
    table = api.table("blackjack", "live", turn_seconds=45)
    api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 1000})
    answer = live_deal(api, "dora", table, ["6h", "9c", "5d", "7s"])
    assert answer == api.state("dora", table)
    assert answer["pending"]["deadline"] == answer["deadline"] is not None
    answer = api.ok("ana", "POST", f"/api/tables/{table}/actions", json={"seat": 1, "action": "decline"})
    assert answer == api.state("ana", table)
    assert answer["pending"]["decision"] == "play" and answer["pending"]["deadline"]


def test_a_request_still_waiting_when_the_bets_close_lapses_and_its_id_is_never_given_again(api: Api) -> None:
    """A back-bet request nobody answered before the deal lapses (nothing is staked on it); the next
    request gets a new id, so that the holder answering the old one is told it lapsed (409) instead of
    answering another request that took its number (SQLite reused a deleted row's id)."""
    table = full_table(api)
    path = f"/api/tables/{table}/bets"
    old = api.as_("luis", "POST", path, json={"seat": 2, "spot": "main", "amount": 700}).json()["request"]
    api.ok("admin", "POST", f"/api/tables/{table}/deal")
    assert api.state("luis", table)["me"]["available"] == 100_000  # nothing promised any more
    for _ in range(30):  # the round ends (stand, decline) and the boxes bet again
        state = api.state("admin", table)
        pending = state["pending"]
        if pending is None:
            break
        holder = "ana" if pending["seat"] <= 4 else "eva"
        action = "stand" if "stand" in pending["legal"] else "decline"
        body = {"seat": pending["seat"], "action": action, "hand": pending["hand"]}
        api.ok(holder, "POST", f"/api/tables/{table}/actions", json=body)
    for seat in range(1, 8):
        who = "ana" if seat <= 4 else "eva"
        api.ok(who, "POST", path, json={"seat": seat, "spot": "main", "amount": 1000})
    new = api.as_("luis", "POST", path, json={"seat": 2, "spot": "main", "amount": 500}).json()["request"]
    assert new != old
    refused(
        api.as_("ana", "POST", f"/api/tables/{table}/requests/{old}", json={"accept": True}), 409, "conflict"
    )
    assert [q["request"] for q in api.state("ana", table)["requests"]] == [new]


def test_the_requests_to_join_a_box_lapse_when_its_holder_leaves_it(api: Api) -> None:
    """A request waits for the consent of the box's holder: when he leaves the box it lapses, so that
    whoever takes the box next (the requester himself, here) never answers it."""
    table = full_table(api)
    path = f"/api/tables/{table}/bets"
    rid = api.as_("luis", "POST", path, json={"seat": 2, "spot": "main", "amount": 700}).json()["request"]
    api.ok("ana", "DELETE", f"/api/tables/{table}/seats/2")
    assert (
        api.state("luis", table)["requests"] == [] and api.state("luis", table)["me"]["available"] == 100_000
    )
    api.ok("luis", "POST", f"/api/tables/{table}/seats", json={"seat": 2})
    refused(
        api.as_("luis", "POST", f"/api/tables/{table}/requests/{rid}", json={"accept": True}), 409, "conflict"
    )
