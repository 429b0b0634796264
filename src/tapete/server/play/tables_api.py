"""The tables' endpoints: opening and changing a table, its state, and every step of play (server.md,
Tables; Bets, back-bets and the round; Live tables). Thin: each checks who calls and hands the step to
`Casino.mutate` with the service's function (`tables`); the hottest steps (`lanes`) are also taken by
`api.StepRoute`, with the same body model and handler."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Literal

from fastapi import APIRouter
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr
from pydantic.json_schema import SkipJsonSchema

from tapete.errors import BadRequest
from tapete.games import GAMES
from tapete.server.app import Casino
from tapete.server.errors import Conflict, NotFound
from tapete.server.http import (
    NO_NUL,
    NOT_BLANK,
    SETTING,
    Body,
    BodyAmount,
    BodyInt,
    CasinoOf,
    FastJSON,
    Handler,
    Id,
    IdemKey,
    Lane,
    Text,
    Who,
    run_step,
    text,
)
from tapete.server.idempotency import Idem
from tapete.server.inspection import integrity
from tapete.server.people.accounts import Caller
from tapete.server.play import repository as repo
from tapete.server.play import state, tables
from tapete.server.play.tables import LIVE_PROCEDURES, TableRow, TableRuntime
from tapete.server.sql import Tx

router = APIRouter()
#: the table steps `api.StepRoute` takes, by the last part of their path
lanes: dict[str, Lane] = {}


def lane(step: str, model: type[Body] | None) -> Callable[[Handler], Handler]:
    """Register `handler` as the step `step`'s, whose body parses as `model`."""

    def register(handler: Handler) -> Handler:
        lanes[step] = Lane(model, handler)
        return handler

    return register


class TableBody(Body):
    game: StrictStr = text(enum=list(GAMES))
    name: StrictStr = text(pattern=NOT_BLANK, minLength=1, maxLength=80)
    mode: StrictStr = Field("virtual", json_schema_extra={"enum": ["virtual", "live"]})
    rules: dict[str, Any] = Field(
        default_factory=dict,
        description="scenario.md's keys, turn_seconds, betting_seconds",
        json_schema_extra={"propertyNames": {"pattern": NO_NUL}, "additionalProperties": SETTING},
    )


class TableChange(Body):
    status: StrictStr = Field(
        description="open | suspended | closed", json_schema_extra={"enum": ["open", "suspended", "closed"]}
    )
    reason: StrictStr = text(pattern=NOT_BLANK)


class SeatBody(Body):
    seat: BodyInt


class BetBody(Body):
    seat: BodyInt
    spot: StrictStr = text()
    amount: BodyAmount


class AnswerBody(Body):
    accept: StrictBool


class ActionBody(Body):
    seat: BodyInt
    action: StrictStr = text()
    hand: BodyInt | None = None
    amount: BodyAmount | None = None
    cards: list[Text] | None = None


class CardBody(Body):
    card: StrictStr = text()
    exposed: StrictBool = False


class ProcedureBody(Body):
    #: a deck change says its reason (tables.procedure)
    model_config = ConfigDict(
        extra="ignore",
        json_schema_extra={
            "if": {"properties": {"type": {"const": "deck_change"}}, "required": ["type"]},
            "then": {
                "required": ["reason"],
                "properties": {"reason": {"type": "string", "pattern": NOT_BLANK}},
            },
        },
    )

    type: StrictStr = Field(
        description="new_pack | inspect | show | turn | mix | shuffle | cut | load | burn | deck_change"
        " | cut_card",
        json_schema_extra={"enum": list(LIVE_PROCEDURES)},
    )
    reason: StrictStr | None = Field(None, json_schema_extra={"pattern": NO_NUL, "maxLength": 500})
    cards: list[Text] | None = Field(None, description="burn: the burned cards; inspect: the pack as read")
    result: StrictStr | None = Field(
        None, description="inspect: complete | rejected", json_schema_extra={"enum": ["complete", "rejected"]}
    )
    jokers_removed: BodyInt | None = Field(None, description="inspect: the jokers taken out and counted")
    by: StrictStr | None = Field(
        None,
        description='cut: "dealer" or a player seated at the table',
        json_schema_extra={"pattern": NO_NUL},
    )
    cut_card_depth: BodyInt | None = Field(
        None, description="cut: cards behind the cut card, 40 to half the pack"
    )
    request: BodyInt | None = Field(None, description="deck_change: the deck-change request it answers")


class CorrectionBody(Body):
    card: StrictStr = text()
    reason: StrictStr = text(pattern=NOT_BLANK)


class VoidBody(Body):
    reason: StrictStr = text(pattern=NOT_BLANK)


