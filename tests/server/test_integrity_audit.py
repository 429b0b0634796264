"""The integrity audit's findings, replayed as its attacker did them: the server stopped, the database
changed as its superuser would (triggers bypassed, `tampering.superuser`), the server started again, on
SQLite and PostgreSQL.

- D2: a planted unsigned ``legacy`` checkpoint (the real ones deleted) is never signed, so rewritten and
  unsigned records and entries are still found;
- D3: ``accounts.checked_to`` (unsigned) does not make the start-up skip an account's entries; a
  reopening's acceptance is a signed checkpoint instead;
- D6: a ledger transaction that lost an entry (or a whole transaction, with a later signed balance) is
  found by the start-up and by `tapete verify`, and the cage that kept its side is not frozen for it;
- D7: a request refused for a frozen account names it on both databases."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from tapete.server.play.chain import record_digest, record_of
from tapete.server.sql import q
from tests.server.conftest import Api
from tests.server.support import live_deal, procedures, refused, serving
from tests.server.tampering import superuser

# Black Jack, one box: 2s 9c to the box, 9h 6c to the dealer; the player stands on 11, the dealer draws
# Ts (25, bust)
CARDS = ["2s", "9h", "9c", "6c"]


def _round(api: Api, table: int) -> None:
    """ana bets 1,000 at the live table and the round is played to its end (she wins)."""
    api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 1000})
    live_deal(api, "dora", table, CARDS)
    api.ok("ana", "POST", f"/api/tables/{table}/actions", json={"seat": 1, "action": "decline"})
    api.ok("ana", "POST", f"/api/tables/{table}/actions", json={"seat": 1, "action": "stand"})
    state = api.ok("dora", "POST", f"/api/tables/{table}/cards", json={"card": "Ts"})
    assert state["phase"] == "betting", state


def _casino(api: Api) -> int:
    """ana (10,000 in chips), dora (dealer) and ines (inspector); ana seated at a live Black Jack table."""
    api.user("ana", "player", chips=10_000)
    api.user("dora", "dealer")
    api.user("ines", "inspector")
    table = api.table("blackjack", "live")
    api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 1})
    return table


def _login(api: Api, *names: str) -> None:
    for name in names:
        api.login(name, "password-123")


def _events(api: Api, kind: str) -> list[dict[str, Any]]:
    return [e for e in api.ok("admin", "GET", "/api/events?limit=500")["events"] if e["kind"] == kind]


def _frozen(api: Api) -> list[str]:
    return [a["account"] for a in api.ok("admin", "GET", "/api/accounts/frozen")["accounts"]]


def _public_key(api: Api, tmp_path: Path) -> Path:
    public = tmp_path / "casino.pub"
    public.write_text(api.ok("admin", "GET", "/api/integrity")["public_key"])
    return public


def _rewrite_records(conn: sa.Connection, table: int, change: Callable[[dict[str, Any]], bool]) -> int:
    """The first record `change` changes (its event, in place), every later record's link and hash
    recomputed with the project's own digest, their signatures removed and the table's head moved:
    its seq."""
    rows = conn.execute(
        sa.text(
            'SELECT id, seq, "round", event, prev, "at", "by", hash, sig FROM events'
            " WHERE table_id = :t ORDER BY seq"
        ),
        {"t": table},
    ).all()
    first, prev = None, None
    for row in rows:
        event = row.event if isinstance(row.event, dict) else json.loads(row.event)
        if first is None:
            if not change(event):
                prev = row.hash
                continue
            first = int(row.seq)
        record = record_of(row)
        record.update(event=event, prev=prev)
        digest = record_digest(record)
        conn.execute(
            sa.text("UPDATE events SET event = :e, prev = :p, hash = :h, sig = NULL WHERE id = :i"),
            {"e": json.dumps(event), "p": prev, "h": digest, "i": row.id},
        )
        prev = digest
    assert first is not None, "nothing changed"
    conn.execute(sa.text("UPDATE tables SET head_hash = :h WHERE id = :t"), {"h": prev, "t": table})
    return first


def _card(dealt: str, forged: str) -> Callable[[dict[str, Any]], bool]:
    """A change of the record that deals `dealt`: it deals `forged`."""

    def change(event: dict[str, Any]) -> bool:
        if event.get("type") == "card" and event.get("card") == dealt:
            event["card"] = forged
            return True
        return False

    return change


def _restate(conn: sa.Connection, account: str) -> None:
    """An account's entries' balances recomputed from their amounts, and its balance from its last
    entry's: what an attacker does after changing or deleting an entry, so that every link holds."""
    account_id = conn.execute(sa.text("SELECT id FROM accounts WHERE name = :n"), {"n": account}).scalar_one()
    balance = 0
    for entry_id, amount in conn.execute(
        sa.text("SELECT id, amount FROM ledger_entries WHERE account_id = :a ORDER BY id"), {"a": account_id}
    ).all():
        balance += int(amount)
        conn.execute(
            sa.text("UPDATE ledger_entries SET balance_after = :b WHERE id = :i"),
            {"b": balance, "i": entry_id},
        )
    conn.execute(sa.text("UPDATE accounts SET balance = :b WHERE id = :a"), {"b": balance, "a": account_id})


