"""The server's pieces the player's table needs (issue 32): a restart gives the holder whose turn it was
his whole turn time again; withdrawing the last bets stops the deal's countdown; Punto y Banca's
scoreboard (every coup of the shoe since its shuffle, the cards left) rebuilt from the records; the
recall says who confirmed a void; a refused setting's problems carry their params."""

from __future__ import annotations

import contextlib
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tests.server.support import procedures, serving


def _when(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).astimezone(UTC).timestamp()


def _deal_to_a_decision(api: Any, table: int) -> dict[str, Any]:
    """Bet and deal at a virtual Black Jack table until a round waits for the holder's decision."""
    for _ in range(30):
        api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 1000})
        state = api.ok("admin", "POST", f"/api/tables/{table}/deal")
        if state["pending"] is not None:
            return dict(state)
    raise AssertionError("no round waited for a decision")


def test_a_restart_gives_the_holder_whose_turn_it_was_his_whole_turn_time_again(
    database_url: str, tmp_path: Path
) -> None:
    with contextlib.ExitStack() as stack:
        api = stack.enter_context(serving(database_url, tmp_path / "a"))
        api.user("ana", "player", chips=100_000)
        table = api.table("blackjack", turn_seconds=6)
        api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
        state = _deal_to_a_decision(api, table)
        first = _when(state["pending"]["deadline"])
        time.sleep(2.5)  # the server is down for part of his turn
        stack.pop_all().close()
        restarted = time.time()  # the new server's start comes after this
        api = stack.enter_context(serving(database_url, tmp_path / "b"))
        api.login("ana", "password-123")
        after = api.state("ana", table)
        assert after["pending"]["decision"] == state["pending"]["decision"]
        again = _when(after["pending"]["deadline"])
        assert again > first + 2  # later than the first deadline
        assert again - restarted >= 6 - 0.2  # his whole turn, from the restart
        assert after["deadline"] == after["pending"]["deadline"]


def test_withdrawing_the_last_bets_stops_the_deal_countdown(database_url: str, tmp_path: Path) -> None:
    with serving(database_url, tmp_path) as api:
        api.user("ana", "player", chips=100_000)
        table = api.table("blackjack", betting_seconds=30)
        api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
        api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 1000})
        assert api.state("ana", table)["deadline_kind"] == "betting"
        api.ok("ana", "DELETE", f"/api/tables/{table}/bets")
        state = api.state("ana", table)
        assert state["deadline"] is None and state["deadline_kind"] is None
        api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 1000})
        assert api.state("ana", table)["deadline_kind"] == "betting"  # a new bet starts it again


def test_punto_y_banca_scoreboard_lists_every_coup_of_the_shoe_and_the_cards_left(
    database_url: str, tmp_path: Path
) -> None:
    with serving(database_url, tmp_path) as api:
        api.user("ana", "player", chips=100_000)
        table = api.table("punto_y_banca")
        empty = api.ok("ana", "GET", f"/api/tables/{table}/scoreboard")
        assert empty["coups"] == [] and empty["pack"] == 8 * 52
        api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
        winners = []
        for n in range(1, 5):
            api.ok(
                "ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "banca", "amount": 1000}
            )
            api.ok("admin", "POST", f"/api/tables/{table}/deal")
            recall = api.ok("admin", "GET", f"/api/tables/{table}/rounds/{n}")
            outcome = next(e for e in recall["events"] if e["type"] == "outcome")
            winners.append((n, outcome["winner"], outcome["punto"], outcome["banca"]))
        board = api.ok("ana", "GET", f"/api/tables/{table}/scoreboard")
        assert [(c["round"], c["result"], c["punto"], c["banca"]) for c in board["coups"]] == winners
        dealt = sum(
            len(api.ok("admin", "GET", f"/api/tables/{table}/rounds/{n}")["cards"]) for n in range(1, 5)
        )
        burned = board["pack"] - board["cards_left"] - dealt
        assert 1 <= burned <= 11  # Art.5g's burn (the first card's value, up to ten more), then the coups
        assert api.ok("ana", "GET", f"/api/tables/{api.table('blackjack')}/scoreboard")["coups"] == []


def test_the_recall_says_who_confirmed_a_void(database_url: str, tmp_path: Path) -> None:
    with serving(database_url, tmp_path) as api:
        api.user("ana", "player", chips=100_000)
        api.user("dora", "dealer")
        table = api.table("blackjack", "live")
        api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
        api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 1000})
        procedures(api, "dora", table)
        api.ok("dora", "POST", f"/api/tables/{table}/deal")
        api.ok("dora", "POST", f"/api/tables/{table}/void", json={"reason": "carta al suelo"})
        api.ok("admin", "POST", f"/api/tables/{table}/void/confirm")
        recall = api.ok("admin", "GET", f"/api/tables/{table}/rounds/1")
        assert recall["status"] == "voided"
        assert (recall["void_requested_by"], recall["void_confirmed_by"], recall["void_reason"]) == (
            "dora",
            "admin",
            "carta al suelo",
        )
        mine = api.ok("ana", "GET", "/api/me/rounds")["rounds"][0]
        assert mine["status"] == "voided" and mine["void_reason"] == "carta al suelo"


def test_a_refused_setting_problem_carries_its_params(database_url: str, tmp_path: Path) -> None:
    with serving(database_url, tmp_path) as api:
        body = {
            "game": "blackjack",
            "name": "x",
            "mode": "virtual",
            "rules": {"decks": 3, "max_splits": -1, "turn_seconds": 0},
        }
        r = api.as_("admin", "POST", "/api/tables", json=body)
        assert r.status_code == 422
        problems = {p["setting"]: p for p in r.json()["error"]["problems"]}
        assert problems["decks"]["params"]["decks"] == 3
        assert problems["max_splits"]["params"]["setting"] == "max_splits"
        assert problems["turn_seconds"]["key"] == "err.api.seconds"  # the server's own, in the same answer
        named = {**body, "name": ""}  # the name is told after the settings, which come first and at once
        assert api.as_("admin", "POST", "/api/tables", json=named).json()["error"]["code"] == "invalid_rules"


def test_undo_takes_back_only_the_last_bet_placed(database_url: str, tmp_path: Path) -> None:
    with serving(database_url, tmp_path) as api:
        api.user("ana", "player", chips=100_000)
        table = api.table("majestic_21")
        api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 2})
        for spot, amount in (("main", 1000), ("over_13", 500), ("main", 2000)):
            api.ok(
                "ana", "POST", f"/api/tables/{table}/bets", json={"seat": 2, "spot": spot, "amount": amount}
            )
        taken = api.ok("ana", "DELETE", f"/api/tables/{table}/bets/last")
        assert (taken["seat"], taken["spot"], taken["amount"]) == (2, "main", 2000)
        bets = api.state("ana", table)["seats"][1]["bets"]
        assert [(b["spot"], b["amount"]) for b in bets] == [("main", 1000), ("over_13", 500)]
        assert api.state("ana", table)["me"]["available"] == 100_000 - 1500
        api.ok("ana", "DELETE", f"/api/tables/{table}/bets/last")
        api.ok("ana", "DELETE", f"/api/tables/{table}/bets/last")
        r = api.as_("ana", "DELETE", f"/api/tables/{table}/bets/last")
        assert r.status_code == 409 and r.json()["error"]["key"] == "err.api.no_bet_to_undo"
