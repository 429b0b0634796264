"""What the inspector reads (and changes nothing): a table's rounds, the recall of any round (its cards in
deal order, every decision with its time and who took it, every bettor's stakes and payouts, balances
before and after, the ledger entries, the shoe's procedures), the chain's check, reports per period, the
significant-event log; and a player's recall of his own last rounds, censored for him."""

from __future__ import annotations

import csv
import io
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from tapete.games import round_class
from tapete.games.base import CARD, HIDDEN, Viewer, burn_face_down
from tapete.server import signing
from tapete.server.errors import NotFound
from tapete.server.inspection import checks, integrity
from tapete.server.models import (
    Account,
    CasinoTable,
    Checkpoint,
    EventRecord,
    LedgerEntry,
    RoundRow,
    SignificantEvent,
    User,
    iso,
)
from tapete.server.play import chain
from tapete.server.play.tables import SERVER_EVENTS, effective_events

DECISION_EVENTS = ("decision", "offer")
#: a live table's and a virtual shoe's procedures, as the inspector reads them
PROCEDURE_EVENTS = ("new_pack", "procedure", "cut_card_out", "shoe_recovered")


def round_json(row: RoundRow) -> dict[str, Any]:
    """A round as the table's list shows it: number, status, times."""
    return {
        "round": row.round_no,
        "status": row.status,
        "started_at": iso(row.started_at),
        "ended_at": iso(row.ended_at),
        "first_seq": row.first_seq,
        "last_seq": row.last_seq,
        **(
            {"void_requested_by": row.void_requested_by, "void_reason": row.void_reason}
            if row.void_reason
            else {}
        ),
    }


async def rounds(db: AsyncSession, table_id: int) -> list[dict[str, Any]]:
    """The table's rounds, newest last."""
    rows = await db.scalars(select(RoundRow).where(RoundRow.table_id == table_id).order_by(RoundRow.round_no))
    return [round_json(r) for r in rows]


def _entry_json(entry: LedgerEntry, account: str) -> dict[str, Any]:
    return {
        "id": entry.id,
        "txn": entry.txn,
        "account": account,
        "amount": entry.amount,
        "balance_after": entry.balance_after,
        "kind": entry.kind,
        "player": entry.player,
        "spot": entry.spot,
        "seq": entry.seq,
        "at": iso(entry.at),
        "by": entry.actor,
    }


def _as_seen(game: str, records: list[Any], viewer: Viewer) -> list[chain.Record]:
    """A round's records as `viewer` may see them now (the game's censor over the round as the engine
    plays it: without what a correction superseded): an event the viewer may not see is left out, a
    card he may not see yet is hidden. A dealer's correction and the mistyped card it superseded show
    what the card that replaced it shows: a hole card corrected stays hidden, and so does its typo."""
    fixes = [r for r in records if r.event.get("type") in SERVER_EVENTS]
    superseded = {seq for r in fixes for seq in r.event["supersedes"]}
    played = [r for r in records if r.seq not in superseded and r.event.get("type") not in SERVER_EVENTS]
    seen = round_class(game).censor([r.event for r in played], viewer)
    shown: dict[int, dict[str, Any]] = {}
    j = 0
    for r in played:  # the censor keeps the events' order and drops or trims them: matched by type
        if j < len(seen) and seen[j].get("type") == r.event.get("type"):
            shown[r.seq] = seen[j]
            j += 1
    hidden_fixes = _hidden_corrections(records, shown)
    out: list[chain.Record] = []
    for r in records:
        event: dict[str, Any] | None = shown.get(r.seq)
        if r.event.get("type") in SERVER_EVENTS:
            event = dict(r.event)
            if r.seq in hidden_fixes:
                event["was"] = event["now"] = HIDDEN
        elif r.seq in superseded and r.event.get("type") == CARD:
            event = dict(r.event)
            if r.seq in hidden_fixes:
                event["card"] = HIDDEN
        if event is not None:
            out.append(chain.Record(r.seq, r.round, event, r.prev, r.at, r.by, r.hash, r.sig))
    return out


def _hidden_corrections(records: list[Any], shown: dict[int, dict[str, Any]]) -> set[int]:
    """The corrections, and the cards they superseded, whose card the viewer may not read: those whose
    replacement (the first card recorded after the correction) is hidden from him, or superseded again."""
    out: set[int] = set()
    for i, r in enumerate(records):
        if r.event.get("type") not in SERVER_EVENTS:
            continue
        after = next((later for later in records[i + 1 :] if later.event.get("type") == CARD), None)
        visible = after is not None and shown.get(after.seq, {}).get("card", HIDDEN) != HIDDEN
        if not visible:
            out.add(r.seq)
            out.update(r.event["supersedes"])
    return out


