"""Integrity of the records and the money (server.md), tried as an attacker with the database's superuser
password would, on real `tapete serve` processes and real databases (SQLite and PostgreSQL): a card
forged in a round in progress or between rounds, history rewritten and re-hashed with plain SHA-256, a
balance changed behind the ledger's back; the append-only triggers; the signing key; the bounded
settings; the recall of a round in progress."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from tests.procs import ADMIN_PASSWORD, Server
from tests.server.conftest import Api
from tests.server.support import live_deal, refused
from tests.server.tampering import superuser

EVENTS = sa.table(
    "events",
    sa.column("id", sa.Integer),
    sa.column("table_id", sa.Integer),
    sa.column("seq", sa.Integer),
    sa.column("round", sa.String),
    sa.column("event", sa.JSON),
    sa.column("prev", sa.String),
    sa.column("at", sa.String),
    sa.column("by", sa.String),
    sa.column("hash", sa.String),
)
# Black Jack, one box: 2s 9c to the box, 9h 6c to the dealer; the player stands on 11, the dealer draws
# Ts (25, bust)
CARDS = ["2s", "9h", "9c", "6c"]


def _setup(server: Server) -> int:
    """ana (10,000 in chips) seated with a bet of 1,000 at a new live Black Jack table dealt by dora."""
    server.login("admin", ADMIN_PASSWORD)
    for name, role in (("dora", "dealer"), ("ana", "player"), ("ines", "inspector")):
        server.call(
            "admin", "POST", "/api/users", {"username": name, "password": "password-123", "role": role}
        )
        server.login(name, "password-123")
    server.call("admin", "POST", "/api/cashier/buy-in", {"player": "ana", "amount": 10_000})
    table = int(
        server.call("admin", "POST", "/api/tables", {"game": "blackjack", "name": "t", "mode": "live"})["id"]
    )
    server.call("ana", "POST", f"/api/tables/{table}/seats", {"seat": 1})
    return table


def _deal(server: Server, table: int) -> None:
    server.call("ana", "POST", f"/api/tables/{table}/bets", {"seat": 1, "spot": "main", "amount": 1000})
    server.procedures("dora", table)
    server.call("dora", "POST", f"/api/tables/{table}/deal")
    for card in CARDS:
        server.call("dora", "POST", f"/api/tables/{table}/cards", {"card": card})


def _finish(server: Server, table: int) -> None:
    server.call("ana", "POST", f"/api/tables/{table}/actions", {"seat": 1, "action": "decline"})  # Art.9
    server.call("ana", "POST", f"/api/tables/{table}/actions", {"seat": 1, "action": "stand"})
    state = server.call("dora", "POST", f"/api/tables/{table}/cards", {"card": "Ts"})
    assert state["phase"] == "betting", state


def _records(sql: sa.Engine, table: int) -> list[Any]:
    with sql.connect() as conn:
        return list(conn.execute(sa.select(EVENTS).where(EVENTS.c.table_id == table).order_by(EVENTS.c.seq)))


def _forge_card(sql: sa.Engine, table: int, card: str, forged: str) -> int:
    """The record dealing `card` made to deal `forged` (its hash left as it was); its seq."""
    for row in _records(sql, table):
        if row.event.get("type") == "card" and row.event.get("card") == card:
            with superuser(sql) as conn:
                conn.execute(
                    sa.update(EVENTS).where(EVENTS.c.id == row.id).values(event={**row.event, "card": forged})
                )
            return int(row.seq)
    raise AssertionError(f"no record deals {card}")


def _output(server: Server) -> str:
    """What the server printed (it is stopped first: its output is read to the end)."""
    server.stop()
    return server.output


def _events(server: Server, kind: str) -> list[dict[str, Any]]:
    return [e for e in server.call("admin", "GET", "/api/events?limit=500")["events"] if e["kind"] == kind]


def _suspended_for(server: Server, table: int, seq: int) -> None:
    doc = server.call("admin", "GET", f"/api/tables/{table}")
    assert doc["status"] == "suspended" and doc["reason"] == "integrity", doc
    failures = _events(server, "integrity_failure")
    assert [(e["table"], e["details"]["record"]) for e in failures] == [(table, seq)], failures


def test_a_card_forged_in_a_round_in_progress_suspends_the_table_at_start(
    database_url: str, tmp_path: Path, sql: sa.Engine
) -> None:
    server = Server(database_url, tmp_path / "home", fast_passwords=True)
    server.start()
    try:
        table = _setup(server)
        _deal(server, table)
        server.kill()
        seq = _forge_card(sql, table, "2s", "As")
        server.start()
        _suspended_for(server, table, seq)
        r = server.request("ana", "POST", f"/api/tables/{table}/actions", {"seat": 1, "action": "decline"})
        assert r.status_code == 409 and r.json()["error"]["code"] == "conflict", r.text
        assert server.call("ana", "GET", "/api/me")["balance"] == 9_000
        out = _output(server)
        line = f"INTEGRITY FAILURE: table {table} suspended: record {seq}"
        assert out.count(line) == 1, out  # said once: not again by the log's last-resort console handler
    finally:
        server.stop()


def test_a_card_forged_between_rounds_suspends_the_table_at_start(
    database_url: str, tmp_path: Path, sql: sa.Engine
) -> None:
    server = Server(database_url, tmp_path / "home", fast_passwords=True)
    server.start()
    try:
        table = _setup(server)
        _deal(server, table)
        _finish(server, table)
        server.stop()
        seq = _forge_card(sql, table, "9c", "Ac")
        server.start()
        _suspended_for(server, table, seq)
        bet = {"seat": 1, "spot": "main", "amount": 1000}
        r = server.request("ana", "POST", f"/api/tables/{table}/bets", bet)
        assert r.status_code == 409, r.text
        assert f"record {seq}" in _output(server)
    finally:
        server.stop()


def test_history_rewritten_with_sha256_fails_verify_online_and_offline(
    database_url: str, tmp_path: Path, sql: sa.Engine
) -> None:
    """A settled record changed, every later record's hash and link recomputed with the project's own
    digest and the table's head moved: the signatures do not follow, so verify names that record, the
    start-up suspends the table, and `tapete verify --public-key` fails offline."""
    from tapete.server.play.chain import record_digest, record_of

    server = Server(database_url, tmp_path / "home", fast_passwords=True)
    server.start()
    try:
        table = _setup(server)
        _deal(server, table)
        _finish(server, table)
        assert server.call("ines", "GET", f"/api/tables/{table}/verify")["ok"]
        key = server.call("ines", "GET", "/api/integrity")
        assert key["algorithm"] == "ed25519" and "BEGIN PUBLIC KEY" in key["public_key"]
        public = tmp_path / "casino.pub"
        public.write_text(key["public_key"])
        server.stop()
        offline = _verify_offline(database_url, public, table)
        assert offline.returncode == 0, offline.stdout + offline.stderr
        rows = _records(sql, table)
        target = next(r for r in rows if r.event.get("type") == "settle")
        prev = None
        with superuser(sql) as conn:
            for row in rows:
                if row.seq < target.seq:
                    prev = row.hash
                    continue
                event = (
                    {**row.event, "paid": 10 * int(row.event.get("paid", 0))}
                    if row.seq == target.seq
                    else row.event
                )
                rec = record_of(row)
                rec.update(event=event, prev=prev)
                digest = record_digest(rec)
                conn.execute(
                    sa.update(EVENTS).where(EVENTS.c.id == row.id).values(event=event, prev=prev, hash=digest)
                )
                prev = digest
            conn.execute(sa.text("UPDATE tables SET head_hash = :h WHERE id = :t"), {"h": prev, "t": table})
        offline = _verify_offline(database_url, public, table)
        assert offline.returncode == 1 and f"at record {target.seq}" in offline.stdout, offline.stdout
        assert "signature" in offline.stdout
        server.start()
        verify = server.call("ines", "GET", f"/api/tables/{table}/verify")
        assert verify["ok"] is False and verify["first_bad"] == target.seq, verify
        _suspended_for(server, table, target.seq)
    finally:
        server.stop()


def _rehash_from(sql: sa.Engine, table: int, seq: int) -> None:
    """Every record from `seq` on hashed and linked again with the project's own digest, the table's head
    moved to the last (what an attacker without the signing key can do)."""
    from tapete.server.play.chain import record_digest, record_of

    rows = _records(sql, table)
    prev = None
    with superuser(sql) as conn:
        for row in rows:
            if row.seq < seq:
                prev = row.hash
                continue
            rec = record_of(row)
            rec.update(prev=prev)
            digest = record_digest(rec)
            conn.execute(sa.update(EVENTS).where(EVENTS.c.id == row.id).values(prev=prev, hash=digest))
            prev = digest
        conn.execute(sa.text("UPDATE tables SET head_hash = :h WHERE id = :t"), {"h": prev, "t": table})


def _verify_offline(url: str, public: Path, table: int) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "tapete.cli", "verify", "--database-url", url, "--public-key", str(public)]
    return subprocess.run([*cmd, "--table", str(table)], capture_output=True, text=True, timeout=120)


def test_a_balance_changed_in_the_database_freezes_the_account(
    database_url: str, tmp_path: Path, sql: sa.Engine
) -> None:
    """After a restart (the start-up's reconciliation) and without one (the next posting): the account
    is frozen, its cash-out refused with err.account.frozen, a significant event account_frozen names
    it; an administrator reopens it with a reason, its balance its last entry's again."""
    server = Server(database_url, tmp_path / "home", fast_passwords=True)
    server.start()
    try:
        table = _setup(server)
        server.call(
            "admin", "POST", "/api/users", {"username": "bea", "password": "password-123", "role": "player"}
        )
        server.call("admin", "POST", "/api/cashier/buy-in", {"player": "bea", "amount": 2_000})
        server.stop()
        with sql.begin() as conn:
            conn.execute(sa.text("UPDATE accounts SET balance = balance + 5000000 WHERE name = 'wallet:ana'"))
        server.start()
        out = {"player": "ana", "amount": 5_000_000}
        r = server.request("admin", "POST", "/api/cashier/cash-out", out)
        assert r.status_code == 409, r.text
        assert r.json()["error"]["code"] == "conflict" and r.json()["error"]["key"] == "err.account.frozen"
        frozen = _events(server, "account_frozen")
        assert [e["details"]["account"] for e in frozen] == ["wallet:ana"], frozen
        assert [a["account"] for a in server.call("admin", "GET", "/api/accounts/frozen")["accounts"]] == [
            "wallet:ana"
        ]
        bet = {"seat": 1, "spot": "main", "amount": 1000}  # nor a bet (it would stop the deal for all)
        r = server.request("ana", "POST", f"/api/tables/{table}/bets", bet)
        assert r.status_code == 409 and r.json()["error"]["key"] == "err.account.frozen", r.text
        assert server.call("ana", "GET", "/api/me")["balance"] == 5_010_000  # what the row says, read
        # without a restart: the next posting finds bea's balance does not follow from her last entry
        with sql.begin() as conn:
            conn.execute(sa.text("UPDATE accounts SET balance = balance + 5000000 WHERE name = 'wallet:bea'"))
        r = server.request("admin", "POST", "/api/cashier/cash-out", {"player": "bea", "amount": 5_001_000})
        assert r.status_code == 409 and r.json()["error"]["key"] == "err.account.frozen", r.text
        assert [e["details"]["account"] for e in _events(server, "account_frozen")] == [
            "wallet:ana",
            "wallet:bea",
        ]
        r = server.request("admin", "POST", "/api/cashier/buy-in", {"player": "bea", "amount": 100})
        assert r.status_code == 409 and r.json()["error"]["key"] == "err.account.frozen", r.text
        r = server.request("dora", "POST", "/api/accounts/reopen", {"account": "ana", "reason": "checked"})
        assert r.status_code == 403, r.text
        reopened = server.call(
            "admin", "POST", "/api/accounts/reopen", {"account": "ana", "reason": "row restored"}
        )
        assert reopened == {"account": "wallet:ana", "balance": 10_000, "was": 5_010_000}
        assert (
            server.call("admin", "POST", "/api/cashier/cash-out", {"player": "ana", "amount": 1_000})[
                "balance"
            ]
            == 9_000
        )
        assert "INTEGRITY FAILURE: account wallet:ana frozen" in _output(server)
    finally:
        server.stop()


def test_the_signing_key_is_made_once_and_its_fingerprint_printed(database_url: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    # no key given: the first start makes one
    server = Server(database_url, home, env={"TAPETE_SIGNING_KEY": ""}, fast_passwords=True)
    server.start()
    try:
        server.login("admin", ADMIN_PASSWORD)
        key = server.call("admin", "GET", "/api/integrity")
        out = _output(server)
        assert f"public key fingerprint SHA256:{key['fingerprint']}" in out and "new signing key" in out, out
        assert stat.S_IMODE(os.stat(home / "signing.key").st_mode) == 0o600
        seen = len(out)  # the server's log keeps every start's output: the second start's is after it
        server.start()
        assert server.call("admin", "GET", "/api/integrity") == key  # the same key at every start
        assert "new signing key" not in _output(server)[seen:]
        given = tmp_path / "given.pem"
        given.write_bytes((home / "signing.key").read_bytes())
        (home / "signing.key").unlink()
        server.env["TAPETE_SIGNING_KEY"] = str(given)
        server.start()
        assert server.call("admin", "GET", "/api/integrity") == key
        assert not (home / "signing.key").exists()
        # once the database holds signatures (a buy-in's entries), a start with the key gone and none
        # named is refused, and no new key is made in its place
        server.call(
            "admin", "POST", "/api/users", {"username": "ana", "password": "password-123", "role": "player"}
        )
        server.call("admin", "POST", "/api/cashier/buy-in", {"player": "ana", "amount": 1_000})
        server.stop()
        server.env["TAPETE_SIGNING_KEY"] = ""
        with pytest.raises(AssertionError, match="no signing key"):
            server.start(seconds=60)
        assert not (home / "signing.key").exists()
    finally:
        server.stop()


# -- in-process checks -------------------------------------------------------------------------------------
def _statement_refused(sql: sa.Engine, text: str) -> str:
    with pytest.raises(sa.exc.DBAPIError) as caught, sql.begin() as conn:
        conn.execute(sa.text(text))
    return str(caught.value)


def test_the_database_refuses_update_and_delete_of_records_and_entries(api: Api, sql: sa.Engine) -> None:
    api.user("ana", "player", chips=5_000)
    api.table("blackjack", "live")
    api.ok("ana", "POST", "/api/tables/1/seats", json={"seat": 1})
    api.ok("ana", "POST", "/api/tables/1/bets", json={"seat": 1, "spot": "main", "amount": 100})
    api.user("dora", "dealer")
    live_deal(api, "dora", 1, ["2s"])
    with sql.connect() as conn:
        before = [
            conn.execute(sa.text(f"SELECT * FROM {t} ORDER BY id")).all()
            for t in ("events", "ledger_entries")
        ]
    assert before[0] and before[1]
    for text in (
        "UPDATE events SET event = '{}'",
        "UPDATE events SET hash = 'x' WHERE seq = 0",
        "DELETE FROM events",
        "UPDATE ledger_entries SET amount = amount + 1",
        "DELETE FROM ledger_entries",
    ):
        assert "append-only" in _statement_refused(sql, text), text
    with sql.connect() as conn:
        after = [
            conn.execute(sa.text(f"SELECT * FROM {t} ORDER BY id")).all()
            for t in ("events", "ledger_entries")
        ]
    assert after == before
    # and a ledger entry that does not follow from its account's last one is refused too
    with sql.connect() as conn:
        account = conn.execute(sa.text("SELECT id FROM accounts WHERE name = 'wallet:ana'")).scalar_one()
    forged = (
        'INSERT INTO ledger_entries (txn, account_id, amount, balance_after, kind, "at")'
        f" VALUES ('x', {account}, 1, 999999, 'buy_in', CURRENT_TIMESTAMP)"
    )
    assert "TPFRZ" in _statement_refused(sql, forged) or "reconcile" in _statement_refused(sql, forged)


def test_settings_that_could_overflow_a_payout_are_invalid_rules(api: Api) -> None:
    """rules.md: a bonus paytable entry of 10^17:1 (the issue's crash) — and any setting whose payout could
    leave the database's 64-bit integers — is refused when the table is opened."""
    for game, rules in (
        ("showdown_poker", {"bonus_paytable": {"straight": 10**17}}),
        ("showdown_poker", {"table_max": 10**17, "bonus_max": 10**17}),
        ("blackjack", {"table_max": 2**62}),
    ):
        r = api.as_(
            "admin",
            "POST",
            "/api/tables",
            json={"game": game, "name": "x", "mode": "virtual", "rules": rules},
        )
        refused(r, 422, "invalid_rules")
    assert api.ok("admin", "GET", "/api/tables")["tables"] == []


def _in_play(api: Api) -> int:
    """A live Black Jack table dealt `CARDS` by dora to ana's bet of 100 on box 1 (5,000 in chips), its
    round in progress; ines is the inspector."""
    api.user("ana", "player", chips=5_000)
    api.user("dora", "dealer")
    api.user("ines", "inspector")
    table = api.table("blackjack", "live")
    api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 100})
    live_deal(api, "dora", table, CARDS)
    return table


