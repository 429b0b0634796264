"""Several servers, one casino (issue 13): real `tapete serve` processes on one PostgreSQL database and one
Redis. A push made through one process reaches a WebSocket held on another; the same decision sent to two
processes at once is taken once; a turn timer fires exactly once; a process killed mid-round, another
finishes the round with every balance right. Faults: PostgreSQL restarted under play, Redis stopped and
started, a WebSocket client that never reads. The tests that stop a database or a broker start their own
(tests/procs.py), never the machine's."""

from __future__ import annotations

import json
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import psycopg
import pytest
from websockets.sync.client import connect

from tests.procs import ADMIN_PASSWORD, PostgresInstance, RedisInstance, Server, wait_for

SHARED_PG = "postgresql://postgres@127.0.0.1:5432"
SHARED_REDIS = "redis://127.0.0.1:6379/0"


def _create_db(base: str) -> str:
    name = f"tapete_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return name


def _drop_db(base: str, name: str) -> None:
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def database() -> Iterator[str]:
    name = _create_db(SHARED_PG)
    try:
        yield f"{SHARED_PG}/{name}"
    finally:
        _drop_db(SHARED_PG, name)


class Watcher:
    """A WebSocket to a table, read in a thread: every state message kept by its version."""

    def __init__(self, server: Server, who: str, table: int) -> None:
        url = f"ws://127.0.0.1:{server.port}/ws/tables/{table}?token={server.tokens[who]}"
        self.ws = connect(url, open_timeout=10)
        self.seqs: list[int] = []
        self.close_code: int | None = None
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for raw in self.ws:
                msg = json.loads(raw)
                if msg.get("type") == "state":
                    self.seqs.append(int(msg["seq"]))
        except Exception:
            pass
        self.close_code = self.ws.close_code  # set once the server (or the test) closed the socket

    def wait_seq(self, seq: int, seconds: float = 15) -> None:
        wait_for(lambda: self.seqs and max(self.seqs) >= seq, f"push of version {seq}", seconds)

    def close(self) -> None:
        self.ws.close()


def _casino(a: Server, players: int = 1, chips: int = 100_000) -> None:
    a.login("admin", ADMIN_PASSWORD)
    a.call("admin", "POST", "/api/users", {"username": "dora", "password": "password-123", "role": "dealer"})
    a.login("dora", "password-123")
    for k in range(1, players + 1):
        a.call(
            "admin", "POST", "/api/users", {"username": f"p{k}", "password": "password-123", "role": "player"}
        )
        a.login(f"p{k}", "password-123")
        a.call("admin", "POST", "/api/cashier/buy-in", {"player": f"p{k}", "amount": chips})


def _share_tokens(a: Server, b: Server) -> None:
    b.tokens.update(a.tokens)  # sessions are in the database: any process takes them


@pytest.fixture
def pair(database: str, tmp_path: Path) -> Iterator[tuple[Server, Server]]:
    a = Server(database, tmp_path / "a", broker_url=SHARED_REDIS, fast_passwords=True)
    b = Server(database, tmp_path / "b", broker_url=SHARED_REDIS, fast_passwords=True)
    a.start()
    b.start()
    try:
        _casino(a)
        _share_tokens(a, b)
        yield a, b
    finally:
        a.stop()
        b.stop()


def test_a_push_made_through_one_process_reaches_a_websocket_on_another(pair: tuple[Server, Server]) -> None:
    a, b = pair
    table = a.call("admin", "POST", "/api/tables", {"game": "blackjack", "name": "t", "mode": "live"})["id"]
    watcher = Watcher(b, "p1", table)
    try:
        first = b.call("p1", "GET", f"/api/tables/{table}/state")["seq"]
        watcher.wait_seq(first)
        a.call("p1", "POST", f"/api/tables/{table}/seats", {"seat": 1})
        seq = a.call("p1", "GET", f"/api/tables/{table}/state")["seq"]
        assert seq > first
        watcher.wait_seq(seq)  # the change was made through a; the WebSocket is held by b
    finally:
        watcher.close()


