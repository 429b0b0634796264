"""Migration 0005 on a database that already holds records and entries (written before signatures): its
`legacy` checkpoints, signed by the migration itself with the casino's key once it verified what they
stand for, let the unsigned rows stand on their hashes and links; a change to an old record is still
found, even with every hash recomputed; a legacy checkpoint the migration did not sign (no key, or rows
that do not verify) stands for nothing and nothing signs it later; the triggers come with it and go with
a downgrade."""

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
from tapete.server.play import chain
from tapete.server.signing import private_from_pem
from tests.server.conftest import TEST_SIGNING_KEY, postgres_database, settings_for
from tests.server.tampering import superuser

#: the test casinos' signing key (`settings_for`), as the server gives it to the migrations
SIGNER = private_from_pem(TEST_SIGNING_KEY.encode(), "the test key")


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
            return await integrity.startup(casino.store, lambda _: None)
        finally:
            await casino.dispose()

    return asyncio.run(run())


def _old_database(url: str) -> sa.Engine:
    """A database at 0004 holding `_old_rows` (one table's three records, two entries)."""
    command.upgrade(alembic_config(url), "0004")
    engine = sa.create_engine(sync_url(url))
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
    return engine


def _marks(engine: sa.Engine) -> list[tuple[str, int, bool]]:
    with engine.connect() as conn:
        rows = conn.execute(sa.text("SELECT kind, seq, sig IS NOT NULL FROM checkpoints ORDER BY id")).all()
    return [(str(k), int(s), bool(signed)) for k, s, signed in rows]


def test_0005_keeps_the_old_rows_trusted_on_their_hashes(empty_url: str, tmp_path: Path) -> None:
    engine = _old_database(empty_url)
    try:
        migrate(empty_url, SIGNER)
        assert _marks(engine) == [("legacy", 2, True), ("legacy_ledger", 2, True)]  # signed by 0005
        report = _startup(empty_url, tmp_path)
        assert report.suspended == [] and report.frozen == [] and report.records == 3
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
        with superuser(engine) as conn:  # the old records rewritten whole, every hash and the head too
            head = GENESIS
            for seq in range(3):
                event = {"type": "procedure", "n": seq, "forged": True}
                record = {"seq": seq, "round": "shoe-0", "event": event, "prev": head}
                record.update({"at": "2026-12-01T10:00:00Z", "by": "dora"})
                digest = chain.record_digest(record)
                conn.execute(
                    sa.text("UPDATE events SET event = :e, prev = :p, hash = :h WHERE seq = :s"),
                    {"e": json.dumps(event), "p": head, "h": digest, "s": seq},
                )
                head = digest
            conn.execute(
                sa.text("UPDATE tables SET head_hash = :h, status = 'open', status_reason = NULL"),
                {"h": head},
            )
        report = _startup(empty_url, tmp_path)  # the last legacy record no longer hashes to its checkpoint
        assert [(t, seq) for t, seq, _ in report.suspended] == [(1, 2)], report.suspended
        command.downgrade(alembic_config(empty_url), "0004")
        with engine.begin() as conn:  # the triggers went with it
            conn.execute(sa.text("DELETE FROM ledger_entries"))
        assert "sig" not in {c["name"] for c in sa.inspect(engine).get_columns("events")}
    finally:
        engine.dispose()


def test_0005_without_the_key_or_on_rows_that_do_not_verify_signs_nothing(
    empty_url: str, tmp_path: Path
) -> None:
    """A legacy checkpoint 0005 did not sign stands for nothing, and no start signs it (the server signs
    only what it verified): migrated without the key, the old table is suspended at its first record and
    the old entries' accounts are frozen, and the checkpoints stay unsigned. With the key, but an old
    record changed before the migration, that table's legacy checkpoint is not signed (the ledger's is)."""
    engine = _old_database(empty_url)
    try:
        migrate(empty_url)
        assert _marks(engine) == [("legacy", 2, False), ("legacy_ledger", 2, False)]
        report = _startup(empty_url, tmp_path)
        assert [(t, seq) for t, seq, _ in report.suspended] == [(1, 0)]
        assert sorted(name for name, _ in report.frozen) == ["cage", "wallet:ana"]
        _startup(empty_url, tmp_path)
        assert _marks(engine) == [("legacy", 2, False), ("legacy_ledger", 2, False)]
    finally:
        engine.dispose()


def test_0005_does_not_sign_a_legacy_chain_that_does_not_verify(empty_url: str, tmp_path: Path) -> None:
    url = empty_url
    engine = _old_database(url)
    try:
        with engine.begin() as conn:
            conn.execute(
                sa.text("UPDATE events SET event = :e WHERE seq = 1"), {"e": json.dumps({"type": "x"})}
            )
        migrate(url, SIGNER)
        assert _marks(engine) == [("legacy", 2, False), ("legacy_ledger", 2, True)]
        report = _startup(url, tmp_path)
        assert [(t, seq) for t, seq, _ in report.suspended] == [(1, 0)] and report.frozen == []
    finally:
        engine.dispose()
