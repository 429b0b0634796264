"""The database: the async engine the server runs on (psycopg 3 or aiosqlite), and Alembic's migrations
applied at start (`migrate`), on PostgreSQL and on the embedded SQLite alike."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine

from tapete.server.config import async_url, sync_url

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


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
    # the people's rows and the inspector's reads, a few times a second at most: every checkout pinged, so
    # that a connection PostgreSQL dropped (a restart) is replaced before a request sees it (the tables'
    # steps run on the driver, `sql.Store`, which pings only what sat idle)
    return create_async_engine(async_url(url), pool_size=5, max_overflow=10, pool_pre_ping=True)


def sessions(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """A session factory whose objects stay readable after commit."""
    return async_sessionmaker(engine, expire_on_commit=False)


def alembic_config(url: str) -> Any:
    """Alembic's configuration for this package's migrations on `url`."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", sync_url(url).replace("%", "%%"))
    return cfg


def migrate(url: str, signer: Any = None) -> None:
    """Bring the database at `url` to the newest schema (creates an embedded SQLite file's folder).
    `signer` (a `signing.Signer`): the casino's key, with which migration 0005 signs the legacy
    checkpoints it writes once it verified them (without it they stay unsigned and stand for nothing)."""
    from alembic import command

    if url.startswith("sqlite:///"):
        Path(url.split(":///", 1)[1]).parent.mkdir(parents=True, exist_ok=True)
    config = alembic_config(url)
    if signer is not None:
        config.attributes["signer"] = signer
    command.upgrade(config, "head")


def holds_signatures(url: str) -> bool:
    """Whether the database at `url` already holds a signed record, ledger entry or checkpoint (a casino
    that has played): False for one that does not exist yet or has no such table."""
    import sqlalchemy as sa

    if url.startswith("sqlite:///") and not Path(url.split(":///", 1)[1]).exists():
        return False
    engine = sa.create_engine(sync_url(url))
    try:
        with engine.connect() as conn:
            names = set(sa.inspect(conn).get_table_names())
            for table in ("events", "ledger_entries", "checkpoints"):
                if table in names and "sig" in {c["name"] for c in sa.inspect(conn).get_columns(table)}:
                    found = conn.execute(sa.text(f"SELECT 1 FROM {table} WHERE sig IS NOT NULL LIMIT 1"))
                    if found.first() is not None:
                        return True
        return False
    finally:
        engine.dispose()
