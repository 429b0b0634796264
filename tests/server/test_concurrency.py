"""Concurrency against a real server (uvicorn on a free port, requests fired at once with
httpx.AsyncClient), on SQLite and PostgreSQL; on PostgreSQL also against two servers on one database,
the way several processes serve one casino. The same decision sent many times at once is taken once
(one 200, the others 4xx, one decision in the chain, the chips moved once); many bets at once never
commit more chips than the wallet holds, nor take it below zero; the same Idempotency-Key sent at once
from two places moves chips once."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from tests.server.conftest import ADMIN_PASSWORD, Api
from tests.server.support import live_deal, live_server, procedures

pytestmark = pytest.mark.usefixtures("fast_hashing")


@pytest.fixture
def servers(database_url: str, tmp_path: Path) -> Iterator[list[str]]:
    """The base URLs of the servers under test: one, and on PostgreSQL a second on the same database."""
    with ExitStack() as stack:
        urls = [stack.enter_context(live_server(database_url, tmp_path))]
        if not database_url.startswith("sqlite"):
            urls.append(stack.enter_context(live_server(database_url, tmp_path)))
        yield urls


@pytest.fixture
def http(servers: list[str]) -> Iterator[Api]:
    """The first server, spoken to over HTTP as the tests' Api, `admin` logged in."""
    with httpx.Client(base_url=servers[0], timeout=30) as client:
        api = Api(client)  # type: ignore[arg-type]  # an httpx.Client speaks as the TestClient does
        api.login("admin", ADMIN_PASSWORD)
        yield api


async def at_once(requests: list[tuple[str, str, str, dict[str, str], Any]]) -> list[httpx.Response]:
    """Send every (base URL, method, path, headers, JSON body) at once, each on its own connection."""
    clients = [httpx.AsyncClient(base_url=base, timeout=60) for base, *_ in requests]
    try:
        return await asyncio.gather(
            *(
                c.request(m, p, headers=h, json=b)
                for c, (_, m, p, h, b) in zip(clients, requests, strict=True)
            )
        )
    finally:
        for c in clients:
            await c.aclose()


def bearer(api: Api, who: str, **more: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {api.tokens[who]}", **more}


def test_the_same_decision_sent_at_once_is_taken_once(http: Api, servers: list[str]) -> None:
    """Eight doubles of one hand at once (spread over the servers): one is taken, the others are
    refused with a 4xx; the chain has one double and the wallet paid for one."""
    api = http
    api.user("ana", "player", chips=10_000)
    api.user("dora", "dealer")
    table = api.table("blackjack", "live")
    api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 1000})
    live_deal(api, "dora", table, ["6h", "9c", "5d", "7s"])
    api.ok("ana", "POST", f"/api/tables/{table}/actions", json={"seat": 1, "action": "decline"})
    balance, records = api.balance("ana"), api.ok("admin", "GET", f"/api/tables/{table}/verify")["records"]
    body = {"seat": 1, "action": "double"}
    path = f"/api/tables/{table}/actions"
    answers = asyncio.run(
        at_once([(servers[i % len(servers)], "POST", path, bearer(api, "ana"), body) for i in range(8)])
    )
    codes = sorted(r.status_code for r in answers)
    assert codes.count(200) == 1, [(r.status_code, r.text[:120]) for r in answers]
    assert all(400 <= c < 500 for c in codes if c != 200), [r.text[:160] for r in answers]
    assert api.balance("ana") == balance - 1000
    verify = api.ok("admin", "GET", f"/api/tables/{table}/verify")
    assert verify["ok"] and verify["records"] == records + 2  # the decision and its stake
    recall = api.ok("admin", "GET", f"/api/tables/{table}/rounds/1")
    assert [d["action"] for d in recall["decisions"] if d.get("action") == "double"] == ["double"]