def _entry(conn: sa.Connection, account: str, kind: str, nth: int = 0) -> Any:
    """The `nth` entry of `kind` on `account` (its id, txn and amount)."""
    rows = conn.execute(
        sa.text(
            "SELECT e.id, e.txn, e.amount FROM ledger_entries e JOIN accounts a ON a.id = e.account_id"
            " WHERE a.name = :n AND e.kind = :k ORDER BY e.id"
        ),
        {"n": account, "k": kind},
    ).all()
    return rows[nth]


_USER_ID = q("SELECT id FROM users WHERE name = :n")


def _offline(url: str, public: Path) -> dict[str, Any]:
    from tapete.server.offline import verify_database

    return {f.what: f for f in verify_database(url, public)}


# -- D2 ------------------------------------------------------------------------------------------------
def test_a_planted_legacy_checkpoint_is_not_signed_and_the_rewritten_history_is_found(
    database_url: str, tmp_path: Path, sql: sa.Engine, capsys: pytest.CaptureFixture[str]
) -> None:
    """The audit's D2: every checkpoint deleted, an unsigned ``legacy`` one planted far above the head
    (and one for the ledger), a card changed with every later hash recomputed and the signatures
    removed, an entry's amount multiplied on both sides with every later balance recomputed and the
    entries' signatures removed. The start-up signs nothing it did not verify: the table is suspended
    at the changed record, the accounts are frozen, verify fails online and offline."""
    with serving(database_url, tmp_path) as api:
        table = _casino(api)
        _round(api, table)
        public = _public_key(api, tmp_path)
        assert api.ok("ines", "GET", f"/api/tables/{table}/verify")["ok"] is True
    with superuser(sql) as conn:
        conn.execute(sa.text("DELETE FROM checkpoints"))
        for kind, t in (("legacy", table), ("legacy_ledger", None)):
            conn.execute(
                sa.text(
                    'INSERT INTO checkpoints (kind, table_id, seq, hash, "at", sig)'
                    " VALUES (:k, :t, 100000, '', CURRENT_TIMESTAMP, NULL)"
                ),
                {"k": kind, "t": t},
            )
        seq = _rewrite_records(conn, table, _card("9c", "Ac"))
        buy_in = _entry(conn, "wallet:ana", "buy_in")
        conn.execute(
            sa.text("UPDATE ledger_entries SET amount = amount * 100 WHERE txn = :t"), {"t": buy_in.txn}
        )
        conn.execute(sa.text("UPDATE ledger_entries SET sig = NULL"))
        for account in ("wallet:ana", "cage"):
            _restate(conn, account)
    capsys.readouterr()
    with serving(database_url, tmp_path) as api:
        _login(api, "ana", "ines")
        out = capsys.readouterr().out
        doc = api.ok("admin", "GET", f"/api/tables/{table}")
        assert doc["status"] == "suspended" and doc["reason"] == "integrity", doc
        failures = _events(api, "integrity_failure")
        assert [(e["table"], e["details"]["record"]) for e in failures] == [(table, seq)], failures
        assert f"INTEGRITY FAILURE: table {table} suspended: record {seq}" in out, out
        verify = api.ok("ines", "GET", f"/api/tables/{table}/verify")
        assert verify["ok"] is False and verify["first_bad"] == seq, verify
        assert "wallet:ana" in _frozen(api)
        assert "INTEGRITY FAILURE: account wallet:ana frozen" in out, out
        r = api.as_("admin", "POST", "/api/cashier/cash-out", json={"player": "ana", "amount": 100_000})
        assert refused(r, 409, "conflict")["key"] == "err.account.frozen"
    with sql.connect() as conn:  # the planted marks were never signed
        assert (
            conn.execute(
                sa.text("SELECT COUNT(*) FROM checkpoints WHERE sig IS NOT NULL AND seq = 100000")
            ).scalar()
            == 0
        )
    found = _offline(database_url, public)
    assert not found[f"table {table}"].ok and found[f"table {table}"].first_bad == seq
    assert not found["ledger"].ok


