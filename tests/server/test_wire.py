"""The lean PostgreSQL connection of the tables' steps (`wire.Connection`, psycopg's libpq binding in
pipeline mode): values through psycopg's adapters both ways, a statement outside a block its own
transaction, a pipeline's statements sent together, and psycopg's errors where psycopg raised them —
the refusal itself where a statement it aborted is read, never a bare "pipeline aborted"."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from datetime import UTC, datetime

import psycopg
import pydantic_core
import pytest
from psycopg.types.json import Json, set_json_dumps, set_json_loads

from tapete.server import wire
from tests.server.conftest import _pg_admin, postgres_database


@pytest.fixture
def pg_url() -> Iterator[str]:
    with postgres_database("tapete_wire") as url:
        yield url


async def _connect(url: str) -> wire.Connection:
    made = await psycopg.AsyncConnection.connect(url, autocommit=True)
    set_json_dumps(pydantic_core.to_json, context=made)
    set_json_loads(pydantic_core.from_json, context=made)
    await made.execute("SET TIME ZONE 'UTC'")
    return wire.Connection(made)


def _run(url: str, body: Callable[[wire.Connection], Awaitable[None]]) -> None:
    async def run() -> None:
        conn = await _connect(url)
        try:
            await conn.execute("CREATE TABLE t (id integer PRIMARY KEY, j json, at timestamptz, s text)")
            await body(conn)
        finally:
            await conn.close()

    asyncio.run(run())


async def _count(conn: wire.Connection) -> int:
    row = await (await conn.execute("SELECT count(*) FROM t")).fetchone()
    assert row is not None
    return int(row[0])


def test_values_go_and_come_back_through_psycopg_s_adapters(pg_url: str) -> None:
    at = datetime(2026, 12, 4, 5, 6, 7, 890123, tzinfo=UTC)

    async def body(conn: wire.Connection) -> None:
        for n in range(3):  # the second use of a statement prepares it: both paths give the same
            cur = await conn.execute(
                "INSERT INTO t VALUES (%(id)s, %(j)s, %(at)s, %(s)s)",
                {"id": n, "j": Json({"cards": ["AS", "10H"], "n": n}), "at": at, "s": f"{n}%"},
            )
            assert cur.rowcount == 1
        cur = await conn.execute(
            "SELECT id, j, at, s, 'a%%b' FROM t WHERE id = ANY(%(ids)s) ORDER BY id", {"ids": [0, 2]}
        )
        assert await cur.fetchall() == [
            (0, {"cards": ["AS", "10H"], "n": 0}, at, "0%", "a%b"),
            (2, {"cards": ["AS", "10H"], "n": 2}, at, "2%", "a%b"),
        ]
        assert any(b"INSERT INTO t" in query for query, _ in conn.prepared)
        cur = await conn.execute("SELECT %(x)s::int + %(x)s::int", {"x": 20})  # a name used twice
        assert await cur.fetchone() == (40,)

    _run(pg_url, body)


def test_a_statement_outside_a_block_is_a_transaction_of_its_own(pg_url: str) -> None:
    async def body(conn: wire.Connection) -> None:
        await conn.execute("INSERT INTO t (id) VALUES (%(id)s)", {"id": 1})
        with pytest.raises(psycopg.errors.UniqueViolation):
            await conn.execute("INSERT INTO t (id) VALUES (%(id)s)", {"id": 1})
        await conn.execute("INSERT INTO t (id) VALUES (%(id)s)", {"id": 2})  # nothing left aborted
        assert await _count(conn) == 2

    _run(pg_url, body)


def test_a_pipeline_sends_its_statements_together_and_reads_in_order(pg_url: str) -> None:
    async def body(conn: wire.Connection) -> None:
        trips = conn.round_trips
        async with conn.pipeline():
            await conn.execute("BEGIN")
            before = await conn.execute("SELECT count(*) FROM t WHERE id >= %(x)s", {"x": 0})
            for n in range(5):
                await conn.execute("INSERT INTO t (id) VALUES (%(id)s)", {"id": n})
            assert conn.round_trips == trips  # nothing sent while nothing is read
            after = await conn.execute("SELECT count(*) FROM t WHERE id >= %(x)s", {"x": 0})
            assert await after.fetchone() == (5,)  # one round trip: BEGIN, the reads and the writes
            assert await before.fetchone() == (0,)
            await conn.execute("COMMIT")
        assert conn.round_trips == trips + 2  # and the COMMIT's
        assert await _count(conn) == 5

    _run(pg_url, body)


def test_a_refusal_in_a_pipeline_is_raised_where_a_statement_after_it_is_read(pg_url: str) -> None:
    async def body(conn: wire.Connection) -> None:
        await conn.execute("INSERT INTO t (id) VALUES (%(id)s)", {"id": 1})
        with pytest.raises(psycopg.errors.UniqueViolation):
            async with conn.pipeline():
                await conn.execute("BEGIN")
                await conn.execute("INSERT INTO t (id) VALUES (%(id)s)", {"id": 2})
                await conn.execute("INSERT INTO t (id) VALUES (%(id)s)", {"id": 1})
                read = await conn.execute("SELECT count(*) FROM t WHERE id >= %(x)s", {"x": 0})
                await read.fetchone()  # aborted by the refusal: raises the refusal itself
        await conn.execute("ROLLBACK")
        with pytest.raises(psycopg.errors.UniqueViolation):  # no read: raised at the block's end
            async with conn.pipeline():
                await conn.execute("BEGIN")
                await conn.execute("INSERT INTO t (id) VALUES (%(id)s)", {"id": 1})
                await conn.execute("COMMIT")
        await conn.execute("ROLLBACK")
        assert await _count(conn) == 1  # the row of the first, and nothing of the rolled back ones

    _run(pg_url, body)


def test_a_statement_whose_preparation_was_aborted_is_prepared_again(pg_url: str) -> None:
    """A PREPARE sent in a pipeline that a refusal aborts is never made: the statement is not taken for
    prepared, and its next use prepares it again."""

    async def body(conn: wire.Connection) -> None:
        read = "SELECT count(*) FROM t WHERE id > %(x)s"
        await conn.execute(read, {"x": 0})  # first use: not prepared
        with pytest.raises(psycopg.errors.UniqueViolation):
            async with conn.pipeline():
                await conn.execute("BEGIN")
                await conn.execute("INSERT INTO t (id) VALUES (%(id)s)", {"id": 1})
                await conn.execute("INSERT INTO t (id) VALUES (%(id)s)", {"id": 1})
                await conn.execute(read, {"x": 0})  # second use: its PREPARE is aborted
                await conn.execute("COMMIT")
        await conn.execute("ROLLBACK")
        assert not any(b"id > $1" in query for query, _ in conn.prepared)
        for _ in range(2):
            assert await (await conn.execute(read, {"x": -1})).fetchone() == (0,)
        assert any(b"id > $1" in query for query, _ in conn.prepared)
        for _ in range(3):  # a statement PostgreSQL cannot parse, nor prepare at its second use
            with pytest.raises(psycopg.errors.SyntaxError):
                await conn.execute("SELEC %(x)s", {"x": 1})
        assert not any(b"SELEC $1" in query for query, _ in conn.prepared)
        assert await _count(conn) == 0

    _run(pg_url, body)


def test_a_connection_whose_server_process_died_says_so(pg_url: str) -> None:
    async def body(conn: wire.Connection) -> None:
        row = await (await conn.execute("SELECT pg_backend_pid()")).fetchone()
        assert row is not None
        with _pg_admin() as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (row[0],))
        await asyncio.sleep(0.2)  # its reader sees the end of the socket while nobody waits
        with pytest.raises(psycopg.OperationalError):
            await conn.execute("SELECT 1")

    _run(pg_url, body)
