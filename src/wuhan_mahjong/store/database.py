"""The SQLAlchemy engine (the database connection pool, not the game's :mod:`wuhan_mahjong.engine`)
for the two supported databases, SQLite and PostgreSQL.

SQLite needs care to be safe under concurrent writers:

* Python's ``sqlite3`` module opens transactions lazily and as ``DEFERRED``,
  so two transactions can both read a balance and then fail (or worse, in
  other drivers, overwrite each other) when they upgrade to writing.  We turn
  the module's own transaction handling off and emit ``BEGIN IMMEDIATE`` for
  every write transaction: the write lock is taken up front, writers run one
  at a time, and a waiting writer waits (``busy timeout``) instead of failing.
  Read-only work (:data:`READ_ONLY`) uses a plain deferred ``BEGIN``.
* WAL journal mode lets readers run while a writer writes;
  ``synchronous=NORMAL`` is the usual durability trade-off with WAL (a power
  cut can lose the last commits but never corrupts the file).
* Foreign keys are switched on per connection.

On PostgreSQL, concurrent writers are made safe by the store itself with
``SELECT ... FOR UPDATE`` in a fixed lock order (see :mod:`.store`).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError

__all__ = ["PG_CLIENT_TIMEOUTS", "READ_ONLY", "create_store_engine", "error_line", "is_sqlite",
           "is_transient", "pg_connect_args", "setup_postgresql"]

READ_ONLY = "wuhan_mahjong_read_only"
"""Execution option: the transaction only reads (SQLite: deferred ``BEGIN``)."""

SQLITE_BUSY_TIMEOUT_S = 30.0

PG_CLIENT_TIMEOUTS = {"connect_timeout": "10", "keepalives": "1", "keepalives_idle": "10",
                      "keepalives_interval": "5", "keepalives_count": "3",
                      "tcp_user_timeout": "30000"}
"""libpq's parameters for how long a connection to PostgreSQL may stay silent.

Without them a database host that vanishes without a word (a failover that takes its
address away, a cable, a firewall dropping packets) held every call on it for minutes: a
new connection waited out the kernel's SYN retries (about two minutes), a statement on a
live connection its retransmissions (about fifteen).  A table's store call then neither
finished nor failed, so the wait of ``server/outage.py`` never began.  Now a connection
attempt gives up after 10 s, an idle connection is probed every 5 s after 10 s of quiet
(dead after three missed answers), and data unacknowledged for 30 s fails the statement:
each is an error ``is_transient`` counts, which the table rides out.  A long query is not
cut short: the server acknowledges the probes while it works.  A parameter the database
URL sets itself is left as it says."""

PG_IDLE_IN_TRANSACTION_MS = 5000
"""PostgreSQL ends a session that sits in an open transaction this long without a word.

Our transactions run their statements back to back and never wait on a person, so only a
process that stopped mid-transaction (frozen, swapped out, cut off) is ever idle in one;
without the limit its row locks would stay until it ran again, and a cluster node taking its
matches over (``claim_match`` locks the match row) would wait for it for ever.  Its own
commit then fails, and the match's new epoch fences it out."""


def is_transient(exc: BaseException) -> bool:
    """Whether a database error may pass if the same work is tried again: a connection lost
    or refused (PostgreSQL restarting, failing over, ending a session), a deadlock or a
    serialization failure, SQLite's lock still held after its busy timeout.  Errors of the
    statements themselves (a constraint, a bad value) and the store's own refusals are not.
    Only idempotent work may be retried on it: the store's writes of a running match are
    (a commit whose answer was lost is found done on the next try)."""
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return True
    if not isinstance(exc, (OperationalError, InterfaceError)):
        return False
    if isinstance(exc.orig, sqlite3.Error):  # SQLite's OperationalError also means "no such
        text = str(exc.orig).lower()         # table": only a lock or the disk may pass
        return any(word in text for word in ("locked", "busy", "disk", "unable to open"))
    return True


