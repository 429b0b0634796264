"""A live table's dealer at work (procedures, a corrected card, a void that needs a second staff member),
the timers (the turn timer answering for a holder who does not, the betting timer dealing), the player's
own recall, and a WebSocket client catching up after a reconnection."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from starlette.testclient import WebSocketDenialResponse

from tests.server.conftest import Api
from tests.server.support import changed, live_deal, play_out, procedures, refused, serving, snapshot

pytestmark = pytest.mark.usefixtures("fast_hashing")


def _wait(api: Api, table: int, who: str, until: Any, seconds: float = 15) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        state = api.state(who, table)
        if until(state):
            return state
        assert time.monotonic() < deadline, state
        time.sleep(0.05)


def _live_round(api: Api, game: str = "blackjack") -> int:
    api.user("dora", "dealer")
    api.user("dani", "dealer")
    api.user("ana", "player", chips=10_000)
    table = api.table(game, "live")
    api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 1000})
    return table


def test_live_procedures_are_events_the_inspector_sees(api: Api) -> None:
    table = _live_round(api)
    procedures(api, "dora", table, burn={"cards": ["5d"]})
    api.ok(
        "dora",
        "POST",
        f"/api/tables/{table}/procedures",
        json={"type": "deck_change", "reason": "a marked card"},
    )
    r = api.as_("dora", "POST", f"/api/tables/{table}/procedures", json={"type": "deck_change"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request"  # a deck change says why
    api.user("ines", "inspector")
    log = api.as_("ines", "GET", f"/api/tables/{table}/log").text
    for word in ("new_pack", "inspect", "shuffle", "load", "burn", "a marked card"):
        assert word in log
    # the administrator's ends before the burned card: it names a card no round has shown yet
    admin_log = api.as_("admin", "GET", f"/api/tables/{table}/log").text
    assert log.startswith(admin_log) and "shuffle" in admin_log and '"5d"' not in admin_log
    assert api.ok("admin", "GET", f"/api/tables/{table}/verify")["ok"]


def test_art5g_a_burn_names_as_many_cards_as_the_table_burns(api: Api, sql: sa.Engine) -> None:
    """Black Jack burns a fixed count (1 by default); Punto y Banca turns the first card and burns as many
    more as its value (face or ten: 10). A burn that names another number of cards is refused 400 and
    changes nothing (two cards after a 3 were accepted); one that names none records the procedure."""
    bj = _live_round(api)
    pyb = api.table("punto_y_banca", "live")
    for table in (bj, pyb):
        procedures(api, "dora", table, upto="burn")
    for table, cards in ((bj, ["5d", "6d"]), (pyb, ["3h", "2c"]), (pyb, ["Kh", *["2d"] * 8, "3d"])):
        before = snapshot(sql)
        r = api.as_("dora", "POST", f"/api/tables/{table}/procedures", json={"type": "burn", "cards": cards})
        assert refused(r, 400, "bad_request")["key"] == "err.api.burn_count", cards
        assert changed(before, snapshot(sql)) == []
    for table, cards in (
        (bj, ["5d"]),
        (pyb, ["3h", "2c", "4d", "5s"]),
        (pyb, ["Kh", *["2s"] * 8, "4s", "5s"]),
        (bj, []),
    ):
        if not api.state("dora", table)["procedures_due"]:  # burned: a later shuffle, cut and load again
            api.ok("dora", "POST", f"/api/tables/{table}/procedures", json={"type": "shuffle"})
            procedures(api, "dora", table, upto="burn")
        api.ok("dora", "POST", f"/api/tables/{table}/procedures", json={"type": "burn", "cards": cards})
    fixed = api.table("blackjack", "live", burn=3)
    procedures(api, "dora", fixed, burn={"cards": ["2c", "3c", "4c"]})


def test_a_rounds_recall_shows_the_procedures_of_its_own_time(api: Api) -> None:
    """A round's procedures are those since the round before it ended (the shoe's preparation) and those
    during it (a cut card signalled); the procedures after it prepare the next round and are recalled
    with that one, not with both."""
    table = _live_round(api)
    live_deal(api, "dora", table, ["Ts", "9h", "9c"])  # the new pack's procedures, then the deal
    api.ok("dora", "POST", f"/api/tables/{table}/procedures", json={"type": "cut_card"})
    play_out(api, table, {1: "ana"}, "dora", iter(["6c", "2d", "5s", "4h", "3c", "Qd"]))
    procedures(api, "dora", table)  # shuffle, cut, load, burn
    api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 1000})
    api.ok("dora", "POST", f"/api/tables/{table}/deal")

    def kinds(n: int) -> list[str]:
        recall = api.ok("ivan", "GET", f"/api/tables/{table}/rounds/{n}")
        return [p.get("step", p["type"]) for p in recall["procedures"]]

    api.user("ivan", "inspector")
    first, second = kinds(1), kinds(2)
    assert first == [
        "new_pack",
        "inspect",
        "show",
        "turn",
        "mix",
        "shuffle",
        "cut",
        "load",
        "burn",
        "cut_card_out",
    ]
    assert second == ["shuffle", "cut", "load", "burn"], second


def test_a_virtual_rounds_recall_keeps_the_cuts_position_beside_its_time(api: Api) -> None:
    """The shoe's cut records where the pack was cut (`at`, a card position); the recall gives each
    record's time as `at` and kept the cut's position nowhere (it was overwritten). It is `event_at`."""
    api.user("ana", "player", chips=10_000)
    api.user("ivan", "inspector")
    table = api.table("blackjack", turn_seconds=None)
    api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 1000})
    api.ok("admin", "POST", f"/api/tables/{table}/deal")
    recall = api.ok("ivan", "GET", f"/api/tables/{table}/rounds/1")
    cuts = [p for p in recall["procedures"] if p.get("step") == "cut"]
    assert len(cuts) == 1 and isinstance(cuts[0]["event_at"], int) and cuts[0]["event_at"] >= 40
    assert isinstance(cuts[0]["at"], str) and cuts[0]["at"].endswith("Z")
    in_events = [e for e in recall["events"] if e.get("step") == "cut"]
    assert all(e["event_at"] == cuts[0]["event_at"] for e in in_events)


def test_a_mistyped_card_is_corrected_with_a_reason_before_any_decision(api: Api) -> None:
    table = _live_round(api)
    procedures(api, "dora", table)  # the control procedures it owes first
    api.ok("dora", "POST", f"/api/tables/{table}/deal")
    for card in ("Ts", "9h", "9c"):
        api.ok("dora", "POST", f"/api/tables/{table}/cards", json={"card": card})
    api.ok("dora", "POST", f"/api/tables/{table}/cards", json={"card": "Kc"})  # meant 6c
    state = api.ok(
        "dora", "POST", f"/api/tables/{table}/corrections", json={"card": "6c", "reason": "typed K for 6"}
    )
    assert state["pending"]["decision"] == "surrender"
    api.ok("ana", "POST", f"/api/tables/{table}/actions", json={"seat": 1, "action": "decline"})
    late = api.as_(
        "dora", "POST", f"/api/tables/{table}/corrections", json={"card": "7c", "reason": "too late"}
    )
    assert late.status_code == 409 and late.json()["error"]["code"] == "conflict"
    api.ok("ana", "POST", f"/api/tables/{table}/actions", json={"seat": 1, "action": "stand"})
    state = api.ok("dora", "POST", f"/api/tables/{table}/cards", json={"card": "2d"})  # 9 + 6 + 2 = 17
    assert state["phase"] == "betting"
    assert api.balance("ana") == 11_000  # 19 beats 17
    recall = api.ok("admin", "GET", f"/api/tables/{table}/rounds/1")
    assert recall["corrections"][0]["was"] == "Kc" and recall["corrections"][0]["now"] == "6c"
    assert recall["corrections"][0]["reason"] == "typed K for 6" and recall["corrections"][0]["by"] == "dora"
    assert [c["card"] for c in recall["cards"] if not c.get("superseded")] == ["Ts", "9h", "9c", "6c", "2d"]
    assert any(c["card"] == "Kc" and c.get("superseded") for c in recall["cards"])
    assert api.ok("admin", "GET", f"/api/tables/{table}/verify")["ok"]
    kinds = [e["kind"] for e in api.ok("admin", "GET", "/api/events")["events"]]
    assert "correction" in kinds


def test_a_void_needs_a_second_staff_member_and_returns_every_stake(api: Api) -> None:
    table = _live_round(api)
    procedures(api, "dora", table)  # the control procedures it owes first
    api.ok("dora", "POST", f"/api/tables/{table}/deal")
    for card in ("Ts", "9h", "9c", "6c"):
        api.ok("dora", "POST", f"/api/tables/{table}/cards", json={"card": card})
    api.ok("ana", "POST", f"/api/tables/{table}/actions", json={"seat": 1, "action": "decline"})
    assert api.balance("ana") == 9_000
    assert api.state("dani", table)["void"] is None
    api.ok("dora", "POST", f"/api/tables/{table}/void", json={"reason": "the shoe fell"})
    waiting = {"requested_by": "dora", "reason": "the shoe fell"}
    assert api.state("dani", table)["void"] == waiting  # the second staff member sees what waits for him
    assert "void" not in api.state("ana", table)  # staff business
    casino = api.client.app.state.casino  # type: ignore[attr-defined]
    casino.snapshots.clear()
    casino.runtimes.clear()
    assert api.state("dani", table)["void"] == waiting  # read from the round's row as well
    same = api.as_("dora", "POST", f"/api/tables/{table}/void/confirm")
    assert same.status_code == 403  # not by the one who asked
    again = api.as_("dani", "POST", f"/api/tables/{table}/void", json={"reason": "another reason"})
    assert (
        refused(again, 409, "conflict")["key"] == "err.api.void_waiting"
    )  # he confirms; he does not replace it
    assert api.state("dani", table)["void"] == waiting
    player = api.as_("ana", "POST", f"/api/tables/{table}/void/confirm")
    assert player.status_code == 403
    state = api.ok("dani", "POST", f"/api/tables/{table}/void/confirm")
    assert state["phase"] == "betting" and state["view"]["voided"] and state["void"] is None
    assert api.balance("ana") == 10_000
    rounds = api.ok("admin", "GET", f"/api/tables/{table}/rounds")["rounds"]
    assert rounds[0]["status"] == "voided" and rounds[0]["void_reason"] == "the shoe fell"
    recall = api.ok("admin", "GET", f"/api/tables/{table}/rounds/1")
    assert any(e["type"] == "round_voided" and e["by"] == "dani" for e in recall["events"])
    assert sum(e["amount"] for e in recall["ledger"]) == 0


def test_the_turn_timer_answers_for_a_holder_who_does_not(api: Api) -> None:
    """A disconnected player loses nothing: his stake stays in the round and the timer answers for him
    with the engine's default (decline an offer, stand on a play decision)."""
    api.user("dora", "dealer")
    api.user("ana", "player", chips=10_000)
    table = api.table("blackjack", "virtual", turn_seconds=0.3)
    api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 1000})
    state = api.ok("dora", "POST", f"/api/tables/{table}/deal")
    if state["pending"] is not None:
        assert state["pending"]["deadline"]
        state = _wait(api, table, "ana", lambda s: s["phase"] == "betting")
    recall = api.ok("admin", "GET", f"/api/tables/{table}/rounds/1")
    assert recall["status"] == "finished"
    for decision in recall["decisions"]:
        assert decision["by"] == "timer"
        assert decision.get("action", "stand") == "stand" or decision.get("taken") is False
    totals = recall["bettors"]["ana"]["totals"]
    assert api.balance("ana") == 10_000 + totals["net"]


