"""Programmatic Alembic: upgrade a database to the newest schema at start-up.

The migration scripts ship inside the package (``migrations/``), so no
``alembic.ini`` is needed.  Upgrading is idempotent and safe when several
processes start at once: it runs in one transaction that first takes a lock
(PostgreSQL: a transaction-level advisory lock; SQLite: ``BEGIN IMMEDIATE``).

To write a new revision during development::

    from wuhan_mahjong.store.migrate import alembic_config
    from alembic import command
    cfg = alembic_config(url="sqlite:///data/dev.db")   # a database at head
    command.revision(cfg, message="add something", autogenerate=True)
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util.exc import CommandError
from sqlalchemy import Engine, inspect, text
from sqlalchemy.engine import Connection

from .errors import ForeignDatabase

__all__ = ["MIGRATIONS_DIR", "alembic_config", "current_revision", "head_revision", "known_revision",
           "upgrade"]

MIGRATIONS_DIR = Path(__file__).resolve().with_name("migrations")

# Any fixed 64-bit number: the key of the advisory lock held while migrating.
_PG_MIGRATION_LOCK = 0x5748_4D4A_5354_4F52  # "WHMJSTOR"


def alembic_config(connection: Connection | None = None, url: str | None = None) -> Config:
    """An Alembic config for the packaged migrations, bound to a connection or a URL."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("path_separator", "os")  # versions/ is found by default
    config.set_main_option("file_template", "v%%(rev)s_%%(slug)s")
    if url is not None:
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    """The newest revision shipped with the package."""
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if head is None:  # pragma: no cover - the package always ships revisions
        raise RuntimeError("no migrations found")
    return head


def known_revision(revision: str) -> bool:
    """Whether ``revision`` is one this version ships (a newer version's is not)."""
    try:
        ScriptDirectory.from_config(alembic_config()).get_revision(revision)
    except CommandError:
        return False
    return True


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at; ``None`` for an empty database."""
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Bring the database to ``revision`` (default: the newest) in one transaction.

    Raises :class:`~.errors.ForeignDatabase`, changing nothing, for a database that is not
    empty and not ours (a mistyped ``--db`` must not add our tables to another program's
    database) or that is at a revision this version does not ship."""
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.execute(
                text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_MIGRATION_LOCK}
            )
        _check_ours(connection)
        command.upgrade(alembic_config(connection), revision)


def _check_ours(connection: Connection) -> None:
    """Refuse a database with tables but no revision of ours (see :func:`upgrade`)."""
    current = MigrationContext.configure(connection).get_current_revision()
    if current is None:
        tables = sorted(t for t in inspect(connection).get_table_names()
                        if t != "alembic_version" and not t.startswith("sqlite_"))
        if tables:
            shown = ", ".join(tables[:4]) + (", ..." if len(tables) > 4 else "")
            raise ForeignDatabase(
                f"the database is not empty and is no wuhan-mahjong database (it holds "
                f"{len(tables)} other table{'s' if len(tables) > 1 else ''}: {shown}); "
                "give an empty database")
        return
    if not known_revision(current):
        raise ForeignDatabase(
            f"the database is at schema revision {current!r}, which this version of "
            "wuhan-mahjong does not know (a newer version's database, or another "
            "program's)")
