"""The servers of a database: one alone, or any number of cluster nodes, never both.

A server that is not a cluster node (``serve`` without ``--redis``) takes over every match
its database has as running when it starts, raising the match's fencing epoch.  A second
such server started by mistake on the same database (a manual start beside the systemd
service, another port, another machine on the same PostgreSQL) would so take every match
away from the first: the first one's tables stop at their next write and send their
players away, and the players come back to the first server, which no longer runs their
matches, while the second runs them with nobody at the table.  A cluster node, for its
part, takes over the matches whose owner has no heartbeat in Redis, which a server alone
never has: a node started on a lone server's database would take all of its matches.
:func:`hold_serve_lock` makes the later of two such servers refuse to start instead: a
server alone holds the lock exclusively, cluster nodes share it.

The lock lives as long as the process and no longer, whatever ends it (``kill -9``
included), so it also tells an operator's tool whether any server is running at all
(:func:`lock_holder`, ``admin drain --wait``):

* SQLite: ``flock`` on ``<database file>.serve-lock`` beside the database (the file holds
  the owner's ``host:pid``, or ``cluster nodes``, for the message).  SQLite's own locks are
  POSIX record locks on the database file, which ``flock`` does not touch.
* PostgreSQL: a session-level advisory lock on a connection of its own, keyed by the
  database and the schema (``search_path``), so servers on other schemas of one database
  are independent.  PostgreSQL releases it when the connection ends; the session probes its
  client with TCP keepalives every few seconds, so a machine that lost power lets go of it
  within about half a minute (not the two hours of the default).  If that session ends
  while the server runs (PostgreSQL restarted), the server takes the lock again on a new
  one as soon as the database answers (:class:`_PgKeeper`); meanwhile the matches' epochs
  still fence a second server's writes.

A killed server's PostgreSQL lock can outlive it by a moment (PostgreSQL notices the
closed connection a little later), so that lock is tried again for up to ``wait`` seconds,
unless its holder is a server known to be alive: the lock's session names its server
(``application_name``, ``wuhan-mahjong serve HOST:PID``), and a server on this machine whose
process still runs is refused at once.  The kernel drops a dead process's ``flock`` at once,
so the SQLite lock is tried again only for :data:`SQLITE_RETRY_SECONDS`, the longest a probe
of :func:`lock_holder` holds it.
"""

from __future__ import annotations

import contextlib
import fcntl
import itertools
import logging
import os
import socket
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Connection, Engine, create_engine, text
from sqlalchemy.pool import NullPool

from .database import pg_connect_args
from .errors import StoreError

__all__ = ["KEEP_SECONDS", "SQLITE_RETRY_SECONDS", "DatabaseInUse", "ServeLock", "hold_serve_lock",
           "lock_holder"]

log = logging.getLogger(__name__)

_PG_NAMESPACE = "wuhan-mahjong serve"
_PG_CLASS = 0x574D  # "WM": the first of the advisory lock's two keys
_NODES = "cluster nodes"
"""What the SQLite lock file says while cluster nodes share the lock."""
_PG_APPLICATION = "wuhan-mahjong serve "
"""The start of the lock session's ``application_name``; the server's ``HOST:PID`` follows,
and ``/N``, which of the process's locks it is (one process holds one, but for tests)."""
_instances = itertools.count(1)

SQLITE_RETRY_SECONDS = 1.0
"""How long a server tries the SQLite lock again before it refuses to start: far longer
than the microseconds :func:`lock_holder` holds it to look, and short enough that a real
second server hears of the first at once."""


class DatabaseInUse(StoreError):
    """Other servers serve this database, of the kind that excludes this one; ``holder``
    says which (a ``host:pid``, PostgreSQL sessions, or cluster nodes)."""

    def __init__(self, holder: str, *, nodes: bool = False, node: bool = False,
                 alive: bool = False) -> None:
        super().__init__(_in_use(holder, nodes=nodes, node=node))
        self.holder = holder
        self.nodes = nodes
        """Whether the holders are cluster nodes (who share the lock)."""
        self.alive = alive
        """Whether a holder is known to be alive (so waiting for the lock is no use)."""


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