def test_the_recall_of_a_round_in_progress_hides_the_hole_card_but_from_the_inspector(api: Api) -> None:
    table = _in_play(api)
    admin = api.ok("admin", "GET", f"/api/tables/{table}/rounds/1")
    inspector = api.ok("ines", "GET", f"/api/tables/{table}/rounds/1")
    assert [c["card"] for c in inspector["cards"]] == CARDS
    assert [c["card"] for c in admin["cards"]] == ["2s", "9h", "9c", "??"], admin["cards"]
    assert '"6c"' not in json.dumps(admin)  # the card as a value, not inside an id that holds "6c"
    # nor through the exported log: the administrator's ends before the round in progress
    admin_log = api.as_("admin", "GET", f"/api/tables/{table}/log").text
    inspector_log = api.as_("ines", "GET", f"/api/tables/{table}/log").text
    assert '"6c"' in inspector_log and '"6c"' not in admin_log and inspector_log.startswith(admin_log)


def test_a_claims_recall_hides_the_hole_card_from_the_administrator_while_the_round_is_in_progress(
    api: Api,
) -> None:
    """A bettor files a claim on the round he is playing: the administrator reads the claim beside the
    round's recall as the dealer sees it (server.md: nobody but the inspector reads a card the table has
    not shown, through any endpoint); the inspector reads it whole."""
    table = _in_play(api)
    claim = api.ok("ana", "POST", "/api/claims", json={"table": table, "round": 1, "text": "the hole card"})
    admin = api.ok("admin", "GET", f"/api/claims/{claim['id']}")
    inspector = api.ok("ines", "GET", f"/api/claims/{claim['id']}")
    assert admin["recall"]["status"] == "in_progress"
    assert [c["card"] for c in admin["recall"]["cards"]] == ["2s", "9h", "9c", "??"]
    assert '"6c"' not in json.dumps(admin)
    assert [c["card"] for c in inspector["recall"]["cards"]] == CARDS