def test_the_betting_timer_deals_at_a_virtual_table(api: Api) -> None:
    api.user("ana", "player", chips=10_000)
    table = api.table("punto_y_banca", "virtual", betting_seconds=0.3)
    api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    state = api.ok(
        "ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "banca", "amount": 1000}
    )
    state = api.state("ana", table)
    assert state["deadline_kind"] == "betting"
    state = _wait(api, table, "ana", lambda s: s["last_round"] == 1)
    assert state["view"]["finished"]
    rounds = api.ok("admin", "GET", f"/api/tables/{table}/rounds")["rounds"]
    assert [r["status"] for r in rounds] == ["finished"]


def test_the_betting_timer_returns_the_bets_it_cannot_deal_and_deals_the_rest(api: Api) -> None:
    """A virtual table has no dealer to see to a refused deal: beto's Showdown bet without its pot bet
    (judged when the bets close) is returned when the betting timer deals, logged as a significant
    event, and ana's round is dealt; a table whose only bets cannot be dealt returns them and waits for
    new ones, its timer stopped (it refused the deal again and again before, and never dealt)."""
    for name in ("ana", "beto"):
        api.user(name, "player", chips=10_000)
    table = api.table("showdown_poker", "virtual", betting_seconds=0.3, turn_seconds=None)
    for seat, who in ((1, "ana"), (2, "beto")):
        api.ok(who, "POST", f"/api/tables/{table}/seats", json={"seat": seat})
        api.ok(who, "POST", f"/api/tables/{table}/bets", json={"seat": seat, "spot": "bet", "amount": 500})
    api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "pot", "amount": 100})
    seen: list[Any] = []
    with api.client.websocket_connect(f"/ws/tables/{table}?token={api.tokens['beto']}") as ws:
        while True:  # the push of the deal says what was returned, once
            push = ws.receive_json()["state"]
            seen.append(push["returned"])
            if push["phase"] == "playing":
                break
    assert seen[-1] == [
        {
            "player": "beto",
            "bets": [{"seat": 2, "spot": "bet", "amount": 500}],
            "code": "bad_bet",
            "key": "err.bet.required",
            "reason": seen[-1][0]["reason"],
        }
    ]
    assert set(seen[-1][0]["reason"]) == {"es", "en"} and all(not r for r in seen[:-1])
    state = api.state("beto", table)
    assert state["returned"] == seen[-1]  # the state of the deal's version says it
    assert state["me"] == {"name": "beto", "balance": 10_000, "available": 10_000}
    api.ok("ana", "POST", f"/api/tables/{table}/actions", json={"seat": 1, "action": "decline"})
    assert api.state("beto", table)["returned"] == []  # the next version's does not
    recall = api.ok("admin", "GET", f"/api/tables/{table}/rounds/1")
    stakes = {(e["player"], e["spot"]) for e in recall["events"] if e["type"] == "stake"}
    assert stakes == {("ana", "bet"), ("ana", "pot")}
    events = api.ok("admin", "GET", "/api/events")["events"]
    returned = [e for e in events if e["kind"] == "bets_returned"]
    assert len(returned) == 1 and returned[0]["table"] == table
    assert returned[0]["details"]["player"] == "beto" and returned[0]["details"]["code"] == "bad_bet"
    assert returned[0]["details"]["bets"] == [{"seat": 2, "spot": "bet", "amount": 500}]

    alone = api.table("showdown_poker", "virtual", betting_seconds=0.3, turn_seconds=None)
    api.ok("beto", "POST", f"/api/tables/{alone}/seats", json={"seat": 1})
    api.ok("beto", "POST", f"/api/tables/{alone}/bets", json={"seat": 1, "spot": "bet", "amount": 500})
    state = _wait(api, alone, "beto", lambda s: s["seats"][0]["bets"] == [])
    assert state["phase"] == "betting" and state["deadline"] is None and state["round"] is None
    time.sleep(0.5)
    assert api.state("beto", alone)["seq"] == state["seq"]  # nothing more happens at it
    assert api.ok("admin", "GET", f"/api/tables/{alone}/rounds")["rounds"] == []


