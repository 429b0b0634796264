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
import time
from collections.abc import Awaitable, Callable, Collection, Sequence
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
CHECKPOINT_EVERY = 1_000
#: ... standing this far below the head: the newest records are checked again at every start
CHECKPOINT_BEHIND = 1_000
#: an id above every entry's: a scan of the ledger to its end
_NO_END = 2**62
#: a table suspended by a failed check says this as its reason
REASON = "integrity"


@dataclass
class StartupReport:
    """What the start-up's check found: tables suspended, accounts frozen, records and entries checked."""

    suspended: list[tuple[int, int, str]] = field(default_factory=list)
    frozen: list[tuple[str, str]] = field(default_factory=list)
    records: int = 0
    entries: int = 0
    #: seconds every table's row was held (the ledger's newest entries and every balance checked)
    held: float = 0.0


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


@dataclass
class LedgerScan:
    """The ledger's check as far as it read: where it began (the ledger's signed checkpoint, the entries
    that predate signatures, the accounts an administrator reopened), the entries it checked up to `upto`
    and how many, the accounts whose entries fail (the entry, why) and the transactions found broken."""

    after: int
    unsigned_to: int
    accepted: dict[int, tuple[int, int]]
    upto: int = 0
    count: int = 0
    bad: dict[int, tuple[int | None, str]] = field(default_factory=dict)
    broken: dict[str, tuple[int, str]] = field(default_factory=dict)

    def begins_as(self, other: LedgerScan) -> bool:
        """Whether both checks begin at the same place and trust the same reopenings."""
        return (self.after, self.unsigned_to) == (other.after, other.unsigned_to) and (
            self.accepted == other.accepted
        )


async def _ledger_begins(tx: Tx) -> LedgerScan:
    """Where the ledger's check begins: after its newest signed checkpoint, with what predates signatures
    and what administrators accepted (`accepted_accounts`)."""
    keys = signing.trusted()
    marks = [tuple(row) for row in await tx.all(repo.LEDGER_CHECKPOINTS)]
    legacy = checks.legacy_mark(marks, keys, "legacy_ledger", None)
    ledger = checks.newest_signed(marks, keys, "ledger", None)
    after = ledger[0] if ledger is not None else 0
    return LedgerScan(after, legacy[0] if legacy is not None else 0, await accepted_accounts(tx), upto=after)


async def _scan_entries(tx: Tx, scan: LedgerScan, upto: int | None, skip: Collection[int] = ()) -> None:
    """Check the entries after `scan.upto` up to id `upto` (None: the last), each against its account's
    previous entry and its signature, and its transaction whole; `scan` keeps what fails and how far it
    read. The entries of accounts in `skip` (or already bad) are not judged again."""
    keys = signing.trusted()
    last = _NO_END if upto is None else upto
    while True:
        rows = await tx.all(repo.ENTRIES_AFTER, {"after": scan.upto, "upto": last, "n": BATCH})
        for row in rows:
            account_id, eid, txn = int(row.account_id), int(row.id), str(row.txn)
            scan.count += 1
            if int(row.txn_sum) != 0 and txn not in scan.broken:
                scan.broken[txn] = (eid, checks.unbalanced(txn, int(row.txn_sum)))
            mark = scan.accepted.get(account_id)
            if mark is not None and eid <= mark[0]:
                if eid == mark[0] and int(row.balance_after) != mark[1]:
                    scan.bad.setdefault(
                        account_id, (eid, f"entry {eid}'s balance is not the one its reopening accepted")
                    )
                continue
            if account_id in scan.bad or account_id in skip:
                continue
            fault = checks.entry_fault(
                row,
                signing.time_text(row.at),
                row.before,
                int(row.txn_entries),
                keys,
                scan.unsigned_to,
                wallet=row.account_kind == "wallet",
            )
            if fault is not None and fault.held is not None:
                scan.broken.setdefault(txn, (eid, fault.why))
            elif fault is not None:
                scan.bad[account_id] = (eid, fault.why)
        if rows:
            scan.upto = int(rows[-1].id)
        if len(rows) < BATCH:
            break
    if upto is not None:
        scan.upto = max(scan.upto, upto)


async def read_ledger_ahead(tx: Tx) -> LedgerScan:
    """The ledger's check of every entry but the newest `CHECKPOINT_BEHIND`, before the tables are locked
    (`startup`): steps of another process go on meanwhile. What it read is trusted under the locks only if
    no entry has been committed since among the ones it read (`check_ledger` counts them again). Each
    account's entries are written under its row's lock, so an account's entries commit in id order: an
    entry committed later comes after every one read of its account."""
    scan = await _ledger_begins(tx)
    newest = await tx.value(repo.MAX_ENTRY)
    upto = int(newest or 0) - CHECKPOINT_BEHIND
    if upto > scan.after:
        await _scan_entries(tx, scan, upto)
    return scan


