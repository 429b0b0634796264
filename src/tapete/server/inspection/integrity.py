"""Verified before trusted (server.md, "Integrity of the records and the money"): at start-up every table's
chain is checked whole (hashes, links, signatures) from its last signed checkpoint, and the ledger too
(every account's balance against its last entry; every entry's link and signature since the ledger's
checkpoint, and its transaction whole). A table that fails is suspended (reason ``integrity``,
significant event ``integrity_failure`` naming its first bad record); an account that fails is frozen
(``account_frozen``). Nothing unsigned says where a check begins, and the server signs a checkpoint only
over what it verified (or what an administrator accepted, logged).

The checks read in batches (a table may hold millions of records) and write a new signed checkpoint
when enough was verified above the last one, a little below the head: the newest records are always
checked again at the next start, the old ones stand for themselves through the checkpoint."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tapete.log import GENESIS
from tapete.server import signing
from tapete.server.inspection import checks
from tapete.server.inspection import repository as repo
from tapete.server.inspection.journal import note
from tapete.server.models import utcnow
from tapete.server.play import chain, tables
from tapete.server.play import repository as play_repo
from tapete.server.play.table_row import TableRow
from tapete.server.sql import Store, Tx

log = logging.getLogger("tapete.server")

#: records read at a time
BATCH = 2000
#: a new checkpoint when at least this many records (or entries) were verified above the last one ...
CHECKPOINT_EVERY = 10_000
#: ... standing this far below the head: the newest records are checked again at every start
CHECKPOINT_BEHIND = 1_000
#: a table suspended by a failed check says this as its reason
REASON = "integrity"


@dataclass
class StartupReport:
    """What the start-up's check found: tables suspended, accounts frozen, records and entries checked."""

    suspended: list[tuple[int, int, str]] = field(default_factory=list)
    frozen: list[tuple[str, str]] = field(default_factory=list)
    records: int = 0
    entries: int = 0


# -- the chains --------------------------------------------------------------------------------------------
async def _write_checkpoint(tx: Tx, kind: str, table_id: int | None, seq: int, digest: str) -> None:
    sig = signing.current().sign(signing.checkpoint_message(kind, table_id, seq, digest))
    await tx.run(
        repo.NEW_CHECKPOINT,
        {"kind": kind, "t": table_id, "seq": seq, "hash": digest, "at": utcnow(), "sig": sig},
    )


@dataclass
class Start:
    """Where a table's check begins: the first seq to check, the hash it links to, below which records
    may carry no signature (they predate signatures) and what the last of those hashes to (its signed
    legacy checkpoint's hash; None: no legacy mark)."""

    seq: int = 0
    prev: str = GENESIS
    unsigned_below: int = 0
    legacy_hash: str | None = None

    @classmethod
    def legacy(cls, mark: tuple[int, str] | None) -> Start:
        """From the first record, with a table's legacy mark (`checks.legacy_mark`)."""
        return cls() if mark is None else cls(unsigned_below=mark[0] + 1, legacy_hash=mark[1])


async def start_of(tx: Tx, table_id: int, next_seq: int, *, whole: bool) -> Start:
    """Where the check of a table's chain begins: its last checkpoint signed by a trusted key (unless
    `whole`: from the first record), and its legacy mark. An unsigned checkpoint counts for nothing, and
    none is ever signed here: the server signs only what it verified (a legacy mark is signed by
    migration 0005 alone, `offline.sign_legacy`)."""
    keys = signing.trusted()
    marks = [tuple(row) for row in await tx.all(repo.CHECKPOINTS, {"t": table_id})]
    start = Start.legacy(checks.legacy_mark(marks, keys, "legacy", table_id))
    if whole:
        return start
    found = checks.newest_signed(marks, keys, "table", table_id, below=next_seq)
    if found is not None:
        start.seq, start.prev = found[0] + 1, found[1]
    return start


async def check_chain(
    fetch: Callable[[int, int], Awaitable[Sequence[chain.AnyRecord]]],
    table_id: int,
    head: str,
    start: Start,
) -> chain.ChainReport:
    """A table's chain from `start` to its `head`, read `BATCH` records at a time by `fetch(seq, n)`:
    every record's seq, link, hash and signature."""
    keys = signing.trusted()
    count, prev = start.seq, start.prev
    while True:
        rows = await fetch(count, BATCH)
        if not rows:
            break
        report = chain.verify_records(
            rows,
            None,
            table_id=table_id,
            keys=keys,
            unsigned_below=start.unsigned_below,
            start=count,
            prev=prev,
            legacy_hash=start.legacy_hash,
        )
        if not report.ok:
            return report
        count, prev = report.records, rows[-1].hash
        if len(rows) < BATCH:
            break
    if start.legacy_hash is not None and count < start.unsigned_below:
        return chain.ChainReport(False, count, count, "the table's records end below its legacy checkpoint")
    if head != prev:
        return chain.ChainReport(False, count, count, "the table's head does not match its last record")
    return chain.ChainReport(True, count)


