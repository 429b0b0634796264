"""What a player and the regulator's inspector may ask of a table beside the play (server.md "Control
procedures at a live table", "Claims"): a deck change asked for by a seated player or an inspector (BJ/PyB/
M21 Art.4: "a solicitud de los participantes, del Inspector"), open until the dealer's `deck_change` that
names it; and a player's written claim about a round he bet in (rules.md §0, Errors), resolved by the
inspector with an outcome and a text. Each is a significant event; nothing of a round changes.
"""

from __future__ import annotations

from typing import Any

from tapete.errors import BadRequest
from tapete.games.base import Event
from tapete.server.errors import Conflict, Forbidden, NotFound
from tapete.server.inspection.journal import note, seats_of
from tapete.server.models import iso, utcnow
from tapete.server.people.accounts import Caller
from tapete.server.play import repository as repo
from tapete.server.play.table_row import TableRow
from tapete.server.sql import Row, Tx

#: the longest reason or claim a person may write
MAX_TEXT = 2000


def _text(value: str, what: str) -> str:
    """A person's text, trimmed: 1 to MAX_TEXT characters (bad_request otherwise)."""
    text = value.strip()
    if not text or len(text) > MAX_TEXT:
        raise BadRequest(
            f"{what} is a text of 1 to {MAX_TEXT} characters", key=f"err.control.{what}", most=MAX_TEXT
        )
    return text


# ------------------------------------------------------------------------------- deck-change requests
async def open_requests(tx: Tx, table_id: int) -> list[dict[str, Any]]:
    """The table's open deck-change requests, oldest first: what the dealer's state lists."""
    rows = await tx.all(repo.OPEN_DECK_REQUESTS, {"t": table_id})
    return [
        {"request": rid, "by": name, "role": role, "reason": reason, "at": iso(at)}
        for rid, name, role, reason, at in rows
    ]


async def ask_deck_change(tx: Tx, table: TableRow, caller: Caller, reason: str) -> dict[str, Any]:
    """A deck change asked for by a player seated at the table or an inspector, with its reason: a
    significant event, listed in the dealer's state until a `deck_change` names it."""
    if caller.role == "player":
        if caller.name not in {name for _, name in await seats_of(tx, table.id)}:
            raise Forbidden(
                "a player asks for a deck change at a table where he is seated", key="err.control.not_seated"
            )
    else:
        caller.need("player", "inspector")
    if table.mode != "live":
        raise Conflict("a virtual table's shoe changes its own decks", key="err.control.virtual")
    if table.status != "open":
        raise Conflict(f"the table is {table.status}", key="err.api.table_status", status=table.status)
    text = _text(reason, "reason")
    rid = int(
        await tx.value(
            repo.NEW_DECK_REQUEST,
            {"t": table.id, "user": caller.user_id, "role": caller.role, "reason": text, "at": utcnow()},
        )
    )
    await note(
        tx,
        "deck_change_requested",
        actor=caller.name,
        table_id=table.id,
        details={"request": rid, "by": caller.name, "role": caller.role, "reason": text},
    )
    return {"request": rid, "status": "open", "table": table.id, "by": caller.name, "reason": text}


async def deck_change_event(
    tx: Tx, table: TableRow, caller: Caller, body: dict[str, Any], reason: str | None
) -> Event:
    """The record of the dealer's `deck_change` (Art.4: decks replaced for a flaw, a missing card or a
    request): its reason, and the request it answers, closed by it (a significant event). A request of
    another table, or one already closed, is refused and nothing changes."""
    request = body.get("request")
    event: Event = {"type": "procedure", "step": "deck_change"}
    if request is not None:
        if not isinstance(request, int) or isinstance(request, bool):
            raise BadRequest("a deck change names a request by its number", key="err.control.request_id")
        found = await tx.one(repo.DECK_REQUEST, {"id": request})
        if found is None or found.table_id != table.id:
            raise NotFound(
                f"table {table.id} has no deck-change request {request}",
                key="err.control.no_request",
                request=request,
            )
        _, _, asked_by, asked_reason, status = found
        if status != "open":
            raise Conflict(
                f"request {request} is already closed", key="err.control.request_closed", request=request
            )
        reason = reason if (reason or "").strip() else asked_reason
        await tx.run(
            repo.CLOSE_DECK_REQUEST, {"id": request, "at": utcnow(), "by": caller.name, "seq": table.next_seq}
        )
        await note(
            tx,
            "deck_change_request_closed",
            actor=caller.name,
            table_id=table.id,
            details={"request": request, "asked_by": asked_by, "reason": reason, "seq": table.next_seq},
        )
        event["request"] = request
        event["requested_by"] = asked_by
    if not (reason or "").strip():
        raise BadRequest("a deck change says its reason", key="err.api.deck_change_reason")
    event["reason"] = reason
    return event


