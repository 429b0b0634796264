"""users.previous_login_at goes: the previous login is each session's own, read from the sessions

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02 00:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import tapete.server.models

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Apply: /api/me reads the login before the asking session from the sessions (accounts.login_before),
    and the login answer from last_login_at, so the column was written and never read."""
    with op.batch_alter_table("users") as batch:
        batch.drop_column("previous_login_at")


def downgrade() -> None:
    """Revert (the column comes back empty)."""
    with op.batch_alter_table("users") as batch:
        batch.add_column(
            sa.Column("previous_login_at", tapete.server.models.UTCDateTime(timezone=True), nullable=True)
        )
