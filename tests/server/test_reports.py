"""Reports (server.md, What the inspector reads): GET /api/reports/tables?from=&to=&format=json|csv gives
per table and period the rounds, the drop (what bettors staked), the win (the house's net) and the
hold %. Checked on live Black Jack rounds whose outcome is worked out by hand, on random Punto y Banca
rounds (5% commission) whose figures are worked out from their events, with a round still in play
(not counted) and a table that never played; the CSV has the same columns and figures."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.server.conftest import Api
from tests.server.support import live_deal

pytestmark = pytest.mark.usefixtures("fast_hashing")


def decide(api: Api, table: int, who: str, *actions: str) -> Any:
    """The holders' answers in order (an offer not named is declined)."""
    state: Any = None
    for action in actions:
        state = api.state(who, table)
        pending = state["pending"]
        while pending["kind"] == "decision" and action not in pending["legal"]:
            state = api.ok(
                pending["holder"],
                "POST",
                f"/api/tables/{table}/actions",
                json={"seat": pending["seat"], "action": "decline"},
            )
            pending = state["pending"]
        state = api.ok(
            pending["holder"],
            "POST",
            f"/api/tables/{table}/actions",
            json={"seat": pending["seat"], "action": action},
        )
    return state


def black_jack_rounds(api: Api, table: int) -> None:
    """Three rounds with known cards: both win (1,000 and 2,000: the dealer busts), a push, a loss of
    1,000. Drop 5,000, win -2,000."""
    for who, seat in (("ana", 1), ("luis", 2)):
        api.ok(
            who,
            "POST",
            f"/api/tables/{table}/bets",
            json={"seat": seat, "spot": "main", "amount": 1000 * seat},
        )
    live_deal(api, "dora", table, ["Ts", "9h", "9c", "Kc", "5s", "7d"])
    decide(api, table, "ana", "stand")  # ana 20
    decide(api, table, "luis", "hit")
    api.ok("dora", "POST", f"/api/tables/{table}/cards", json={"card": "6h"})
    state = decide(api, table, "luis", "stand")  # luis 20
    state = api.ok("dora", "POST", f"/api/tables/{table}/cards", json={"card": "Th"})  # dealer 26
    assert state["pending"] is None
    api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 1000})
    live_deal(api, "dora", table, ["Ts", "9c", "7h", "8d"])
    assert decide(api, table, "ana", "stand")["pending"] is None  # 17 against 17: a push
    api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 1000})
    live_deal(api, "dora", table, ["Ts", "Tc", "7h", "9d"])
    assert decide(api, table, "ana", "stand")["pending"] is None  # 17 against 19: lost


def figures_from_events(api: Api, table: int) -> tuple[int, int, int]:
    """(rounds, drop, win) of a table's ended rounds, from their events: the stakes, and the house's net
    that each round_settled event records."""
    rounds = drop = win = 0
    for row in api.ok("admin", "GET", f"/api/tables/{table}/rounds")["rounds"]:
        if row["status"] == "in_progress":
            continue
        events = api.ok("admin", "GET", f"/api/tables/{table}/rounds/{row['round']}")["events"]
        rounds += 1
        drop += sum(e["amount"] for e in events if e["type"] == "stake")
        settled = [e for e in events if e["type"] == "round_settled"]
        assert len(settled) == 1
        win += settled[0]["house"]["net"]
    return rounds, drop, win


def hold(win: int, drop: int) -> float:
    return round(100 * win / drop, 4) if drop else 0.0


