"""The inspector's endpoints: a table's rounds and the recall of one, the chain's check and its log,
the report per table and period, the significant events (server.md, Inspector). The service is
`inspector`."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from fastapi.responses import PlainTextResponse, Response
from pydantic import BaseModel
from pydantic.json_schema import SkipJsonSchema
from sqlalchemy.ext.asyncio import AsyncSession

from tapete.errors import BadRequest
from tapete.server.errors import NotFound
from tapete.server.http import CasinoOf, FastJSON, Id, Since, Who
from tapete.server.inspection import inspector
from tapete.server.models import CasinoTable
from tapete.server.play import chain

router = APIRouter()


async def _table(db: AsyncSession, table_id: int) -> CasinoTable:
    table = await db.get(CasinoTable, table_id)
    if table is None:
        raise NotFound(f"no table {table_id}", key="err.api.no_table", table=table_id)
    return table


# -- the answers (their schemas in the OpenAPI document)
class RoundLine(BaseModel):
    """One of a table's rounds."""

    round: int
    status: str


class Rounds(BaseModel):
    """A table's rounds."""

    rounds: list[RoundLine]


class LedgerLine(BaseModel):
    """A ledger entry of a round."""

    id: int
    account: str
    amount: int


class Recall(BaseModel):
    """A round recalled: its cards in deal order, decisions with times, procedures, every ledger entry
    and its events."""

    round: int
    status: Literal["in_progress", "finished", "voided"]
    cards: list[Any]
    decisions: list[Any]
    ledger: list[LedgerLine]
    procedures: list[Any]
    events: list[Any]


class Verified(BaseModel):
    """A table's chain checked: whether it holds, how many records, the first bad one and why."""

    ok: bool
    records: int
    first_bad: int | SkipJsonSchema[None] = None
    reason: str | SkipJsonSchema[None] = None


class ReportLine(BaseModel):
    """A table's figures over the report's days."""

    table: int
    name: str
    game: str
    rounds: int
    drop: int
    win: int
    hold_percent: float | None


class Report(BaseModel):
    """Every table's figures."""

    tables: list[ReportLine]


@router.get("/api/tables/{table_id}/rounds", tags=["inspector"], responses={200: {"model": Rounds}})
async def get_rounds(casino: CasinoOf, table_id: Id, caller: Who) -> dict[str, Any]:
    """The table's rounds: number, status, times (inspector, admin)."""
    caller.need("inspector", "admin")
    async with casino.db() as db:
        await _table(db, table_id)
        return {"table": table_id, "rounds": await inspector.rounds(db, table_id)}


@router.get("/api/tables/{table_id}/rounds/{n}", tags=["inspector"], responses={200: {"model": Recall}})
async def get_round(casino: CasinoOf, table_id: Id, n: Id, caller: Who) -> dict[str, Any]:
    """Recall of a round: cards in deal order, decisions with times, procedures, every ledger entry."""
    caller.need("inspector", "admin")
    async with casino.db() as db:
        return await inspector.recall(db, await _table(db, table_id), n, role=caller.role)


@router.get("/api/tables/{table_id}/verify", tags=["inspector"], responses={200: {"model": Verified}})
async def get_verify(casino: CasinoOf, table_id: Id, caller: Who) -> dict[str, Any]:
    """Check the table's hash chain in the database; name the first bad record."""
    caller.need("inspector", "admin")
    async with casino.db() as db:
        return await inspector.verify(db, await _table(db, table_id))


@router.get("/api/tables/{table_id}/log", tags=["inspector"])
async def get_log(casino: CasinoOf, table_id: Id, caller: Who) -> PlainTextResponse:
    """The table's chain as JSON lines (what `tapete verify FILE` checks), for the inspector. The
    administrator's ends before the first record that names a card no round has shown yet: the round
    in progress, and a burn made for a round that has not ended (server.md: nobody but the inspector
    reads a card the table has not shown; a censored record would no longer hash, a prefix verifies)."""
    caller.need("inspector", "admin")

    async with casino.db() as db:
        table = await _table(db, table_id)
        rows = await chain.records(db, table_id)
        if caller.role != "inspector":
            rows = rows[: await inspector.shown_until(db, table, rows)]
        lines = [json.dumps(chain.record_of(r), ensure_ascii=False, sort_keys=True) for r in rows]
        return PlainTextResponse("\n".join(lines) + ("\n" if lines else ""), media_type="application/jsonl")


@router.get("/api/reports/tables", tags=["inspector"], responses={200: {"model": Report}})
async def get_report(
    casino: CasinoOf,
    caller: Who,
    from_: Annotated[str | None, Query(alias="from", json_schema_extra={"format": "date"})] = None,
    to: Annotated[str | None, Query(json_schema_extra={"format": "date"})] = None,
    format: Annotated[str, Query(json_schema_extra={"enum": ["json", "csv"]})] = "json",
) -> Response:
    """Per table and period: rounds, drop, win, hold % (JSON or CSV)."""
    caller.need("inspector", "admin")
    if format not in ("json", "csv"):
        raise BadRequest("format is json or csv", key="err.api.format")
    try:
        async with casino.db() as db:
            rows = await inspector.report(db, from_, to)
    except (ValueError, OverflowError):  # no such date, or the day after the last one there is
        raise BadRequest("from and to are ISO dates (YYYY-MM-DD)", key="err.api.dates") from None
    if format == "csv":
        return PlainTextResponse(inspector.report_csv(rows), media_type="text/csv")
    return FastJSON({"from": from_, "to": to, "tables": rows})


@router.get("/api/events", tags=["inspector"])
async def get_significant(
    casino: CasinoOf, caller: Who, since: Since | None = None, limit: int = 200
) -> dict[str, Any]:
    """The significant-event log (inspector, admin), oldest first: the `limit` events after `since`, or
    the newest `limit` when `since` is not given."""
    caller.need("inspector", "admin")
    async with casino.db() as db:
        return {"events": await inspector.significant(db, max(1, min(limit, 1000)), since, role=caller.role)}