def test_many_bets_at_once_never_commit_more_than_the_wallet(
    http: Api, servers: list[str], sql: sa.Engine
) -> None:
    """ana has 5,000 and sends 24 bets of 1,000 at once over four tables (and the servers), while the
    cashier pays her out 2,000 at once too: what was accepted never exceeds what she has, the
    four tables then deal at once, and her wallet ends at zero or above, never below."""
    api = http
    api.user("ana", "player", chips=5_000)
    api.user("cash", "cashier")
    api.user("dora", "dealer")
    tables = [api.table("blackjack", "live") for _ in range(4)]
    for t in tables:
        api.ok("ana", "POST", f"/api/tables/{t}/seats", json={"seat": 1})
        procedures(api, "dora", t)  # the control procedures each table owes before its deal
    bets = [
        (
            servers[i % len(servers)],
            "POST",
            f"/api/tables/{tables[i % 4]}/bets",
            bearer(api, "ana"),
            {"seat": 1, "spot": "main", "amount": 1000},
        )
        for i in range(24)
    ]
    cash_outs = [
        (
            servers[i % len(servers)],
            "POST",
            "/api/cashier/cash-out",
            bearer(api, "cash"),
            {"player": "ana", "amount": 2000},
        )
        for i in range(2)
    ]
    answers = asyncio.run(at_once(bets + cash_outs))
    placed = sum(1000 for r in answers[:24] if r.status_code == 200)
    paid_out = sum(2000 for r in answers[24:] if r.status_code == 200)
    for r in answers:
        assert r.status_code in (200, 409, 422), r.text
        if r.status_code == 422:
            assert r.json()["error"]["code"] == "insufficient_funds", r.text
    assert placed + paid_out <= 5_000, (placed, paid_out)
    assert placed > 0
    me = api.ok("ana", "GET", "/api/me")
    assert me["balance"] == 5_000 - paid_out and me["available"] == 5_000 - paid_out - placed >= 0
    deals = asyncio.run(
        at_once(
            [
                (servers[i % len(servers)], "POST", f"/api/tables/{t}/deal", bearer(api, "dora"), None)
                for i, t in enumerate(tables)
            ]
        )
    )
    dealt = [t for t, r in zip(tables, deals, strict=True) if r.status_code == 200]
    for t, r in zip(tables, deals, strict=True):
        assert r.status_code in (200, 422), r.text  # a table with no bet of hers: bad_bet
        if r.status_code == 422:
            assert r.json()["error"]["code"] == "bad_bet" and not any(
                b.status_code == 200 and b.url.path.endswith(f"/tables/{t}/bets") for b in answers[:24]
            ), r.text
    assert dealt
    with sql.connect() as conn:
        wallet = conn.execute(sa.text("SELECT balance FROM accounts WHERE name = 'wallet:ana'")).scalar_one()
        total = conn.execute(sa.text("SELECT SUM(balance) FROM accounts")).scalar_one()
    assert wallet == 5_000 - paid_out - placed >= 0
    assert total == 0


def test_the_same_key_sent_at_once_moves_chips_once(http: Api, servers: list[str]) -> None:
    """Six buy-ins and six bets with one key each, sent at once: one buy-in and one bet, and every
    answer that is not a refusal of the race is the first answer."""
    api = http
    api.user("ana", "player")
    api.user("cash", "cashier")
    table = api.table("blackjack", turn_seconds=None)
    api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    buy = [
        (
            servers[i % len(servers)],
            "POST",
            "/api/cashier/buy-in",
            bearer(api, "cash", **{"Idempotency-Key": "once"}),
            {"player": "ana", "amount": 3000},
        )
        for i in range(6)
    ]
    answers = asyncio.run(at_once(buy))
    assert api.balance("ana") == 3000
    ok = [r.json() for r in answers if r.status_code == 200]
    assert ok and all(body == {"player": "ana", "balance": 3000} for body in ok), [r.text for r in answers]
    bet = [
        (
            servers[i % len(servers)],
            "POST",
            f"/api/tables/{table}/bets",
            bearer(api, "ana", **{"Idempotency-Key": "b"}),
            {"seat": 1, "spot": "main", "amount": 1000},
        )
        for i in range(6)
    ]
    answers = asyncio.run(at_once(bet))
    assert all(r.status_code in (200, 409) for r in answers), [r.text for r in answers]
    ok = [r.json() for r in answers if r.status_code == 200]
    assert ok and all(body == ok[0] for body in ok)
    assert api.state("ana", table)["seats"][0]["bets"] == [{"player": "ana", "spot": "main", "amount": 1000}]
    assert api.ok("ana", "GET", "/api/me")["available"] == 2000


def test_tables_that_share_players_settle_at_once(http: Api, servers: list[str], sql: sa.Engine) -> None:
    """Four Punto y Banca tables (a round is dealt and settled in one request), the same three players
    seated in a different order at each, dealt at once five times over: every deal is taken (no
    deadlock between tables that move the same wallets in different orders), and the books balance."""
    api = http
    players = ["ana", "luis", "eva"]
    for name in players:
        api.user(name, "player", chips=1_000_000)
    api.user("dora", "dealer")
    tables = [api.table("punto_y_banca", turn_seconds=None) for _ in range(4)]
    for i, t in enumerate(tables):
        order = players[i % 3 :] + players[: i % 3]
        for seat, name in enumerate(reversed(order) if i % 2 else order, start=1):
            api.ok(name, "POST", f"/api/tables/{t}/seats", json={"seat": seat})
    seat_of = {
        (t, s["holder"]): s["seat"] for t in tables for s in api.state("admin", t)["seats"] if s["holder"]
    }
    for _ in range(5):
        for (t, name), seat in seat_of.items():
            api.ok(
                name, "POST", f"/api/tables/{t}/bets", json={"seat": seat, "spot": "banca", "amount": 1000}
            )
        deals = asyncio.run(
            at_once(
                [
                    (servers[i % len(servers)], "POST", f"/api/tables/{t}/deal", bearer(api, "dora"), None)
                    for i, t in enumerate(tables)
                ]
            )
        )
        assert [r.status_code for r in deals] == [200] * 4, [
            r.text[:200] for r in deals if r.status_code != 200
        ]
    with sql.connect() as conn:
        assert conn.execute(sa.text("SELECT SUM(balance) FROM accounts")).scalar_one() == 0
    assert sum(len(api.ok("admin", "GET", f"/api/tables/{t}/rounds")["rounds"]) for t in tables) == 20