def test_a_corrected_hole_card_stays_hidden_from_the_administrator_until_the_round_ends(api: Api) -> None:
    """The dealer corrects the hole card he typed: neither the card he typed nor the one that replaced it
    reaches the administrator while the round is in progress (the recall's cards and corrections, the
    exported log, the significant-event log); the inspector reads both; once the round has ended the
    administrator's recall and event log show the correction whole."""
    table = _in_play(api)  # the hole card typed as 6c
    fix = {"card": "7c", "reason": "misread the hole card"}
    api.ok("dora", "POST", f"/api/tables/{table}/corrections", json=fix)

    def correction_events(who: str) -> list[Any]:
        return [e for e in api.ok(who, "GET", "/api/events")["events"] if e["kind"] == "correction"]

    admin = api.ok("admin", "GET", f"/api/tables/{table}/rounds/1")
    for hidden in ('"6c"', '"7c"'):
        assert hidden not in json.dumps(admin), admin
        assert hidden not in api.as_("admin", "GET", f"/api/tables/{table}/log").text
        assert hidden not in json.dumps(correction_events("admin"))
    assert [(c["was"], c["now"]) for c in admin["corrections"]] == [("??", "??")]
    inspector = api.ok("ines", "GET", f"/api/tables/{table}/rounds/1")
    assert [(c["was"], c["now"]) for c in inspector["corrections"]] == [("6c", "7c")]
    assert [(e["details"]["was"], e["details"]["now"]) for e in correction_events("ines")] == [("6c", "7c")]
    api.ok("ana", "POST", f"/api/tables/{table}/actions", json={"seat": 1, "action": "decline"})
    api.ok("ana", "POST", f"/api/tables/{table}/actions", json={"seat": 1, "action": "stand"})
    assert api.ok("dora", "POST", f"/api/tables/{table}/cards", json={"card": "Ts"})["phase"] == "betting"
    ended = api.ok("admin", "GET", f"/api/tables/{table}/rounds/1")
    assert [(c["was"], c["now"]) for c in ended["corrections"]] == [("6c", "7c")]
    assert [c["card"] for c in ended["cards"] if not c.get("superseded")] == ["2s", "9h", "9c", "7c", "Ts"]
    assert [(e["details"]["was"], e["details"]["now"]) for e in correction_events("admin")] == [("6c", "7c")]


