"""Connections to PostgreSQL when its server processes die (what a restart does). The tables' store
(`sql.Store`) pings only a connection that sat idle; one whose BEGIN fails is replaced before anything was
asked of it, so the request never sees it; one that dies inside a transaction fails that transaction
whole (`Unavailable`) and the next gets a live connection. SQLAlchemy's engine (the people's rows, the
inspector) pings every checkout."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterator

import pytest
from sqlalchemy import text

from tapete.server import db as dbmod
from tapete.server import sql
from tests.server.conftest import _pg_admin, postgres_database

PID = sql.q("SELECT pg_backend_pid()")
MAKE = sql.q("CREATE TABLE IF NOT EXISTS t (x integer)")
WRITE = sql.q("INSERT INTO t (x) VALUES (:x)")
COUNT = sql.q("SELECT count(*) AS n FROM t")


def _checking(seen: list[int]) -> Callable[[sql.Tx], Awaitable[None]]:
    """What a table step's beginning asks, a read: here, its connection's server process, kept in `seen`."""

    async def check(tx: sql.Tx) -> None:
        seen.append(int(await tx.value(PID)))

    return check


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


async def _pid(store: sql.Store) -> int:
    async with store.transaction(write=False) as tx:
        return int(await tx.value(PID))


def test_a_connection_that_died_while_idle_is_replaced_before_use(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sql, "PING_AFTER_IDLE_SECONDS", 0.2)

    async def run() -> None:
        store = sql.Store(pg_url)
        try:
            first = await _pid(store)
            assert _kill_backends(pg_url.rsplit("/", 1)[1]) == 1
            time.sleep(0.3)  # idle longer than the threshold: pinged, found dead, replaced
            assert await _pid(store) != first
        finally:
            await store.close()

    asyncio.run(run())


def test_a_connection_just_used_is_not_pinged_and_one_dead_before_begin_is_replaced(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sql, "PING_AFTER_IDLE_SECONDS", 60.0)

    async def run() -> None:
        store = sql.Store(pg_url)
        try:
            first = await _pid(store)
            assert await _pid(store) == first  # the same connection, reused without a ping
            assert _kill_backends(pg_url.rsplit("/", 1)[1]) == 1
            assert await _pid(store) != first  # its BEGIN failed: replaced, nothing was asked of it
        finally:
            await store.close()

    asyncio.run(run())


def test_a_connection_that_dies_inside_a_transaction_fails_it_whole(pg_url: str) -> None:
    """The server process dies between two statements of a transaction: the transaction is refused
    (`Unavailable`), its first write is not there, and the next transaction runs on a live connection."""

    async def run() -> None:
        store = sql.Store(pg_url)
        try:
            async with store.transaction() as tx:
                await tx.run(MAKE)
            with pytest.raises(sql.Unavailable):
                async with store.transaction() as tx:
                    await tx.run(WRITE, {"x": 1})
                    assert _kill_backends(pg_url.rsplit("/", 1)[1]) == 1
                    await tx.run(WRITE, {"x": 1})
            async with store.transaction(write=False) as tx:
                assert await tx.value(COUNT) == 0
        finally:
            await store.close()

    asyncio.run(run())


def test_the_people_s_engine_pings_every_checkout(pg_url: str) -> None:
    async def run() -> None:
        engine = dbmod.make_engine(pg_url)

        async def pid() -> int:
            async with engine.connect() as conn:
                return int((await conn.execute(text("SELECT pg_backend_pid()"))).scalar_one())

        try:
            first = await pid()
            assert _kill_backends(pg_url.rsplit("/", 1)[1]) == 1
            assert await pid() != first  # pinged at once, found dead, replaced
        finally:
            await engine.dispose()

    asyncio.run(run())


def test_a_table_step_s_begin_goes_with_its_first_read_and_a_dead_connection_is_replaced(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lazy write transaction (a table step) sends its BEGIN in its pipeline with the check its
    beginning runs, in one round trip: when the connection died since its last use, that round trip
    fails having changed nothing, and the step runs on a new connection instead, once, and commits."""
    monkeypatch.setattr(sql, "PING_AFTER_IDLE_SECONDS", 60.0)

    async def run() -> None:
        store = sql.Store(pg_url)
        seen: list[int] = []
        check = _checking(seen)

        try:
            async with store.transaction() as tx:
                await tx.run(MAKE)
            async with store.transaction(lazy=check) as tx:
                await tx.run(WRITE, {"x": 1})
            assert len(seen) == 1
            assert _kill_backends(pg_url.rsplit("/", 1)[1]) == 1
            async with store.transaction(lazy=check) as tx:
                await tx.run(WRITE, {"x": 2})
            assert len(seen) == 2 and seen[1] != seen[0]  # its check ran on a new connection
            async with store.transaction(write=False) as tx:
                assert await tx.value(COUNT) == 2
        finally:
            await store.close()

    asyncio.run(run())


