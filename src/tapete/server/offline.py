"""`tapete verify --database-url URL --public-key FILE [--table ID]`: a copy of a casino's database checked
offline with the public key alone (no private key, no server): every table's chain from its first
record (seq, hash, link, signature, the table's head) and every ledger entry (its link to its account's
previous entry, its signature, its transaction whole, each account's balance against its last entry).
Also migration 0005's signing of the legacy checkpoints it writes, on the same synchronous reads
(`sign_legacy`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa

from tapete.log import GENESIS
from tapete.server import signing
from tapete.server.config import sync_url
from tapete.server.inspection import checks
from tapete.server.models import Account, CasinoTable, Checkpoint, EventRecord, LedgerEntry
from tapete.server.play import chain
from tapete.server.sql import read_time

BATCH = 2000

#: told how many more records (or entries) were checked: a progress bar's advance
Tick = Callable[[int], None]


def _no_tick(n: int) -> None:
    """No progress to show."""


@dataclass
class Finding:
    """One table's (or the ledger's) check: ok, how many records, the first bad one and why."""

    what: str
    ok: bool
    records: int
    first_bad: int | None = None
    reason: str = ""


def _legacy(
    conn: sa.Connection, keys: signing.Keyring, kind: str, table_id: int | None
) -> tuple[int, str] | None:
    """The signed legacy checkpoint of a table (or of the ledger): up to where rows predate signatures,
    and its hash (`checks.legacy_mark`)."""
    rows = conn.execute(
        sa.select(Checkpoint.kind, Checkpoint.seq, Checkpoint.hash, Checkpoint.sig).where(
            Checkpoint.kind == kind, Checkpoint.table_id.is_not_distinct_from(table_id)
        )
    )
    return checks.legacy_mark(rows.all(), keys, kind, table_id)


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


def check_table(
    conn: sa.Connection, keys: signing.Keyring, table_id: int, head: str, tick: Tick = _no_tick
) -> Finding:
    """One table's chain from its first record (`tick`: told of each batch checked)."""
    legacy = _legacy(conn, keys, "legacy", table_id)
    unsigned_below, legacy_hash = (0, None) if legacy is None else (legacy[0] + 1, legacy[1])
    count, prev = 0, GENESIS
    for rows in _records(conn, table_id):
        report = chain.verify_records(
            rows,
            None,
            table_id=table_id,
            keys=keys,
            unsigned_below=unsigned_below,
            start=count,
            prev=prev,
            legacy_hash=legacy_hash,
        )
        if not report.ok:
            return Finding(f"table {table_id}", False, report.records, report.first_bad, report.reason)
        count, prev = report.records, rows[-1].hash
        tick(len(rows))
    if legacy_hash is not None and count < unsigned_below:
        return Finding(
            f"table {table_id}", False, count, count, "the table's records end below its legacy checkpoint"
        )
    if prev != head:
        return Finding(
            f"table {table_id}", False, count, count, "the table's head does not match its last record"
        )
    return Finding(f"table {table_id}", True, count)


def _txn_totals(conn: sa.Connection, txns: set[str]) -> dict[str, tuple[int, int]]:
    """Each transaction's number of entries and their sum, as they stand."""
    entries = LedgerEntry.__table__
    rows = conn.execute(
        sa.select(entries.c.txn, sa.func.count(), sa.func.sum(entries.c.amount))
        .where(entries.c.txn.in_(sorted(txns)))
        .group_by(entries.c.txn)
    )
    return {str(txn): (int(n), int(total)) for txn, n, total in rows}


def check_ledger(conn: sa.Connection, keys: signing.Keyring, tick: Tick = _no_tick) -> Finding:
    """Every ledger entry's link and signature, every transaction whole (it sums to zero, and its entries'
    signatures count as many as there are), and every account's balance against its last entry (`tick`:
    told of each batch checked)."""
    legacy = _legacy(conn, keys, "legacy_ledger", None)
    unsigned_to = legacy[0] if legacy is not None else 0
    last: dict[int, int] = {}
    seen: set[str] = set()
    after, count = 0, 0
    entries = LedgerEntry.__table__
    wallets = set(conn.execute(sa.select(Account.id).where(Account.kind == "wallet")).scalars())
    while True:
        rows = conn.execute(
            sa.select(entries).where(entries.c.id > after).order_by(entries.c.id).limit(BATCH)
        ).all()
        totals = _txn_totals(conn, {str(r.txn) for r in rows}) if rows else {}
        for r in rows:
            eid, account, txn = int(r.id), int(r.account_id), str(r.txn)
            count += 1
            present, total = totals[txn]
            if txn not in seen and total != 0:
                return _unbalanced(conn, keys, unsigned_to, wallets, count, eid, txn, total)
            seen.add(txn)
            at = read_time(r.at)
            if at is None:
                return Finding("ledger", False, count, eid, f"entry {eid}'s time cannot be read")
            fault = checks.entry_fault(
                r,
                signing.time_text(at),
                last.get(account),
                present,
                keys,
                unsigned_to,
                wallet=account in wallets,
            )
            if fault is not None:
                return Finding("ledger", False, count, eid, fault.why)
            last[account] = int(r.balance_after)
        tick(len(rows))
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


