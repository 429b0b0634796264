"""The cashier's endpoints: chips for a player's cash and back (server.md, Cashier), a player's balance
and movements, every player's balance. The service is `ledger`; its SQL is here and in `ledger`."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import Response
from pydantic import BaseModel, StrictStr

from tapete.errors import BadRequest
from tapete.server.app import Casino
from tapete.server.cashier import ledger
from tapete.server.cashier import repository as repo
from tapete.server.errors import NotFound
from tapete.server.http import Body, CashierAmount, CasinoOf, IdemKey, PathName, Who, run_change, text
from tapete.server.idempotency import Idem
from tapete.server.people.accounts import Caller
from tapete.server.play import tables
from tapete.server.sql import Tx

router = APIRouter()


class CashierBody(Body):
    player: StrictStr = text()
    amount: CashierAmount


async def _cashier(
    casino: Casino, caller: Caller, idem: Idem | None, body: CashierBody, out: bool
) -> Response:
    caller.need("cashier", "admin")
    if body.amount < 1:
        raise BadRequest("an amount is a positive whole number of money units", key="err.api.amount")

    async def run(tx: Tx) -> dict[str, Any]:
        found = await tx.one(repo.PLAYER, {"name": body.player})
        if found is None:
            raise NotFound(f"no player {body.player}", key="err.api.no_player", name=body.player)
        player = ledger.Player(*found)
        if not out:  # chips for a player on the register, or excluded by himself: refused
            await casino.protection.check_buy_in(tx, player.id)
        balance = await ledger.cashier(tx, player, body.amount, out=out, actor=caller.name)
        await tables.note(
            tx,
            "cash_out" if out else "buy_in",
            actor=caller.name,
            details={"player": player.name, "amount": body.amount, "balance": balance},
        )
        return {"player": player.name, "balance": balance}

    return await run_change(casino, caller, idem, run)


class Balance(BaseModel):
    """A cashier's operation done: the player and his balance after it."""

    player: str
    balance: int


@router.post("/api/cashier/buy-in", tags=["cashier"], responses={200: {"model": Balance}})
async def post_buy_in(casino: CasinoOf, body: CashierBody, caller: Who, idem: IdemKey) -> Response:
    """Chips for a player's cash (cashier, admin)."""
    return await _cashier(casino, caller, idem, body, out=False)


@router.post("/api/cashier/cash-out", tags=["cashier"], responses={200: {"model": Balance}})
async def post_cash_out(casino: CasinoOf, body: CashierBody, caller: Who, idem: IdemKey) -> Response:
    """A player's chips back to cash (never the chips on his bets)."""
    return await _cashier(casino, caller, idem, body, out=True)


@router.get("/api/cashier/players/{name}", tags=["cashier"])
async def get_player(casino: CasinoOf, name: PathName, caller: Who) -> dict[str, Any]:
    """A player's balance and his recent movements (cashier, admin, inspector)."""
    caller.need("cashier", "admin", "inspector")
    async with casino.store.transaction(write=False, snapshot=True) as tx:
        found = await tx.one(repo.PLAYER, {"name": name})
        if found is None:
            raise NotFound(f"no player {name}", key="err.api.no_player", name=name)
        player = ledger.Player(*found)
        balance, free = await ledger.available(tx, player)
        rows = await tx.all(repo.MOVEMENTS, {"name": f"wallet:{player.name}"})
    moves = [
        {
            "id": entry_id,
            "kind": kind,
            "amount": amount,
            "balance_after": after,
            "table": table,
            "round": round_no,
            "at": at.isoformat().replace("+00:00", "Z"),
        }
        for entry_id, kind, amount, after, table, round_no, at in rows
    ]
    return {"player": player.name, "balance": balance, "available": free, "movements": moves}


@router.get("/api/players", tags=["cashier"])
async def get_players(casino: CasinoOf, caller: Who) -> dict[str, Any]:
    """Every player with his balance (cashier, admin, inspector)."""
    caller.need("cashier", "admin", "inspector")
    async with casino.store.transaction(write=False) as tx:
        rows = await tx.all(repo.PLAYERS)
    return {"players": [{"name": name, "balance": int(balance)} for name, balance in rows]}