def _burns_hidden(records: list[Any]) -> list[chain.Record]:
    """Procedure records with their burned cards face down (the engine's `burn_face_down`): what anyone but
    the inspector reads of a shoe's burn while the round it prepares is in progress."""
    return [
        chain.Record(r.seq, r.round, burn_face_down(r.event), r.prev, r.at, r.by, r.hash, r.sig)
        for r in records
    ]


async def shown_until(db: AsyncSession, table: CasinoTable, rows: list[Any]) -> int:
    """How many of a table's records (in order) name no card that anyone but the inspector may not read
    yet: they end before the round in progress, and before a burn of real cards made after the last
    round that ended (it prepares a round not ended yet)."""
    ended = await db.scalar(
        select(func.max(RoundRow.last_seq)).where(
            RoundRow.table_id == table.id, RoundRow.status != "in_progress"
        )
    )
    playing = str(table.round_no) if table.in_round else None
    for i, r in enumerate(rows):
        if r.round == playing:
            return i
        burned = r.event.get("cards") if r.event.get("type") == "procedure" else None
        after_ended = r.seq > (ended if ended is not None else -1)
        if after_ended and isinstance(burned, list) and any(card != HIDDEN for card in burned):
            return i
    return len(rows)


async def recall(db: AsyncSession, table: CasinoTable, round_no: int, *, role: str) -> dict[str, Any]:
    """server.md's recall of round `round_no` (NotFound for a round the table never played). While the
    round is in progress, only the inspector reads a card the table has not shown: anyone else (`role`:
    the administrator) reads the round as the dealer sees it (no hole card, no burned card, no card a
    correction replaced face down); the whole round once it has ended. `role` has no default: every
    caller says whose recall it is."""
    row = await db.scalar(
        select(RoundRow).where(RoundRow.table_id == table.id, RoundRow.round_no == round_no)
    )
    if row is None:
        raise NotFound(
            f"table {table.id} has no round {round_no}", key="err.api.no_round_number", round=round_no
        )
    records: list[Any] = await chain.records(db, table.id, round_id=round_no)
    censored = row.status == "in_progress" and role != "inspector"
    if censored:
        records = _as_seen(table.game, records, Viewer("dealer"))
    # The round's procedures: those since the round before it ended (labelled shoe-{n-1}: between the
    # rounds, and the deal's reshuffle) and those of its own time (shoe-{n} up to its last record: a cut
    # card signalled or come out in it); shoe-{n} after its end prepares the next round, and is its.
    before = await db.scalar(
        select(RoundRow.last_seq).where(RoundRow.table_id == table.id, RoundRow.round_no == round_no - 1)
    )
    shoe_rows = await db.scalars(
        select(EventRecord)
        .where(
            EventRecord.table_id == table.id,
            (
                (EventRecord.round == f"shoe-{round_no - 1}")
                & (EventRecord.seq > (-1 if before is None else before))
            )
            | (
                (EventRecord.round == f"shoe-{round_no}")
                & (EventRecord.seq <= (row.last_seq if row.status != "in_progress" else table.next_seq))
            ),
        )
        .order_by(EventRecord.seq)
    )
    superseded: set[int] = set()
    for r in records:
        if r.event.get("type") == "correction":
            superseded.update(r.event.get("supersedes", []))
    cards, decisions, corrections = [], [], []
    for r in records:
        ev = r.event
        if ev.get("type") == CARD:
            cards.append(
                {
                    **{k: v for k, v in ev.items() if k != "type"},
                    "seq": r.seq,
                    "at": r.at,
                    "by": r.by,
                    **({"superseded": True} if r.seq in superseded else {}),
                }
            )
        elif ev.get("type") in DECISION_EVENTS and r.seq not in superseded:
            decisions.append(_recorded(ev, r))
        elif ev.get("type") in SERVER_EVENTS:
            corrections.append(_recorded(ev, r))
    shoe_records: list[Any] = [r for r in shoe_rows if r.event.get("type") in PROCEDURE_EVENTS]
    if censored:
        shoe_records = _burns_hidden(shoe_records)
    procedures = [{**_recorded(r.event, r), "round": r.round} for r in shoe_records]
    entries = await db.execute(
        select(LedgerEntry, Account.name)
        .join(Account, Account.id == LedgerEntry.account_id)
        .where(LedgerEntry.table_id == table.id, LedgerEntry.round_no == round_no)
        .order_by(LedgerEntry.id)
    )
    ledger = [_entry_json(e, name) for e, name in entries.all()]
    balances: dict[str, dict[str, int]] = {}
    for entry in ledger:
        if not entry["account"].startswith("wallet:"):
            continue
        player = entry["account"].removeprefix("wallet:")
        mine = balances.setdefault(player, {"before": entry["balance_after"] - entry["amount"], "after": 0})
        mine["after"] = entry["balance_after"]
    events = effective_events(records)
    bettors: dict[str, dict[str, Any]] = {}
    for ev in events:
        if ev.get("type") == "stake":
            b = bettors.setdefault(ev["player"], {"stakes": [], "payouts": []})
            b["stakes"].append(
                {k: ev[k] for k in ("seat", "spot", "amount") if k in ev}
                | ({"hand": ev["hand"]} if "hand" in ev else {})
            )
        elif ev.get("type") == "settle":
            b = bettors.setdefault(ev["player"], {"stakes": [], "payouts": []})
            b["payouts"].append({k: v for k, v in ev.items() if k not in ("type", "player")})
        elif ev.get("type") == "round_settled":
            for player, totals in ev["players"].items():
                bettors.setdefault(player, {"stakes": [], "payouts": []})["totals"] = totals
    return {
        "table": table.id,
        "game": table.game,
        **round_json(row),
        "cards": cards,
        "decisions": decisions,
        "corrections": corrections,
        "bettors": bettors,
        "balances": balances,
        "ledger": ledger,
        "procedures": procedures,
        "events": [_recorded(r.event, r) for r in records],
        **_void_confirmed(records),
    }


