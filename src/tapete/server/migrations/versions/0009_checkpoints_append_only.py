"""The checkpoints are append-only too (docs/security.md): the database refuses UPDATE and DELETE (and, on
PostgreSQL, TRUNCATE) of them, as it does of chain records and ledger entries since 0005. The server
only ever inserts one (nothing signs an existing row any more: migration 0005 signs its legacy
checkpoints in its own transaction), so a checkpoint removed or rewritten is the work of someone who
bypassed the triggers, as the database's superuser can; the signatures answer that one.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-20 00:40:00
"""

from __future__ import annotations

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

#: 0005's SQLite refusal text begins with this (`sql.Violation`)
APPEND_ONLY_SQLSTATE = "TPAPP"


def upgrade() -> None:
    """Apply."""
    if op.get_bind().dialect.name == "postgresql":  # 0005's tapete_append_only(), SQLSTATE TPAPP
        op.execute(
            "CREATE TRIGGER checkpoints_append_only BEFORE UPDATE OR DELETE ON checkpoints"
            " FOR EACH ROW EXECUTE FUNCTION tapete_append_only()"
        )
        op.execute(
            "CREATE TRIGGER checkpoints_no_truncate BEFORE TRUNCATE ON checkpoints"
            " FOR EACH STATEMENT EXECUTE FUNCTION tapete_append_only()"
        )
        return
    for op_name in ("UPDATE", "DELETE"):
        op.execute(
            f"CREATE TRIGGER checkpoints_no_{op_name.lower()} BEFORE {op_name} ON checkpoints"
            f" BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY_SQLSTATE} checkpoints rows are append-only'); END"
        )


def downgrade() -> None:
    """Revert."""
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS checkpoints_append_only ON checkpoints")
        op.execute("DROP TRIGGER IF EXISTS checkpoints_no_truncate ON checkpoints")
        return
    for op_name in ("update", "delete"):
        op.execute(f"DROP TRIGGER IF EXISTS checkpoints_no_{op_name}")