# -- the answers (their schemas in the OpenAPI document; the answers themselves are made by the steps)
class SeatTaken(BaseModel):
    """A taken box and its holder."""

    seat: int
    holder: str


class Table(BaseModel):
    """A table: its game, mode, settings and taken boxes."""

    id: int
    name: str
    game: Literal["blackjack", "punto_y_banca", "showdown_poker", "majestic_21"]
    mode: Literal["virtual", "live"]
    rules: dict[str, Any]
    status: str | SkipJsonSchema[None] = None
    seats_taken: list[SeatTaken]


class Tables(BaseModel):
    """Every table."""

    tables: list[Table]


class StateTable(BaseModel):
    """The table a state is of."""

    id: int
    game: str
    mode: str
    rules: dict[str, Any]


class Pending(BaseModel):
    """What the table waits for: ``{kind: card}`` at a live table, or ``{kind: decision, seat, hand,
    legal, max_amount?, deadline?}``."""

    model_config = ConfigDict(extra="allow")

    kind: Literal["card", "decision"]


class State(BaseModel):
    """The caller's view of a table (server.md): never a card the table has not shown him."""

    table: StateTable
    phase: Literal["betting", "playing"]
    round: int | None
    pending: Pending | None = Field(description="what the table waits for; null between rounds")
    view: dict[str, Any] = Field(description="the engine's view for this caller")
    seats: list[dict[str, Any]]
    seq: int = Field(description="the table's version: every change moves it")


class BetPlaced(BaseModel):
    """A bet placed on the caller's own box."""

    status: Literal["placed"]
    seat: int | SkipJsonSchema[None] = None
    spot: str | SkipJsonSchema[None] = None
    amount: int | SkipJsonSchema[None] = None


class BetWaiting(BaseModel):
    """A back-bet request: it waits for the box's holder."""

    request: int
    status: Literal["waiting"]


#: the answer of a step that moves a table: the caller's state after it
STATE_ANSWER: dict[int | str, dict[str, Any]] = {200: {"model": State}}


@router.post("/api/tables", tags=["tables"], status_code=201, responses={201: {"model": Table}})
async def post_table(casino: CasinoOf, body: TableBody, caller: Who) -> Response:
    """Open a table from a game, a mode and its settings, checked by the engine's rules (admin)."""
    caller.need("admin")

    async def run(tx: Tx) -> dict[str, Any]:
        table = await tables.open_table(
            tx, caller.name, body.name, body.game, body.mode, body.rules, casino.key
        )
        return tables.table_json(table, [])

    return FastJSON(await casino.run_tx(run), status_code=201)


@router.get("/api/tables", tags=["tables"], responses={200: {"model": Tables}})
async def get_tables(casino: CasinoOf, caller: Who) -> dict[str, Any]:
    """Every table with its game, mode, rules and seats taken."""
    async with casino.store.transaction(write=False, snapshot=True) as tx:
        rows = [tables.row_of(found) for found in await tx.all(repo.ALL_TABLES)]
        return {"tables": [tables.table_json(t, await tables.seats_of(tx, t.id)) for t in rows]}


@router.get("/api/tables/{table_id}", tags=["tables"], responses={200: {"model": Table}})
async def get_table(casino: CasinoOf, table_id: Id, caller: Who) -> dict[str, Any]:
    """One table."""
    async with casino.store.transaction(write=False, snapshot=True) as tx:
        found = await tx.one(repo.TABLE, {"id": table_id})
        if found is None:
            raise NotFound(f"no table {table_id}", key="err.api.no_table", table=table_id)
        return tables.table_json(tables.row_of(found), await tables.seats_of(tx, table_id))


@router.patch("/api/tables/{table_id}", tags=["tables"])
async def patch_table(casino: CasinoOf, table_id: Id, body: TableChange, caller: Who) -> dict[str, Any]:
    """Suspend, reopen (after a failed chain check too) or close a table, with a reason (admin)."""
    caller.need("admin")
    if body.status not in ("open", "suspended", "closed") or not body.reason.strip():
        raise BadRequest("status is open, suspended or closed, with a reason", key="err.api.table_change")

    async def run(tx: Tx, table: TableRow, rt: TableRuntime) -> dict[str, Any]:
        if body.status == "closed" and table.in_round:
            raise Conflict("a table is closed between rounds", key="err.api.close_in_round")
        before, was = table.status, table.status_reason
        table.status = body.status
        table.status_reason = body.reason
        if before == "suspended" and was == integrity.REASON and body.status == "open":
            await integrity.accept(tx, table, caller.name, body.reason)
        await tables.note(
            tx,
            f"table_{body.status}",
            actor=caller.name,
            table_id=table.id,
            details={"from": before, "reason": body.reason},
        )
        return tables.table_json(table, await tables.seats_of(tx, table.id))

    changed: dict[str, Any] = await casino.mutate(table_id, run)
    return changed


