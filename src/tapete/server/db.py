"""The database: the async engine the server runs on (psycopg 3 or aiosqlite), and Alembic's migrations
applied at start (`migrate`), on PostgreSQL and on the embedded SQLite alike."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.orm import ORMExecuteState, Session

from tapete.server.config import async_url, sync_url

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
PING_AFTER_IDLE_SECONDS = 1.0
"""A pooled PostgreSQL connection idle this long is pinged before use (one that was just used is not)."""


def make_engine(url: str) -> AsyncEngine:
    """The server's engine. SQLite: WAL, a busy timeout and foreign keys on every connection."""
    if url.startswith("sqlite"):
        engine = create_async_engine(async_url(url), connect_args={"timeout": 30})

        @event.listens_for(engine.sync_engine, "connect")
        def _pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=30000")
            cursor.close()

        return engine
    engine = create_async_engine(async_url(url), pool_size=10, max_overflow=20)
    _ping_when_idle(engine)
    return engine


def _ping_when_idle(engine: AsyncEngine) -> None:
    """Pessimistic disconnect handling, paid only where it can matter: a connection that sat idle in the
    pool for `PING_AFTER_IDLE_SECONDS` is pinged when it is checked out (a dead one is replaced, and the
    request never sees it: PostgreSQL restarted while the server was quiet). The pool's `pool_pre_ping`
    pinged on every checkout, a round trip per transaction (a third of a decision's database time under
    load), for connections used a few milliseconds before. One that dies in those milliseconds fails its
    request whole, `unavailable`, and the pool drops every connection as old as it."""
    pool = engine.sync_engine.pool

    @event.listens_for(pool, "checkin")
    def _idle_from(_dbapi_connection: Any, record: Any) -> None:
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(pool, "checkout")
    def _ping_if_idle(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        since = record.info.get("idle_since")
        if since is None or time.monotonic() - since < PING_AFTER_IDLE_SECONDS:
            return
        try:
            alive = engine.dialect.do_ping(dbapi_connection)
        except Exception as exc:
            raise DisconnectionError("a pooled connection did not answer its ping") from exc
        if not alive:
            raise DisconnectionError("a pooled connection did not answer its ping")


class TrackedSession(Session):
    """A session that keeps, in ``info["touched"]``, the tables its transaction wrote (what it flushed
    and the DML it executed), so that a table's state snapshot can keep the parts nothing changed."""


@event.listens_for(TrackedSession, "after_flush")
def _flushed(session: Session, _context: Any) -> None:
    found = session.info.setdefault("touched", set())
    for obj in (*session.new, *session.dirty, *session.deleted):
        table = getattr(obj, "__tablename__", None)
        if table:
            found.add(table)


@event.listens_for(TrackedSession, "do_orm_execute")
def _executed(state: ORMExecuteState) -> None:
    if state.is_insert or state.is_update or state.is_delete:
        table = getattr(state.statement, "table", None)
        state.session.info.setdefault("touched", set()).add(getattr(table, "name", "?"))


@event.listens_for(TrackedSession, "after_transaction_end")
def _ended(session: Session, transaction: Any) -> None:
    if transaction.parent is None:  # the outermost transaction: a new one starts with nothing written
        session.info.pop("touched", None)
        session.info.pop("snapshot_hint", None)
        session.info.pop("state_before", None)


def sessions(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """A session factory whose objects stay readable after commit."""
    return async_sessionmaker(engine, expire_on_commit=False, sync_session_class=TrackedSession)


def alembic_config(url: str) -> Any:
    """Alembic's configuration for this package's migrations on `url`."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", sync_url(url).replace("%", "%%"))
    return cfg


def migrate(url: str) -> None:
    """Bring the database at `url` to the newest schema (creates an embedded SQLite file's folder)."""
    from alembic import command

    if url.startswith("sqlite:///"):
        Path(url.split(":///", 1)[1]).parent.mkdir(parents=True, exist_ok=True)
    command.upgrade(alembic_config(url), "head")