def _deal_one(server: Server, table: int, who: str = "p1", seat: int = 1) -> Any:
    server.call(who, "POST", f"/api/tables/{table}/bets", {"seat": seat, "spot": "main", "amount": 1000})
    server.procedures("dora", table)  # a live table's procedures first
    return server.call("dora", "POST", f"/api/tables/{table}/deal")


def test_the_same_decision_sent_to_two_processes_at_once_is_taken_once(pair: tuple[Server, Server]) -> None:
    a, b = pair
    table = a.call("admin", "POST", "/api/tables", {"game": "blackjack", "name": "t", "mode": "virtual"})[
        "id"
    ]
    a.call("p1", "POST", f"/api/tables/{table}/seats", {"seat": 1})
    races = 0
    for _ in range(8):
        state = _deal_one(a, table)
        while state["pending"] is not None:
            p = state["pending"]
            body = {"seat": 1, "action": "stand" if "stand" in p["legal"] else "decline", "hand": p["hand"]}
            barrier = threading.Barrier(2)

            def send(
                server: Server, body: dict[str, Any] = body, barrier: threading.Barrier = barrier
            ) -> Any:
                barrier.wait()
                return server.request("p1", "POST", f"/api/tables/{table}/actions", body)

            with ThreadPoolExecutor(2) as pool:
                answers = list(pool.map(send, (a, b)))
            codes = sorted(r.status_code for r in answers)
            assert codes[0] == 200 and codes[1] in (409, 422), [r.text for r in answers]
            races += 1
            state = a.call("p1", "GET", f"/api/tables/{table}/state")
    assert races >= 8
    rounds = a.call("admin", "GET", f"/api/tables/{table}/rounds")["rounds"]
    net = 0
    for r in rounds:
        recall = a.call("admin", "GET", f"/api/tables/{table}/rounds/{r['round']}")
        seqs = [d["seq"] for d in recall["decisions"]]
        assert len(seqs) == len(set(seqs))
        assert sum(e["amount"] for e in recall["ledger"]) == 0
        net += recall["bettors"]["p1"]["totals"]["net"]
    assert a.call("p1", "GET", "/api/me")["balance"] == 100_000 + net
    assert a.call("admin", "GET", f"/api/tables/{table}/verify")["ok"]


def test_a_turn_timer_fires_exactly_once_across_processes(pair: tuple[Server, Server]) -> None:
    a, b = pair
    table = a.call(
        "admin",
        "POST",
        "/api/tables",
        {"game": "blackjack", "name": "t", "mode": "virtual", "rules": {"turn_seconds": 0.4}},
    )["id"]
    a.call("p1", "POST", f"/api/tables/{table}/seats", {"seat": 1})
    timed = 0
    for _ in range(4):
        state = _deal_one(b, table)
        if state["pending"] is None:
            continue
        wait_for(
            lambda: a.call("p1", "GET", f"/api/tables/{table}/state")["phase"] == "betting", "the timer", 30
        )
        timed += 1
    assert timed >= 2
    for r in a.call("admin", "GET", f"/api/tables/{table}/rounds")["rounds"]:
        recall = a.call("admin", "GET", f"/api/tables/{table}/rounds/{r['round']}")
        steps = [(d["seat"], d.get("offer") or d.get("action")) for d in recall["decisions"]]
        assert all(d["by"] == "timer" for d in recall["decisions"])
        assert len(steps) == len(recall["decisions"])
        kinds = [d["type"] for d in recall["decisions"]]
        assert kinds.count("decision") <= 1  # one stand per hand, never twice
        assert sum(e["amount"] for e in recall["ledger"]) == 0
    assert a.call("admin", "GET", f"/api/tables/{table}/verify")["ok"]