def hold_serve_lock(engine: Engine, *, wait: float = 10.0, node: bool = False,
                    on_lost: Callable[[str], object] | None = None) -> ServeLock:
    """Take the serve lock of ``engine``'s database: exclusively for a server alone, shared
    for a cluster ``node``, waiting up to ``wait`` seconds for a killed server's lock to
    clear; :class:`DatabaseInUse`, naming the holders when it can, if a server of the other
    kind (or, for a server alone, any server) holds it: at once when one of them is a
    server of this machine that still runs.

    ``on_lost`` is called once, with the new holders' names, if the lock is found taken by
    another server after PostgreSQL ended its session (:class:`_PgKeeper`): that server
    has claimed this one's matches, so this one should stop."""
    sqlite = engine.dialect.name == "sqlite"
    deadline = time.monotonic() + (min(wait, SQLITE_RETRY_SECONDS) if sqlite else wait)
    while True:
        try:
            return (_sqlite_lock(engine, node) if sqlite
                    else _postgresql_lock(engine, node, on_lost))
        except DatabaseInUse as refused:
            if refused.alive or time.monotonic() >= deadline:
                raise
            time.sleep(0.05 if sqlite else 0.1)


def lock_holder(engine: Engine) -> str | None:
    """Who holds the serve lock of ``engine``'s database now (as :class:`DatabaseInUse`
    names them), or ``None`` when no server runs on it.  PostgreSQL is only asked; the
    SQLite lock is taken and let go at once (a server starting in that moment tries again,
    :data:`SQLITE_RETRY_SECONDS`)."""
    if engine.dialect.name == "sqlite":
        path = _sqlite_lock_path(engine)
        try:
            handle = path.open(encoding="utf-8")
        except FileNotFoundError:  # no server ever started on it
            return None
        with handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return handle.read().strip() or "another process"
            fcntl.flock(handle, fcntl.LOCK_UN)
            return None
    with engine.connect() as connection:
        holders = _pg_holders(connection, _pg_key(connection))
    return _pg_named(holders) if holders else None


def _sqlite_lock_path(engine: Engine) -> Path:
    database = engine.url.database
    assert database, "the store only opens file-backed SQLite databases"
    real = Path(database).expanduser().resolve()  # one lock file however the path is spelt
    return real.with_name(real.name + ".serve-lock")