# ------------------------------------------------------------------------------------------ claims
def claim_json(row: Row) -> dict[str, Any]:
    """A claim as the API gives it: ``{"id", "table", "round", "player", "text", "status", "at",
    "outcome"?, "resolution"?: {"outcome", "text", "by", "at"}}`` (the last two once resolved)."""
    out: dict[str, Any] = {
        "id": row.id,
        "table": row.table_id,
        "round": row.round_no,
        "player": row.player,
        "text": row.text,
        "status": row.status,
        "at": iso(row.created_at),
    }
    if row.status == "resolved":
        out["outcome"] = row.outcome  # beside the resolution too: what a list shows first
        out["resolution"] = {
            "outcome": row.outcome,
            "text": row.resolution,
            "by": row.resolved_by,
            "at": iso(row.resolved_at),
        }
    return out


async def file_claim(tx: Tx, caller: Caller, table_id: int, round_no: int, text: str) -> dict[str, Any]:
    """A player's written claim about a round he bet in (rules.md §0): a significant event; the round is
    left as it is."""
    caller.need("player")
    status = await tx.one(repo.ROUND_STATUS, {"t": table_id, "n": round_no})
    if status is None:
        raise NotFound(
            f"table {table_id} has no round {round_no}", key="err.api.no_round_number", round=round_no
        )
    if await tx.one(repo.BET_IN, {"user": caller.user_id, "t": table_id, "n": round_no}) is None:
        raise Forbidden(
            f"{caller.name} did not bet in round {round_no} of table {table_id}",
            key="err.control.not_bettor",
            round=round_no,
        )
    said = _text(text, "text")
    cid = int(
        await tx.value(
            repo.NEW_CLAIM,
            {"t": table_id, "n": round_no, "user": caller.user_id, "text": said, "at": utcnow()},
        )
    )
    await note(
        tx,
        "claim_filed",
        actor=caller.name,
        table_id=table_id,
        details={"claim": cid, "round": round_no, "player": caller.name, "text": said},
    )
    return {
        "id": cid,
        "status": "open",
        "table": table_id,
        "round": round_no,
        "player": caller.name,
        "text": said,
    }


async def resolve_claim(tx: Tx, caller: Caller, claim_id: int, outcome: str, text: str) -> dict[str, Any]:
    """The inspector's resolution of a claim: upheld or rejected, with a text (a significant event). A
    correction or a void of the round is staff's own act, not this."""
    caller.need("inspector")
    if outcome not in ("upheld", "rejected"):
        raise BadRequest("a claim's outcome is upheld or rejected", key="err.control.outcome")
    said = _text(text, "text")
    found = await tx.one(repo.CLAIM, {"id": claim_id})
    if found is None:
        raise NotFound(f"no claim {claim_id}", key="err.control.no_claim", claim=claim_id)
    if found.status != "open":
        raise Conflict(f"claim {claim_id} is already resolved", key="err.control.resolved", claim=claim_id)
    await tx.run(
        repo.RESOLVE, {"id": claim_id, "outcome": outcome, "text": said, "by": caller.name, "at": utcnow()}
    )
    await note(
        tx,
        "claim_resolved",
        actor=caller.name,
        table_id=found.table_id,
        details={
            "claim": claim_id,
            "round": found.round_no,
            "player": found.player,
            "outcome": outcome,
            "text": said,
        },
    )
    again = await tx.one(repo.CLAIM, {"id": claim_id})
    return claim_json(again)
