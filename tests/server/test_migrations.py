"""Migrations: a database made by an earlier schema is brought to the newest on start, its rows kept."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command

from tapete.server.db import alembic_config, migrate, sync_url
from tests.server.conftest import postgres_database


@pytest.fixture(params=["sqlite", "postgres"])
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database of each kind."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'old.db'}"
        return
    with postgres_database("tapete_migration") as url:
        yield url


def test_a_0001_database_loses_the_unread_previous_login_column_and_keeps_its_users(empty_url: str) -> None:
    """0002 drops users.previous_login_at (the previous login is read from the sessions): a database at
    0001 with a user who logged in twice keeps the user and his last login."""
    command.upgrade(alembic_config(empty_url), "0001")
    engine = sa.create_engine(sync_url(empty_url))
    try:
        with engine.begin() as conn:
            conn.execute(
                sa.text(
                    "INSERT INTO users (name, role, password_hash, active, created_at, last_login_at,"
                    " previous_login_at) VALUES ('ana', 'player', 'x', true, :t, :t, :t)"
                ),
                {"t": "2026-12-01 10:00:00"},
            )
        migrate(empty_url)
        columns = {c["name"] for c in sa.inspect(engine).get_columns("users")}
        assert "previous_login_at" not in columns and "last_login_at" in columns
        with engine.connect() as conn:
            assert conn.execute(sa.text("SELECT name, last_login_at FROM users")).one()[0] == "ana"
        command.downgrade(alembic_config(empty_url), "0001")  # and back, the column empty
        assert "previous_login_at" in {c["name"] for c in sa.inspect(engine).get_columns("users")}
    finally:
        engine.dispose()


def test_0003_leaves_the_tables_row_without_an_index_its_steps_update(empty_url: str) -> None:
    """0003 drops tables.deadline_at's index (every step of a round moves the turn deadline, and an
    index on it made each update of the row a new entry in every index of `tables`) and, on
    PostgreSQL, keeps half of each page of `tables` free for its rows' next versions; down again, the
    index is back. A table made before keeps its row."""
    command.upgrade(alembic_config(empty_url), "0002")
    engine = sa.create_engine(sync_url(empty_url))
    try:
        with engine.begin() as conn:
            conn.execute(
                sa.text(
                    "INSERT INTO tables (name, game, mode, rules, status, version, next_seq, head_hash,"
                    " round_no, in_round, shuffle_no, created_at) VALUES ('Mesa 1', 'blackjack', 'virtual',"
                    " '{}', 'open', 3, 7, :h, 1, false, 1, :t)"
                ),
                {"h": "0" * 64, "t": "2026-12-01 10:00:00"},
            )

        def indexes() -> set[str]:
            return {i["name"] or "" for i in sa.inspect(engine).get_indexes("tables")}

        assert "ix_tables_deadline_at" in indexes()
        migrate(empty_url)
        assert "ix_tables_deadline_at" not in indexes()
        with engine.connect() as conn:
            assert conn.execute(sa.text("SELECT name, version FROM tables")).one() == ("Mesa 1", 3)
            if engine.dialect.name == "postgresql":
                options = conn.execute(sa.text("SELECT reloptions FROM pg_class WHERE relname = 'tables'"))
                assert options.scalar() == ["fillfactor=50"]
        command.downgrade(alembic_config(empty_url), "0002")
        assert "ix_tables_deadline_at" in indexes()
    finally:
        engine.dispose()


def test_0004_gives_postgresql_the_function_a_check_sent_unread_refuses_with(empty_url: str) -> None:
    """0004 adds tapete_moved(what) on PostgreSQL: called, it refuses the statement (and so the whole
    transaction) with SQLSTATE TPMOV, which the server reads as a stale step; down again, it is gone.
    SQLite gets nothing (its steps read their check)."""
    command.upgrade(alembic_config(empty_url), "0004")
    engine = sa.create_engine(sync_url(empty_url))
    try:
        if engine.dialect.name != "postgresql":
            with engine.connect() as conn:  # the schema is there; no function to call
                assert conn.execute(sa.text("SELECT COUNT(*) FROM tables")).scalar() == 0
            return
        import psycopg

        with engine.connect() as conn, pytest.raises(sa.exc.DBAPIError) as refused:
            conn.execute(sa.text("SELECT tapete_moved('the table')"))
        assert isinstance(refused.value.orig, psycopg.Error)
        assert refused.value.orig.sqlstate == "TPMOV"
        assert "the table moved under this step" in str(refused.value.orig)

        def present() -> bool:
            with engine.connect() as conn:
                found = conn.execute(sa.text("SELECT COUNT(*) FROM pg_proc WHERE proname = 'tapete_moved'"))
                return bool(found.scalar())

        command.downgrade(alembic_config(empty_url), "0003")
        assert not present()
        migrate(empty_url)
        assert present()
    finally:
        engine.dispose()
