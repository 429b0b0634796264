"""A real `tapete serve` process killed with SIGKILL in the middle of a round, at several points (after the
deal, after a decision, during the dealer's draw), and started again on the same database: the same state
and pending step, play continues, every balance as it should be (SQLite and PostgreSQL)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from tests.server.conftest import ADMIN_PASSWORD

# Black Jack, one box: Ts 9c to the box, 9h 6c to the dealer: the player stands on 19 against 15; the
# dealer draws 2d (17).
CARDS = ["Ts", "9h", "9c", "6c", "2d"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """A `tapete serve` subprocess on a free port, its own TAPETE_HOME and a given database."""

    def __init__(self, database_url: str, home: Path) -> None:
        self.database_url, self.home = database_url, home
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.tokens: dict[str, str] = {}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        env = {**os.environ, "TAPETE_HOME": str(self.home), "TAPETE_ADMIN_PASSWORD": ADMIN_PASSWORD}
        cmd = [
            sys.executable,
            "-m",
            "tapete.cli",
            "serve",
            "--port",
            str(self.port),
            "--database-url",
            self.database_url,
        ]
        self.proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                out = self.proc.stdout.read().decode() if self.proc.stdout else ""
                raise AssertionError(f"tapete serve exited: {out}")
            try:
                if httpx.get(f"{self.url}/api/health", timeout=1).json().get("ok"):
                    return
            except (httpx.HTTPError, ValueError):
                pass
            time.sleep(0.1)
        raise AssertionError("tapete serve did not come up")

    def kill(self) -> None:
        """SIGKILL: no shutdown, nothing flushed that was not committed."""
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()

    def login(self, name: str, password: str) -> None:
        r = httpx.post(f"{self.url}/api/login", json={"username": name, "password": password}, timeout=10)
        assert r.status_code == 200, r.text
        self.tokens[name] = r.json()["token"]

    def call(self, who: str, method: str, path: str, body: Any = None) -> Any:
        r = httpx.request(
            method,
            f"{self.url}{path}",
            json=body,
            headers={"Authorization": f"Bearer {self.tokens[who]}"},
            timeout=30,
        )
        assert r.status_code < 300, (method, path, r.status_code, r.text)
        return r.json()


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
    server = Server(database_url, tmp_path / "home")
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
    server = Server(database_url, tmp_path / "home")
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