def _void_confirmed(records: Any) -> dict[str, Any]:
    """Who confirmed a voided round's void (the author of its round_voided record), beside who asked
    for it and why (`round_json`)."""
    for r in records:
        if r.event.get("type") == "round_voided":
            return {"void_confirmed_by": r.by}
    return {}


def _recorded(event: dict[str, Any], r: Any) -> dict[str, Any]:
    """An event with its record's number, time and author. An event's own `at` or `by` (the cut's
    position in the pack, the cut card's "dealer") is kept beside them as `event_at` / `event_by`
    instead of being overwritten by the record's."""
    out = {**event, "seq": r.seq, "at": r.at, "by": r.by}
    for key in ("at", "by"):
        if key in event:
            out["event_" + key] = event[key]
    return out


async def player_rounds(db: AsyncSession, user: User, limit: int = 10) -> list[dict[str, Any]]:
    """A player's own last rounds (every table), with only what he was allowed to see of them."""
    played = await db.execute(
        select(LedgerEntry.table_id, LedgerEntry.round_no, func.max(LedgerEntry.id).label("last"))
        .where(
            LedgerEntry.player == user.name, LedgerEntry.kind == "stake", LedgerEntry.round_no.is_not(None)
        )
        .group_by(LedgerEntry.table_id, LedgerEntry.round_no)
        .order_by(func.max(LedgerEntry.id).desc())
        .limit(limit)
    )
    out = []
    viewer = Viewer("player", user.name)
    for table_id, round_no, _ in played.all():
        if table_id is None or round_no is None:
            continue
        table = await db.get(CasinoTable, table_id)
        row = await db.scalar(
            select(RoundRow).where(RoundRow.table_id == table_id, RoundRow.round_no == round_no)
        )
        if table is None or row is None:
            continue
        events = effective_events(await chain.records(db, table_id, round_id=round_no))
        censored = round_class(table.game).censor(events, viewer) if row.status != "in_progress" else []
        closing = next((e for e in reversed(events) if e.get("type") == "round_settled"), None)
        out.append(
            {
                "table": table_id,
                "name": table.name,
                "game": table.game,
                **round_json(row),
                "result": closing["players"].get(user.name) if closing else None,
                "events": censored,
            }
        )
    return out


async def verify(db: AsyncSession, table: CasinoTable) -> dict[str, Any]:
    """server.md's verify: ``{"ok": true, "records": N}`` or ``{"ok": false, "first_bad": K, "reason"}``,
    from the first record: each record's seq, hash, link to the one before it, and signature by the
    casino's key (read a batch at a time)."""

    async def fetch(seq: int, n: int) -> list[chain.AnyRecord]:
        found = await db.execute(chain.batch_of(table.id, seq, n))
        return [chain.Record(*row) for row in found.all()]

    start = integrity.Start.legacy(await legacy_mark(db, table.id))
    return (await integrity.check_chain(fetch, table.id, table.head_hash, start)).to_json()