#: what migration 0004 makes: the function a table step's check calls when the table moved under it
MOVED = sql.q(
    "CREATE OR REPLACE FUNCTION tapete_moved(what text) RETURNS integer LANGUAGE plpgsql AS $$"
    " BEGIN RAISE EXCEPTION '% moved under this step', what USING ERRCODE = 'TPMOV'; END $$"
)


@pytest.mark.parametrize("runs_before", [1, 2, 5])
def test_a_statement_sent_behind_a_check_that_found_the_table_moved_runs_afterwards(
    pg_url: str, monkeypatch: pytest.MonkeyPatch, runs_before: int
) -> None:
    """The tables' connections prepare their statements (PostgreSQL parses and plans each once). A round's
    end sends its check, its writes and COMMIT without waiting; when the check finds the table moved (a
    racing process), PostgreSQL skips what follows, a preparation with it, and the step is taken again
    (`Stale`). psycopg must not keep such a statement as prepared, or its next run on that connection
    fails ("prepared statement _pg3_N does not exist": the scale-out race test, when psycopg prepared a
    statement at a later run than its first). However often it ran before, it runs afterwards, on the same
    connection."""
    monkeypatch.setattr(sql, "PING_AFTER_IDLE_SECONDS", 60.0)
    check = sql.q("SELECT tapete_moved('the table') AS moved")
    read = sql.q("SELECT count(*) AS n FROM t WHERE x = :x")
    prepared = sql.q("SELECT count(*) AS n FROM pg_prepared_statements WHERE statement = :text")

    async def run() -> None:
        store = sql.Store(pg_url)
        seen: list[int] = []
        pid = _checking(seen)
        try:
            async with store.transaction() as tx:
                await tx.run(MAKE)
                await tx.run(MOVED)
            with pytest.raises(LookupError):  # a step refused: rolled back, as any connection was
                async with store.transaction(lazy=pid) as tx:
                    await tx.value(read, {"x": 7})
                    raise LookupError("refused")
            for _ in range(runs_before - 1):
                async with store.transaction(lazy=pid) as tx:
                    await tx.value(read, {"x": 7})
            with pytest.raises(sql.Stale):
                async with store.transaction(lazy=pid) as tx:
                    await tx.run(check)  # sent without waiting, as a round's end sends it
                    await tx.run(WRITE, {"x": 7})
                    await tx.ahead(read, {"x": 7})  # skipped with its preparation
            for x in (8, 9, 10):
                async with store.transaction(lazy=pid) as tx:
                    await tx.run(WRITE, {"x": x})
                    assert await tx.value(read, {"x": x}) == 1
            assert len(set(seen)) == 1  # one connection all along: nothing failed and was replaced
            async with store.transaction(lazy=pid) as tx:
                assert await tx.value(COUNT) == 3  # the moved step wrote nothing
                # the read is prepared now, on the server
                assert await tx.value(prepared, {"text": read.pg.replace("%(x)s", "$1")}) == 1
        finally:
            await store.close()

    asyncio.run(run())


def test_a_read_sent_ahead_is_answered_with_the_commit_and_nothing_more_is_asked_after(pg_url: str) -> None:
    """A state's balances go with its step's COMMIT (`Tx.ahead`, taken once it committed): the read sees
    the transaction's writes; after the COMMIT the transaction's connection is the pool's again, and any
    other statement on it is refused instead of being sent on a connection another request may hold."""
    total = sql.q("SELECT COALESCE(SUM(x), 0) FROM t WHERE x > :above")

    async def run() -> None:
        store = sql.Store(pg_url)
        try:
            async with store.transaction() as tx:
                await tx.run(MAKE)
            async with store.transaction() as tx:
                await tx.run(WRITE, {"x": 5})
                assert tx.sends_ahead
                await tx.ahead(total, {"above": 0})
            assert await tx.value(total, {"above": 0}) == 5  # answered in the COMMIT's round trip
            with pytest.raises(RuntimeError):
                await tx.value(total, {"above": 1})  # not sent ahead: refused, nothing sent
        finally:
            await store.close()

    asyncio.run(run())
