"""tables.deadline_at loses its index, and the tables' pages keep room (PostgreSQL): a table's row is
updated at every step of its rounds (its version, chain head and turn deadline), and an index on a
column the update changes made every one of them a new index entry in each of the table's indexes
(no heap-only update), bloating the very index every step reads its row by. The timers' sweep reads
the few rows of `tables` whole instead.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02 22:40:00
"""

from __future__ import annotations

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Apply: drop the index; on PostgreSQL, half of each page of `tables` kept free for the new
    versions of its rows (a heap-only update needs room on the row's own page)."""
    op.drop_index("ix_tables_deadline_at", table_name="tables")
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE tables SET (fillfactor = 50)")


def downgrade() -> None:
    """Revert."""
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE tables RESET (fillfactor)")
    op.create_index("ix_tables_deadline_at", "tables", ["deadline_at"])