def _live_showdown(api: Api) -> int:
    """A live Showdown table with its dealer dora, ana on seat 1 and beto on seat 2."""
    api.user("dora", "dealer")
    api.user("ana", "player", chips=10_000)
    api.user("beto", "player", chips=10_000)
    table = api.table("showdown_poker", "live")
    for seat, who in ((1, "ana"), (2, "beto")):
        api.ok(who, "POST", f"/api/tables/{table}/seats", json={"seat": seat})
    return table


def _showdown_bets(api: Api, table: int) -> None:
    """ana and beto each bet 500 with the pot bet of 100."""
    for seat, who in ((1, "ana"), (2, "beto")):
        for spot, amount in (("bet", 500), ("pot", 100)):
            api.ok(
                who, "POST", f"/api/tables/{table}/bets", json={"seat": seat, "spot": spot, "amount": amount}
            )


def test_a_player_recalls_his_own_last_rounds_without_what_he_could_not_see(api: Api) -> None:
    table = _live_showdown(api)
    _showdown_bets(api, table)
    procedures(api, "dora", table)  # the control procedures it owes first
    api.ok("dora", "POST", f"/api/tables/{table}/deal")
    # ana As Ks Qs, beto 2d 7c 9h, community Jd 3c
    for card in ("As", "2d", "Jd", "Ks", "7c", "3c", "Qs", "9h"):
        api.ok("dora", "POST", f"/api/tables/{table}/cards", json={"card": card})
    api.ok("ana", "POST", f"/api/tables/{table}/actions", json={"seat": 1, "action": "decline"})
    api.ok(
        "beto",
        "POST",
        f"/api/tables/{table}/actions",
        json={"seat": 2, "action": "exchange", "cards": ["2d"]},
    )
    api.ok("dora", "POST", f"/api/tables/{table}/cards", json={"card": "8d"})
    for seat, who in ((1, "ana"), (2, "beto")):
        api.ok(who, "POST", f"/api/tables/{table}/actions", json={"seat": seat, "action": "decline"})
    state = api.state("ana", table)
    assert state["phase"] == "betting"
    mine = api.ok("ana", "GET", "/api/me/rounds")["rounds"]
    assert len(mine) == 1 and mine[0]["round"] == 1 and mine[0]["result"]["staked"] == 600
    text = str(mine[0]["events"])
    assert "2d" not in text  # beto's discard never reaches ana
    assert "As" in text  # her own card
    beto = str(api.ok("beto", "GET", "/api/me/rounds")["rounds"][0]["events"])
    assert "2d" in beto and "Ks" not in beto.split("hand")[0]