def test_a_virtual_tables_burned_cards_stay_hidden_from_the_administrator_while_their_round_plays(
    api: Api,
) -> None:
    """The burn after a virtual table's shuffle names its cards in the chain: while the round it
    prepared is in progress, the administrator's recall shows them face down and his exported log ends
    before them; the inspector reads them; the recall shows them once the round has ended."""
    api.user("ana", "player", chips=100_000)
    api.user("ines", "inspector")
    for _ in range(6):  # a Black Jack dealt ends the round at once (about one deal in eleven): a new shoe
        table = api.table("blackjack", turn_seconds=None)
        api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
        api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 1000})
        api.ok("admin", "POST", f"/api/tables/{table}/deal")
        if api.ok("admin", "GET", f"/api/tables/{table}/rounds/1")["status"] == "in_progress":
            break
    assert api.ok("admin", "GET", f"/api/tables/{table}/rounds/1")["status"] == "in_progress"

    def burns(who: str) -> list[list[str]]:
        recall = api.ok(who, "GET", f"/api/tables/{table}/rounds/1")
        return [p["cards"] for p in recall["procedures"] if p.get("step") == "burn"]

    burned = burns("ines")
    assert burned and all(card != "??" for cards in burned for card in cards)
    assert burns("admin") == [["??"] * len(cards) for cards in burned]
    admin_log = api.as_("admin", "GET", f"/api/tables/{table}/log").text
    inspector_log = api.as_("ines", "GET", f"/api/tables/{table}/log").text
    assert '"burn"' in inspector_log and '"burn"' not in admin_log and inspector_log.startswith(admin_log)
    for _ in range(20):  # stand until the round ends (a split or an offer asks again)
        state = api.state("ana", table)
        pending = state["pending"]
        if pending is None or pending["kind"] == "card":
            break
        action = "stand" if "stand" in pending["legal"] else "decline"
        body = {"seat": 1, "action": action, "hand": pending["hand"]}
        api.ok("ana", "POST", f"/api/tables/{table}/actions", json=body)
    assert api.ok("admin", "GET", f"/api/tables/{table}/rounds/1")["status"] != "in_progress"
    assert burns("admin") == burned


