"""One serving process per database, unless the processes are cluster nodes.

A server that is not a cluster node (``serve`` without ``--redis``) takes over every match
its database has as running when it starts, raising the match's fencing epoch.  A second
such server started by mistake on the same database (a manual start beside the systemd
service, another port, another machine on the same PostgreSQL) would so take every match
away from the first: the first one's tables stop at their next write and send their
players away, and the players come back to the first server, which no longer runs their
matches, while the second runs them with nobody at the table.  :func:`hold_serve_lock`
makes the second server refuse to start instead.

The lock lives as long as the process and no longer, whatever ends it (``kill -9``
included):

* SQLite: ``flock`` on ``<database file>.serve-lock`` beside the database (the file holds
  the owner's ``host:pid`` for the message).  SQLite's own locks are POSIX record locks on
  the database file, which ``flock`` does not touch.
* PostgreSQL: a session-level advisory lock on a connection of its own, keyed by the
  database and the schema (``search_path``), so servers on other schemas of one database
  are independent.  PostgreSQL releases it when the connection ends; the session probes its
  client with TCP keepalives every few seconds, so a machine that lost power lets go of it
  within about half a minute (not the two hours of the default).  If that connection
  is lost while the server runs (PostgreSQL restarted), the lock is gone until the next
  start; the matches' epochs still fence a second server's writes.

A killed server's PostgreSQL lock can outlive it by a moment (PostgreSQL notices the
closed connection a little later), so that lock is tried again for up to ``wait`` seconds;
the kernel drops a dead process's ``flock`` at once.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import time
import zlib
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import Engine, create_engine, text
from sqlalchemy.pool import NullPool

from .database import pg_connect_args
from .errors import StoreError

__all__ = ["DatabaseInUse", "ServeLock", "hold_serve_lock"]

_PG_NAMESPACE = "wuhan-mahjong serve"
_PG_CLASS = 0x574D  # "WM": the first of the advisory lock's two keys


class DatabaseInUse(StoreError):
    """Another server that is not a cluster node serves this database; ``holder`` says which
    (its ``host:pid``, or its PostgreSQL session)."""

    def __init__(self, holder: str) -> None:
        super().__init__(_in_use(holder))
        self.holder = holder


class ServeLock:
    """A held lock; :meth:`release` (or process exit) lets it go."""

    def __init__(self, *closers: Callable[[], object]) -> None:
        self._closers = closers

    def release(self) -> None:
        closers, self._closers = self._closers, ()
        for close in closers:
            with contextlib.suppress(Exception):  # a connection PostgreSQL dropped already
                close()


def _owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def hold_serve_lock(engine: Engine, *, wait: float = 10.0) -> ServeLock:
    """Take the serve lock of ``engine``'s database, waiting up to ``wait`` seconds for a
    killed server's lock to clear; :class:`DatabaseInUse`, naming the holder when it can,
    if another server holds it."""
    if engine.dialect.name == "sqlite":  # the kernel drops a dead process's flock at once
        return _sqlite_lock(engine)
    deadline = time.monotonic() + wait
    while True:
        try:
            return _postgresql_lock(engine)
        except DatabaseInUse:
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.1)


def _sqlite_lock(engine: Engine) -> ServeLock:
    database = engine.url.database
    assert database, "the store only opens file-backed SQLite databases"
    real = Path(database).expanduser().resolve()  # one lock file however the path is spelt
    path = real.with_name(real.name + ".serve-lock")
    handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held for the process's life
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip()
        handle.close()
        raise DatabaseInUse(holder or "another process") from None
    handle.seek(0)
    handle.truncate()
    handle.write(_owner() + "\n")
    handle.flush()
    return ServeLock(handle.close)


def _postgresql_lock(engine: Engine) -> ServeLock:
    # a connection of its own, outside the store's pool, for the process's whole life
    own = create_engine(engine.url, poolclass=NullPool,
                        connect_args=pg_connect_args(engine.url, {}))
    connection = own.connect()
    lock = ServeLock(connection.close, own.dispose)
    try:
        # PostgreSQL learns of a dead client (a machine that lost power) only by TCP
        # keepalives, two hours apart by default: probe this session's peer every few
        # seconds, so a replacement server can start within about half a minute
        for name, seconds in (("idle", 10), ("interval", 5), ("count", 3)):
            connection.execute(text(f"SET tcp_keepalives_{name} = {seconds}"))
        schema = connection.scalar(text("SELECT current_schema()")) or ""
        database = connection.scalar(text("SELECT current_database()")) or ""
        key = zlib.crc32(f"{_PG_NAMESPACE}:{database}:{schema}".encode())
        signed = key - (1 << 32) if key >= 1 << 31 else key  # an int4; pg_locks shows key
        got = connection.scalar(text("SELECT pg_try_advisory_lock(:ns, :key)"),
                                {"ns": _PG_CLASS, "key": signed})
        holder = None if got else connection.execute(text(
            "SELECT a.pid, host(a.client_addr) FROM pg_locks l "
            "JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' "
            "AND l.classid = :ns AND l.objid = :key AND l.objsubid = 2 AND l.granted "
            "LIMIT 1"), {"ns": _PG_CLASS, "key": key}).first()
        connection.commit()  # idle outside a transaction: the lock is the session's
    except BaseException:
        lock.release()
        raise
    if got:
        return lock
    lock.release()
    where = f" from {holder[1]}" if holder is not None and holder[1] else ""
    raise DatabaseInUse(
        f"its PostgreSQL session {holder[0]}{where}; if that server is gone for good, "
        f"SELECT pg_terminate_backend({holder[0]}) ends it" if holder is not None
        else "another process")


def _in_use(holder: str) -> str:
    return (f"another wuhan-mahjong server serves this database ({holder}): stop it first, "
            "or run every server as a cluster node (--redis)")
