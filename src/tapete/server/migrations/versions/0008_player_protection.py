"""Player protection (server.md, "Player protection"): a player's identity, limits and self-exclusion
(player_protection), the register of persons prohibited from the games (prohibited_persons, replaced
whole by the administrator, with its load in protection_register), and an index that reads a wallet's
entries of one day (the daily loss and wager limits).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-06 00:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import tapete.server.models

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Apply."""
    op.create_table(
        "player_protection",
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("document", sa.String(length=20), nullable=True),
        sa.Column("birth_date", sa.String(length=10), nullable=True),
        sa.Column("excluded_until", tapete.server.models.UTCDateTime(timezone=True), nullable=True),
        sa.Column("loss_per_day", sa.BigInteger(), nullable=True),
        sa.Column("wager_per_day", sa.BigInteger(), nullable=True),
        sa.Column("session_minutes", sa.Integer(), nullable=True),
        sa.Column("reality_check_minutes", sa.Integer(), nullable=True),
        sa.Column("pending", sa.JSON(), nullable=True),
        sa.PrimaryKeyConstraint("user_id"),
        sa.UniqueConstraint("document", name="one_player_per_document"),
    )
    op.create_table(
        "prohibited_persons",
        sa.Column("document", sa.String(length=20), nullable=False),
        sa.Column("since", sa.String(length=10), nullable=True),
        sa.PrimaryKeyConstraint("document"),
    )
    op.create_table(
        "protection_register",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("entries", sa.Integer(), nullable=False),
        sa.Column("loaded_at", tapete.server.models.UTCDateTime(timezone=True), nullable=False),
        sa.Column("loaded_by", sa.String(length=64), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ledger_by_account_time", "ledger_entries", ["account_id", "at"])


def downgrade() -> None:
    """Revert."""
    op.drop_index("ledger_by_account_time", table_name="ledger_entries")
    op.drop_table("protection_register")
    op.drop_table("prohibited_persons")
    op.drop_table("player_protection")
