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
from typing import TYPE_CHECKING

from sqlalchemy import Engine, inspect, text
from sqlalchemy.engine import Connection

from .errors import ForeignDatabase

if TYPE_CHECKING:
    from alembic.config import Config

# Alembic is imported only where a migration is read or run: a database already at the newest
# revision (every start but the first after an upgrade) is checked with one query, and the
# import (a third of a second) is not paid by each ``serve``, node or CLI command.

__all__ = ["MIGRATIONS_DIR", "MIGRATION_IDLE_MS", "alembic_config", "current_revision",
           "head_revision", "known_revision", "newest_shipped", "upgrade"]

MIGRATIONS_DIR = Path(__file__).resolve().with_name("migrations")

# Any fixed 64-bit number: the key of the advisory lock held while migrating.
_PG_MIGRATION_LOCK = 0x5748_4D4A_5354_4F52  # "WHMJSTOR"

MIGRATION_IDLE_MS = 300_000
"""How long a migrating session may sit between two statements (PostgreSQL), in place of
the store's :data:`~.database.PG_IDLE_IN_TRANSACTION_MS`: long enough for any pause of the
migrating process's Python, short enough that a frozen one lets the next start migrate."""


def alembic_config(connection: Connection | None = None, url: str | None = None) -> Config:
    """An Alembic config for the packaged migrations, bound to a connection or a URL."""
    from alembic.config import Config

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
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if head is None:  # pragma: no cover - the package always ships revisions
        raise RuntimeError("no migrations found")
    return head


def known_revision(revision: str) -> bool:
    """Whether ``revision`` is one this version ships (a newer version's is not)."""
    from alembic.script import ScriptDirectory
    from alembic.util.exc import CommandError

    try:
        ScriptDirectory.from_config(alembic_config()).get_revision(revision)
    except CommandError:
        return False
    return True


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at; ``None`` for an empty database."""
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def newest_shipped() -> str:
    """The newest revision shipped, from the scripts' file names alone (a revision's id is
    its file's name, ``v<4 digits>_<slug>``, and each revises the one numbered before it):
    what :func:`head_revision` says, without importing Alembic."""
    names = [p.stem for p in (MIGRATIONS_DIR / "versions").glob("v[0-9][0-9][0-9][0-9]_*.py")]
    if not names:  # pragma: no cover - the package always ships revisions
        raise RuntimeError("no migrations found")
    return max(names)


def _at_newest(engine: Engine) -> bool:
    """Whether the database is at the newest shipped revision already (one query)."""
    with engine.connect() as connection:
        if not inspect(connection).has_table("alembic_version"):
            return False
        found = connection.execute(text("SELECT version_num FROM alembic_version")).scalars()
        return list(found) == [newest_shipped()]


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Bring the database to ``revision`` (default: the newest) in one transaction.

    Raises :class:`~.errors.ForeignDatabase`, changing nothing, for a database that is not
    empty and not ours (a mistyped ``--db`` must not add our tables to another program's
    database) or that is at a revision this version does not ship."""
    if revision == "head" and _at_newest(engine):
        return
    from alembic import command

    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            # Alembic runs Python between the statements (it loads each revision's module),
            # which a loaded machine may stretch past the store's few seconds for a session
            # idle in a transaction: PostgreSQL then ended the migration half done
            connection.execute(text(
                f"SET LOCAL idle_in_transaction_session_timeout = {MIGRATION_IDLE_MS}"))
            connection.execute(
                text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_MIGRATION_LOCK}
            )
        _check_ours(connection)
        command.upgrade(alembic_config(connection), revision)


def _check_ours(connection: Connection) -> None:
    """Refuse a database with tables but no revision of ours (see :func:`upgrade`)."""
    from alembic.runtime.migration import MigrationContext

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
