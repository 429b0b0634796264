"""tapete_moved(what): on PostgreSQL, a function that refuses the statement calling it with SQLSTATE
TPMOV. A round's end sends its check that the table is still as the process knew it (its row's version,
chain length and head, locked) in the same round trip as its writes and COMMIT, without waiting for the
check's answer: the check calls this function when the row moved (or when the table's chips did not
settle to zero), which aborts the whole transaction, and the step is taken again from the database.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-04 09:10:00
"""

from __future__ import annotations

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

MOVED_SQLSTATE = "TPMOV"


def upgrade() -> None:
    """Apply (PostgreSQL only: SQLite's steps read their check, under the database's one writer)."""
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            "CREATE OR REPLACE FUNCTION tapete_moved(what text) RETURNS integer LANGUAGE plpgsql AS $$"
            f" BEGIN RAISE EXCEPTION '% moved under this step', what USING ERRCODE = '{MOVED_SQLSTATE}';"
            " END $$"
        )


def downgrade() -> None:
    """Revert."""
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION IF EXISTS tapete_moved(text)")