def test_art7_a_live_showdown_round_counts_its_cards_against_a_whole_deck(api: Api, sql: sa.Engine) -> None:
    """SP Art.7 shuffles the whole deck before every round: a live Showdown round's cards are counted
    against one full deck, so a card of the last round may come again whether or not the dealer reported
    the shuffle (it was refused as a second copy, and the round could only be voided). Within a round a
    second copy is still bad_cards; the count survives a restart (the runtime rebuilt from the records)."""
    table = _live_showdown(api)
    cards = ("As", "2d", "Jd", "Ks", "7c", "3c", "Qs", "9h")
    for n in (1, 2):
        _showdown_bets(api, table)
        procedures(api, "dora", table)  # the control procedures it owes first
        api.ok("dora", "POST", f"/api/tables/{table}/deal")
        for k, card in enumerate(cards):
            if n == 2 and k == 4:
                casino = api.client.app.state.casino  # type: ignore[attr-defined]
                casino.snapshots.clear()
                casino.runtimes.clear()
                before = snapshot(sql)
                again = api.as_("dora", "POST", f"/api/tables/{table}/cards", json={"card": "As"})
                assert again.status_code == 422 and again.json()["error"]["code"] == "bad_cards"
                assert not changed(before, snapshot(sql))
            api.ok("dora", "POST", f"/api/tables/{table}/cards", json={"card": card})
        while (pending := api.state("dora", table)["pending"]) is not None:  # every offer declined
            who = "ana" if pending["seat"] == 1 else "beto"
            body = {"seat": pending["seat"], "action": "decline"}
            api.ok(who, "POST", f"/api/tables/{table}/actions", json=body)
        assert api.ok("admin", "GET", f"/api/tables/{table}/rounds/{n}")["status"] == "finished"
    assert api.ok("admin", "GET", f"/api/tables/{table}/verify")["ok"]