def _unbalanced(
    conn: sa.Connection,
    keys: signing.Keyring,
    unsigned_to: int,
    wallets: set[int],
    count: int,
    eid: int,
    txn: str,
    total: int,
) -> Finding:
    """A transaction that does not sum to zero: its entry whose signature does not hold (it was changed),
    or else the transaction itself (an entry of it was deleted), named at its first entry `eid`."""
    entries = LedgerEntry.__table__
    rows = conn.execute(sa.select(entries).where(entries.c.txn == txn).order_by(entries.c.id)).all()
    for r in rows:
        at = read_time(r.at)
        fault = (
            None
            if at is None
            else checks.signature_fault(
                r, signing.time_text(at), len(rows), keys, unsigned_to, wallet=int(r.account_id) in wallets
            )
        )
        if fault is not None and fault.held is None:
            return Finding("ledger", False, count, int(r.id), fault.why)
    return Finding("ledger", False, count, eid, checks.unbalanced(txn, total))


# -- migration 0005's signing of what predates signatures --------------------------------------------------
def sign_legacy(conn: sa.Connection, signer: signing.Signer) -> list[str]:
    """Sign the ``legacy`` checkpoints migration 0005 just wrote (in its transaction, so that no start
    can find them unsigned), each only once what it stands for is verified: a table's records from its
    first to the checkpoint's (seq, link, hash, no signature) ending at its hash; the ledger's entries up
    to its id (each linked to its account's previous one, every transaction summing to zero). One that
    fails stays unsigned, so its rows stand for nothing and the start-up suspends (freezes) them. The
    server signs no legacy checkpoint anywhere else. What was left unsigned (said by the migration)."""
    left: list[str] = []
    found = conn.execute(
        sa.text(
            "SELECT id, kind, table_id, seq, hash FROM checkpoints"
            " WHERE sig IS NULL AND kind IN ('legacy', 'legacy_ledger') ORDER BY id"
        )
    ).all()
    for cid, kind, table_id, seq, digest in found:
        holds = (
            _legacy_chain_holds(conn, int(table_id), int(seq), str(digest))
            if kind == "legacy"
            else _legacy_ledger_holds(conn, int(seq))
        )
        if not holds:
            left.append(f"{kind} {table_id if table_id is not None else ''}".strip())
            continue
        sig = signer.sign(signing.checkpoint_message(kind, table_id, int(seq), digest))
        conn.execute(sa.text("UPDATE checkpoints SET sig = :s WHERE id = :i"), {"s": sig, "i": cid})
    return left


def _legacy_chain_holds(conn: sa.Connection, table_id: int, seq: int, digest: str) -> bool:
    count, prev = 0, GENESIS
    for rows in _records(conn, table_id):
        rows = [r for r in rows if r.seq <= seq]
        if any(r.sig is not None for r in rows):
            return False
        report = chain.verify_records(rows, None, start=count, prev=prev)
        if not report.ok:
            return False
        if rows:
            count, prev = report.records, rows[-1].hash
    return count == seq + 1 and prev == digest


def _legacy_ledger_holds(conn: sa.Connection, upto: int) -> bool:
    unbalanced = conn.execute(
        sa.text("SELECT txn FROM ledger_entries WHERE id <= :u GROUP BY txn HAVING SUM(amount) <> 0"),
        {"u": upto},
    ).first()
    if unbalanced is not None:
        return False
    last: dict[int, int] = {}
    for account, amount, balance_after in conn.execute(
        sa.text("SELECT account_id, amount, balance_after FROM ledger_entries WHERE id <= :u ORDER BY id"),
        {"u": upto},
    ):
        if last.get(int(account), 0) + int(amount) != int(balance_after):
            return False
        last[int(account)] = int(balance_after)
    return True


def _to_check(conn: sa.Connection, table: int | None) -> int:
    """How many records (of one table, or of all) and ledger entries (with all) `verify_database` checks."""
    records = sa.select(sa.func.count()).select_from(EventRecord)
    if table is not None:
        return int(conn.execute(records.where(EventRecord.table_id == table)).scalar_one())
    entries = sa.select(sa.func.count()).select_from(LedgerEntry)
    return int(conn.execute(records).scalar_one()) + int(conn.execute(entries).scalar_one())


def verify_database(
    url: str,
    public_key: Path | list[Path],
    table: int | None = None,
    progress: Callable[[int], Tick] | None = None,
) -> list[Finding]:
    """Every table's chain (or one's) and, for the whole database, the ledger; a signature by any of
    the public keys given is the casino's (the current key and those before a rotation). `progress` is
    given how many records and entries there are to check, and gives what to tell of each batch checked."""
    files = public_key if isinstance(public_key, list) else [public_key]
    keys = signing.Keyring(tuple(signing.public_from_file(f) for f in files))
    engine = sa.create_engine(sync_url(url))
    try:
        with engine.connect() as conn:
            query = sa.select(CasinoTable.id, CasinoTable.head_hash).order_by(CasinoTable.id)
            if table is not None:
                query = query.where(CasinoTable.id == table)
            tables = conn.execute(query).all()
            tick = _no_tick if progress is None else progress(_to_check(conn, table))
            findings = [check_table(conn, keys, int(t), head, tick) for t, head in tables]
            if table is None:
                findings.append(check_ledger(conn, keys, tick))
            return findings
    finally:
        engine.dispose()
