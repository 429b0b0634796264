"""A real `tapete serve` process killed with SIGKILL in the middle of a round, at several points (after the
deal, after a decision, during the dealer's draw), and started again on the same database: the same state
and pending step, play continues, every balance as it should be (SQLite and PostgreSQL)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.procs import Server
from tests.server.conftest import ADMIN_PASSWORD

# Black Jack, one box: Ts 9c to the box, 9h 6c to the dealer: the player stands on 19 against 15; the
# dealer draws 2d (17).
CARDS = ["Ts", "9h", "9c", "6c", "2d"]


def _comparable(state: dict[str, Any]) -> dict[str, Any]:
    """The state without its turn timer: a restart gives the holder whose turn it was his whole turn time
    again (a new deadline, and so a new version of the table: `seq`)."""
    out = {k: v for k, v in state.items() if k not in ("deadline", "seq")}
    if isinstance(out.get("pending"), dict):
        out["pending"] = {k: v for k, v in out["pending"].items() if k != "deadline"}
    return out


def _setup(server: Server, chips: int) -> None:
    server.login("admin", ADMIN_PASSWORD)
    for name, role in (("dora", "dealer"), ("ana", "player")):
        server.call(
            "admin", "POST", "/api/users", {"username": name, "password": "password-123", "role": role}
        )
        server.login(name, "password-123")
    server.call("admin", "POST", "/api/cashier/buy-in", {"player": "ana", "amount": chips})


def test_sigkill_mid_round_then_the_round_goes_on(database_url: str, tmp_path: Path) -> None:
    """Three live rounds, the server killed in each at another point: after the deal, after a decision,
    during the dealer's draw (his card awaited). After each restart every viewer's state is what it was,
    and the round is played to its end with the right payout."""
    server = Server(database_url, tmp_path / "home", fast_passwords=True)
    server.start()
    try:
        _setup(server, 10_000)
        balance = 10_000
        for point in ("after_deal", "after_decision", "during_dealer_draw"):
            table = server.call(
                "admin", "POST", "/api/tables", {"game": "blackjack", "name": point, "mode": "live"}
            )["id"]
            server.call("ana", "POST", f"/api/tables/{table}/seats", {"seat": 1})
            server.call(
                "ana", "POST", f"/api/tables/{table}/bets", {"seat": 1, "spot": "main", "amount": 1000}
            )
            server.procedures("dora", table)  # the new pack's procedures first
            server.call("dora", "POST", f"/api/tables/{table}/deal")
            cards = list(CARDS)
            for _ in range(4):  # the deal: box, dealer, box, dealer
                server.call("dora", "POST", f"/api/tables/{table}/cards", {"card": cards.pop(0)})
            steps: list[tuple[str, str, Any]] = [
                ("ana", "actions", {"seat": 1, "action": "decline"}),  # the retiro offer (Art.9)
                ("ana", "actions", {"seat": 1, "action": "stand"}),
                ("dora", "cards", {"card": cards.pop(0)}),
            ]
            kill_before = {"after_deal": 0, "after_decision": 1, "during_dealer_draw": 2}[point]
            for who, what, body in steps[:kill_before]:
                server.call(who, "POST", f"/api/tables/{table}/{what}", body)
            if point == "during_dealer_draw":  # 9h up + 6c: 15, the dealer must draw: his card awaited
                assert server.call("dora", "GET", f"/api/tables/{table}/state")["pending"]["to"] == "dealer"
            views = ("ana", "dora", "admin")
            before = {
                who: _comparable(server.call(who, "GET", f"/api/tables/{table}/state")) for who in views
            }
            assert before["ana"]["me"]["balance"] == balance - 1000
            server.kill()
            server.start()  # the same database; the tokens are in it: sessions survive a restart
            after = {who: _comparable(server.call(who, "GET", f"/api/tables/{table}/state")) for who in views}
            assert after == before, point
            for who, what, body in steps[kill_before:]:
                server.call(who, "POST", f"/api/tables/{table}/{what}", body)
            final = server.call("ana", "GET", f"/api/tables/{table}/state")
            assert final["phase"] == "betting" and final["view"]["finished"]
            assert final["view"]["seats"][0]["hands"][0]["outcome"] == "win"  # 19 against 17
            balance += 1000
            assert server.call("ana", "GET", "/api/me")["balance"] == balance
            assert server.call("admin", "GET", f"/api/tables/{table}/verify")["ok"]
            recall = server.call("admin", "GET", f"/api/tables/{table}/rounds/1")
            assert [c["card"] for c in recall["cards"]] == CARDS
            assert sum(e["amount"] for e in recall["ledger"]) == 0
        kinds = [e["kind"] for e in server.call("admin", "GET", "/api/events")["events"]]
        assert kinds.count("round_recovered") == 3 and kinds.count("server_started") == 4
    finally:
        server.stop()


def test_sigkill_at_a_virtual_table_keeps_the_sealed_shoe(database_url: str, tmp_path: Path) -> None:
    """A virtual table killed mid-round: after the restart the round goes on from the same shoe (its sealed
    order restored, each logged card checked against it), and the chain and the ledger hold."""
    server = Server(database_url, tmp_path / "home", fast_passwords=True)
    server.start()
    try:
        _setup(server, 100_000)
        table = server.call(
            "admin", "POST", "/api/tables", {"game": "blackjack", "name": "virtual", "mode": "virtual"}
        )["id"]
        server.call("ana", "POST", f"/api/tables/{table}/seats", {"seat": 1})
        kills = 0
        rounds = 0
        while kills < 2 and rounds < 20:
            rounds += 1
            server.call(
                "ana", "POST", f"/api/tables/{table}/bets", {"seat": 1, "spot": "main", "amount": 1000}
            )
            state = server.call("dora", "POST", f"/api/tables/{table}/deal")
            if state["pending"] is None:
                continue
            before = _comparable(server.call("ana", "GET", f"/api/tables/{table}/state"))
            server.kill()
            server.start()
            kills += 1
            assert _comparable(server.call("ana", "GET", f"/api/tables/{table}/state")) == before
            while state["pending"] is not None:
                p = state["pending"]
                action = "stand" if "stand" in p["legal"] else "decline"
                body = {"seat": 1, "action": action, "hand": p["hand"]}
                state = server.call("ana", "POST", f"/api/tables/{table}/actions", body)
        assert kills == 2
        assert server.call("admin", "GET", f"/api/tables/{table}/verify")["ok"]
        listed = server.call("admin", "GET", f"/api/tables/{table}/rounds")["rounds"]
        assert len(listed) == rounds and all(r["status"] == "finished" for r in listed)
        net = 0
        for n in range(1, rounds + 1):
            recall = server.call("admin", "GET", f"/api/tables/{table}/rounds/{n}")
            assert sum(e["amount"] for e in recall["ledger"]) == 0
            net += recall["bettors"]["ana"]["totals"]["net"]
        assert server.call("ana", "GET", "/api/me")["balance"] == 100_000 + net
    finally:
        server.stop()