# -- D3 ------------------------------------------------------------------------------------------------
def test_checked_to_does_not_make_the_start_up_skip_changed_entries(
    database_url: str, tmp_path: Path, sql: sa.Engine
) -> None:
    """The audit's D3: ana's buy-in multiplied by 100 on both sides (the transaction still sums to zero,
    every balance recomputed) and every account's ``checked_to`` set far ahead: the entries' signatures
    are still checked, ana's wallet is frozen and her conjured chips are not paid out. A reopening
    accepts what it reopened for good (a signed checkpoint): the next start does not freeze her again,
    and forging ``checked_to`` does not extend it to what is changed after."""
    with serving(database_url, tmp_path) as api:
        _casino(api)
        api.ok("admin", "POST", "/api/cashier/cash-out", json={"player": "ana", "amount": 1_000})
    with superuser(sql) as conn:
        buy_in = _entry(conn, "wallet:ana", "buy_in")
        conn.execute(
            sa.text("UPDATE ledger_entries SET amount = amount * 100 WHERE txn = :t"), {"t": buy_in.txn}
        )
        for account in ("wallet:ana", "cage"):
            _restate(conn, account)
        conn.execute(sa.text("UPDATE accounts SET checked_to = 999999999"))
    with serving(database_url, tmp_path) as api:
        assert api.ok("admin", "GET", "/api/cashier/players/ana")["balance"] == 999_000
        assert {"wallet:ana", "cage"} <= set(_frozen(api))
        r = api.as_("admin", "POST", "/api/cashier/cash-out", json={"player": "ana", "amount": 990_000})
        assert refused(r, 409, "conflict")["key"] == "err.account.frozen"
        for account in ("ana", "cage"):
            api.ok("admin", "POST", "/api/accounts/reopen", json={"account": account, "reason": "audited"})
        assert _frozen(api) == []
    with serving(database_url, tmp_path) as api:
        assert _frozen(api) == []  # the reopening stands: a signed checkpoint, not checked_to
        api.ok("admin", "POST", "/api/cashier/buy-in", json={"player": "ana", "amount": 5})
    with superuser(sql) as conn:  # now the new buy-in changed, and checked_to forged again
        last = _entry(conn, "wallet:ana", "buy_in", 1)
        conn.execute(sa.text("UPDATE ledger_entries SET amount = 5000 WHERE id = :i"), {"i": last.id})
        _restate(conn, "wallet:ana")
        conn.execute(sa.text("UPDATE accounts SET checked_to = 999999999"))
    with serving(database_url, tmp_path) as api:
        assert "wallet:ana" in _frozen(api)


# -- D6 ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("whole", [False, True], ids=["an-entry", "the-whole-transaction"])
def test_a_deleted_ledger_entry_is_found(
    database_url: str, tmp_path: Path, sql: sa.Engine, capsys: pytest.CaptureFixture[str], whole: bool
) -> None:
    """The audit's D6: ana's cash-out entry deleted from the middle of her entries (or her whole cash-out,
    the cage's side too), every later balance and the accounts' balances recomputed. Her later buy-in's
    signature covers her balance after it (the cashier read it), and a transaction that lost an entry no
    longer sums to zero: her wallet is frozen (the cage, which only kept its side, is not), the chips
    are not paid out, and `tapete verify` fails."""
    with serving(database_url, tmp_path) as api:
        _casino(api)
        api.ok("admin", "POST", "/api/cashier/cash-out", json={"player": "ana", "amount": 4_000})
        api.ok("admin", "POST", "/api/cashier/buy-in", json={"player": "ana", "amount": 500})
        public = _public_key(api, tmp_path)
    assert all(f.ok for f in _offline(database_url, public).values())
    with superuser(sql) as conn:
        cash_out = _entry(conn, "wallet:ana", "cash_out")
        which = "txn = :t" if whole else "id = :i"
        conn.execute(
            sa.text(f"DELETE FROM ledger_entries WHERE {which}"), {"t": cash_out.txn, "i": cash_out.id}
        )
        for account in ("wallet:ana", "cage"):
            _restate(conn, account)
    capsys.readouterr()
    with serving(database_url, tmp_path) as api:
        out = capsys.readouterr().out
        assert api.ok("admin", "GET", "/api/cashier/players/ana")["balance"] == 10_500
        assert _frozen(api) == ["wallet:ana"], out
        assert "INTEGRITY FAILURE: account wallet:ana frozen" in out, out
        r = api.as_("admin", "POST", "/api/cashier/cash-out", json={"player": "ana", "amount": 10_500})
        assert refused(r, 409, "conflict")["key"] == "err.account.frozen"
    ledger = _offline(database_url, public)["ledger"]
    assert not ledger.ok, ledger
    if not whole:
        assert f"transaction {cash_out.txn}" in ledger.reason, ledger


