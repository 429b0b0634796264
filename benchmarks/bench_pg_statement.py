"""What psycopg costs the client per statement: one statement at a time (a decision's fenced statement
is one, in a transaction of its own) against the same statements in one pipeline of five or ten, each
an implicit transaction of its own (what a group commit of the tables' decisions would send).

    python -m benchmarks.bench_pg_statement                      # 127.0.0.1:5432
    python -m benchmarks.bench_pg_statement postgresql://...     # another server

The statement is shaped like a decision's (a fenced UPDATE of a row and an INSERT of three JSON records
from one parameter); it runs on two scratch tables made and dropped in the `postgres` database. The
figures are the client's CPU (`time.process_time`) and wall time per statement.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time

import psycopg

PG = "postgresql://postgres@127.0.0.1:5432/postgres"
ROWS = json.dumps(
    [{"seq": i, "event": {"type": "x", "cards": ["Ah"] * 5}, "hash": "ab" * 32} for i in range(3)]
)
SQL = (
    "WITH f AS (UPDATE bench_stmt_t SET v = v + 1 WHERE id = %(id)s AND v >= %(v)s RETURNING id)"
    " INSERT INTO bench_stmt_e (t, body) SELECT f.id, r.body FROM f,"
    " json_to_recordset(CAST(%(rows)s AS json)) AS r(body json)"
)
N = 2000


async def main(url: str) -> None:
    conn = await psycopg.AsyncConnection.connect(url, autocommit=True)
    await conn.execute(
        "DROP TABLE IF EXISTS bench_stmt_t; DROP TABLE IF EXISTS bench_stmt_e;"
        " CREATE TABLE bench_stmt_t (id int primary key, v int);"
        " CREATE TABLE bench_stmt_e (id serial primary key, t int, body json)"
    )
    try:
        await conn.execute("INSERT INTO bench_stmt_t SELECT g, 0 FROM generate_series(1, 20) g")
        for _ in range(20):  # prepared from the fifth on, as the server's statements are
            await conn.execute(SQL, {"id": 1, "v": 0, "rows": ROWS})
        cpu, wall = time.process_time(), time.perf_counter()
        for i in range(N):
            cur = await conn.execute(SQL, {"id": 1 + i % 20, "v": 0, "rows": ROWS})
            assert cur.rowcount == 3
        report("one at a time", cpu, wall)
        for size in (5, 10):
            cpu, wall = time.process_time(), time.perf_counter()
            for _ in range(N // size):
                async with conn.pipeline() as pipe:
                    curs = [await conn.execute(SQL, {"id": 1 + j, "v": 0, "rows": ROWS}) for j in range(size)]
                    await pipe.sync()
                assert all(c.rowcount == 3 for c in curs)
            report(f"a pipeline of {size}", cpu, wall)
    finally:
        await conn.execute("DROP TABLE bench_stmt_t; DROP TABLE bench_stmt_e")
        await conn.close()


def report(label: str, cpu: float, wall: float) -> None:
    print(
        f"{label}: {(time.process_time() - cpu) / N * 1e6:.0f} us of client CPU, "
        f"{(time.perf_counter() - wall) / N * 1e6:.0f} us wall per statement"
    )


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else PG))