@router.get("/api/tables/{table_id}/state", tags=["play"], responses=STATE_ANSWER)
async def get_state(casino: CasinoOf, table_id: Id, caller: Who) -> dict[str, Any]:
    """The caller's view of the table (server.md): never a card the table has not shown him."""
    return await casino.state_for(table_id, caller)


async def play(
    casino: Casino,
    table_id: int,
    caller: Caller,
    idem: Idem | None,
    fn: Callable[[Tx, TableRow, TableRuntime], Awaitable[Any]],
    status: int = 200,
) -> Response:
    async def answer(tx: Tx, rt: TableRuntime, result: Any, snap: state.Snapshot) -> Any:
        if isinstance(result, tables.StepResult):  # the state as committed: new seq, new deadline
            me = snap.balances.get(caller.name)
            if caller.role == "player" and me is None:
                me = (await state.balances(tx, [caller.name])).get(caller.name)
            return state.Rendered(state.state_json(snap, rt, caller, me))
        return result

    return await run_step(casino, caller, idem, table_id, fn, status, then=answer)


@router.post("/api/tables/{table_id}/seats", tags=["play"])
async def post_seat(casino: CasinoOf, table_id: Id, body: SeatBody, caller: Who, idem: IdemKey) -> Response:
    """Take a box or zone (players)."""

    async def run(tx: Tx, table: TableRow, rt: TableRuntime) -> dict[str, Any]:
        await casino.protection.check_seat(tx, caller)
        seat = await tables.take_seat(tx, table, rt, caller, body.seat)
        return {"table": table.id, "seat": seat, "holder": caller.name}

    return await play(casino, table_id, caller, idem, run)


@router.delete("/api/tables/{table_id}/seats/{seat}", tags=["play"])
async def delete_seat(casino: CasinoOf, table_id: Id, seat: Id, caller: Who) -> dict[str, Any]:
    """Leave a box, between rounds (its holder)."""

    async def run(tx: Tx, table: TableRow, rt: TableRuntime) -> dict[str, Any]:
        await tables.leave_seat(tx, table, caller, seat)
        return {"table": table.id, "seat": seat, "holder": None}

    changed: dict[str, Any] = await casino.mutate(table_id, run)
    return changed


@lane("bets", BetBody)
async def bet_step(
    casino: Casino, table_id: int, body: BetBody, caller: Caller, idem: Idem | None
) -> Response:

    async def run(tx: Tx, table: TableRow, rt: TableRuntime) -> dict[str, Any]:
        await casino.protection.check_bet(tx, caller, body.amount)
        return await tables.place_bet(tx, table, rt, caller, body.seat, body.spot, body.amount)

    if idem is None:  # taken with the other bets waiting for the table (`Casino.place_bet`)
        result = await casino.place_bet(table_id, caller, body.seat, body.spot, body.amount)
        return FastJSON(result, status_code=_bet_status(result))
    return await run_step(casino, caller, idem, table_id, run, _bet_status)  # its own transaction


def _bet_status(answer: Any) -> int:
    """A bet's answer is 200; a back-bet request that waits for the box's holder is 202."""
    return 202 if isinstance(answer, dict) and "request" in answer else 200


@router.post(
    "/api/tables/{table_id}/bets",
    tags=["play"],
    responses={
        200: {"model": BetPlaced},
        202: {"model": BetWaiting, "description": "a back-bet request waits"},
    },
)
async def post_bet(casino: CasinoOf, table_id: Id, body: BetBody, caller: Who, idem: IdemKey) -> Response:
    """A bet for the next round; on another's box, a back-bet request (202) that waits for him."""
    return await bet_step(casino, table_id, body, caller, idem)


@router.delete("/api/tables/{table_id}/bets", tags=["play"])
async def delete_bets(casino: CasinoOf, table_id: Id, caller: Who) -> dict[str, Any]:
    """Take back every bet the caller placed for the next round (before the deal; players)."""
    caller.need("player")

    async def run(tx: Tx, table: TableRow, rt: TableRuntime) -> dict[str, Any]:
        if table.in_round:
            raise Conflict(
                "bets are taken back before the deal", key="err.api.not_betting", round=table.round_no
            )
        await tables.take_back_bets(tx, table.id, caller.user_id)
        if table.deadline_kind == "betting":
            # the deal's countdown runs from the first bet still on the table (none: no countdown)
            table.deadline_version = None
        return {"table": table.id, "bets": []}

    changed: dict[str, Any] = await casino.mutate(table_id, run)
    return changed


