"""User names unique whatever their case (server.md, "Logins and sessions": `Admin` is `admin`): a unique
index on lower(name), on PostgreSQL and SQLite alike. A database that already holds names differing only
by their case is not changed: the migration refuses, naming them, and the operator renames (or removes)
all but one of each group before starting the server again.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-06 00:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from tapete.server.config import ConfigError

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


class NamesCollide(ConfigError):
    """Existing user names that differ only by their case: the unique index cannot be made (a ConfigError:
    `tapete serve` says it to the operator and stops, without a traceback)."""


def upgrade() -> None:
    """Refuse on colliding names; otherwise add the index."""
    rows = (
        op.get_bind()
        .execute(
            sa.text(
                "SELECT lower(name), name FROM users WHERE lower(name) IN"
                " (SELECT lower(name) FROM users GROUP BY lower(name) HAVING count(*) > 1)"
                " ORDER BY lower(name), name"
            )
        )
        .all()
    )
    if rows:
        groups: dict[str, list[str]] = {}
        for key, name in rows:
            groups.setdefault(key, []).append(name)
        said = "; ".join(", ".join(names) for names in groups.values())
        raise NamesCollide(
            "migration 0006 (user names unique whatever their case) cannot run: these user names differ "
            f"only by their case: {said}. Rename or remove all but one of each group (UPDATE users SET "
            "name = ... WHERE name = ...), then start the server again; nothing was changed."
        )
    op.create_index("users_name_lower", "users", [sa.text("lower(name)")], unique=True)


def downgrade() -> None:
    """Revert."""
    op.drop_index("users_name_lower", table_name="users")
