"""Changing rows as a database superuser would, past the append-only triggers of migration 0005: on
PostgreSQL with ``SET session_replication_role = replica`` (triggers do not fire), on SQLite by dropping
the triggers for the change and making them again."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import sqlalchemy as sa


@contextlib.contextmanager
def superuser(engine: sa.Engine) -> Iterator[sa.Connection]:
    """A connection in a transaction whose UPDATE and DELETE of chain records and ledger entries the
    triggers do not refuse."""
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(sa.text("SET LOCAL session_replication_role = replica"))
            yield conn
            return
        triggers = conn.execute(
            sa.text("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
        ).all()
        for name, _ in triggers:
            conn.execute(sa.text(f'DROP TRIGGER "{name}"'))
        yield conn
        for _, text in triggers:
            conn.execute(sa.text(text))
