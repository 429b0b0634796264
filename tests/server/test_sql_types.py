"""A statement's rows come decoded by the schema's column types, not by positions written beside the
statement: on PostgreSQL by psycopg (timestamptz, json, boolean), on SQLite by the converters of the
types the schema declares (DATETIME, JSON, BOOLEAN) — through joins too; only an expression, which has
no declared type, is given as SQLite keeps it."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from tapete.server import sql
from tapete.server.play import repository as repo
from tapete.server.play import tables
from tests.server.conftest import Api

JOINED = sql.q(
    "SELECT t.rules, t.in_round, t.created_at, s.taken_at, u.active FROM tables t"
    " JOIN seats s ON s.table_id = t.id JOIN users u ON u.id = s.user_id WHERE t.id = :t"
)
EXPRESSION = sql.q("SELECT MAX(created_at) AS last FROM tables")


def _read(database_url: str, stmt: sql.Q, params: dict[str, Any]) -> tuple[Any, ...] | None:
    async def run() -> tuple[Any, ...] | None:
        store = sql.Store(database_url)
        try:
            async with store.transaction(write=False) as tx:
                return await tx.one(stmt, params)
        finally:
            await store.close()

    return asyncio.run(run())


def test_rows_are_decoded_by_the_columns_types(api: Api, database_url: str) -> None:
    api.user("ana", "player", chips=1_000)
    table = api.table("blackjack", decks=6)
    api.ok("ana", "POST", f"/api/tables/{table}/seats", json={"seat": 2})
    row = _read(database_url, JOINED, {"t": table})
    assert row is not None
    rules, in_round, created, taken, active = row
    assert isinstance(rules, dict) and rules["decks"] == 6
    assert in_round is False and active is True
    for moment in (created, taken):
        assert isinstance(moment, datetime) and moment.utcoffset() is not None
        assert abs((moment - datetime.now(UTC)).total_seconds()) < 60
    whole = _read(database_url, repo.TABLE, {"id": table})
    assert whole is not None and tables.row_of(whole).rules == rules
    last = _read(database_url, EXPRESSION, {})
    assert last is not None
    assert sql.read_time(last[0]) == created  # an expression has no type: read_time reads either form
