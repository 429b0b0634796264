"""The player's bet controls beside server.md's bets: take back the last chip he placed for the next
round (the page's *Deshacer / Undo*), before the deal, and nothing else. Repeating the last round's bets
and doubling those on the felt are ordinary bets (`POST /api/tables/{id}/bets`), checked as every bet."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Request
from fastapi import Path as InPath
from pydantic import BaseModel

from tapete.server.errors import Conflict
from tapete.server.http import CasinoOf, who
from tapete.server.play import repository as repo
from tapete.server.play.tables import TableRow, TableRuntime
from tapete.server.sql import Tx


class TakenBack(BaseModel):
    """The bet taken back: its seat, spot and amount."""

    table: int
    seat: int
    spot: str
    amount: int


router = APIRouter()


@router.delete("/api/tables/{table_id}/bets/last", tags=["play"])
async def delete_last_bet(
    casino: CasinoOf, table_id: Annotated[int, InPath(ge=0, le=2**31 - 1)], request: Request
) -> TakenBack:
    """Take back the last bet the caller placed for the next round (before the deal; players)."""
    caller = await who(request)
    caller.need("player")

    async def run(tx: Tx, table: TableRow, rt: TableRuntime) -> TakenBack:
        if table.in_round:
            raise Conflict(
                "bets are taken back before the deal", key="err.api.not_betting", round=table.round_no
            )
        row = await tx.one(repo.LAST_BET, {"t": table.id, "user": caller.user_id})
        if row is None:
            raise Conflict("you have no bet on this table to take back", key="err.api.no_bet_to_undo")
        bet_id, seat, spot, amount = row
        await tx.run(repo.DROP_BET, {"id": bet_id})
        if table.deadline_kind == "betting":
            table.deadline_version = None  # the countdown runs from the first bet still on the table
        return TakenBack(table=table.id, seat=int(seat), spot=str(spot), amount=int(amount))

    taken: TakenBack = await casino.mutate(table_id, run)
    return taken
