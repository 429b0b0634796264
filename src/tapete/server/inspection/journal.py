"""What the steps and the other table services record and read beside a table's chain: the
significant-event log (`note`) and a table's holders (`seats_of`). A module of its own so that the
services built around the tables (control procedures, claims) need not import the steps."""

from __future__ import annotations

from typing import Any

from tapete.server.inspection import repository as repo
from tapete.server.models import utcnow
from tapete.server.sql import Json, Tx


async def note(
    tx: Tx,
    kind: str,
    *,
    actor: str | None = None,
    table_id: int | None = None,
    details: dict[str, Any] | None = None,
) -> None:
    """An entry of the significant-event log (start and stop, recoveries, tables, cashier, corrections)."""
    await tx.run(
        repo.NOTE,
        {"at": utcnow(), "kind": kind, "actor": actor, "table_id": table_id, "details": Json(details or {})},
    )


async def seats_of(tx: Tx, table_id: int) -> list[tuple[int, str]]:
    """(seat, holder's name) of every taken box, in seat order."""
    return [(s, n) for s, n in await tx.all(repo.SEATS, {"t": table_id})]