@router.post("/api/tables/{table_id}/requests/{rid}", tags=["play"])
async def post_answer(
    casino: CasinoOf, table_id: Id, rid: Id, body: AnswerBody, caller: Who, idem: IdemKey
) -> Response:
    """The holder accepts or refuses a back-bet request on his box."""
    return await play(
        casino,
        table_id,
        caller,
        idem,
        lambda tx, t, rt: tables.answer_request(tx, t, rt, caller, rid, body.accept),
    )


@lane("deal", None)
async def deal_step(
    casino: Casino, table_id: int, _body: None, caller: Caller, idem: Idem | None
) -> Response:
    caller.need("dealer", "admin")
    return await play(
        casino, table_id, caller, idem, lambda tx, t, rt: tables.deal(tx, t, rt, caller.name, casino.key)
    )


@router.post("/api/tables/{table_id}/deal", tags=["play"], responses=STATE_ANSWER)
async def post_deal(casino: CasinoOf, table_id: Id, caller: Who, idem: IdemKey) -> Response:
    """Close the bets ("no va más") and start the round (dealer, admin)."""
    return await deal_step(casino, table_id, None, caller, idem)


@lane("actions", ActionBody)
async def action_step(
    casino: Casino, table_id: int, body: ActionBody, caller: Caller, idem: Idem | None
) -> Response:
    raw = body.model_dump(exclude_none=True)
    return await play(
        casino, table_id, caller, idem, lambda tx, t, rt: tables.act(tx, t, rt, caller, raw, casino.key)
    )


@router.post("/api/tables/{table_id}/actions", tags=["play"], responses=STATE_ANSWER)
async def post_action(
    casino: CasinoOf, table_id: Id, body: ActionBody, caller: Who, idem: IdemKey
) -> Response:
    """The holder's decision on his box: one of `state.pending.legal`."""
    return await action_step(casino, table_id, body, caller, idem)


@lane("cards", CardBody)
async def card_step(
    casino: Casino, table_id: int, body: CardBody, caller: Caller, idem: Idem | None
) -> Response:
    raw = body.model_dump()
    return await play(
        casino, table_id, caller, idem, lambda tx, t, rt: tables.post_card(tx, t, rt, caller, raw, casino.key)
    )


@router.post("/api/tables/{table_id}/cards", tags=["live"], responses=STATE_ANSWER)
async def post_card(casino: CasinoOf, table_id: Id, body: CardBody, caller: Who, idem: IdemKey) -> Response:
    """The next card out of the physical shoe (dealer, live tables)."""
    return await card_step(casino, table_id, body, caller, idem)


@router.post("/api/tables/{table_id}/procedures", tags=["live"], responses=STATE_ANSWER)
async def post_procedure(
    casino: CasinoOf, table_id: Id, body: ProcedureBody, caller: Who, idem: IdemKey
) -> Response:
    """A control procedure of a live table, in the regulation's order (conflict naming the expected
    step otherwise): new_pack, inspect, show, turn, mix, shuffle, cut, load, burn, deck_change (with
    its reason; naming a request closes it), or cut_card (the cut card came out)."""
    raw = body.model_dump(exclude_none=True)
    return await play(
        casino, table_id, caller, idem, lambda tx, t, rt: tables.procedure(tx, t, rt, caller, raw, casino.key)
    )


@router.post("/api/tables/{table_id}/corrections", tags=["live"])
async def post_correction(
    casino: CasinoOf, table_id: Id, body: CorrectionBody, caller: Who, idem: IdemKey
) -> Response:
    """The dealer corrects the last card he entered, with a reason, before any decision on it."""
    raw = body.model_dump()
    return await play(
        casino, table_id, caller, idem, lambda tx, t, rt: tables.correct(tx, t, rt, caller, raw, casino.key)
    )


@router.post("/api/tables/{table_id}/void", tags=["live"])
async def post_void(casino: CasinoOf, table_id: Id, body: VoidBody, caller: Who, idem: IdemKey) -> Response:
    """Ask to void the round in play (every stake returned); a second staff member confirms."""
    raw = body.model_dump()
    return await play(
        casino, table_id, caller, idem, lambda tx, t, rt: tables.request_void(tx, t, rt, caller, raw)
    )


@router.post("/api/tables/{table_id}/void/confirm", tags=["live"])
async def post_void_confirm(casino: CasinoOf, table_id: Id, caller: Who, idem: IdemKey) -> Response:
    """A second staff member confirms the void."""
    return await play(
        casino, table_id, caller, idem, lambda tx, t, rt: tables.confirm_void(tx, t, rt, caller, casino.key)
    )
