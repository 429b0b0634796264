"""Integrity of the records and the money (server.md): a signature on every chain record and ledger entry,
signed checkpoints, frozen accounts, and the database itself refusing UPDATE and DELETE on chain records
and ledger entries (triggers on PostgreSQL and SQLite), and refusing a ledger entry that does not link to
its account's previous entry (its balance after it is not the previous one's plus its amount) or that
moves a frozen account: SQLSTATE TPFRZ on PostgreSQL (its message names the account), ``TPFRZ`` at
the start of SQLite's message (whose RAISE takes a constant text only: the server finds the account by
reconciling the balances).

Rows written before this revision carry no signature: a ``legacy`` checkpoint per table (and one for the
ledger) says up to where. Each is signed here, in this revision's transaction, once what it stands for
is verified (`offline.sign_legacy`), with the casino's key that `db.migrate` is given (the server gives
it its own); one not verified, or written by a migration run without the key, stays unsigned and stands
for nothing. Nothing else ever signs a legacy checkpoint (docs/security.md).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-06 00:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

APPEND_ONLY_SQLSTATE = "TPAPP"
FROZEN_SQLSTATE = "TPFRZ"
PROTECTED = ("events", "ledger_entries")

_PG_APPEND_ONLY = (
    "CREATE OR REPLACE FUNCTION tapete_append_only() RETURNS trigger LANGUAGE plpgsql AS $$"
    " BEGIN RAISE EXCEPTION '% rows are append-only: % refused', TG_TABLE_NAME, TG_OP"
    f" USING ERRCODE = '{APPEND_ONLY_SQLSTATE}'; END $$"
)
_PG_LINK = (
    "CREATE OR REPLACE FUNCTION tapete_entry_link() RETURNS trigger LANGUAGE plpgsql AS $$"
    " DECLARE last_balance bigint; frozen_reason text;"
    " BEGIN"
    " SELECT frozen INTO frozen_reason FROM accounts WHERE id = NEW.account_id;"
    " IF frozen_reason IS NOT NULL THEN"
    "  RAISE EXCEPTION 'account % is frozen', NEW.account_id"
    f"  USING ERRCODE = '{FROZEN_SQLSTATE}', DETAIL = 'account=' || NEW.account_id || ' frozen';"
    " END IF;"
    " SELECT balance_after INTO last_balance FROM ledger_entries WHERE account_id = NEW.account_id"
    "  ORDER BY id DESC LIMIT 1;"
    " IF COALESCE(last_balance, 0) + NEW.amount <> NEW.balance_after THEN"
    "  RAISE EXCEPTION 'account % does not reconcile with its last entry', NEW.account_id"
    f"  USING ERRCODE = '{FROZEN_SQLSTATE}', DETAIL = 'account=' || NEW.account_id || ' link';"
    " END IF;"
    " RETURN NEW; END $$"
)


def _sqlite_triggers() -> list[str]:
    out = []
    for table in PROTECTED:
        for op_name in ("UPDATE", "DELETE"):
            out.append(
                f"CREATE TRIGGER {table}_no_{op_name.lower()} BEFORE {op_name} ON {table}"
                f" BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY_SQLSTATE} {table} rows are append-only'); END"
            )
    out.append(
        "CREATE TRIGGER ledger_entries_link BEFORE INSERT ON ledger_entries BEGIN"
        f" SELECT RAISE(ABORT, '{FROZEN_SQLSTATE} the account is frozen')"
        " WHERE (SELECT frozen FROM accounts WHERE id = NEW.account_id) IS NOT NULL;"
        f" SELECT RAISE(ABORT, '{FROZEN_SQLSTATE} the account does not reconcile with its last entry')"
        " WHERE COALESCE((SELECT balance_after FROM ledger_entries WHERE account_id = NEW.account_id"
        " ORDER BY id DESC LIMIT 1), 0) + NEW.amount <> NEW.balance_after;"
        " END"
    )
    return out


def upgrade() -> None:
    """Apply."""
    dialect = op.get_bind().dialect.name
    op.add_column("events", sa.Column("sig", sa.Text(), nullable=True))
    op.add_column("ledger_entries", sa.Column("sig", sa.Text(), nullable=True))
    op.add_column("accounts", sa.Column("frozen", sa.Text(), nullable=True))
    op.add_column("accounts", sa.Column("checked_to", sa.BigInteger(), nullable=False, server_default="0"))
    op.create_index("ledger_by_account", "ledger_entries", ["account_id", "id"])
    op.create_table(
        "checkpoints",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=True),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sig", sa.Text(), nullable=True),
    )
    op.create_index("checkpoints_by_table", "checkpoints", ["kind", "table_id", "seq"])
    # what was written before signatures: hashes only, up to here (signed at the first start)
    now = "CURRENT_TIMESTAMP"
    op.execute(
        "INSERT INTO checkpoints (kind, table_id, seq, hash, at)"
        f" SELECT 'legacy', id, next_seq - 1, head_hash, {now} FROM tables WHERE next_seq > 0"
    )
    op.execute(
        "INSERT INTO checkpoints (kind, table_id, seq, hash, at)"
        f" SELECT 'legacy_ledger', NULL, MAX(id), '', {now} FROM ledger_entries HAVING COUNT(*) > 0"
    )
    config = op.get_context().config
    signer = config.attributes.get("signer") if config is not None else None
    if signer is not None:
        from tapete.server.offline import sign_legacy

        for left in sign_legacy(op.get_bind(), signer):
            print(f"migration 0005: the {left} legacy checkpoint is not signed: its rows do not verify")
    if dialect == "postgresql":
        op.execute(_PG_APPEND_ONLY)
        op.execute(_PG_LINK)
        for table in PROTECTED:
            op.execute(
                f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table}"
                " FOR EACH ROW EXECUTE FUNCTION tapete_append_only()"
            )
            op.execute(
                f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table}"
                " FOR EACH STATEMENT EXECUTE FUNCTION tapete_append_only()"
            )
        op.execute(
            "CREATE TRIGGER ledger_entries_link BEFORE INSERT ON ledger_entries"
            " FOR EACH ROW EXECUTE FUNCTION tapete_entry_link()"
        )
    else:
        for statement in _sqlite_triggers():
            op.execute(statement)


def downgrade() -> None:
    """Revert."""
    dialect = op.get_bind().dialect.name
    if dialect == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS ledger_entries_link ON ledger_entries")
        for table in PROTECTED:
            op.execute(f"DROP TRIGGER IF EXISTS {table}_append_only ON {table}")
            op.execute(f"DROP TRIGGER IF EXISTS {table}_no_truncate ON {table}")
        op.execute("DROP FUNCTION IF EXISTS tapete_entry_link()")
        op.execute("DROP FUNCTION IF EXISTS tapete_append_only()")
    else:
        op.execute("DROP TRIGGER IF EXISTS ledger_entries_link")
        for table in PROTECTED:
            for op_name in ("update", "delete"):
                op.execute(f"DROP TRIGGER IF EXISTS {table}_no_{op_name}")
    op.drop_index("checkpoints_by_table", table_name="checkpoints")
    op.drop_table("checkpoints")
    op.drop_index("ledger_by_account", table_name="ledger_entries")
    with op.batch_alter_table("accounts") as batch:
        batch.drop_column("checked_to")
        batch.drop_column("frozen")
    with op.batch_alter_table("ledger_entries") as batch:
        batch.drop_column("sig")
    with op.batch_alter_table("events") as batch:
        batch.drop_column("sig")
