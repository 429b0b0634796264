"""`tapete verify --database-url URL --public-key FILE [--table ID]`: a copy of a casino's database checked
offline with the public key alone (no private key, no server): every table's chain from its first
record (seq, hash, link, signature, the table's head) and every ledger entry (its link to its account's
previous entry, its signature, each account's balance against its last entry)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa

from tapete.log import GENESIS
from tapete.server import signing
from tapete.server.config import sync_url
from tapete.server.models import Account, CasinoTable, Checkpoint, LedgerEntry
from tapete.server.play import chain
from tapete.server.sql import read_time

BATCH = 2000


@dataclass
class Finding:
    """One table's (or the ledger's) check: ok, how many records, the first bad one and why."""

    what: str
    ok: bool
    records: int
    first_bad: int | None = None
    reason: str = ""


def _legacy(conn: sa.Connection, keys: signing.Keyring, kind: str, table_id: int | None) -> int:
    """Up to where (seq, or entry id) rows predate signatures, by the legacy checkpoints the key signed
    (-1: none)."""
    rows = conn.execute(
        sa.select(Checkpoint.seq, Checkpoint.hash, Checkpoint.sig).where(
            Checkpoint.kind == kind, Checkpoint.table_id.is_not_distinct_from(table_id)
        )
    )
    mark = -1
    for seq, digest, sig in rows:
        if keys.check(signing.checkpoint_message(kind, table_id, int(seq), digest), sig):
            mark = max(mark, int(seq))
    return mark


def _records(conn: sa.Connection, table_id: int) -> Iterator[list[chain.Record]]:
    seq = 0
    while True:
        rows = conn.execute(chain.batch_of(table_id, seq, BATCH)).all()
        if not rows:
            return
        yield [chain.Record(*row) for row in rows]
        seq = rows[-1].seq + 1
        if len(rows) < BATCH:
            return


def check_table(conn: sa.Connection, keys: signing.Keyring, table_id: int, head: str) -> Finding:
    """One table's chain from its first record."""
    unsigned_below = _legacy(conn, keys, "legacy", table_id) + 1
    count, prev = 0, GENESIS
    for rows in _records(conn, table_id):
        report = chain.verify_records(
            rows, None, table_id=table_id, keys=keys, unsigned_below=unsigned_below, start=count, prev=prev
        )
        if not report.ok:
            return Finding(f"table {table_id}", False, report.records, report.first_bad, report.reason)
        count, prev = report.records, rows[-1].hash
    if prev != head:
        return Finding(
            f"table {table_id}", False, count, count, "the table's head does not match its last record"
        )
    return Finding(f"table {table_id}", True, count)


def check_ledger(conn: sa.Connection, keys: signing.Keyring) -> Finding:
    """Every ledger entry's link and signature, and every account's balance against its last entry."""
    unsigned_to = _legacy(conn, keys, "legacy_ledger", None)
    last: dict[int, int] = {}
    after, count = 0, 0
    entries = LedgerEntry.__table__
    while True:
        rows = conn.execute(
            sa.select(entries).where(entries.c.id > after).order_by(entries.c.id).limit(BATCH)
        ).all()
        for r in rows:
            eid, account, amount, balance_after = (
                int(r.id),
                int(r.account_id),
                int(r.amount),
                int(r.balance_after),
            )
            count += 1
            if last.get(account, 0) + amount != balance_after:
                return Finding(
                    "ledger",
                    False,
                    count,
                    eid,
                    f"entry {eid} does not follow from its account's previous entry",
                )
            last[account] = balance_after
            if eid > unsigned_to:
                fields = {name: getattr(r, name) for name in signing.ENTRY_FIELDS}
                at = read_time(r.at)
                if at is None or not keys.check(signing.entry_message(fields, signing.time_text(at)), r.sig):
                    return Finding(
                        "ledger", False, count, eid, f"entry {eid}'s signature is not the casino's"
                    )
        if rows:
            after = int(rows[-1].id)
        if len(rows) < BATCH:
            break
    for account_id, name, balance in conn.execute(
        sa.select(Account.id, Account.name, Account.balance).order_by(Account.id)
    ):
        if int(balance) != last.get(int(account_id), 0):
            return Finding(
                "ledger",
                False,
                count,
                None,
                f"account {name}'s balance {balance} is not its last entry's {last.get(int(account_id), 0)}",
            )
    return Finding("ledger", True, count)


def verify_database(url: str, public_key: Path | list[Path], table: int | None = None) -> list[Finding]:
    """Every table's chain (or one's) and, for the whole database, the ledger; a signature by any of
    the public keys given is the casino's (the current key and those before a rotation)."""
    files = public_key if isinstance(public_key, list) else [public_key]
    keys = signing.Keyring(tuple(signing.public_from_file(f) for f in files))
    engine = sa.create_engine(sync_url(url))
    try:
        with engine.connect() as conn:
            query = sa.select(CasinoTable.id, CasinoTable.head_hash).order_by(CasinoTable.id)
            if table is not None:
                query = query.where(CasinoTable.id == table)
            tables = conn.execute(query).all()
            findings = [check_table(conn, keys, int(t), head) for t, head in tables]
            if table is None:
                findings.append(check_ledger(conn, keys))
            return findings
    finally:
        engine.dispose()
