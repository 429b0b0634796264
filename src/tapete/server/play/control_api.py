"""The endpoints of deck-change requests and claims (server.md "Control procedures at a live table",
"Claims"), each with its typed body: the service is `tapete.server.play.control`."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter
from fastapi import Path as InPath
from fastapi.responses import Response
from pydantic import BaseModel, Field, StrictStr

from tapete.server.errors import NotFound
from tapete.server.http import NOT_BLANK, Body, BodyId, CasinoOf, IdemKey, Who, run_change, run_step, storable
from tapete.server.inspection import inspector
from tapete.server.inspection.inspector_api import Recall
from tapete.server.models import CasinoTable, iso
from tapete.server.play import repository as repo
from tapete.server.play.control import (
    MAX_TEXT,
    ask_deck_change,
    claim_json,
    file_claim,
    resolve_claim,
)
from tapete.server.play.tables import TableRow, TableRuntime
from tapete.server.sql import Tx

_ID = Annotated[int, InPath(ge=0, le=2**31 - 1)]


# ------------------------------------------------------------------------------------------ the API
#: a person's text (control._text trims it and takes 1 to MAX_TEXT characters): what the document says
_TEXT: dict[str, Any] = {"pattern": NOT_BLANK, "maxLength": MAX_TEXT}


class DeckChangeRequestBody(Body):
    reason: StrictStr = Field(description="why the decks should be changed", json_schema_extra=_TEXT)


class DeckChangeRequestAnswer(BaseModel):
    request: int
    status: Literal["open"]
    table: int
    by: str
    reason: str


class ClaimBody(Body):
    table: BodyId
    round: BodyId
    text: StrictStr = Field(json_schema_extra=_TEXT)


class ResolutionBody(Body):
    outcome: StrictStr = Field(
        description="upheld | rejected", json_schema_extra={"enum": ["upheld", "rejected"]}
    )
    text: StrictStr = Field(json_schema_extra=_TEXT)


class ClaimFiled(BaseModel):
    """A claim filed: its id, open."""

    id: int
    status: Literal["open"]


class Resolution(BaseModel):
    """The inspector's resolution of a claim."""

    outcome: Literal["upheld", "rejected"]
    text: str
    by: str
    at: str


class ClaimOut(BaseModel):
    """A claim as the API gives it (`control.claim_json`): `outcome` and `resolution` once resolved."""

    id: int
    table: int
    round: int
    player: str
    text: str
    status: Literal["open", "resolved"]
    at: str
    outcome: Literal["upheld", "rejected"] | None = None
    resolution: Resolution | None = None


class Claims(BaseModel):
    """`GET /api/claims`: every claim (inspector, administrator) or the player's own, newest first."""

    claims: list[ClaimOut]


class ClaimWithRecall(BaseModel):
    """`GET /api/claims/{id}`: the claim, and for the inspector and the administrator the round's recall
    beside it (the administrator's as the dealer sees it while the round is in progress)."""

    claim: ClaimOut
    recall: Recall | None = None


router = APIRouter()


@router.post(
    "/api/tables/{table_id}/deck-change-requests",
    tags=["live"],
    status_code=201,
    response_model=DeckChangeRequestAnswer,
)
async def post_deck_change_request(
    casino: CasinoOf, table_id: _ID, body: DeckChangeRequestBody, caller: Who, idem: IdemKey
) -> Response:
    """Ask for a deck change (a player seated at the table, an inspector), with the reason: the dealer's
    state lists it until his `deck_change` names it."""
    caller.need("player", "inspector")
    reason = storable(body.reason)

    async def run(tx: Tx, table: TableRow, rt: TableRuntime) -> dict[str, Any]:
        return await ask_deck_change(tx, table, caller, reason)

    return await run_step(casino, caller, idem, table_id, run, 201)


@router.get("/api/deck-change-requests", tags=["inspector"])
async def get_deck_change_requests(casino: CasinoOf, caller: Who) -> dict[str, Any]:
    """Every table's deck-change requests, newest first, open and closed (inspector, admin, dealer)."""
    caller.need("inspector", "admin", "dealer")
    async with casino.store.transaction(write=False) as tx:
        rows = await tx.all(repo.ALL_DECK_REQUESTS)
    return {
        "requests": [
            {
                "request": rid,
                "table": table_id,
                "by": name,
                "role": role,
                "reason": reason,
                "status": status,
                "at": iso(at),
                **(
                    {"closed_by": closed_by, "closed_at": iso(closed_at), "seq": seq}
                    if status == "closed"
                    else {}
                ),
            }
            for rid, table_id, name, role, reason, status, at, closed_by, closed_at, seq in rows
        ]
    }


@router.post("/api/claims", tags=["claims"], status_code=201, responses={201: {"model": ClaimFiled}})
async def post_claim(casino: CasinoOf, body: ClaimBody, caller: Who, idem: IdemKey) -> Response:
    """A player's claim about a round he bet in: ``{"id", "status": "open"}``."""
    caller.need("player")
    text = storable(body.text)
    return await run_change(
        casino, caller, idem, lambda tx: file_claim(tx, caller, body.table, body.round, text), 201
    )


@router.get("/api/claims", tags=["claims"], responses={200: {"model": Claims}})
async def get_claims(casino: CasinoOf, caller: Who) -> dict[str, Any]:
    """Every claim (inspector, admin), or the player's own, newest first."""
    caller.need("inspector", "admin", "player")
    async with casino.store.transaction(write=False) as tx:
        if caller.role == "player":
            rows = await tx.all(repo.OWN_CLAIMS, {"user": caller.user_id})
        else:
            rows = await tx.all(repo.CLAIMS)
    return {"claims": [claim_json(r) for r in rows]}


@router.get("/api/claims/{claim_id}", tags=["claims"], responses={200: {"model": ClaimWithRecall}})
async def get_claim(casino: CasinoOf, claim_id: _ID, caller: Who) -> dict[str, Any]:
    """One claim; for the inspector and the administrator beside the round's recall."""
    caller.need("inspector", "admin", "player")
    async with casino.store.transaction(write=False) as tx:
        found = await tx.one(repo.CLAIM, {"id": claim_id})
    if found is None or (caller.role == "player" and found.player != caller.name):
        raise NotFound(f"no claim {claim_id}", key="err.control.no_claim", claim=claim_id)
    claim = claim_json(found)
    if caller.role == "player":
        return {"claim": claim}
    async with casino.db() as db:
        table = await db.get(CasinoTable, claim["table"])
        assert table is not None
        recall = await inspector.recall(db, table, claim["round"], role=caller.role)
    return {"claim": claim, "recall": recall}


@router.post("/api/claims/{claim_id}/resolution", tags=["claims"], responses={200: {"model": ClaimOut}})
async def post_resolution(
    casino: CasinoOf, claim_id: _ID, body: ResolutionBody, caller: Who, idem: IdemKey
) -> Response:
    """The inspector resolves a claim: ``{"outcome": "upheld" | "rejected", "text"}`` → the claim."""
    caller.need("inspector")
    text = storable(body.text)
    return await run_change(
        casino, caller, idem, lambda tx: resolve_claim(tx, caller, claim_id, body.outcome, text)
    )