def test_a_transaction_that_lost_entries_summing_to_zero_is_found(
    database_url: str, tmp_path: Path, sql: sa.Engine
) -> None:
    """Every entry's signature covers how many entries its transaction has: two entries of a four-entry
    transaction deleted together (their amounts cancel, so the rest still sums to zero) leave the others'
    signatures unmatched by what is there; the start-up freezes the wallets it names and `tapete verify`
    names the transaction."""
    from tapete.server.cashier import ledger

    with serving(database_url, tmp_path) as api:
        api.user("ana", "player")
        api.user("bea", "player")
        public = _public_key(api, tmp_path)
        casino = api.client.app.state.casino  # type: ignore[attr-defined]

        async def post() -> None:
            async with casino.store.transaction() as tx:
                users = {n: ledger.Player(int(await tx.value(_USER_ID, {"n": n})), n) for n in ("ana", "bea")}
                cage = await ledger.cage(tx)
                wallets = {n: await ledger.wallet(tx, u.id, n) for n, u in users.items()}
                await ledger.post(
                    tx,
                    [
                        ledger.Move(cage, -100, "buy_in", "ana"),
                        ledger.Move(wallets["ana"], 100, "buy_in", "ana"),
                        ledger.Move(cage, -200, "buy_in", "bea"),
                        ledger.Move(wallets["bea"], 200, "buy_in", "bea"),
                    ],
                    actor="admin",
                )

        api.client.portal.call(post)  # type: ignore[union-attr]
    assert all(f.ok for f in _offline(database_url, public).values())
    with superuser(sql) as conn:
        txn = _entry(conn, "wallet:bea", "buy_in").txn
        conn.execute(sa.text("DELETE FROM ledger_entries WHERE txn = :t AND player = 'bea'"), {"t": txn})
        for account in ("wallet:bea", "cage"):
            _restate(conn, account)
    ledger_finding = _offline(database_url, public)["ledger"]
    assert not ledger_finding.ok and f"transaction {txn}" in ledger_finding.reason, ledger_finding
    with serving(database_url, tmp_path) as api:
        assert _frozen(api) == ["wallet:ana"]


# -- D7 ------------------------------------------------------------------------------------------------
def test_a_request_refused_for_a_frozen_account_names_it(api: Api, sql: sa.Engine) -> None:
    """The audit's D7: a buy-in, and a deal whose bet was placed before the wallet was frozen, refused by
    the database's trigger (SQLite's refusal cannot name the account) answer with the account named,
    as a bet and a cash-out do, on both databases."""
    table = _casino(api)
    api.ok("ana", "POST", f"/api/tables/{table}/bets", json={"seat": 1, "spot": "main", "amount": 100})
    with sql.begin() as conn:
        conn.execute(sa.text("UPDATE accounts SET frozen = 'audit' WHERE name = 'wallet:ana'"))
    r = api.as_("admin", "POST", "/api/cashier/buy-in", json={"player": "ana", "amount": 100})
    error = refused(r, 409, "conflict")
    assert error["key"] == "err.account.frozen" and error["params"]["account"] == "wallet:ana", error
    assert "wallet:ana" in error["message"], error
    procedures(api, "dora", table)
    r = api.as_("dora", "POST", f"/api/tables/{table}/deal")
    error = refused(r, 409, "conflict")
    assert error["key"] == "err.account.frozen" and error["params"]["account"] == "wallet:ana", error
    assert "wallet:ana" in error["message"], error


# -- the checkpoints, append-only ------------------------------------------------------------------------
def test_the_database_refuses_update_and_delete_of_checkpoints(api: Api, sql: sa.Engine) -> None:
    """Migration 0009: checkpoints are append-only as chain records and ledger entries are (the server
    only inserts them); only the superuser, past the triggers, can change or remove one."""
    with sql.begin() as conn:
        conn.execute(
            sa.text(
                'INSERT INTO checkpoints (kind, table_id, seq, hash, "at", sig)'
                " VALUES ('ledger', NULL, 1, '', CURRENT_TIMESTAMP, 'x')"
            )
        )
    for text in ("UPDATE checkpoints SET sig = 'y'", "DELETE FROM checkpoints"):
        with pytest.raises(sa.exc.DBAPIError) as caught, sql.begin() as conn:
            conn.execute(sa.text(text))
        assert "append-only" in str(caught.value), text
    with sql.connect() as conn:
        assert conn.execute(sa.text("SELECT sig FROM checkpoints")).scalars().all() == ["x"]
    with superuser(sql) as conn:
        conn.execute(sa.text("DELETE FROM checkpoints"))
