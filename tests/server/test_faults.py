"""Faults the server must notice, and the significant-event log.

At start every table's chain is checked whole (hashes, links, signatures, and the table's head);
a table whose records were altered behind the server's back between two starts is suspended: no bet,
seat, deal, decision or card (409), no timer playing for anyone, until an administrator reopens it with
a reason (PATCH /api/tables/{id}); the check and the reopening are in the significant-event log, beside
start and stop, tables opened and changed, users and roles, cashier operations, corrections and voids
(GET /api/events)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from tests.server.conftest import Api
from tests.server.support import live_deal, refused, serving
from tests.server.tampering import superuser

pytestmark = pytest.mark.usefixtures("fast_hashing")

EVENTS = sa.table(
    "events",
    sa.column("id", sa.Integer),
    sa.column("table_id", sa.Integer),
    sa.column("seq", sa.Integer),
    sa.column("event", sa.JSON),
    sa.column("hash", sa.String),
)


def last_records(sql: sa.Engine, table: int) -> list[Any]:
    """The table's two last chain records, newest first."""
    with sql.connect() as conn:
        query = sa.select(EVENTS).where(EVENTS.c.table_id == table).order_by(EVENTS.c.seq.desc()).limit(2)
        return list(conn.execute(query).all())


def tamper(sql: sa.Engine, table: int, how: str) -> int:
    """Alter the table's chain as someone with the database's password might; the seq the inspector's
    verify should name."""
    last, before = last_records(sql, table)
    with superuser(sql) as conn:  # past the append-only triggers (migration 0005)
        if how == "edit the last event":
            event = dict(last.event)
            event["amount" if "amount" in event else "tampered"] = 999_999
            conn.execute(sa.update(EVENTS).where(EVENTS.c.id == last.id).values(event=event))
            return int(last.seq)
        if how == "delete the last record":
            conn.execute(sa.delete(EVENTS).where(EVENTS.c.id == last.id))
            return int(last.seq)
        if how == "move the table's head":
            conn.execute(
                sa.text("UPDATE tables SET head_hash = :h WHERE id = :id"), {"h": "e" * 64, "id": table}
            )
            return int(last.seq) + 1
        assert how == "rewrite the record before it"
        event = {**before.event, "tampered": True}
        conn.execute(sa.update(EVENTS).where(EVENTS.c.id == before.id).values(event=event, hash="f" * 64))
        return int(before.seq)


def one_round(api: Api, table: int) -> None:
    """ana bets and plays one round at a virtual Black Jack table (stand or decline every time)."""
    api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 1000})
    state = api.ok("admin", "POST", f"/api/tables/{table}/deal")
    while state["pending"] is not None:
        p = state["pending"]
        action = "stand" if "stand" in p["legal"] else "decline"
        state = api.ok(
            "ana",
            "POST",
            f"/api/tables/{table}/actions",
            json={"seat": 1, "action": action, "hand": p["hand"]},
        )