def test_a_process_killed_mid_round_another_finishes_it(pair: tuple[Server, Server]) -> None:
    a, b = pair
    table = a.call("admin", "POST", "/api/tables", {"game": "blackjack", "name": "t", "mode": "live"})["id"]
    a.call("p1", "POST", f"/api/tables/{table}/seats", {"seat": 1})
    _deal_one(a, table)
    for card in ("Ts", "9h", "9c", "6c"):
        a.call("dora", "POST", f"/api/tables/{table}/cards", {"card": card})
    a.call("p1", "POST", f"/api/tables/{table}/actions", {"seat": 1, "action": "decline"})
    a.kill()  # the process that dealt and took the first decision is gone
    b.call("p1", "POST", f"/api/tables/{table}/actions", {"seat": 1, "action": "stand"})
    final = b.call("dora", "POST", f"/api/tables/{table}/cards", {"card": "2d"})
    assert final["phase"] == "betting"
    assert b.call("p1", "GET", "/api/me")["balance"] == 101_000
    assert b.call("admin", "GET", f"/api/tables/{table}/verify")["ok"]


# ------------------------------------------------------------------------------------------- faults
def test_a_logout_or_a_role_change_on_one_process_ends_the_trust_of_another(
    pair: tuple[Server, Server],
) -> None:
    """A process trusts a session it checked for a few seconds (session_trust_seconds, 5 by default):
    a logout through one process and a role taken away through it reach the other through the broker
    well within that time (here within 1 s), and the token or the old role stops working there; the
    logged-out session's WebSocket held by the other process is closed (4401)."""
    a, b = pair
    assert b.call("p1", "GET", "/api/me")["role"] == "player"  # b now trusts p1's session
    table = a.call("admin", "POST", "/api/tables", {"game": "blackjack", "name": "t", "mode": "live"})["id"]
    watcher = Watcher(b, "p1", table)  # p1's socket, held by b
    watcher.wait_seq(b.call("p1", "GET", f"/api/tables/{table}/state")["seq"])
    a.call("p1", "POST", "/api/logout")
    t0 = time.monotonic()
    wait_for(lambda: b.request("p1", "GET", "/api/me").status_code == 401, "logout heard by b", 1.0)
    assert time.monotonic() - t0 < 1.0
    wait_for(lambda: watcher.close_code == 4401, "p1's socket on b closed for the ended session", 5.0)
    a.login("p1", "password-123")
    _share_tokens(a, b)
    assert b.call("dora", "GET", "/api/me")["role"] == "dealer"  # trusted by b as a dealer
    a.call("admin", "PATCH", "/api/users/dora", {"role": "inspector"})
    # server.md: a role change ends every token of the user; b hears it within the second
    wait_for(lambda: b.request("dora", "GET", "/api/me").status_code == 401, "role change heard", 1.0)
    b.login("dora", "password-123")
    assert b.call("dora", "GET", "/api/me")["role"] == "inspector"
    refused = b.request("dora", "POST", "/api/tables", {"game": "blackjack", "name": "t"})
    assert refused.status_code == 403


def test_postgresql_restarted_under_play(tmp_path: Path) -> None:
    """The database goes away and comes back: a request while it is down is refused whole (503, nothing
    half-applied); the servers go on without a restart of their own."""
    pg = PostgresInstance()
    pg.start()
    a = b = None
    try:
        name = _create_db(pg.url.rsplit("/", 1)[0])
        url = f"{pg.url.rsplit('/', 1)[0]}/{name}"
        a = Server(url, tmp_path / "a", broker_url=SHARED_REDIS, fast_passwords=True)
        b = Server(url, tmp_path / "b", broker_url=SHARED_REDIS, fast_passwords=True)
        a.start()
        b.start()
        _casino(a)
        _share_tokens(a, b)
        table = a.call("admin", "POST", "/api/tables", {"game": "blackjack", "name": "t", "mode": "live"})[
            "id"
        ]
        a.call("p1", "POST", f"/api/tables/{table}/seats", {"seat": 1})
        _deal_one(a, table)
        a.call("dora", "POST", f"/api/tables/{table}/cards", {"card": "Ts"})
        pg.stop("immediate")
        down = b.request("dora", "POST", f"/api/tables/{table}/cards", {"card": "9h"})
        assert down.status_code == 503 and down.json()["error"]["code"] == "unavailable"
        pg.start()
        wait_for(
            lambda: b.request("dora", "GET", f"/api/tables/{table}/state").status_code == 200, "recovery", 30
        )
        state = b.call("dora", "GET", f"/api/tables/{table}/state")
        assert state["pending"]["kind"] == "card" and state["pending"]["to"] == "dealer"  # 9h was not taken
        for card in ("9h", "9c", "6c"):
            a.call("dora", "POST", f"/api/tables/{table}/cards", {"card": card})
        b.call("p1", "POST", f"/api/tables/{table}/actions", {"seat": 1, "action": "decline"})
        a.call("p1", "POST", f"/api/tables/{table}/actions", {"seat": 1, "action": "stand"})
        b.call("dora", "POST", f"/api/tables/{table}/cards", {"card": "2d"})
        assert a.call("p1", "GET", "/api/me")["balance"] == 101_000
        recall = a.call("admin", "GET", f"/api/tables/{table}/rounds/1")
        assert [c["card"] for c in recall["cards"]] == ["Ts", "9h", "9c", "6c", "2d"]
        assert a.call("admin", "GET", f"/api/tables/{table}/verify")["ok"]
    finally:
        for s in (a, b):
            if s is not None:
                s.stop()
        pg.remove()


