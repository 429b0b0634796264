"""deck_change_requests and claims: a deck change asked for by a seated player or an inspector (Art.4), and
a player's written claim about a round with the inspector's resolution (rules.md §0, Errors)

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-06 01:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import tapete.server.models

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Apply: two new tables, nothing else changes."""
    when = tapete.server.models.UTCDateTime(timezone=True)
    op.create_table(
        "deck_change_requests",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", when, nullable=False),
        sa.Column("closed_at", when, nullable=True),
        sa.Column("closed_by", sa.String(length=64), nullable=True),
        sa.Column("closed_seq", sa.Integer(), nullable=True),
        sa.CheckConstraint("status IN ('open', 'closed')", name="deck_change_request_status"),
        sa.ForeignKeyConstraint(["table_id"], ["tables.id"]),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("deck_change_requests", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_deck_change_requests_table_id"), ["table_id"], unique=False)
    op.create_table(
        "claims",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("round_no", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", when, nullable=False),
        sa.Column("outcome", sa.String(length=16), nullable=True),
        sa.Column("resolution", sa.Text(), nullable=True),
        sa.Column("resolved_by", sa.String(length=64), nullable=True),
        sa.Column("resolved_at", when, nullable=True),
        sa.CheckConstraint("status IN ('open', 'resolved')", name="claim_status"),
        sa.CheckConstraint("outcome IS NULL OR outcome IN ('upheld', 'rejected')", name="claim_outcome"),
        sa.ForeignKeyConstraint(["table_id"], ["tables.id"]),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("claims", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_claims_table_id"), ["table_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_claims_user_id"), ["user_id"], unique=False)


def downgrade() -> None:
    """Revert: the two tables go (with the requests and claims they hold)."""
    op.drop_table("claims")
    op.drop_table("deck_change_requests")
