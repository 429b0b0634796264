"""Rows are read by their columns' names: every statement the server reads rows from names each column
once (a column's own name, or an alias given with AS), and PostgreSQL and SQLite name them alike, so a
row reads the same on both databases."""

from __future__ import annotations

import importlib
import pkgutil
import re
import sqlite3
from pathlib import Path
from typing import Any

import psycopg
import pytest

import tapete.server
from tapete.server import sql
from tests.server.conftest import fresh_database

_PARAM = re.compile(r"(?<!:):([A-Za-z_][A-Za-z0-9_]*)")
_READS = re.compile(r"\s*(SELECT|WITH\s+\w+\s+AS\s*\(\s*SELECT)", re.IGNORECASE)


def _reads() -> list[sql.Q]:
    """The server's statements that only read (a SELECT, or a WITH whose parts are SELECTs), once each:
    every module's statements (a statement made at run time is a write: an UPDATE of the columns a
    step changed)."""
    seen: dict[str, sql.Q] = {}
    for found in pkgutil.walk_packages(tapete.server.__path__, "tapete.server."):
        if ".migrations" in found.name:
            continue
        for value in vars(importlib.import_module(found.name)).values():
            if isinstance(value, sql.Q) and _READS.match(value.lite) and value.writes is None:
                seen.setdefault(value.pg, value)
    return list(seen.values())


def _sqlite_names(path: str, stmt: sql.Q) -> tuple[str, ...] | None:
    """The columns SQLite names, with every parameter NULL; None for a statement only PostgreSQL runs
    (one calling PostgreSQL's own function)."""
    conn = sqlite3.connect(path)
    try:
        names = _PARAM.findall(stmt.lite)
        try:
            cursor = conn.execute(stmt.lite, dict.fromkeys(names))
        except sqlite3.OperationalError as exc:
            if "no such function: tapete_" in str(exc):
                return None
            raise
        except sqlite3.IntegrityError:  # a LIMIT refuses NULL
            cursor = conn.execute(stmt.lite, dict.fromkeys(names, 1))
        return tuple(d[0].lower() for d in cursor.description)
    finally:
        conn.close()


def _pg_names(url: str, stmt: sql.Q) -> tuple[str, ...] | None:
    """The columns PostgreSQL names, with every parameter NULL; None when it cannot run so (a check
    that refuses a NULL table, a parameter whose type only its value says)."""
    with psycopg.connect(url, autocommit=True) as conn:
        try:
            cursor = conn.execute(stmt.pg, {name: None for name in re.findall(r"%\((\w+)\)s", stmt.pg)})
        except psycopg.Error:
            return None
        assert cursor.description is not None
        return tuple(column.name for column in cursor.description)


def test_every_statement_names_its_columns_once_and_alike_on_both_databases(
    tmp_path: Path, migrated: dict[str, str]
) -> None:
    reads = _reads()
    assert len(reads) > 40  # the server's reads, not a few
    compared, wrong = 0, []
    with (
        fresh_database("sqlite", tmp_path, migrated) as lite,
        fresh_database("postgres", tmp_path, migrated) as pg,
    ):
        path = lite.split(":///", 1)[1]
        for stmt in reads:
            names = _sqlite_names(path, stmt)
            if names is None:
                continue
            named = all(n.isidentifier() and not n.startswith("_") for n in names)
            if not named or len(set(names)) < len(names):
                wrong.append((names, stmt.lite))
                continue
            sql.row_maker(names)  # a named tuple can be made of them
            found = _pg_names(pg, stmt)
            if found is not None:
                compared += 1
                if found != names:
                    wrong.append((found, names, stmt.pg))
    assert not wrong, "\n".join(map(str, wrong))
    assert compared >= len(reads) * 3 // 4, f"only {compared} of {len(reads)} statements compared"


@pytest.mark.parametrize("names", [("a", "a"), ("coalesce(a.b, 0)",), ("_x",)])
def test_a_row_of_unnamed_or_twice_named_columns_is_refused(names: tuple[str, ...]) -> None:
    with pytest.raises(ValueError, match="must each have a name"):
        sql.row_maker(names)


def test_a_row_reads_by_name_and_by_place(api: Any, database_url: str) -> None:
    """What `Tx.one` gives: the columns by name, and still a tuple."""
    import asyncio

    api.user("ana", "player", chips=1_000)

    async def read() -> Any:
        store = sql.Store(database_url)
        try:
            async with store.transaction(write=False) as tx:
                return await tx.one(
                    sql.q("SELECT name, balance AS chips FROM accounts WHERE name = :n"), {"n": "wallet:ana"}
                )
        finally:
            await store.close()

    row = asyncio.run(read())
    assert row is not None
    assert (row.name, row.chips) == ("wallet:ana", 1_000) == tuple(row)