def test_the_significant_event_log_pages_on_from_the_last_id_read(api: Api) -> None:
    """`GET /api/events?since=N&limit=M` gives the M events after N, oldest first, so that a client
    paging from the last id it read misses none; without `since`, the newest M."""
    for n in range(6):
        api.user(f"p{n}", "player")
    every = api.ok("admin", "GET", "/api/events?limit=1000")["events"]
    ids = [e["id"] for e in every]
    assert len(ids) >= 6 and ids == sorted(ids)
    read: list[int] = []
    since = 0
    while True:
        page = [e["id"] for e in api.ok("admin", "GET", f"/api/events?since={since}&limit=2")["events"]]
        if not page:
            break
        read += page
        since = page[-1]
    assert read == ids
    assert [e["id"] for e in api.ok("admin", "GET", "/api/events?limit=2")["events"]] == ids[-2:]


def test_checkpoints_stand_for_what_lies_below_them(
    api: Api, sql: sa.Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The running server verifies a chain's new records and signs a checkpoint a little below its head;
    the start-up's check then begins there (a record changed below it is the inspector's verify's to
    find, which always starts from the first record), and a record changed above it suspends the table."""
    from tapete.server.inspection import integrity

    monkeypatch.setattr(integrity, "CHECKPOINT_EVERY", 4)
    monkeypatch.setattr(integrity, "CHECKPOINT_BEHIND", 2)
    table = _in_play(api)
    casino = api.client.app.state.casino  # type: ignore[attr-defined]
    assert api.client.portal.call(integrity.checkpoint_tables, casino.store, 0) == 1  # type: ignore[union-attr]
    assert api.client.portal.call(integrity.checkpoint_tables, casino.store, 0) == 0  # type: ignore[union-attr]
    rows = _records(sql, table)
    with sql.connect() as conn:
        mark = conn.execute(sa.text("SELECT seq, hash FROM checkpoints WHERE kind = 'table'")).one()
    assert mark.seq == rows[-1].seq - 2 and mark.hash == rows[mark.seq].hash

    async def startup() -> integrity.StartupReport:
        return await integrity.startup(casino.store, lambda _: None)

    below = rows[1]
    with superuser(sql) as conn:
        conn.execute(sa.update(EVENTS).where(EVENTS.c.id == below.id).values(event={**below.event, "x": 1}))
    report = api.client.portal.call(startup)  # type: ignore[union-attr]
    assert report.suspended == [] and report.records == 2
    assert api.ok("admin", "GET", f"/api/tables/{table}/verify")["first_bad"] == below.seq
    above = rows[-1]
    with superuser(sql) as conn:
        conn.execute(sa.update(EVENTS).where(EVENTS.c.id == above.id).values(event={**above.event, "x": 1}))
    report = api.client.portal.call(startup)  # type: ignore[union-attr]
    assert [(t, seq) for t, seq, _ in report.suspended] == [(table, above.seq)]


def test_the_running_server_checkpoints_the_ledger_and_freezes_an_account_whose_entry_fails(
    api: Api, sql: sa.Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As for the chains: the running server checks the ledger's new entries (but the newest) and signs a
    checkpoint at the last it checked, so that the next start reads only what came after it; an entry
    that fails its check freezes its account there and then, and no checkpoint is written above it."""
    from tapete.server.inspection import integrity

    monkeypatch.setattr(integrity, "CHECKPOINT_EVERY", 2)
    monkeypatch.setattr(integrity, "CHECKPOINT_BEHIND", 1)
    _in_play(api)
    casino = api.client.app.state.casino  # type: ignore[attr-defined]

    def ledger_ids() -> list[int]:
        with sql.connect() as conn:
            return [int(r.id) for r in conn.execute(sa.text("SELECT id FROM ledger_entries ORDER BY id"))]

    def sweep() -> bool:
        return bool(api.client.portal.call(integrity.checkpoint_ledger, casino.store, 0))  # type: ignore[union-attr]

    ids = ledger_ids()
    assert len(ids) >= 4, ids
    assert sweep() and not sweep()  # the second finds too few new entries
    with sql.connect() as conn:
        marks = [
            int(r.seq) for r in conn.execute(sa.text("SELECT seq FROM checkpoints WHERE kind = 'ledger'"))
        ]
    assert marks == [ids[-2]]

    async def startup() -> integrity.StartupReport:
        return await integrity.startup(casino.store, lambda _: None)

    report = api.client.portal.call(startup)  # type: ignore[union-attr]
    assert report.entries == 1 and report.frozen == []  # only the newest, above the checkpoint
    api.user("beto", "player", chips=700)
    api.ok("admin", "POST", "/api/cashier/cash-out", json={"player": "ana", "amount": 300})
    new = [i for i in ledger_ids() if i > ids[-1]]
    assert len(new) >= 3, new
    with sql.connect() as conn:
        forged = conn.execute(
            sa.text(
                "SELECT e.id, a.name FROM ledger_entries e JOIN accounts a ON a.id = e.account_id"
                " WHERE e.id = :i"
            ),
            {"i": new[0]},
        ).one()
    with superuser(sql) as conn:
        conn.execute(sa.text("UPDATE ledger_entries SET amount = amount + 1 WHERE id = :i"), {"i": forged.id})
    assert not sweep()
    frozen = api.ok("admin", "GET", "/api/accounts/frozen")["accounts"]
    assert forged.name in [a["account"] for a in frozen], frozen
    with sql.connect() as conn:
        marks = [
            int(r.seq) for r in conn.execute(sa.text("SELECT seq FROM checkpoints WHERE kind = 'ledger'"))
        ]
    assert marks == [ids[-2]]  # none above the forged entry