def fetcher(tx: Tx, table_id: int) -> Callable[[int, int], Awaitable[Sequence[chain.AnyRecord]]]:
    """`check_chain`'s reader through the server's driver."""

    async def fetch(seq: int, n: int) -> Sequence[chain.AnyRecord]:
        return [chain.Record(*row) for row in await tx.all(repo.RANGE, {"t": table_id, "s": seq, "n": n})]

    return fetch


async def suspend(tx: Tx, table: TableRow, seq: int | None, reason: str) -> bool:
    """Suspend a table whose records failed (reason ``integrity``) and write ``integrity_failure``
    naming the first bad record; False when it was suspended for that already (nothing written)."""
    if table.status == "suspended" and table.status_reason == REASON:
        return False
    before = table.copy()
    table.status = "suspended"
    table.status_reason = REASON
    table.version += 1  # every process's cache of the table is now stale
    table.deadline_at = table.deadline_kind = table.deadline_version = None  # no timer plays
    await tables.write_row(tx, table, before)
    await note(
        tx,
        "integrity_failure",
        table_id=table.id,
        details={"table": table.id, "record": seq, "reason": reason, "was": before.status},
    )
    return True


async def accept(tx: Tx, table: TableRow, actor: str, reason: str) -> None:
    """An administrator reopens a table suspended for its records: he accepts its chain as it stands. A
    signed checkpoint at its head (kind ``accepted``) makes the start-up's check begin above it (the
    inspector's verify, from the first record, still names the bad record); ``chain_accepted`` says who,
    why and where."""
    if table.next_seq > 0:
        await _write_checkpoint(tx, "table", table.id, table.next_seq - 1, table.head_hash)
    await note(
        tx,
        "chain_accepted",
        actor=actor,
        table_id=table.id,
        details={"table": table.id, "up_to": table.next_seq - 1, "reason": reason},
    )


async def check_table(tx: Tx, table: TableRow, report: StartupReport, say: Callable[[str], None]) -> None:
    """One table at start-up: its chain from its last checkpoint; suspended when it fails, a new
    checkpoint when enough was verified."""
    start = await start_of(tx, table.id, table.next_seq, whole=False)
    found = await check_chain(fetcher(tx, table.id), table.id, table.head_hash, start)
    report.records += found.records - start.seq
    if not found.ok:
        report.suspended.append((table.id, found.first_bad or 0, found.reason))
        await suspend(tx, table, found.first_bad, found.reason)
        say(
            f"INTEGRITY FAILURE: table {table.id} suspended: record {found.first_bad}: {found.reason}"
            " (significant event integrity_failure)"
        )
        return
    at = table.next_seq - 1 - CHECKPOINT_BEHIND
    if at >= start.seq + CHECKPOINT_EVERY:
        rows = await tx.all(repo.RANGE, {"t": table.id, "s": at, "n": 1})
        if rows:
            await _write_checkpoint(tx, "table", table.id, at, chain.Record(*rows[0]).hash)


# -- the ledger ----------------------------------------------------------------------------------------------
async def accepted_accounts(tx: Tx) -> dict[int, tuple[int, int]]:
    """The accounts an administrator reopened, by id: (the last entry the reopening accepted as it stood,
    its balance after it), from their signed ``account`` checkpoints (`accept_account`). Nothing unsigned
    (``accounts.checked_to`` included) moves where an account's check begins."""
    keys = signing.trusted()
    found: dict[int, tuple[int, int]] = {}
    for seq, digest, sig in await tx.all(repo.ACCOUNT_CHECKPOINTS):
        if not signing.checkpoint_signed(keys, "account", None, int(seq), digest, sig):
            continue
        account, _, balance = str(digest).partition(":")
        if account.isdigit() and int(seq) >= found.get(int(account), (-1, 0))[0]:
            found[int(account)] = (int(seq), int(balance or 0))
    return found