async def check_ledger(
    tx: Tx, report: StartupReport, say: Callable[[str], None], ahead: LedgerScan | None = None
) -> None:
    """Every account's balance against its last entry, and every entry since the ledger's checkpoint (its
    link, its signature) and its transaction (it sums to zero, none of its entries is gone): an account
    that fails is frozen, and a broken transaction freezes the wallets it names (`checks.blamed`). An
    account reopened by an administrator is checked after the entry its reopening accepted.

    `ahead`: what `read_ledger_ahead` checked before the caller locked the tables; only the entries after
    it are read here, unless it began elsewhere or an entry it should have read was committed since (then
    every entry is read again here)."""
    balance_bad: dict[int, tuple[int | None, str]] = {}
    for account_id, name, balance, frozen, last in await tx.all(repo.BALANCES):
        expected = 0 if last is None else int(last)
        if frozen is None and int(balance) != expected:
            why = f"{name}'s balance {balance} is not its last entry's {expected}"
            balance_bad[int(account_id)] = (None, why)
    scan = await _ledger_begins(tx)
    if ahead is not None and ahead.begins_as(scan):
        read = await tx.value(repo.ENTRIES_BETWEEN, {"after": ahead.after, "upto": ahead.upto})
        if int(read or 0) == ahead.count:
            scan = ahead
    await _scan_entries(tx, scan, None, skip=balance_bad)
    report.entries += scan.count
    if await _freeze_found(tx, scan, balance_bad, report, say):
        return
    at = scan.upto - CHECKPOINT_BEHIND
    if at >= scan.after + CHECKPOINT_EVERY:
        await _write_checkpoint(tx, "ledger", None, at, "")


async def _freeze_found(
    tx: Tx,
    scan: LedgerScan,
    balance_bad: dict[int, tuple[int | None, str]],
    report: StartupReport,
    say: Callable[[str], None],
) -> bool:
    """Freeze the accounts whose entries (or balances) a scan of the ledger found failing, and the wallets
    its broken transactions name (`checks.blamed`) unless an administrator accepted them since; whether
    anything failed that no reopening accepted (then no checkpoint may stand above it)."""
    bad = {**scan.bad, **balance_bad}
    unaccepted = False
    for txn, (first, reason) in scan.broken.items():
        found = await tx.all(repo.TXN_ACCOUNTS, {"txn": txn})
        newest = max(int(r.id) for r in found)
        rows_of = [
            (int(r.account_id), str(r.kind), None if r.wallet is None else int(r.wallet)) for r in found
        ]
        for blamed in sorted(checks.blamed(rows_of)):
            if scan.accepted.get(blamed, (-1, 0))[0] < newest:
                bad.setdefault(blamed, (first, reason))
                unaccepted = True
    for account_id, (entry, why) in sorted(bad.items()):
        name = await freeze(tx, account_id, why, entry=entry)
        if name is not None:
            report.frozen.append((name, why))
            say(f"INTEGRITY FAILURE: account {name} frozen: {why} (significant event account_frozen)")
    return bool(bad) or unaccepted


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


async def checkpoint_ledger(
    store: Store, pause: float = 0.01, writer: Callable[[], Any] = contextlib.nullcontext
) -> bool:
    """While the server runs, as `checkpoint_tables` for the chains: when the ledger grew by
    `CHECKPOINT_EVERY` entries since its checkpoint, its entries but the newest `CHECKPOINT_BEHIND` are
    checked (`PACE` at a time, pausing between them) and, when they hold and are still as many as it read
    (none committed late below them, as `check_ledger` counts them), a signed checkpoint is written at the
    last; accounts whose entries fail are frozen there and then. So a start reads the entries of the last
    minute or so, not every one since the last start. Whether it wrote a checkpoint."""
    async with store.transaction(write=False) as tx:
        scan = await _ledger_begins(tx)
        newest = await tx.value(repo.MAX_ENTRY)
    upto = int(newest or 0) - CHECKPOINT_BEHIND
    if upto < scan.after + CHECKPOINT_EVERY:
        return False
    while scan.upto < upto:
        async with store.transaction(write=False) as tx:
            await _scan_entries(tx, scan, min(scan.upto + PACE, upto))
        await asyncio.sleep(pause)
    async with writer(), store.transaction() as tx:
        if await _freeze_found(tx, scan, {}, StartupReport(), log.error):
            return False
        read = await tx.value(repo.ENTRIES_BETWEEN, {"after": scan.after, "upto": scan.upto})
        if int(read or 0) != scan.count:
            return False  # an entry came in late below the others: the next sweep reads them again
        await _write_checkpoint(tx, "ledger", None, scan.upto, "")
    return True


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
    Then the ledger: its entries but the newest read first with no table locked (`read_ledger_ahead`),
    then every balance and the entries after those, with every table's row locked so that no step commits
    entries while they are read (the tables are held for the ledger's tail only, not its whole check).
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
    async with store.transaction(write=False, snapshot=True) as tx:
        ahead = await read_ledger_ahead(tx)
    async with writer(), store.transaction() as tx:
        await tx.all(play_repo.ALL_TABLES_LOCKED)
        locked = time.monotonic()
        await check_ledger(tx, report, say, ahead)
        if end is not None:
            await end(tx)
    report.held = time.monotonic() - locked
    return report