def test_a_websocket_client_catches_up_from_the_version_it_last_saw(api: Api) -> None:
    api.user("dora", "dealer")
    api.user("ana", "player", chips=10_000)
    table = api.table("blackjack", "live")
    token = api.tokens["ana"]
    with api.client.websocket_connect(f"/ws/tables/{table}?token={token}") as ws:
        first = ws.receive_json()
        assert first["type"] == "state" and first["state"]["table"]["id"] == table
        seen = first["seq"]
    api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 1000})
    with api.client.websocket_connect(f"/ws/tables/{table}?token={token}&since={seen}") as ws:
        caught = ws.receive_json()
        assert caught["seq"] > seen
        assert caught["state"]["seats"][0]["bets"] == [{"player": "ana", "spot": "main", "amount": 1000}]
    for path, status, code in (
        (f"/ws/tables/{table}?token=nonsense", 401, "unauthorized"),
        (f"/ws/tables/{table}", 401, "unauthorized"),
        (f"/ws/tables/9999?token={token}", 404, "not_found"),
        (f"/ws/tables/abc?token={token}", 400, "bad_request"),
    ):  # the handshake refused with server.md's status and error body
        with pytest.raises(WebSocketDenialResponse) as denied, api.client.websocket_connect(path):
            pass
        refused(denied.value, status, code)


