"""Alembic environment of the store.

:mod:`wuhan_mahjong.store.migrate` runs the migrations programmatically and
hands its open connection (already inside a transaction) in
``config.attributes["connection"]``; no ``alembic.ini`` is needed.  For the
``alembic`` command line (writing a new revision), set ``sqlalchemy.url``.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine
from sqlalchemy.engine import Connection

from wuhan_mahjong.store.models import Base


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        # SQLite cannot ALTER most things: later migrations use batch mode there.
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations() -> None:
    config = context.config
    given = config.attributes.get("connection")
    if isinstance(given, Connection):
        _run(given)
        return
    url = config.get_main_option("sqlalchemy.url")
    if not url:
        raise RuntimeError("set sqlalchemy.url or pass a connection in config.attributes")
    engine = create_engine(url)
    try:
        with engine.begin() as connection:
            _run(connection)
    finally:
        engine.dispose()


# Alembic runs this file with its context set up; a plain import (pytest's
# --doctest-modules collects every module) must do nothing.
if hasattr(context, "config"):
    if context.is_offline_mode():
        raise RuntimeError("offline (--sql) migrations are not supported")
    run_migrations()
