"""Each table's hash chain in the database: records ``{"seq", "round", "event", "prev", "at", "by",
"hash"}`` (the file log's record, plus when and by whom), appended under the table's row lock, the pair
(table, seq) unique. `verify_records` checks a chain the way `tapete verify` checks a file."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import Table, insert, select
from sqlalchemy.ext.asyncio import AsyncSession

from tapete.games.base import Event
from tapete.log import GENESIS, canonical
from tapete.server.models import CasinoTable, EventRecord, utcnow

#: the records' table, for a Core insert (the ORM's bulk insert machinery costs more per step)
EVENTS = cast(Table, EventRecord.__table__)


def record_of(row: EventRecord) -> dict[str, Any]:
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
    db: AsyncSession,
    table: CasinoTable,
    round_id: int | str,
    events: Sequence[Event],
    by: str | None,
) -> list[EventRecord]:
    """Chain `events` of round `round_id` onto the table's chain (its row must be locked by the caller's
    transaction); the table's next seq and head move with them."""
    rows: list[EventRecord] = []
    values: list[dict[str, Any]] = []
    at = utcnow().isoformat().replace("+00:00", "Z")
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
        value = {
            "table_id": table.id,
            "seq": table.next_seq,
            "round": str(round_id),
            "round_no": round_id if isinstance(round_id, int) else None,
            "event": event,
            "prev": table.head_hash,
            "at": at,
            "by": by,
            "hash": digest,
        }
        values.append(value)
        rows.append(EventRecord(**value))  # what was written, for the caller (not in the session)
        table.next_seq += 1
        table.head_hash = digest
    if values:  # one statement for the step's records; the table's row is written once, at the commit
        with db.no_autoflush:
            await db.execute(insert(EVENTS), values)
    return rows


async def records(
    db: AsyncSession, table_id: int, *, start: int = 0, round_id: int | None = None
) -> list[EventRecord]:
    """The table's records in seq order (from seq `start`, or those of one round)."""
    query = select(EventRecord).where(EventRecord.table_id == table_id)
    if round_id is not None:
        query = query.where(EventRecord.round_no == round_id)
    elif start:
        query = query.where(EventRecord.seq >= start)
    result = await db.scalars(query.order_by(EventRecord.seq))
    return list(result)


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


def verify_records(rows: Iterable[EventRecord], head: str | None = None) -> ChainReport:
    """Check every record's seq, link and hash, and that the chain ends at the table's `head`."""
    prev = GENESIS
    count = 0
    for row in rows:
        record = record_of(row)
        if row.seq != count:
            return ChainReport(
                False, count, row.seq, f"record {row.seq} is out of sequence (expected {count})"
            )
        if row.prev != prev:
            return ChainReport(
                False, count, row.seq, f"record {row.seq} does not link to the previous record's hash"
            )
        if record_digest(record) != row.hash:
            return ChainReport(False, count, row.seq, f"record {row.seq}'s hash does not match its content")
        prev = row.hash
        count += 1
    if head is not None and head != prev:
        return ChainReport(False, count, count, "the table's head does not match its last record")
    return ChainReport(True, count)