@pytest.mark.parametrize("how", ["restart", "another process"])
def test_art6_a_cut_card_signalled_during_a_round_ends_the_shoe_whoever_finishes_the_round(
    database_url: str, tmp_path: Path, how: str
) -> None:
    """The dealer's cut-card signal in the middle of a round waits in the table's row until the round
    ends; a process that rebuilt the table after it (a restart), or one whose picture of the table is
    older (another process), still refuses the next deal until the shoe is shuffled (Art.6)."""
    with contextlib.ExitStack() as stack:
        api = stack.enter_context(serving(database_url, tmp_path / "a"))
        table = _live_round(api)
        live_deal(api, "dora", table, ["Ts", "9h", "9c"])
        second = None
        if how == "another process":
            second = stack.enter_context(serving(database_url, tmp_path / "b"))
            for name in ("dora", "ana"):
                second.login(name, "password-123")
            second.state("dora", table)  # its picture of the table, from before the signal
        api.ok("dora", "POST", f"/api/tables/{table}/procedures", json={"type": "cut_card"})
        if second is None:
            stack.pop_all().close()  # the server stops in the middle of the round, and starts again
            second = stack.enter_context(serving(database_url, tmp_path / "c"))
            for name in ("dora", "ana"):
                second.login(name, "password-123")
        play_out(second, table, {1: "ana"}, "dora", iter(["6c", "2d", "5s", "4h", "3c", "Qd"]))
        bet = {"seat": 1, "spot": "main", "amount": 1000}
        second.ok("ana", "POST", f"/api/tables/{table}/bets", json=bet)
        refused(second.as_("dora", "POST", f"/api/tables/{table}/deal"), 409, "conflict")
        second.ok("dora", "POST", f"/api/tables/{table}/procedures", json={"type": "shuffle"})
        refused(second.as_("dora", "POST", f"/api/tables/{table}/deal"), 409, "conflict")  # cut, load, burn
        procedures(second, "dora", table)
        assert second.ok("dora", "POST", f"/api/tables/{table}/deal")["phase"] == "playing"
