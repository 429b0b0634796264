"""Punto y Banca's scoreboard (the bead plate and big road a live-casino table shows) and the cards left
in the shoe, for the player's page: every coup of the shoe in play since its shuffle, as the table's
records hold them, so a page that reloads draws the same scoreboard again. Results are public at a
table (the outcome events every viewer sees); the shoe's count is a number, never a card."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from fastapi import APIRouter, Request
from fastapi import Path as InPath
from pydantic import BaseModel

from tapete.rules import load_rules
from tapete.server.errors import NotFound
from tapete.server.http import CasinoOf, who
from tapete.server.play import chain
from tapete.server.play import repository as repo
from tapete.server.play.chain import AnyRecord
from tapete.server.play.tables import SERVER_KEYS, cards_out, row_of
from tapete.server.sql import Tx

#: what starts a new shoe in a table's records: new decks, a deck change, a shuffle
_SHOE_START = ("new_pack", "deck_change")


class Coup(BaseModel):
    """One coup of the shoe: its round, who won it and the two totals."""

    round: int
    result: str
    punto: int
    banca: int


class Scoreboard(BaseModel):
    """The shoe's coups in the order they were played, and the cards still in the shoe."""

    table: int
    game: str
    coups: list[Coup]
    cards_left: int | None
    pack: int | None


def shoe_start(rows: Sequence[AnyRecord]) -> int:
    """The first record of the shoe in play: after the last new pack, deck change or shuffle."""
    start = 0
    for row in rows:
        ev = row.event
        if ev.get("type") in _SHOE_START or (ev.get("type") == "procedure" and ev.get("step") == "shuffle"):
            start = row.seq + 1
    return start


def coups_of(rows: Sequence[AnyRecord]) -> list[Coup]:
    """Each finished coup among the records (a voided round has no result, and is not on the board)."""
    voided = {row.round for row in rows if row.event.get("type") == "round_voided"}
    out: list[Coup] = []
    for row in rows:
        ev = row.event
        if ev.get("type") == "outcome" and row.round not in voided and str(row.round).isdigit():
            out.append(
                Coup(round=int(row.round), result=str(ev["winner"]), punto=ev["punto"], banca=ev["banca"])
            )
    return out


async def scoreboard(tx: Tx, table_id: int) -> Scoreboard:
    """The scoreboard of a table's shoe in play (no coups and no count at a game without a shoe board)."""
    found = await tx.one(repo.TABLE, {"id": table_id})
    if found is None:
        raise NotFound(f"no table {table_id}", key="err.api.no_table", table=table_id)
    table = row_of(found)
    if table.game != "punto_y_banca":
        return Scoreboard(table=table.id, game=table.game, coups=[], cards_left=None, pack=None)
    rules = load_rules(table.game, {k: v for k, v in table.rules.items() if k not in SERVER_KEYS})
    start = 0
    if table.mode == "virtual":
        sealed = await tx.one(repo.LAST_SHOE, {"t": table.id})
        start = int(sealed.from_seq) if sealed is not None else table.next_seq
        rows = await chain.load(tx, table.id, start=start)
    else:
        every = await chain.load(tx, table.id)
        start = shoe_start(every)
        rows = [r for r in every if r.seq >= start]
    pack = 52 * rules.decks
    return Scoreboard(
        table=table.id,
        game=table.game,
        coups=coups_of(rows),
        cards_left=max(0, pack - len(cards_out(rows))),
        pack=pack,
    )


router = APIRouter()


@router.get("/api/tables/{table_id}/scoreboard", tags=["page"])
async def get_scoreboard(
    casino: CasinoOf, table_id: Annotated[int, InPath(ge=0, le=2**31 - 1)], request: Request
) -> Scoreboard:
    """Punto y Banca: every coup of the shoe in play since its shuffle (round, result, totals) and the
    cards left in the shoe; other games: none."""
    await who(request)
    async with casino.store.transaction(write=False, snapshot=True) as tx:
        return await scoreboard(tx, table_id)
