"""The PostgreSQL pool pings only a connection that sat idle (not every checkout): one whose server
process died while it was idle is replaced before a request sees it; one that died in the moment after
its last use fails its statement, and the next checkout gets a live one."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from tapete.server import db as dbmod
from tests.server.conftest import _pg_admin, postgres_database


@pytest.fixture
def pg_url() -> Iterator[str]:
    with postgres_database("tapete_pool") as url:
        yield url


def _kill_backends(database: str) -> int:
    """Terminate every server process of `database` (what a PostgreSQL restart does to the pool)."""
    with _pg_admin() as conn:
        rows = conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = %s AND pid <> pg_backend_pid()",
            (database,),
        ).fetchall()
    return len(rows)


async def _backend_pid(engine: object) -> int:
    async with engine.connect() as conn:  # type: ignore[attr-defined]
        return int((await conn.execute(text("SELECT pg_backend_pid()"))).scalar_one())


def test_a_connection_that_died_while_idle_is_replaced_before_use(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dbmod, "PING_AFTER_IDLE_SECONDS", 0.2)

    async def run() -> None:
        engine = dbmod.make_engine(pg_url)
        try:
            first = await _backend_pid(engine)
            assert _kill_backends(pg_url.rsplit("/", 1)[1]) == 1
            time.sleep(0.3)  # idle longer than the threshold: pinged, found dead, replaced
            second = await _backend_pid(engine)
            assert second != first
        finally:
            await engine.dispose()

    asyncio.run(run())


def test_a_connection_just_used_is_not_pinged_and_a_dead_one_fails_once(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dbmod, "PING_AFTER_IDLE_SECONDS", 60.0)

    async def run() -> None:
        engine = dbmod.make_engine(pg_url)
        try:
            first = await _backend_pid(engine)
            assert await _backend_pid(engine) == first  # the same connection, reused without a ping
            assert _kill_backends(pg_url.rsplit("/", 1)[1]) == 1
            with pytest.raises(DBAPIError) as failed:
                await _backend_pid(engine)
            assert failed.value.connection_invalidated
            assert await _backend_pid(engine) != first  # the pool dropped it: the next one is new
        finally:
            await engine.dispose()

    asyncio.run(run())