def test_redis_stopped_and_started_play_goes_on_and_pushes_resume(database: str, tmp_path: Path) -> None:
    redis = RedisInstance(tmp_path / "redis")
    redis.start()
    a = Server(database, tmp_path / "a", broker_url=redis.url, fast_passwords=True)
    b = Server(database, tmp_path / "b", broker_url=redis.url, fast_passwords=True)
    watcher = None
    try:
        a.start()
        b.start()
        _casino(a)
        _share_tokens(a, b)
        table = a.call("admin", "POST", "/api/tables", {"game": "blackjack", "name": "t", "mode": "live"})[
            "id"
        ]
        watcher = Watcher(b, "p1", table)
        a.call("p1", "POST", f"/api/tables/{table}/seats", {"seat": 1})
        watcher.wait_seq(a.call("p1", "GET", f"/api/tables/{table}/state")["seq"])
        redis.stop()
        _deal_one(a, table)  # play goes on without the broker
        for card in ("Ts", "9h", "9c", "6c"):
            a.call("dora", "POST", f"/api/tables/{table}/cards", {"card": card})
        redis.start()
        time.sleep(1.0)  # the listeners reconnect (they retry every 0.5 s)
        a.call("p1", "POST", f"/api/tables/{table}/actions", {"seat": 1, "action": "decline"})
        seq = a.call("p1", "GET", f"/api/tables/{table}/state")["seq"]
        watcher.wait_seq(seq, 30)  # pushes resumed: the client is up to date again
    finally:
        if watcher is not None:
            watcher.close()
        a.stop()
        b.stop()
        redis.stop()


def test_a_websocket_client_that_never_reads_cannot_slow_the_table(database: str, tmp_path: Path) -> None:
    a = Server(database, tmp_path / "a", broker_url=SHARED_REDIS, fast_passwords=True)
    a.start()
    try:
        _casino(a, players=1)
        table = a.call(
            "admin", "POST", "/api/tables", {"game": "punto_y_banca", "name": "t", "mode": "virtual"}
        )["id"]
        a.call("p1", "POST", f"/api/tables/{table}/seats", {"seat": 1})
        stuck = socket.create_connection(("127.0.0.1", a.port))
        stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
        key = "dGhlIHNhbXBsZSBub25jZQ=="
        stuck.sendall(
            (
                f"GET /ws/tables/{table}?token={a.tokens['p1']} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )  # ... and never reads a byte again
        watcher = Watcher(a, "p1", table)
        try:
            started = time.monotonic()
            for _ in range(40):
                a.call("p1", "POST", f"/api/tables/{table}/bets", {"seat": 1, "spot": "banca", "amount": 100})
                a.call("dora", "POST", f"/api/tables/{table}/deal")
            elapsed = time.monotonic() - started
            watcher.wait_seq(a.call("p1", "GET", f"/api/tables/{table}/state")["seq"])
            assert len(a.call("admin", "GET", f"/api/tables/{table}/rounds")["rounds"]) == 40
            assert elapsed < 120  # generous: 80 requests; a blocked fan-out would hang here instead
        finally:
            watcher.close()
            stuck.close()
    finally:
        a.stop()