def test_the_report_gives_each_tables_rounds_drop_win_and_hold(api: Api) -> None:
    for name in ("ana", "luis"):
        api.user(name, "player", chips=1_000_000)
    api.user("dora", "dealer")
    api.user("ivan", "inspector")
    bj = api.table("blackjack", "live")
    pyb = api.table("punto_y_banca", turn_seconds=None)
    idle = api.table("showdown_poker")
    for who, seat in (("ana", 1), ("luis", 2)):
        for t in (bj, pyb):
            api.ok(who, "POST", f"/api/tables/{t}/seats", json={"seat": seat})
    black_jack_rounds(api, bj)
    for i in range(4):
        api.ok(
            "ana", "POST", f"/api/tables/{pyb}/bets", json={"seat": 1, "spot": "banca", "amount": 1000 + i}
        )
        api.ok("luis", "POST", f"/api/tables/{pyb}/bets", json={"seat": 2, "spot": "punto", "amount": 500})
        api.ok("luis", "POST", f"/api/tables/{pyb}/bets", json={"seat": 2, "spot": "empate", "amount": 100})
        assert api.ok("dora", "POST", f"/api/tables/{pyb}/deal")["pending"] is None
    api.ok("ana", "POST", f"/api/tables/{bj}/bets", json={"seat": 1, "spot": "main", "amount": 7000})
    live_deal(api, "dora", bj, ["Ts"])  # a round in play: not in the report

    report = api.ok("ivan", "GET", "/api/reports/tables")
    rows = {r["table"]: r for r in report["tables"]}
    assert set(rows) == {bj, pyb, idle}
    assert rows[bj] == {
        "table": bj,
        "name": "blackjack live",
        "game": "blackjack",
        "rounds": 3,
        "drop": 5000,
        "win": -2000,
        "hold_percent": -40.0,
    }
    assert figures_from_events(api, bj) == (3, 5000, -2000)
    rounds, drop, win = figures_from_events(api, pyb)
    assert (rounds, drop) == (4, 4 * 600 + 1000 + 1001 + 1002 + 1003)
    assert (rows[pyb]["rounds"], rows[pyb]["drop"], rows[pyb]["win"]) == (rounds, drop, win)
    assert rows[pyb]["hold_percent"] == hold(win, drop)
    assert (rows[idle]["rounds"], rows[idle]["drop"], rows[idle]["win"], rows[idle]["hold_percent"]) == (
        0,
        0,
        0,
        0.0,
    )

    text = api.as_("ivan", "GET", "/api/reports/tables?format=csv")
    assert text.status_code == 200 and text.headers["content-type"].startswith("text/csv")
    reader = csv.DictReader(io.StringIO(text.text))
    assert reader.fieldnames == ["table", "name", "game", "rounds", "drop", "win", "hold_percent"]
    as_csv = [
        {
            k: (float(v) if k == "hold_percent" else v if k in ("name", "game") else int(v))
            for k, v in row.items()
        }
        for row in reader
    ]
    assert as_csv == report["tables"]


def test_the_period_bounds_the_rounds(api: Api) -> None:
    """from/to are ISO dates, both optional and inclusive (UTC): today's rounds are in a period ending or
    starting today, and in none that ends yesterday or starts tomorrow."""
    api.user("ana", "player", chips=100_000)
    table = api.table("punto_y_banca", turn_seconds=None)
    api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "punto", "amount": 1000})
    api.ok("admin", "POST", f"/api/tables/{table}/deal")
    today = datetime.now(UTC).date()
    day = timedelta(days=1)

    def rounds(query: str) -> int:
        report = api.ok("admin", "GET", f"/api/reports/tables?{query}")
        return int(report["tables"][0]["rounds"])

    assert rounds(f"from={today}&to={today}") == 1
    assert rounds(f"from={today - day}") == 1 and rounds(f"to={today + day}") == 1
    assert rounds(f"from={today + day}") == 0 and rounds(f"to={today - day}") == 0
    report = api.ok("admin", "GET", f"/api/reports/tables?from={today + day}")
    assert report["tables"][0]["drop"] == 0 and report["tables"][0]["hold_percent"] == 0.0


def test_a_voided_round_is_not_in_the_report(api: Api) -> None:
    """A voided round returned every stake: nothing was staked on a game and the house neither won nor
    lost, so it is not among the rounds, the drop or the win (it was counted in rounds and drop, which
    lowered the hold). Three known rounds, then a fourth of 7,000 voided: still 3 rounds, 5,000, -2,000."""
    for name in ("ana", "luis"):
        api.user(name, "player", chips=1_000_000)
    api.user("dora", "dealer")
    api.user("dani", "dealer")
    bj = api.table("blackjack", "live")
    for who, seat in (("ana", 1), ("luis", 2)):
        api.ok(who, "POST", f"/api/tables/{bj}/seats", json={"seat": seat})
    black_jack_rounds(api, bj)
    api.ok("ana", "POST", f"/api/tables/{bj}/bets", json={"seat": 1, "spot": "main", "amount": 7000})
    live_deal(api, "dora", bj, ["Ts", "9c"])
    api.ok("dora", "POST", f"/api/tables/{bj}/void", json={"reason": "the shoe fell"})
    api.ok("dani", "POST", f"/api/tables/{bj}/void/confirm")
    assert api.ok("admin", "GET", f"/api/tables/{bj}/rounds")["rounds"][-1]["status"] == "voided"
    row = api.ok("admin", "GET", "/api/reports/tables")["tables"][0]
    assert (row["rounds"], row["drop"], row["win"], row["hold_percent"]) == (3, 5000, -2000, -40.0)