async def accept_account(tx: Tx, account_id: int, entry: int, balance: int) -> None:
    """An administrator's reopening of an account accepts its entries up to `entry` as they stand (their
    check begins after it) and `entry`'s balance after it: a signed ``account`` checkpoint says so (the
    start-up believes nothing unsigned about where an account's check begins)."""
    await _write_checkpoint(tx, "account", None, entry, f"{account_id}:{balance}")


async def freeze(tx: Tx, account_id: int, why: str, *, entry: int | None = None) -> str | None:
    """Freeze an account (its balance or its entries do not reconcile): no chips move there until an
    administrator reopens it; a significant event ``account_frozen`` names it. Its name, or None when
    it was frozen already."""
    name = await tx.value(repo.ACCOUNT_NAME, {"id": account_id})
    if await tx.one(repo.FREEZE, {"why": why, "id": account_id}) is None:
        return None
    await note(tx, "account_frozen", details={"account": name, "entry": entry, "reason": why})
    return str(name)


async def reconcile(tx: Tx) -> list[str]:
    """Every account's balance against its last entry: those that disagree are frozen (their names).
    What a refused entry leads to when the database could not say which account it was (SQLite)."""
    frozen = []
    for account_id, name, balance, was, last in await tx.all(repo.BALANCES):
        expected = 0 if last is None else int(last)
        if was is None and int(balance) != expected:
            why = f"{name}'s balance {balance} is not its last entry's {expected}"
            if await freeze(tx, int(account_id), why) is not None:
                frozen.append(str(name))
    return frozen


async def check_ledger(tx: Tx, report: StartupReport, say: Callable[[str], None]) -> None:
    """Every account's balance against its last entry, and every entry since the ledger's checkpoint (its
    link, its signature) and its transaction (it sums to zero, none of its entries is gone): an account
    that fails is frozen, and a broken transaction freezes the wallets it names (`checks.blamed`). An
    account reopened by an administrator is checked after the entry its reopening accepted."""
    keys = signing.trusted()
    bad: dict[int, tuple[int | None, str]] = {}
    for account_id, name, balance, frozen, last in await tx.all(repo.BALANCES):
        expected = 0 if last is None else int(last)
        if frozen is None and int(balance) != expected:
            bad[int(account_id)] = (None, f"{name}'s balance {balance} is not its last entry's {expected}")
    marks = [tuple(row) for row in await tx.all(repo.LEDGER_CHECKPOINTS)]
    legacy = checks.legacy_mark(marks, keys, "legacy_ledger", None)
    unsigned_to = legacy[0] if legacy is not None else 0
    ledger = checks.newest_signed(marks, keys, "ledger", None)
    after = ledger[0] if ledger is not None else 0
    accepted = await accepted_accounts(tx)
    broken: dict[str, tuple[int, str]] = {}  # transaction: (its first entry seen, why)
    start, last_id = after, after
    while True:
        rows = await tx.all(repo.ENTRIES_AFTER, {"after": last_id, "n": BATCH})
        for row in rows:
            account_id, eid, txn = int(row.account_id), int(row.id), str(row.txn)
            report.entries += 1
            if int(row.txn_sum) != 0 and txn not in broken:
                broken[txn] = (eid, checks.unbalanced(txn, int(row.txn_sum)))
            mark = accepted.get(account_id)
            if mark is not None and eid <= mark[0]:
                if eid == mark[0] and int(row.balance_after) != mark[1]:
                    bad.setdefault(
                        account_id, (eid, f"entry {eid}'s balance is not the one its reopening accepted")
                    )
                continue
            if account_id in bad:
                continue
            fault = checks.entry_fault(
                row,
                signing.time_text(row.at),
                row.before,
                int(row.txn_entries),
                keys,
                unsigned_to,
                wallet=row.account_kind == "wallet",
            )
            if fault is not None and fault.held is not None:
                broken.setdefault(txn, (eid, fault.why))
            elif fault is not None:
                bad[account_id] = (eid, fault.why)
        if rows:
            last_id = int(rows[-1].id)
        if len(rows) < BATCH:
            break
    unaccepted = False
    for txn, (first, reason) in broken.items():
        found = await tx.all(repo.TXN_ACCOUNTS, {"txn": txn})
        newest = max(int(r.id) for r in found)
        rows_of = [
            (int(r.account_id), str(r.kind), None if r.wallet is None else int(r.wallet)) for r in found
        ]
        for blamed in sorted(checks.blamed(rows_of)):
            if accepted.get(blamed, (-1, 0))[0] < newest:
                bad.setdefault(blamed, (first, reason))
                unaccepted = True
    for account_id, (entry, why) in sorted(bad.items()):
        name = await freeze(tx, account_id, why, entry=entry)
        if name is not None:
            report.frozen.append((name, why))
            say(f"INTEGRITY FAILURE: account {name} frozen: {why} (significant event account_frozen)")
    at = last_id - CHECKPOINT_BEHIND
    if not bad and not unaccepted and at >= start + CHECKPOINT_EVERY:
        await _write_checkpoint(tx, "ledger", None, at, "")


