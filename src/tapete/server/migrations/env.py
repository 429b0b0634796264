"""Alembic's environment: the server's models, run online against the configured URL."""

from __future__ import annotations

from alembic import context
from sqlalchemy import engine_from_config, pool

from tapete.server.models import Base

config = context.config
target_metadata = Base.metadata


def run_migrations_online() -> None:
    """Apply the migrations in one transaction."""
    connectable = engine_from_config(
        config.get_section(config.config_ini_section, {}), prefix="sqlalchemy.", poolclass=pool.NullPool
    )
    with connectable.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=connection.dialect.name == "sqlite",
        )
        with context.begin_transaction():
            context.run_migrations()


run_migrations_online()