async def legacy_mark(db: AsyncSession, table_id: int) -> tuple[int, str] | None:
    """A table's signed ``legacy`` checkpoint (seq, hash): its records up to there predate signatures
    (migration 0005), and the last of them hashes to it (`checks.legacy_mark`)."""
    marks = await db.execute(
        select(Checkpoint.kind, Checkpoint.seq, Checkpoint.hash, Checkpoint.sig).where(
            Checkpoint.kind == "legacy", Checkpoint.table_id == table_id
        )
    )
    return checks.legacy_mark(marks.all(), signing.trusted(), "legacy", table_id)


def _day(text: str | None, *, end: bool) -> datetime | None:
    if not text:
        return None
    day = date.fromisoformat(text)
    moment = datetime.combine(day, time.min, tzinfo=UTC)
    return moment + timedelta(days=1) if end else moment


async def report(db: AsyncSession, start: str | None, end: str | None) -> list[dict[str, Any]]:
    """Per table over the period (`start`..`end`, ISO dates, both optional and inclusive): rounds played,
    the drop (what bettors staked), the house's win and the hold (win / drop, %). Finished rounds only: a
    round in play has no result yet, and a voided one returned every stake (nothing was played)."""
    lo, hi = _day(start, end=False), _day(end, end=True)
    tables = list(await db.scalars(select(CasinoTable).order_by(CasinoTable.id)))
    out = []
    for table in tables:
        query = select(RoundRow).where(RoundRow.table_id == table.id, RoundRow.status == "finished")
        if lo is not None:
            query = query.where(RoundRow.ended_at >= lo)
        if hi is not None:
            query = query.where(RoundRow.ended_at < hi)
        numbers = [r.round_no for r in await db.scalars(query)]
        drop = win = 0
        if numbers:
            entries = await db.execute(
                select(LedgerEntry.kind, Account.kind, func.sum(LedgerEntry.amount))
                .join(Account, Account.id == LedgerEntry.account_id)
                .where(LedgerEntry.table_id == table.id, LedgerEntry.round_no.in_(numbers))
                .group_by(LedgerEntry.kind, Account.kind)
            )
            for entry_kind, account_kind, total in entries.all():
                if entry_kind == "stake" and account_kind == "table":
                    drop += int(total or 0)
                if account_kind == "house":
                    win += int(total or 0)
        out.append(
            {
                "table": table.id,
                "name": table.name,
                "game": table.game,
                "rounds": len(numbers),
                "drop": drop,
                "win": win,
                "hold_percent": round(100 * win / drop, 4) if drop else 0.0,
            }
        )
    return out


REPORT_COLUMNS = ("table", "name", "game", "rounds", "drop", "win", "hold_percent")


def report_csv(rows: list[dict[str, Any]]) -> str:
    """The report as CSV, with the JSON's columns."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=REPORT_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: row[k] for k in REPORT_COLUMNS})
    return buf.getvalue()


async def significant(
    db: AsyncSession, limit: int = 200, since_id: int | None = None, *, role: str
) -> list[dict[str, Any]]:
    """The significant-event log, oldest first: the `limit` events after `since_id` (a client pages on
    from the last id it read), or, with no `since_id`, the newest `limit`. While a round is in
    progress, a correction in it names its cards to the inspector only (server.md: nobody else reads a
    card the table has not shown; the recall shows them once the round has ended)."""
    query = select(SignificantEvent)
    if since_id is None:
        found = list(await db.scalars(query.order_by(SignificantEvent.id.desc()).limit(limit)))[::-1]
    else:
        query = query.where(SignificantEvent.id > since_id)
        found = list(await db.scalars(query.order_by(SignificantEvent.id).limit(limit)))
    playing: set[tuple[int, int]] = set()
    if role != "inspector" and any(r.kind == "correction" for r in found):
        rows = await db.execute(
            select(RoundRow.table_id, RoundRow.round_no).where(RoundRow.status == "in_progress")
        )
        playing = {(t, n) for t, n in rows.all()}
    out = []
    for r in found:
        details = r.details
        in_play = isinstance(details, dict) and (r.table_id, details.get("round")) in playing
        if r.kind == "correction" and in_play:
            details = {**details, "was": HIDDEN, "now": HIDDEN}
        out.append(
            {
                "id": r.id,
                "at": iso(r.at),
                "kind": r.kind,
                "actor": r.actor,
                "table": r.table_id,
                "details": details,
            }
        )
    return out
