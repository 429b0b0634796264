"""Each table's hash chain in the database: records ``{"seq", "round", "event", "prev", "at", "by",
"hash"}`` (the file log's record, plus when and by whom), appended under the table's row lock, the pair
(table, seq) unique. `verify_records` checks a chain the way `tapete verify` checks a file."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import pydantic_core
from sqlalchemy import Select, select
from sqlalchemy.ext.asyncio import AsyncSession

from tapete.games.base import Event
from tapete.log import GENESIS, canonical
from tapete.server import signing
from tapete.server.models import EventRecord, utcnow
from tapete.server.play import repository as repo
from tapete.server.play.table_row import TableRow
from tapete.server.sql import Json, Slot, Tx, dumps


@dataclass(frozen=True)
class Record:
    """One record of a table's chain as the table's runtime reads it (an `EventRecord`'s fields)."""

    seq: int
    round: str
    event: dict[str, Any]
    prev: str
    at: str
    by: str | None
    hash: str
    #: the server's signature of (table, seq, hash), base64 (`signing.record_message`)
    sig: str | None = None


AnyRecord = Record | EventRecord


#: the step's records by table, as it appended them (`append`; the settlement reads them there)
APPENDED: Slot[dict[int, list[Record]]] = Slot("chain.appended", dict)
#: the first seq the step appended to each table's chain
FIRST_SEQ: Slot[dict[int, int]] = Slot("chain.first_seq", dict)


def record_of(row: AnyRecord) -> dict[str, Any]:
    """The chained record a row holds (what is hashed, and what an exported log line holds)."""
    return {
        "seq": row.seq,
        "round": int(row.round) if row.round.isdigit() else row.round,
        "event": row.event,
        "prev": row.prev,
        "at": row.at,
        "by": row.by,
        "hash": row.hash,
    }


def record_digest(record: dict[str, Any]) -> str:
    """SHA-256 of a record's canonical JSON without its own hash."""
    return hashlib.sha256(canonical({k: v for k, v in record.items() if k != "hash"})).hexdigest()


async def append(
    tx: Tx,
    table: TableRow,
    round_id: int | str,
    events: Sequence[Event],
    by: str | None,
) -> list[Record]:
    """Chain `events` of round `round_id` onto the table's chain (its row must be locked by the caller's
    transaction); the table's next seq and head move with them."""
    rows: list[Record] = []
    values: list[dict[str, Any]] = []
    first, mine = _appended(tx, table.id)
    if first is None:
        tx.info.slot(FIRST_SEQ)[table.id] = table.next_seq
    at = utcnow().isoformat().replace("+00:00", "Z")
    signer = signing.current()
    for event in events:
        record = {
            "seq": table.next_seq,
            "round": round_id,
            "event": event,
            "prev": table.head_hash,
            "at": at,
            "by": by,
        }
        digest = record_digest(record)
        sig = signer.sign(signing.record_message(table.id, table.next_seq, digest))
        values.append(
            {
                "table_id": table.id,
                "seq": table.next_seq,
                "round": str(round_id),
                "round_no": round_id if isinstance(round_id, int) else None,
                "event": Json(event),
                "prev": table.head_hash,
                "at": at,
                "by": by,
                "hash": digest,
                "sig": sig,
            }
        )
        rows.append(Record(table.next_seq, str(round_id), event, table.head_hash, at, by, digest, sig))
        table.next_seq += 1
        table.head_hash = digest
    # one call for the step's records (held back until the step's transaction begins, or written with
    # the table's row in the step's one statement, `tables.commit_fenced`)
    mine.extend(rows)
    await tx.defer(repo.RECORDS, values)
    return rows


def _appended(tx: Tx, table_id: int) -> tuple[int | None, list[Record]]:
    """The first seq this transaction appended to the table's chain (None: none yet), and its records."""
    return tx.info.slot(FIRST_SEQ).get(table_id), tx.info.slot(APPENDED).setdefault(table_id, [])


def appended(tx: Tx, table_id: int) -> list[Record]:
    """The records this transaction appended to the table's chain, in seq order."""
    return _appended(tx, table_id)[1]


def _round_before(tx: Tx, table: TableRow, round_id: int) -> dict[str, Any]:
    first, _ = _appended(tx, table.id)
    return {"t": table.id, "r": round_id, "s": table.next_seq if first is None else first}


#: a round's records this process committed, from the round's first: (the round's number, the records)
Kept = tuple[int, list[Record]]


def _kept_before(tx: Tx, table: TableRow, round_id: int, kept: Kept | None) -> list[Record] | None:
    """`kept` when they are exactly the round's records committed before this transaction: of this round,
    ending right before what it appended (or at the chain's head, as the table's row stood when it
    began), their last hash the chain's head there. The chain's hashes make that the database's records:
    the step's check found the row's head the one it started from."""
    if kept is None or kept[0] != round_id or not kept[1]:
        return None
    first, mine = _appended(tx, table.id)
    start, head = (table.next_seq, table.head_hash) if first is None else (first, mine[0].prev)
    last = kept[1][-1]
    return kept[1] if last.seq + 1 == start and last.hash == head else None


def kept_hold(tx: Tx, table: TableRow, round_id: int, kept: Kept | None) -> bool:
    """Whether `round_records` takes the records the process kept (and reads none)."""
    return _kept_before(tx, table, round_id, kept) is not None


async def ahead_round(tx: Tx, table: TableRow, round_id: int, kept: Kept | None = None) -> None:
    """Send the read of `round_records` ahead (`Tx.ahead`): it asks only what was committed before this
    transaction, so it may go before the records this transaction holds back (with the step's check).
    Nothing is sent when the process kept them (`kept`)."""
    if _kept_before(tx, table, round_id, kept) is None:
        await tx.ahead(repo.RECORDS_OF_ROUND_BEFORE, _round_before(tx, table, round_id))


async def round_records(tx: Tx, table: TableRow, round_id: int, kept: Kept | None = None) -> list[Record]:
    """One round's records in seq order: those committed before this transaction, and those it appended,
    as it appended them (held back, or sent, but the same rows). The committed ones are read, unless the
    process kept them (`kept`, `_kept_before`): a round's records are tens of kilobytes, which
    PostgreSQL sends in several pieces, and the round's end waited a turn of the server's loop more for
    the last of them. Kept events are given as the database would give them (through their JSON)."""
    _, mine = _appended(tx, table.id)
    ours = [r for r in mine if r.round == str(round_id)]
    known = _kept_before(tx, table, round_id, kept)
    if known is not None:
        events = pydantic_core.from_json(dumps([r.event for r in known]))
        as_read = [
            Record(r.seq, r.round, e, r.prev, r.at, r.by, r.hash, r.sig)
            for r, e in zip(known, events, strict=True)
        ]
        await _still_as_kept(tx, table, round_id, as_read)
        return as_read + ours
    found = [
        Record(*row) for row in await tx.all(repo.RECORDS_OF_ROUND_BEFORE, _round_before(tx, table, round_id))
    ]
    check_round(table.id, found, ours[0] if ours else None)
    return found + ours


async def _still_as_kept(tx: Tx, table: TableRow, round_id: int, known: list[Record]) -> None:
    """server.md: a round's own records are verified again before it settles. The process settles from
    the records it kept (it wrote them, and their hashes and signatures are its own); the database's must
    still be exactly those. On PostgreSQL the comparison goes with the step's writes (`ROUND_INTACT`: a
    difference refuses the step, taken again from the database and checked there whole); on SQLite the
    records are read and compared here, and a difference is an IntegrityFailure at the first one."""
    where = _round_before(tx, table, round_id)
    if tx.postgres:
        kept = [
            {
                "seq": r.seq,
                "prev": r.prev,
                "at": r.at,
                "by": r.by,
                "hash": r.hash,
                "sig": r.sig,
                "event": r.event,
            }
            for r in known
        ]
        await tx.run(repo.ROUND_INTACT, {**where, "n": len(known), "kept": dumps(kept).decode()})
        return
    found = [Record(*row) for row in await tx.all(repo.RECORDS_OF_ROUND_BEFORE, where)]
    if found == known:
        return
    check_round(table.id, found)  # names the first record whose hash, link or signature fails
    bad = next((f.seq for f, k in zip(found, known, strict=False) if f != k), found[-1].seq if found else 0)
    raise IntegrityFailure(table.id, bad, f"record {bad} is not the one the server wrote")


async def load(tx: Tx, table_id: int, *, start: int = 0, round_id: int | None = None) -> list[Record]:
    """The table's records in seq order (from seq `start`, or those of one round), for its runtime."""
    if round_id is not None:
        found = await tx.all(repo.RECORDS_OF_ROUND, {"t": table_id, "r": round_id})
    else:
        found = await tx.all(repo.RECORDS_FROM, {"t": table_id, "s": start})
    return [Record(*row) for row in found]


async def records(
    db: AsyncSession, table_id: int, *, start: int = 0, round_id: int | None = None
) -> list[EventRecord]:
    """The table's records in seq order (from seq `start`, or those of one round), for the inspector's
    reads through the ORM."""
    query = select(EventRecord).where(EventRecord.table_id == table_id)
    if round_id is not None:
        query = query.where(EventRecord.round_no == round_id)
    elif start:
        query = query.where(EventRecord.seq >= start)
    result = await db.scalars(query.order_by(EventRecord.seq))
    return list(result)


def batch_of(table_id: int, seq: int, n: int) -> Select[Any]:
    """The select of up to `n` of a table's records from seq `seq`, with `Record`'s columns in its order
    (a chain checked a batch at a time: the inspector's verify, `tapete verify` offline)."""
    return (
        select(
            EventRecord.seq,
            EventRecord.round,
            EventRecord.event,
            EventRecord.prev,
            EventRecord.at,
            EventRecord.by,
            EventRecord.hash,
            EventRecord.sig,
        )
        .where(EventRecord.table_id == table_id, EventRecord.seq >= seq)
        .order_by(EventRecord.seq)
        .limit(n)
    )


@dataclass
class ChainReport:
    """A chain's check: ok, how many records, the first bad one and why."""

    ok: bool
    records: int
    first_bad: int | None = None
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        """server.md's verify answer."""
        if self.ok:
            return {"ok": True, "records": self.records}
        return {"ok": False, "first_bad": self.first_bad, "reason": self.reason, "records": self.records}


class IntegrityFailure(Exception):
    """A table's records failed their check (a hash, a link or a signature): the table is suspended
    (reason ``integrity``) and a significant event ``integrity_failure`` names the first bad record."""

    def __init__(self, table_id: int, seq: int, reason: str) -> None:
        super().__init__(reason)
        self.table_id, self.seq, self.reason = table_id, seq, reason


def record_fault(
    table_id: int, row: AnyRecord, prev: str, keys: signing.Keyring | None, unsigned_below: int = 0
) -> str:
    """Why `row` fails (its link to `prev`, its hash, its signature), or "" when it holds. Records below
    `unsigned_below` predate signatures (migration 0005): their hashes and links alone are checked."""
    if row.prev != prev:
        return f"record {row.seq} does not link to the previous record's hash"
    if record_digest(record_of(row)) != row.hash:
        return f"record {row.seq}'s hash does not match its content"
    if (
        keys is not None
        and row.seq >= unsigned_below
        and not keys.check(signing.record_message(table_id, row.seq, row.hash), row.sig)
    ):
        return f"record {row.seq}'s signature is not the casino's"
    return ""


def check_round(table_id: int, rows: Sequence[Record], following: Record | None = None) -> None:
    """A round's records as read from the database, checked again before the round settles: each one's
    hash, its link to the one before it, its signature (IntegrityFailure at the first bad one)."""
    keys = signing.trusted()
    prev = rows[0].prev if rows else ""
    for row in rows:
        fault = record_fault(table_id, row, prev, keys)
        if fault:
            raise IntegrityFailure(table_id, row.seq, fault)
        prev = row.hash
    if following is not None and rows and following.prev != prev:
        raise IntegrityFailure(table_id, following.seq, f"record {following.seq} does not link to its round")


def verify_records(
    rows: Iterable[AnyRecord],
    head: str | None = None,
    *,
    table_id: int | None = None,
    keys: signing.Keyring | None = None,
    unsigned_below: int = 0,
    start: int = 0,
    prev: str = GENESIS,
    legacy_hash: str | None = None,
) -> ChainReport:
    """Check every record's seq, link, hash and (with `keys`) signature, and that the chain ends at the
    table's `head`. `start`/`prev` begin the check above a checkpoint (the record at `start` - 1 hashed
    to `prev`). Records below `unsigned_below` need no signature (they predate signatures); the last of
    them must hash to `legacy_hash` (its signed legacy checkpoint's), so that they cannot be rewritten
    whole, hashes and all."""
    count = start
    for row in rows:
        if row.seq != count:
            return ChainReport(
                False, count, row.seq, f"record {row.seq} is out of sequence (expected {count})"
            )
        fault = record_fault(table_id or 0, row, prev, keys if table_id is not None else None, unsigned_below)
        if (
            not fault
            and legacy_hash is not None
            and row.seq == unsigned_below - 1
            and row.hash != legacy_hash
        ):
            fault = f"record {row.seq} is not the one its legacy checkpoint names"
        if fault:
            return ChainReport(False, count, row.seq, fault)
        prev = row.hash
        count += 1
    if head is not None and head != prev:
        return ChainReport(False, count, count, "the table's head does not match its last record")
    return ChainReport(True, count)
