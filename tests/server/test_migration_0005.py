"""Migration 0005 on a database that already holds records and entries (written before signatures): its
`legacy` checkpoints, signed at the first start, let the unsigned rows stand on their hashes and links;
what is written after is signed; a change to an old record is still found; the triggers come with it and
go with a downgrade."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command

from tapete.log import GENESIS
from tapete.server.app import Casino
from tapete.server.db import alembic_config, migrate, sync_url
from tapete.server.inspection import integrity
from tapete.server.play import chain, tables
from tapete.server.play import repository as repo
from tests.server.conftest import postgres_database, settings_for
from tests.server.tampering import superuser


@pytest.fixture(params=["sqlite", "postgres"])
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database of each kind."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'old.db'}"
        return
    with postgres_database("tapete_migration") as url:
        yield url


def _old_rows(engine: sa.Engine) -> None:
    """A table with three records and a ledger of two entries, as the code before 0005 wrote them."""
    head = GENESIS
    with engine.begin() as conn:
        for seq in range(3):
            event = {"type": "procedure", "n": seq}
            record = {
                "seq": seq,
                "round": "shoe-0",
                "event": event,
                "prev": head,
                "at": "2026-12-01T10:00:00Z",
            }
            record["by"] = "dora"
            digest = chain.record_digest(record)
            conn.execute(
                sa.text(
                    'INSERT INTO events (table_id, seq, "round", event, prev, "at", "by", hash)'
                    " VALUES (1, :s, 'shoe-0', :e, :p, '2026-12-01T10:00:00Z', 'dora', :h)"
                ),
                {"s": seq, "e": json.dumps(event), "p": head, "h": digest},
            )
            head = digest
        conn.execute(sa.text("UPDATE tables SET next_seq = 3, head_hash = :h WHERE id = 1"), {"h": head})
        for name, kind, amount in (("cage", "cage", -500), ("wallet:ana", "wallet", 500)):
            account = conn.execute(
                sa.text("INSERT INTO accounts (name, kind, balance) VALUES (:n, :k, :b) RETURNING id"),
                {"n": name, "k": kind, "b": amount},
            ).scalar_one()
            conn.execute(
                sa.text(
                    'INSERT INTO ledger_entries (txn, account_id, amount, balance_after, kind, "at")'
                    " VALUES ('t1', :a, :m, :m, 'buy_in', :at)"
                ),
                {"a": account, "m": amount, "at": "2026-12-01 10:00:00"},
            )


def _startup(url: str, data_dir: Path) -> integrity.StartupReport:
    async def run() -> integrity.StartupReport:
        casino = Casino(settings_for(url, data_dir))
        try:
            async with casino.store.transaction() as tx:
                rows = [tables.row_of(f) for f in await tx.all(repo.ALL_TABLES_LOCKED)]
                return await integrity.startup(tx, rows, lambda _: None)
        finally:
            await casino.dispose()

    return asyncio.run(run())


def test_0005_keeps_the_old_rows_trusted_on_their_hashes(empty_url: str, tmp_path: Path) -> None:
    command.upgrade(alembic_config(empty_url), "0004")
    engine = sa.create_engine(sync_url(empty_url))
    try:
        with engine.begin() as conn:
            conn.execute(
                sa.text(
                    "INSERT INTO tables (name, game, mode, rules, status, version, next_seq, head_hash,"
                    " round_no, in_round, shuffle_no, created_at) VALUES ('Mesa 1', 'blackjack', 'live',"
                    " '{}', 'open', 0, 0, :h, 0, false, 0, :t)"
                ),
                {"h": GENESIS, "t": "2026-12-01 10:00:00"},
            )
        _old_rows(engine)
        migrate(empty_url)
        report = _startup(empty_url, tmp_path)
        assert report.suspended == [] and report.frozen == [] and report.records == 3
        with engine.connect() as conn:
            marks = conn.execute(
                sa.text("SELECT kind, seq, sig IS NOT NULL FROM checkpoints ORDER BY id")
            ).all()
        assert [tuple(m) for m in marks] == [
            ("legacy", 2, True),
            ("legacy_ledger", 2, True),
            ("keyed", 0, True),
        ]
        with superuser(engine) as conn:  # an old record changed: its hash still tells
            conn.execute(
                sa.text("UPDATE events SET event = :e WHERE seq = 1"), {"e": json.dumps({"type": "x"})}
            )
        report = _startup(empty_url, tmp_path)
        assert [(t, seq) for t, seq, _ in report.suspended] == [(1, 1)]
        with engine.begin() as conn:  # an unsigned legacy mark added later is not believed
            conn.execute(
                sa.text(
                    'INSERT INTO checkpoints (kind, table_id, seq, hash, "at")'
                    " VALUES ('legacy', 1, 99, '', :t)"
                ),
                {"t": "2026-12-01 10:00:00"},
            )
        _startup(empty_url, tmp_path)
        with engine.connect() as conn:
            assert conn.execute(sa.text("SELECT sig FROM checkpoints WHERE seq = 99")).scalar() is None
        command.downgrade(alembic_config(empty_url), "0004")
        with engine.begin() as conn:  # the triggers went with it
            conn.execute(sa.text("DELETE FROM ledger_entries"))
        assert "sig" not in {c["name"] for c in sa.inspect(engine).get_columns("events")}
    finally:
        engine.dispose()