def error_line(exc: BaseException) -> str:
    """The first line of a database error, for a one-line log entry (SQLAlchemy's messages
    run to several: the driver's, then "Background on this error at: ...")."""
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def is_sqlite(url: URL) -> bool:
    return url.get_backend_name() == "sqlite"


def _sqlite_file(url: URL) -> Path | None:
    database = url.database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database)


def create_store_engine(url: str | URL, **kwargs: Any) -> Engine:
    """Create the engine for ``url``; for SQLite, create the file's folder too.

    Only file-backed SQLite is supported: an in-memory database would be a
    different, empty database on each pooled connection.
    """
    url = make_url(url)
    backend = url.get_backend_name()
    if backend == "sqlite":
        path = _sqlite_file(url)
        if path is None:
            raise ValueError(f"only file-backed SQLite databases are supported, got {url!s}")
        path.expanduser().parent.mkdir(parents=True, exist_ok=True)
        connect_args = dict(kwargs.pop("connect_args", {}))
        connect_args.setdefault("timeout", SQLITE_BUSY_TIMEOUT_S)
        # The pool hands a connection to one thread at a time.
        connect_args.setdefault("check_same_thread", False)
        engine = create_engine(url, connect_args=connect_args, **kwargs)
        _setup_sqlite(engine)
        return engine
    if backend == "postgresql":
        kwargs.setdefault("pool_pre_ping", True)
        kwargs["connect_args"] = pg_connect_args(url, kwargs.get("connect_args", {}))
        engine = create_engine(url, **kwargs)
        setup_postgresql(engine)
        return engine
    raise ValueError(f"unsupported database {backend!r}: use sqlite or postgresql+psycopg")


def pg_connect_args(url: URL, connect_args: Mapping[str, Any]) -> dict[str, Any]:
    """``connect_args`` with :data:`PG_CLIENT_TIMEOUTS` for each parameter that neither
    they nor the URL's query set."""
    out = dict(connect_args)
    for name, value in PG_CLIENT_TIMEOUTS.items():
        if name not in url.query:
            out.setdefault(name, value)
    return out


def _setup_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Hand transaction control to SQLAlchemy (the "begin" hook below).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA synchronous=NORMAL")
            _enable_wal(cursor)
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        if connection.get_execution_options().get(READ_ONLY):
            connection.exec_driver_sql("BEGIN")
        else:
            connection.exec_driver_sql("BEGIN IMMEDIATE")


def setup_postgresql(engine: Engine) -> None:
    """Every new connection of ``engine`` ends a session idle in a transaction after
    :data:`PG_IDLE_IN_TRANSACTION_MS` (also for an async engine's ``sync_engine``)."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        autocommit = dbapi_connection.autocommit
        dbapi_connection.autocommit = True  # a session setting, outside any transaction
        try:
            with dbapi_connection.cursor() as cursor:
                cursor.execute("SET idle_in_transaction_session_timeout = "
                               f"{PG_IDLE_IN_TRANSACTION_MS}")
        finally:
            dbapi_connection.autocommit = autocommit


def _enable_wal(cursor: Any) -> None:
    """Switch the file to WAL mode (persistent: a no-op once the file is in WAL).

    Changing the journal mode does not wait on the busy handler: while another
    connection (another process starting at the same time) holds a lock it
    fails at once with "database is locked", so retry until the busy timeout.

    A file that holds tables but no ``alembic_version`` is another program's database,
    which the migration refuses (``migrate.upgrade``): its journal mode is left as it is,
    so that the refusal changes nothing in the file.
    """
    deadline = time.monotonic() + SQLITE_BUSY_TIMEOUT_S
    delay = 0.005
    while True:
        try:
            cursor.execute("PRAGMA journal_mode")
            if str(cursor.fetchone()[0]).lower() == "wal":
                return
            cursor.execute("SELECT group_concat(name) FROM sqlite_master WHERE type = 'table' "
                           "AND name NOT LIKE 'sqlite_%'")
            tables = str(cursor.fetchone()[0] or "").split(",")
            if tables != [""] and "alembic_version" not in tables:
                return
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.fetchall()
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.2)