def _sqlite_lock(engine: Engine, node: bool) -> ServeLock:
    handle = open(_sqlite_lock_path(engine), "a+", encoding="utf-8")  # noqa: SIM115 - held for the process's life
    try:
        fcntl.flock(handle, (fcntl.LOCK_SH if node else fcntl.LOCK_EX) | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip()
        handle.close()
        raise DatabaseInUse(holder or "another process", nodes=holder == _NODES,
                            node=node) from None
    handle.seek(0)
    handle.truncate()  # nodes write the same words, so one overwriting another is harmless
    handle.write((_NODES if node else _owner()) + "\n")
    handle.flush()
    return ServeLock(handle.close)


def _pg_key(connection: Connection) -> int:
    """The advisory lock's second key: this database and schema's (an int4)."""
    schema = connection.scalar(text("SELECT current_schema()")) or ""
    database = connection.scalar(text("SELECT current_database()")) or ""
    key = zlib.crc32(f"{_PG_NAMESPACE}:{database}:{schema}".encode())
    return key - (1 << 32) if key >= 1 << 31 else key


@dataclass(frozen=True)
class _PgHolder:
    """A PostgreSQL session holding the lock."""

    session: int
    address: str | None
    """The client's address (``None`` over a Unix socket)."""
    mode: str
    application: str | None
    """The session's ``application_name``."""

    @property
    def server(self) -> str | None:
        """The server's ``HOST:PID``, from :attr:`application` (unless PostgreSQL cut it
        short: it keeps 63 bytes, and a long host name could leave part of the pid,
        another process's)."""
        name = self.application or ""
        if not name.startswith(_PG_APPLICATION) or len(name.encode()) >= 63:
            return None
        return name.removeprefix(_PG_APPLICATION).rpartition("/")[0] or None

    @property
    def alive(self) -> bool:
        """Whether the server is known to run still: a process of this machine that
        exists.  One elsewhere may be dead with its session not yet ended."""
        host, _, pid = (self.server or "").rpartition(":")
        if host != socket.gethostname() or not pid.isdigit():
            return False
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return False
        except PermissionError:  # another user's process
            return True
        return True


def _pg_holders(connection: Connection, signed: int) -> list[_PgHolder]:
    """Every session holding the lock."""
    key = signed + (1 << 32) if signed < 0 else signed  # pg_locks shows it unsigned (oid)
    rows = connection.execute(text(
        "SELECT a.pid, host(a.client_addr), l.mode, a.application_name FROM pg_locks l "
        "JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' "
        "AND l.classid = :ns AND l.objid = :key AND l.objsubid = 2 AND l.granted "
        "ORDER BY a.pid"), {"ns": _PG_CLASS, "key": key}).all()
    return [_PgHolder(int(pid), address, str(mode), name) for pid, address, mode, name in rows]


def _pg_named(holders: list[_PgHolder]) -> str:
    """The holders as :class:`DatabaseInUse` names them."""
    if holders[0].mode == "ShareLock":
        return f"{_NODES}: " + ", ".join(_pg_name(h) for h in holders)
    holder = holders[0]
    return (f"{_pg_name(holder)}; if that server is gone for good, "
            f"SELECT pg_terminate_backend({holder.session}) ends it")


def _pg_name(holder: _PgHolder) -> str:
    where = f" from {holder.address}" if holder.address else ""
    session = f"PostgreSQL session {holder.session}{where}"
    return f"{holder.server}, {session}" if holder.server else session


def _postgresql_lock(engine: Engine, node: bool,
                     on_lost: Callable[[str], object] | None = None) -> ServeLock:
    # a connection of its own, outside the store's pool, for the process's whole life
    own = create_engine(engine.url, poolclass=NullPool,
                        connect_args=pg_connect_args(engine.url, {}))
    name = f"{_PG_APPLICATION}{_owner()}/{next(_instances)}"
    try:
        connection, got, holders, key = _pg_try(own, node, name)
    except BaseException:
        own.dispose()
        raise
    if got:
        keeper = _PgKeeper(own, connection, node, name, key, on_lost)
        return ServeLock(keeper.stop)
    connection.close()
    own.dispose()
    if not holders:  # let go between the try and the look
        raise DatabaseInUse("another process", node=node)
    raise DatabaseInUse(_pg_named(holders), nodes=holders[0].mode == "ShareLock", node=node,
                        alive=any(h.alive for h in holders))


def _pg_try(own: Engine, node: bool, name: str
            ) -> tuple[Connection, bool, list[_PgHolder], int]:
    """A new session of ``own``, called ``name``, and its try of the lock: (the session,
    whether it holds the lock, who holds it otherwise, the lock's key)."""
    connection = own.connect()
    try:
        # PostgreSQL learns of a dead client (a machine that lost power) only by TCP
        # keepalives, two hours apart by default: probe this session's peer every few
        # seconds, so a replacement server can start within about half a minute
        for setting, seconds in (("idle", 10), ("interval", 5), ("count", 3)):
            connection.execute(text(f"SET tcp_keepalives_{setting} = {seconds}"))
        # who holds the lock, for another server's refusal (at most 63 bytes are kept)
        connection.execute(text("SELECT set_config('application_name', :name, false)"),
                           {"name": name})
        key = _pg_key(connection)
        take = "pg_try_advisory_lock_shared" if node else "pg_try_advisory_lock"
        got = bool(connection.scalar(text(f"SELECT {take}(:ns, :key)"),
                                     {"ns": _PG_CLASS, "key": key}))
        holders = [] if got else _pg_holders(connection, key)
        connection.commit()  # idle outside a transaction: the lock is the session's
    except BaseException:
        with contextlib.suppress(Exception):  # no reset of a dead connection (logged)
            connection.invalidate()
        connection.close()
        raise
    return connection, got, holders, key


KEEP_SECONDS = 5.0
"""How often a server looks that its PostgreSQL lock's session is still there."""


class _PgKeeper:
    """Holds a server's PostgreSQL lock for the life of the process: a session that
    PostgreSQL ended (restarted, failed over, an operator's ``pg_terminate_backend``) took
    the lock with it, and the server ran on without it, so that ``admin drain --wait`` and
    ``admin restore`` took it for gone and a second server could start.  A thread looks
    every :data:`KEEP_SECONDS` and takes the lock again on a new session as soon as the
    database answers.  If another server took it meanwhile, it has claimed this server's
    matches: the keeper says so in one error and calls ``on_lost`` (``serve`` stops).  A
    session PostgreSQL has not yet ended, which this keeper gave up for lost (a network cut
    the client noticed first), is known by its name and waited for."""

    def __init__(self, own: Engine, connection: Connection, node: bool, name: str, key: int,
                 on_lost: Callable[[str], object] | None) -> None:
        self._own = own
        self._connection: Connection | None = connection
        self._node = node
        self._name = name
        self._key = key
        self._on_lost = on_lost
        self._held_elsewhere = False  # said once, not at every look
        self._stopped = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="wm-serve-lock", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stopped.wait(KEEP_SECONDS):
            with self._lock:
                if self._stopped.is_set():
                    return
                self._look()

    def _look(self) -> None:
        if self._connection is not None:
            try:
                self._connection.execute(text("SELECT 1"))
                self._connection.commit()
                return
            except Exception:  # the session is gone, and the lock with it
                with contextlib.suppress(Exception):  # no reset of a dead connection (logged)
                    self._connection.invalidate()
                    self._connection.close()
                self._connection = None
                log.warning("the serve lock's PostgreSQL session ended; taking the lock again "
                            "when the database answers")
        try:
            connection, got, holders, _ = _pg_try(self._own, self._node, self._name)
        except Exception:  # the database is still away: the next look tries again
            return
        if got:
            self._connection = connection
            self._held_elsewhere = False
            log.warning("the serve lock is held again")
            return
        connection.close()
        others = [h for h in holders if h.application != self._name]
        if not others or self._held_elsewhere:  # let go meanwhile, or our old session
            return
        self._held_elsewhere = True
        named = _pg_named(others)
        log.error("the serve lock is held by %s since PostgreSQL was away: that server has "
                  "claimed this one's matches, so this one stops", named)
        if self._on_lost is not None:
            self._on_lost(named)

    def stop(self) -> None:
        self._stopped.set()
        with self._lock:
            connection, self._connection = self._connection, None
            if connection is not None:
                with contextlib.suppress(Exception):  # a connection PostgreSQL dropped already
                    # let go before closing: a closed session's backend drops its locks a
                    # moment later, when an admin tool may already be looking (one
                    # statement, the key kept: a stop while PostgreSQL is away waits on it)
                    unlock = ("pg_advisory_unlock_shared" if self._node
                              else "pg_advisory_unlock")
                    connection.execute(text(f"SELECT {unlock}(:ns, :key)"),
                                       {"ns": _PG_CLASS, "key": self._key})
                    connection.commit()
                with contextlib.suppress(Exception):
                    connection.close()
            self._own.dispose()


def _in_use(holder: str, *, nodes: bool, node: bool) -> str:
    if node:
        return (f"a wuhan-mahjong server that is no cluster node serves this database "
                f"({holder}): stop it first, or start it again as a cluster node (--redis)")
    if nodes:
        return (f"another wuhan-mahjong server serves this database ({holder}): start this "
                "one as a cluster node too (--redis), or stop the nodes first")
    return (f"another wuhan-mahjong server serves this database ({holder}): stop it first, "
            "or run every server as a cluster node (--redis)")