def test_the_ledger_read_before_the_tables_are_locked_is_read_again_when_an_entry_came_in_below_it(
    api: Api, sql: sa.Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The start-up reads the ledger but its newest entries before it locks the tables
    (`read_ledger_ahead`), and under the locks only the newest: what it read first is not read again. If
    the entries below where it read are no longer as many as it read (one committed late, below the
    others), it reads every entry again under the locks."""
    from tapete.server.inspection import integrity

    monkeypatch.setattr(integrity, "CHECKPOINT_BEHIND", 1)
    _in_play(api)
    casino = api.client.app.state.casino  # type: ignore[attr-defined]
    with sql.connect() as conn:
        ids = [int(r.id) for r in conn.execute(sa.text("SELECT id FROM ledger_entries ORDER BY id"))]
    assert len(ids) >= 3

    async def ahead() -> integrity.LedgerScan:
        async with casino.store.transaction(write=False, snapshot=True) as tx:
            return await integrity.read_ledger_ahead(tx)

    async def check(scan: integrity.LedgerScan) -> integrity.StartupReport:
        report = integrity.StartupReport()
        async with casino.store.transaction() as tx:
            await integrity.check_ledger(tx, report, lambda _: None, scan)
        return report

    first = api.client.portal.call(ahead)  # type: ignore[union-attr]
    assert (first.upto, first.count, first.bad) == (ids[-2], len(ids) - 1, {})
    with superuser(sql) as conn:  # below where it read, after it read: it is not read again
        conn.execute(sa.text("UPDATE ledger_entries SET amount = amount + 1 WHERE id = :id"), {"id": ids[0]})
    report = api.client.portal.call(check, first)  # type: ignore[union-attr]
    assert (report.entries, report.frozen) == (len(ids), [])
    late = api.client.portal.call(ahead)  # type: ignore[union-attr]
    late.count -= 1  # as if one of the entries below had been committed after it read
    report = api.client.portal.call(check, late)  # type: ignore[union-attr]
    assert report.entries == len(ids), report
    why = f"entry {ids[0]} does not follow from its account's previous entry"
    assert report.frozen == [("wallet:ana", why)]


def test_a_previous_key_still_verifies_what_it_signed(tmp_path: Path) -> None:
    """After a rotation the previous public key (in previous-keys/ or TAPETE_PREVIOUS_PUBLIC_KEYS) still
    verifies what it signed; a key nobody trusts does not."""
    from tapete.server import signing

    old = signing.load_signer(tmp_path / "old")
    new = signing.load_signer(tmp_path / "new")
    message = signing.record_message(1, 0, "ab" * 32)
    signed = old.sign(message)
    assert not signing.keyring(new, tmp_path / "new").check(message, signed)
    (tmp_path / "new" / "previous-keys").mkdir()
    (tmp_path / "new" / "previous-keys" / "old.pub").write_text(old.verifier.pem)
    ring = signing.keyring(new, tmp_path / "new")
    assert ring.check(message, signed) and ring.check(message, new.sign(message))
    assert not ring.check(message, signing.load_signer(tmp_path / "other").sign(message))


def test_offline_verify_checks_the_ledger_too(
    api: Api, database_url: str, sql: sa.Engine, tmp_path: Path
) -> None:
    """`tapete verify --database-url --public-key` without --table: every chain and the whole ledger
    (signatures, links, balances), from the public key alone; an entry's amount changed fails it."""
    from tapete.server.offline import verify_database

    table = _in_play(api)
    api.ok("admin", "POST", "/api/cashier/cash-out", json={"player": "ana", "amount": 1_000})
    public = tmp_path / "casino.pub"
    public.write_text(api.ok("admin", "GET", "/api/integrity")["public_key"])
    told: list[int] = []  # what a progress bar is told: the total, then each batch checked

    def progress(total: int) -> Callable[[int], None]:
        told.append(total)
        return told.append

    found = verify_database(database_url, public, progress=progress)
    assert [(f.what, f.ok) for f in found] == [(f"table {table}", True), ("ledger", True)], found
    assert found[1].records >= 4
    assert told[0] == sum(told[1:]) == found[0].records + found[1].records, told
    with sql.connect() as conn:
        entry = conn.execute(sa.text("SELECT id, amount FROM ledger_entries ORDER BY id DESC LIMIT 1")).one()
    with superuser(sql) as conn:
        conn.execute(sa.text("UPDATE ledger_entries SET amount = amount * 2 WHERE id = :i"), {"i": entry.id})
    bad = verify_database(database_url, public)[-1]
    assert not bad.ok and bad.first_bad == entry.id, bad


@pytest.mark.parametrize("rehashed", [False, True], ids=["card", "card-and-hashes"])
@pytest.mark.parametrize("kept", [True, False], ids=["kept", "read-back"])
def test_a_round_changed_in_the_database_while_it_plays_is_not_settled(
    api: Api, sql: sa.Engine, kept: bool, rehashed: bool
) -> None:
    """While the server runs: a card of the round in progress changed in the database (and, with
    `rehashed`, every hash after it made again with plain SHA-256, the table's head too). server.md: a
    round's own records are verified again before it settles — whether the process kept the round it
    wrote (compared with the database's) or, as another process would, reads it back (each record's
    hash, link and signature): the round's end is refused, nothing is paid, the table is suspended and
    the forged record named."""
    table = _in_play(api)
    api.ok("ana", "POST", f"/api/tables/{table}/actions", json={"seat": 1, "action": "decline"})
    api.ok("ana", "POST", f"/api/tables/{table}/actions", json={"seat": 1, "action": "stand"})
    seq = _forge_card(sql, table, "9c", "Ac")
    if rehashed:
        _rehash_from(sql, table, seq)
    if not kept:
        casino = api.client.app.state.casino  # type: ignore[attr-defined]
        for memory in (casino.runtimes, casino.rows, casino.snapshots):
            memory.clear()
    r = api.as_("dora", "POST", f"/api/tables/{table}/cards", json={"card": "Ts"})
    refused(r, 409, "conflict")
    assert api.balance("ana") == 4_900
    doc = api.ok("admin", "GET", f"/api/tables/{table}")
    assert doc["status"] == "suspended" and doc["reason"] == "integrity"
    failures = [
        e for e in api.ok("admin", "GET", "/api/events")["events"] if e["kind"] == "integrity_failure"
    ]
    assert [e["details"]["record"] for e in failures] == [seq]


def test_a_reopening_naming_a_nul_character_is_refused_whole(api: Api) -> None:
    """PostgreSQL's text holds no NUL character: an account or a reason with one is refused as malformed
    (400), never a 500 (schemathesis found it on PostgreSQL)."""
    for body in ({"account": "\x00", "reason": "x"}, {"account": "wallet:ana", "reason": "a\x00"}):
        answer = api.as_("admin", "POST", "/api/accounts/reopen", json=body)
        assert answer.status_code == 400 and answer.json()["error"]["code"] == "bad_request", answer.text
