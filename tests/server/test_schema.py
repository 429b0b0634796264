"""`models.py` is the schema: what the migrations make is what the models declare, table by table,
column by column, index by index, on both databases (Alembic's own comparison, as its autogenerate
reads it), so the ORM, the statements written against the models and a reader of `models.py` all see
the database as it is."""

from __future__ import annotations

import warnings

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from tapete.server import models
from tapete.server.db import sync_url


def test_the_migrations_make_the_schema_the_models_declare(database_url: str) -> None:
    engine = sa.create_engine(sync_url(database_url))
    try:
        with warnings.catch_warnings():  # SQLite cannot reflect the lower(name) index: not compared there
            warnings.simplefilter("ignore")
            with engine.connect() as conn:
                differences = compare_metadata(MigrationContext.configure(conn), models.Base.metadata)
    finally:
        engine.dispose()
    assert differences == []