@pytest.mark.parametrize(
    "how", ["edit the last event", "delete the last record", "rewrite the record before it"]
)
def test_a_table_whose_chain_was_altered_is_suspended_until_reopened(
    database_url: str, tmp_path: Path, sql: sa.Engine, how: str
) -> None:
    with serving(database_url, tmp_path) as api:
        api.user("ana", "player", chips=50_000)
        api.user("dora", "dealer")
        table = api.table("blackjack", turn_seconds=None)
        other = api.table("blackjack", turn_seconds=None)
        for t in (table, other):
            api.ok("ana", "POST", f"/api/tables/{t}/seats", json={"seat": 1})
        one_round(api, table)
        assert api.ok("admin", "GET", f"/api/tables/{table}/verify")["ok"]
    bad = tamper(sql, table, how)
    with serving(database_url, tmp_path) as api:
        api.login("ana", "password-123")
        api.login("dora", "password-123")
        assert api.ok("admin", "GET", f"/api/tables/{table}")["status"] == "suspended"
        assert api.ok("admin", "GET", f"/api/tables/{other}")["status"] == "open"
        verify = api.ok("admin", "GET", f"/api/tables/{table}/verify")
        assert verify["ok"] is False and verify["first_bad"] == bad and verify["reason"]
        balance = api.balance("ana")
        bet = {"seat": 1, "spot": "main", "amount": 1000}
        refused(api.as_("ana", "POST", f"/api/tables/{table}/bets", json=bet), 409, "conflict")
        refused(api.as_("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 2}), 409, "conflict")
        refused(api.as_("dora", "POST", f"/api/tables/{table}/deal"), 409, "conflict")
        assert api.balance("ana") == balance
        assert api.state("ana", table)["table"]["status"] == "suspended"
        suspended = [
            e for e in api.ok("admin", "GET", "/api/events")["events"] if e["kind"] == "integrity_failure"
        ]
        assert [e["table"] for e in suspended] == [table] and suspended[0]["details"]["record"] == bad
        api.ok("ana", "POST", f"/api/tables/{other}/bets", json=bet)  # the other table plays on
        change = f"/api/tables/{table}"
        refused(api.as_("admin", "PATCH", change, json={"status": "open", "reason": " "}), 400, "bad_request")
        refused(api.as_("dora", "PATCH", change, json={"status": "open", "reason": "fine"}), 403, "forbidden")
        opened = api.ok(
            "admin", "PATCH", change, json={"status": "open", "reason": "checked against the paper log"}
        )
        assert opened["status"] == "open"
        reopened = [e for e in api.ok("admin", "GET", "/api/events")["events"] if e["kind"] == "table_open"]
        assert reopened[-1]["details"] == {"from": "suspended", "reason": "checked against the paper log"}
        assert reopened[-1]["actor"] == "admin"
        one_round(api, table)  # play goes on, its records chained on the head the table kept
    with serving(database_url, tmp_path) as api:  # and the next start finds the head sound
        assert api.ok("admin", "GET", f"/api/tables/{table}")["status"] == "open"


def test_a_suspended_round_waits_and_no_timer_plays_it(
    database_url: str, tmp_path: Path, sql: sa.Engine
) -> None:
    """Rounds in progress at tables found altered at start: the dealer's card and the holder's decision
    are refused (409), and a due turn timer does not answer for the holder; once reopened, each round goes
    on from where it was, the holder with a whole new turn."""
    with serving(database_url, tmp_path) as api:
        api.user("ana", "player", chips=50_000)
        api.user("dora", "dealer")
        cards = api.table("blackjack", "live")
        timed = api.table("blackjack", "live", turn_seconds=60)
        for t in (cards, timed):
            api.ok("ana", "POST", f"/api/tables/{t}/seats", json={"seat": 1})
            api.ok("ana", "POST", f"/api/tables/{t}/bets", json={"seat": 1, "spot": "main", "amount": 1000})
        live_deal(api, "dora", cards, ["6h", "9c"])
        pending = live_deal(api, "dora", timed, ["6h", "9c", "5d", "7s"])["pending"]
        assert pending["kind"] == "decision" and pending["deadline"]
    for t in (cards, timed):
        tamper(sql, t, "move the table's head")
    past = datetime.now(UTC) - timedelta(minutes=5)
    with sql.begin() as conn:  # the turn timer is long due
        conn.execute(
            sa.text("UPDATE tables SET deadline_at = :t WHERE id = :id"),
            {"t": past.replace(tzinfo=None) if sql.dialect.name == "sqlite" else past, "id": timed},
        )
    with serving(database_url, tmp_path) as api:
        api.login("ana", "password-123")
        api.login("dora", "password-123")
        casino = api.client.app.state.casino  # type: ignore[attr-defined]
        assert api.client.portal.call(casino.fire_due) == 0  # type: ignore[union-attr]
        state = api.state("ana", timed)
        assert state["pending"]["legal"] == pending["legal"] and state["deadline"] is None
        body = {"seat": 1, "action": "decline"}
        refused(api.as_("ana", "POST", f"/api/tables/{timed}/actions", json=body), 409, "conflict")
        refused(api.as_("dora", "POST", f"/api/tables/{cards}/cards", json={"card": "5d"}), 409, "conflict")
        for t in (cards, timed):
            api.ok("admin", "PATCH", f"/api/tables/{t}", json={"status": "open", "reason": "verified"})
        assert (
            api.ok("dora", "POST", f"/api/tables/{cards}/cards", json={"card": "5d"})["pending"]["kind"]
            == "card"
        )
        state = api.state("ana", timed)
        assert state["pending"]["legal"] == pending["legal"]
        assert datetime.fromisoformat(state["deadline"].replace("Z", "+00:00")) > datetime.now(UTC)
        assert (
            api.ok("ana", "POST", f"/api/tables/{timed}/actions", json=body)["pending"]["decision"] == "play"
        )


def test_a_round_in_play_whose_records_were_edited_cannot_go_on(
    database_url: str, tmp_path: Path, sql: sa.Engine
) -> None:
    """A record of the round in play edited so that the round no longer rebuilds from its records: the
    table is suspended at start, every request on it (the state too) is 409 conflict saying why, and it
    cannot be reopened; the inspector's verify names the record and recalls the round. (An edit the
    engine can replay, say another card, is caught by the same head check: the table waits, suspended,
    for the administrator, whose reopening then vouches for the records.)"""
    with serving(database_url, tmp_path) as api:
        api.user("ana", "player", chips=50_000)
        api.user("dora", "dealer")
        table = api.table("blackjack", "live")
        api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
        api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 1000})
        live_deal(api, "dora", table, ["6h", "9c", "5d"])
    last, _ = last_records(sql, table)
    with superuser(sql) as conn:
        conn.execute(
            sa.update(EVENTS).where(EVENTS.c.id == last.id).values(event={**last.event, "note": "x"})
        )
    with serving(database_url, tmp_path) as api:
        api.login("dora", "password-123")
        assert api.ok("admin", "GET", f"/api/tables/{table}")["status"] == "suspended"
        assert api.ok("admin", "GET", f"/api/tables/{table}/verify")["first_bad"] == last.seq
        for who, method, path, body in (
            ("admin", "GET", f"/api/tables/{table}/state", None),
            ("dora", "POST", f"/api/tables/{table}/cards", {"card": "7s"}),
            ("admin", "PATCH", f"/api/tables/{table}", {"status": "open", "reason": "let us try"}),
        ):
            error = refused(api.as_(who, method, path, json=body), 409, "conflict")
            assert error["key"] in ("err.api.round_records", "err.api.table_status"), error
        assert api.ok("admin", "GET", f"/api/tables/{table}")["status"] == "suspended"
        assert api.ok("admin", "GET", f"/api/tables/{table}/rounds/1")["status"] == "in_progress"