#: records (or entries) a running server verifies at a time before it lets the tables' steps run again
PACE = 100


async def checkpoint_tables(
    store: Store, pause: float = 0.01, writer: Callable[[], Any] = contextlib.nullcontext
) -> int:
    """While the server runs: every table whose chain grew by `CHECKPOINT_EVERY` records since its last
    checkpoint has the new part verified (`PACE` records at a time, pausing between them so that the
    tables' steps are not held up) and, when it holds, a signed checkpoint `CHECKPOINT_BEHIND` records
    below its head; a table whose records fail is suspended there and then. So the start-up's check
    stays short whatever the history and however long the server ran. How many checkpoints it wrote.
    `writer`: the process's writer lock (SQLite's one writer) around each write."""
    written = 0
    async with store.transaction(write=False) as tx:
        heads = [(int(t), int(n)) for t, n in await tx.all(repo.TABLE_HEADS)]
    for table_id, next_seq in heads:
        async with store.transaction(write=False) as tx:
            start = await start_of(tx, table_id, next_seq, whole=False)
        at = next_seq - 1 - CHECKPOINT_BEHIND
        if at < start.seq + CHECKPOINT_EVERY:
            continue
        keys = signing.trusted()
        count, prev = start.seq, start.prev
        while count <= at:
            async with store.transaction(write=False) as tx:
                rows = [
                    chain.Record(*row)
                    for row in await tx.all(
                        repo.RANGE, {"t": table_id, "s": count, "n": min(PACE, at + 1 - count)}
                    )
                ]
            found = chain.verify_records(
                rows,
                None,
                table_id=table_id,
                keys=keys,
                unsigned_below=start.unsigned_below,
                start=count,
                prev=prev,
                legacy_hash=start.legacy_hash,
            )
            if not found.ok or not rows:
                async with writer(), store.transaction() as tx:
                    row = await tx.one(play_repo.TABLE_LOCKED, {"id": table_id})
                    if row is not None:
                        await suspend(
                            tx, tables.row_of(row), found.first_bad, found.reason or "records missing"
                        )
                log.error(
                    "integrity failure at table %s, record %s: %s", table_id, found.first_bad, found.reason
                )
                break
            count, prev = found.records, rows[-1].hash
            await asyncio.sleep(pause)
        else:
            async with writer(), store.transaction() as tx:
                await _write_checkpoint(tx, "table", table_id, at, prev)
            written += 1
    return written


async def startup(
    store: Store,
    say: Callable[[str], None],
    *,
    writer: Callable[[], Any] = contextlib.nullcontext,
    each: Callable[[Tx, TableRow], Awaitable[None]] | None = None,
    end: Callable[[Tx], Awaitable[None]] | None = None,
) -> StartupReport:
    """The start-up's whole check. Each table's chain in a transaction of its own, its row locked: another
    process playing there commits before or after the check, never between the row and its records, and
    plays on at the other tables meanwhile (one transaction for all held every table for the whole check).
    Then the ledger, with every table's row locked, so that no step commits entries while they are read.
    `each(tx, table)`: the caller's own work at a checked table, in its transaction; `end(tx)`: in the
    ledger's. `writer`: the process's writer lock (SQLite's one writer) around each transaction."""
    report = StartupReport()
    async with store.transaction(write=False) as tx:
        ids = [int(table_id) for table_id, _ in await tx.all(repo.TABLE_HEADS)]
    for table_id in ids:
        async with writer(), store.transaction() as tx:
            found = await tx.one(play_repo.TABLE_LOCKED, {"id": table_id})
            if found is None:
                continue
            table = tables.row_of(found)
            await check_table(tx, table, report, say)
            if each is not None:
                await each(tx, table)
    async with writer(), store.transaction() as tx:
        await tx.all(play_repo.ALL_TABLES_LOCKED)
        await check_ledger(tx, report, say)
        if end is not None:
            await end(tx)
    return report