def test_bets_sent_at_once_are_taken_together_each_answered_alone(http: Api, servers: list[str]) -> None:
    """Seven holders bet at once at one table (one server: the bets wait for the table together), one of
    them twice more than his chips allow and one on a box he does not hold: every bet that may be placed
    is placed, each refusal is its own (insufficient_funds, conflict), nothing refused is written, and
    the table's version moved less than once per bet (the bets waiting were taken together)."""
    api = http
    names = [f"p{k}" for k in range(1, 8)]
    for name in names:
        api.user(name, "player", chips=1_000 if name == "p7" else 100_000)
    table = api.table("blackjack", turn_seconds=None)
    for k, name in enumerate(names, start=1):
        api.ok(name, "POST", f"/api/tables/{table}/seats", json={"seat": k})
    seq = api.state("admin", table)["seq"]
    path = f"/api/tables/{table}/bets"
    requests = [
        (servers[0], "POST", path, bearer(api, name), {"seat": k, "spot": "main", "amount": 600})
        for k, name in enumerate(names, start=1)
    ]
    requests.append((servers[0], "POST", path, bearer(api, "p7"), {"seat": 7, "spot": "main", "amount": 600}))
    requests.append((servers[0], "POST", path, bearer(api, "p1"), {"seat": 9, "spot": "main", "amount": 600}))
    answers = asyncio.run(at_once(requests))
    codes = [r.status_code for r in answers]
    assert codes[:6] == [200] * 6, [r.text for r in answers]
    p7 = sorted((answers[6], answers[7]), key=lambda r: r.status_code)  # whichever came first is placed
    assert p7[0].status_code == 200 and p7[1].json()["error"]["code"] == "insufficient_funds", p7[1].text
    assert answers[8].status_code in (400, 422) and answers[8].json()["error"]["code"] == "bad_bet"
    state = api.state("admin", table)
    assert [[b["amount"] for b in s["bets"]] for s in state["seats"]] == [[600]] * 7
    assert api.balance("p7") == 1_000 and api.ok("p7", "GET", "/api/me")["available"] == 400
    # never more versions than bets placed; how many were taken together depends on when each arrived
    # (`test_bets_waiting_for_a_table_are_one_version` shows the batching itself, in process)
    assert 1 <= state["seq"] - seq <= 7
    # each placed bet is answered with its own id (taken with its transaction's round trip), first
    placed = [r.json() for r in (*answers[:6], p7[0])]
    assert all(next(iter(a)) == "bet" and isinstance(a["bet"], int) for a in placed), placed
    assert len({a["bet"] for a in placed}) == 7


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_bets_waiting_for_a_table_are_one_version(
    kind: str, tmp_path: Path, migrated: dict[str, str]
) -> None:
    """Seven holders' bets that wait for the table together (`Casino.place_bet`, all asked before the
    table takes any) are taken in one transaction: one version, each bet answered with its own id."""
    from tapete.server.app import Casino
    from tests.server.conftest import fresh_database, settings_for
    from tests.server.support import serving

    with fresh_database(kind, tmp_path, migrated) as url:
        with serving(url, tmp_path / "setup") as api:
            names = [f"p{k}" for k in range(1, 8)]
            for name in names:
                api.user(name, "player", chips=100_000)
            table = api.table("blackjack", turn_seconds=None)
            for k, name in enumerate(names, start=1):
                api.ok(name, "POST", f"/api/tables/{table}/seats", json={"seat": k})
            tokens = dict(api.tokens)

        async def scenario() -> tuple[int, list[dict[str, Any]]]:
            casino = Casino(settings_for(url, tmp_path / "a"))
            try:
                who = [await casino.sessions.caller(tokens[name]) for name in names]
                before = (await casino.state_for(table, who[0]))["seq"]
                answers = await asyncio.gather(
                    *(casino.place_bet(table, c, k, "main", 600) for k, c in enumerate(who, start=1))
                )
                after = (await casino.state_for(table, who[0]))["seq"]
                return after - before, list(answers)
            finally:
                await casino.dispose()

        versions, answers = asyncio.run(scenario())
    assert versions == 1, versions
    assert all(next(iter(a)) == "bet" and a["status"] == "placed" for a in answers), answers
    assert len({a["bet"] for a in answers}) == 7