def test_significant_events_are_logged(database_url: str, tmp_path: Path) -> None:
    """Start and stop, a table opened and changed, users made and changed, buy-in and cash-out, a
    correction, a void asked and confirmed: each in GET /api/events with who did it."""
    with serving(database_url, tmp_path) as api:
        api.user("ana", "player", chips=5_000)
        api.user("dora", "dealer")
        api.user("cash", "cashier")
        api.ok("cash", "POST", "/api/cashier/cash-out", json={"player": "ana", "amount": 1_000})
        api.ok("admin", "PATCH", "/api/users/dora", json={"role": "dealer", "active": True})
        table = api.table("blackjack", "live")
        api.ok("admin", "PATCH", f"/api/tables/{table}", json={"status": "suspended", "reason": "a spill"})
        api.ok("admin", "PATCH", f"/api/tables/{table}", json={"status": "open", "reason": "cleaned"})
        api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
        api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 1000})
        live_deal(api, "dora", table, ["6h"])
        api.ok("dora", "POST", f"/api/tables/{table}/corrections", json={"card": "7h", "reason": "misread"})
        api.ok("dora", "POST", f"/api/tables/{table}/void", json={"reason": "the shoe fell"})
        api.ok("admin", "POST", f"/api/tables/{table}/void/confirm")
    with serving(database_url, tmp_path) as api:
        events = api.ok("admin", "GET", "/api/events")["events"]
        ids = [e["id"] for e in events]
        assert ids == sorted(ids)
        by_kind: dict[str, list[dict[str, Any]]] = {}
        for e in events:
            by_kind.setdefault(e["kind"], []).append(e)
        assert len(by_kind["server_started"]) == 2 and len(by_kind["server_stopped"]) == 1
        assert {e["details"]["user"] for e in by_kind["user_created"]} == {"admin", "ana", "dora", "cash"}
        assert by_kind["user_changed"][0]["actor"] == "admin"
        assert by_kind["user_changed"][0]["details"] == {"user": "dora", "role": "dealer", "active": True}
        assert [(e["actor"], e["details"]["amount"]) for e in by_kind["buy_in"]] == [("admin", 5_000)]
        assert [(e["actor"], e["details"]["amount"]) for e in by_kind["cash_out"]] == [("cash", 1_000)]
        assert by_kind["table_opened"][0]["table"] == table and by_kind["table_opened"][0]["actor"] == "admin"
        assert by_kind["table_suspended"][0]["details"]["reason"] == "a spill"
        assert by_kind["table_open"][0]["details"]["reason"] == "cleaned"
        assert by_kind["correction"][0]["actor"] == "dora"
        assert (
            by_kind["correction"][0]["details"]["was"] == "6h"
            and by_kind["correction"][0]["details"]["now"] == "7h"
        )
        assert by_kind["void_requested"][0]["details"]["reason"] == "the shoe fell"
        assert by_kind["round_voided"][0]["actor"] == "admin"
        assert by_kind["round_voided"][0]["details"]["requested_by"] == "dora"
        for e in events:
            assert e["at"].endswith("Z")
        later = api.ok("admin", "GET", f"/api/events?since={ids[-3]}")["events"]
        assert [e["id"] for e in later] == ids[-2:]
