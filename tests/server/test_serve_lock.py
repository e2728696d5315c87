"""The servers of a database (``store/serve_lock.py``): a second ``serve`` without
``--redis`` on the same database refuses to start, in one line, and takes no match away
from the first; once the first is gone (even by ``kill -9``) a server starts again.  Cluster
nodes share the lock, so neither kind starts beside the other, and the lock tells whether
any server runs at all (``admin drain --wait``)."""

from __future__ import annotations

import fcntl
import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Connection, Engine, create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from wuhan_mahjong.store import open_store
from wuhan_mahjong.store.serve_lock import (
    KEEP_SECONDS,
    SQLITE_RETRY_SECONDS,
    DatabaseInUse,
    hold_serve_lock,
    lock_holder,
)

from .test_cluster import redis_url  # noqa: F401 (a fixture)
from .test_db_outage import CuttableProxy
from .test_durable_crash import ServeProcess


def test_nodes_share_the_lock_and_a_server_alone_has_it_to_itself(db_url: str) -> None:
    store = open_store(db_url)
    engine = store.engine
    try:
        assert lock_holder(engine) is None
        nodes = [hold_serve_lock(engine, node=True), hold_serve_lock(engine, node=True)]
        assert "cluster nodes" in (lock_holder(engine) or "")
        with pytest.raises(DatabaseInUse) as refused:
            hold_serve_lock(engine, wait=0.2)
        assert refused.value.nodes and "as a cluster node too (--redis)" in str(refused.value)
        nodes[0].release()
        assert "cluster nodes" in (lock_holder(engine) or "")  # the other node still runs
        nodes[1].release()
        assert lock_holder(engine) is None
        alone = hold_serve_lock(engine)
        holder = lock_holder(engine)
        assert holder is not None and "cluster nodes" not in holder
        with pytest.raises(DatabaseInUse) as refused:
            hold_serve_lock(engine, wait=0.2, node=True)
        assert not refused.value.nodes
        assert "no cluster node serves this database" in str(refused.value)
        with pytest.raises(DatabaseInUse):
            hold_serve_lock(engine, wait=0.2)
        alone.release()
        assert lock_holder(engine) is None
        hold_serve_lock(engine).release()
    finally:
        store.close()


def test_a_look_at_the_sqlite_lock_does_not_stop_a_server_starting(tmp_path: Path) -> None:
    """:func:`lock_holder` takes SQLite's lock for a moment to look; a server starting in
    that moment tries again instead of refusing (here the look lasts 0.3 s)."""
    (tmp_path / "data").mkdir()
    store = open_store(f"sqlite:///{tmp_path / 'data' / 'server.db'}")
    try:
        assert lock_holder(store.engine) is None  # no lock file yet: nothing made
        assert not (tmp_path / "data" / "server.db.serve-lock").exists()
        hold_serve_lock(store.engine).release()
        looking = (tmp_path / "data" / "server.db.serve-lock").open()
        fcntl.flock(looking, fcntl.LOCK_EX | fcntl.LOCK_NB)
        timer = threading.Timer(min(0.3, SQLITE_RETRY_SECONDS / 2), looking.close)
        timer.start()
        started = time.monotonic()
        hold_serve_lock(store.engine).release()
        assert time.monotonic() - started < SQLITE_RETRY_SECONDS + 5
        timer.join()
    finally:
        store.close()


@pytest.mark.slow
def test_a_second_server_on_the_same_database_refuses_to_start(db_url: str,
                                                                tmp_path: Path) -> None:
    first = ServeProcess(db_url, tmp_path / "first.log")
    second = ServeProcess(db_url, tmp_path / "second.log")
    third = ServeProcess(db_url, tmp_path / "third.log")
    try:
        first.start()
        with pytest.raises(RuntimeError, match="exited with 2"):
            second.start()
        lines = [ln for ln in (tmp_path / "second.log").read_text().splitlines()
                 if not ln.startswith("---")]
        assert len(lines) == 1, lines
        assert lines[0].startswith("wuhan-mahjong: error: another wuhan-mahjong server serves "
                                   "this database (") and "--redis" in lines[0], lines[0]
        assert first.proc is not None and first.proc.poll() is None  # untouched
        store = open_store(db_url)
        try:
            assert f":{first.proc.pid}" in (lock_holder(store.engine) or "") or (
                "PostgreSQL session" in (lock_holder(store.engine) or ""))
            first.kill()
            deadline = time.monotonic() + 30  # PostgreSQL ends the session a moment later
            while lock_holder(store.engine) is not None:
                assert time.monotonic() < deadline, "the lock outlived its server"
                time.sleep(0.1)
        finally:
            store.close()
        third.start()  # the lock died with the process
    finally:
        for p in (first, second, third):
            p.close()


@pytest.mark.slow
def test_the_same_sqlite_file_by_another_path_is_the_same_database(tmp_path: Path) -> None:
    """A symbolic link to the database file, under another name: still one lock."""
    (tmp_path / "data").mkdir()
    real = tmp_path / "data" / "wuhan_mahjong.db"
    first = ServeProcess(f"sqlite:///{real}", tmp_path / "first.log")
    link = tmp_path / "elsewhere.db"
    second = ServeProcess(f"sqlite:///{link}", tmp_path / "second.log")
    try:
        first.start()
        link.symlink_to(real)
        with pytest.raises(RuntimeError, match="exited with 2"):
            second.start()
        assert "another wuhan-mahjong server" in (tmp_path / "second.log").read_text()
    finally:
        first.close()
        second.close()


@pytest.mark.slow
def test_no_server_alone_beside_cluster_nodes_nor_a_node_beside_one(
        db_url: str, redis_url: str, tmp_path: Path) -> None:  # noqa: F811
    """A cluster node takes over the matches whose owner has no heartbeat in Redis, as a
    server alone never has: started beside one, it would take all of its matches.  Each
    kind refuses to start beside the other, in one line, and starts once it is gone."""
    alone = ServeProcess(db_url, tmp_path / "alone.log")
    node = ServeProcess(db_url, tmp_path / "node.log", options=("--redis", redis_url))
    try:
        alone.start()
        with pytest.raises(RuntimeError, match="exited with 2"):
            node.start()
        said = _said(tmp_path / "node.log")
        assert "no cluster node serves this database" in said, said
        alone.kill()
        (tmp_path / "alone.log").unlink()
        node.start()  # the lock died with the server alone (PostgreSQL: within 10 s)
        with pytest.raises(RuntimeError, match="exited with 2"):
            alone.start()
        said = _said(tmp_path / "alone.log")
        assert "start this one as a cluster node too (--redis)" in said, said
    finally:
        alone.close()
        node.close()


def _said(log: Path) -> str:
    lines = [ln for ln in log.read_text().splitlines() if not ln.startswith("---")]
    assert len(lines) == 1, lines
    assert lines[0].startswith("wuhan-mahjong: error: "), lines[0]
    return lines[0]


@pytest.mark.slow
@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_a_server_takes_its_lock_again_after_postgresql_was_away(db_url: str,
                                                                 tmp_path: Path) -> None:
    """PostgreSQL ends the lock's session with the connection (a restart, a network cut);
    the server ran on without its lock, so ``admin drain --wait`` and ``admin restore`` took
    it for gone and a second server could start beside it.  It takes the lock again as soon
    as the database answers."""
    url = make_url(db_url)
    proxy = CuttableProxy(url.host or "127.0.0.1", url.port or 5432)
    server = ServeProcess(url.set(host="127.0.0.1", port=proxy.port)
                          .render_as_string(hide_password=False), tmp_path / "server.log")
    second = ServeProcess(db_url, tmp_path / "second.log")
    store = open_store(db_url)
    try:
        server.start()
        assert lock_holder(store.engine) is not None
        proxy.cut()  # PostgreSQL sees the session's connection closed
        _wait_for(lambda: lock_holder(store.engine) is None, "the cut ended no session")
        proxy.restore()
        _wait_for(lambda: lock_holder(store.engine) is not None,
                  "the server did not take its lock again")
        with pytest.raises(RuntimeError, match="exited with 2"):
            second.start()
        assert "another wuhan-mahjong server serves this database" in _said(
            tmp_path / "second.log")
        assert server.proc is not None and server.proc.poll() is None
    finally:
        server.close()
        second.close()
        proxy.close()
        store.close()


def _wait_for(condition: Callable[[], bool], failure: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, failure
        time.sleep(0.1)


@pytest.mark.slow
@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_a_server_whose_lock_another_took_meanwhile_stops(db_url: str,
                                                          tmp_path: Path) -> None:
    """While PostgreSQL was away from a server, another one started and took the lock, and
    with it every match (a server alone claims them all at its start).  The first one's
    tables were fenced out and sent their players away, yet it ran on as a server with
    no matches.  It now stops, in one line, exit status 2."""
    url = make_url(db_url)
    proxy = CuttableProxy(url.host or "127.0.0.1", url.port or 5432)
    server = ServeProcess(url.set(host="127.0.0.1", port=proxy.port)
                          .render_as_string(hide_password=False), tmp_path / "server.log")
    store = open_store(db_url)
    other = None
    try:
        server.start()
        proxy.cut()
        _wait_for(lambda: lock_holder(store.engine) is None, "the cut ended no session")
        other = hold_serve_lock(store.engine)  # a server of this process's name
        proxy.restore()
        assert server.proc is not None
        _wait_for(lambda: server.proc is not None and server.proc.poll() is not None,
                  "the server whose lock was taken ran on")
        assert server.proc.returncode == 2
        said = [ln for ln in (tmp_path / "server.log").read_text().splitlines()
                if ln.startswith("wuhan-mahjong: error: ")]
        assert len(said) == 1 and "took this one's database lock" in said[0], said
        assert f":{os.getpid()}, PostgreSQL session" in said[0], said
    finally:
        if other is not None:
            other.release()
        server.close()
        proxy.close()
        store.close()


@pytest.mark.slow
@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_a_session_of_its_own_postgresql_kept_is_waited_for(db_url: str) -> None:
    """The keeper gave its session up for lost (the client noticed a network cut first)
    while PostgreSQL still held it: the holder is this lock's own old session, not another
    server, and the lock is taken again once PostgreSQL ends it."""
    lost: list[str] = []
    store = open_store(db_url)
    lock = hold_serve_lock(store.engine, on_lost=lost.append)
    keeper = lock._closers[0].__self__  # type: ignore[attr-defined]
    old = keeper._connection
    stale = create_engine(make_url(db_url), poolclass=NullPool).connect()
    try:
        session = old.scalar(text("SELECT pg_backend_pid()"))
        keeper._connection = None  # as if its SELECT 1 had failed, the session still there
        keeper._look()
        assert not lost and keeper._connection is None
        stale.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": session})
        stale.commit()
        _wait_for(lambda: lock_holder(store.engine) is None, "the old session stayed")
        keeper._look()
        assert keeper._connection is not None and not lost
        assert lock_holder(store.engine) is not None
    finally:
        old.invalidate()  # ended under it: no reset (logged) when it is collected
        stale.close()
        lock.release()
        store.close()


@pytest.mark.slow
@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_a_lock_taken_meanwhile_is_said_once(db_url: str, caplog: pytest.LogCaptureFixture
                                            ) -> None:
    """While PostgreSQL was away from a server, a second server took the lock: the first
    one's keeper says so in one error, not at every look, and takes nothing from it."""
    url = make_url(db_url)
    proxy = CuttableProxy(url.host or "127.0.0.1", url.port or 5432)
    away = create_engine(url.set(host="127.0.0.1", port=proxy.port), poolclass=NullPool)
    store = open_store(db_url)
    first = hold_serve_lock(away)
    second = None
    try:
        proxy.cut()
        _wait_for(lambda: lock_holder(store.engine) is None, "the cut ended no session")
        second = hold_serve_lock(store.engine)
        proxy.restore()
        with caplog.at_level(logging.ERROR, logger="wuhan_mahjong.store.serve_lock"):
            time.sleep(3 * KEEP_SECONDS)  # three looks or so
        said = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
        assert len(said) == 1 and "so this one stops" in said[0], said
        with pytest.raises(DatabaseInUse):
            hold_serve_lock(store.engine, wait=0)  # the second server keeps it
    finally:
        first.release()
        if second is not None:
            second.release()
        away.dispose()
        proxy.close()
        store.close()


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_a_live_server_here_is_refused_at_once_a_gone_one_waited_for(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A second server waited out the whole ``wait`` (10 s) before it refused, as if the
    first might be a killed server whose session PostgreSQL had not yet ended.  The lock's
    session names its server (``HOST:PID``): one of this machine that still runs is refused
    at the first try, and named; one whose process is gone, or of another machine, is
    tried again until ``wait`` runs out."""
    import socket

    from wuhan_mahjong.store import serve_lock

    tries: list[bool] = []
    real_try = serve_lock._postgresql_lock

    def counted(engine: Engine, node: bool, *rest: Any) -> serve_lock.ServeLock:
        tries.append(node)
        return real_try(engine, node, *rest)

    monkeypatch.setattr(serve_lock, "_postgresql_lock", counted)
    store = open_store(db_url)
    try:
        first = hold_serve_lock(store.engine)
        try:
            tries.clear()
            with pytest.raises(DatabaseInUse) as refused:
                hold_serve_lock(store.engine, wait=30)  # would wait half a minute
            assert len(tries) == 1 and refused.value.alive
            assert f"{socket.gethostname()}:{os.getpid()}, PostgreSQL session" in str(
                refused.value)
            assert f":{os.getpid()}, PostgreSQL session" in (lock_holder(store.engine) or "")
        finally:
            first.release()
        gone = _gone_pid()
        for server in (f"{socket.gethostname()}:{gone}", f"elsewhere.example:{os.getpid()}"):
            held = _held_by(db_url, server)
            try:
                tries.clear()
                with pytest.raises(DatabaseInUse) as refused:
                    hold_serve_lock(store.engine, wait=0.5)
                assert len(tries) > 1 and not refused.value.alive, server
                assert server in str(refused.value)
            finally:
                held.close()
    finally:
        store.close()


def _gone_pid() -> int:
    """The pid of a process that has ended."""
    import subprocess

    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def _held_by(db_url: str, server: str) -> Connection:
    """A session holding the serve lock in the name of ``server`` (``HOST:PID``)."""
    from wuhan_mahjong.store import serve_lock

    engine = create_engine(db_url, poolclass=NullPool)
    connection = engine.connect()
    connection.execute(text("SELECT set_config('application_name', :name, false)"),
                       {"name": "wuhan-mahjong serve " + server + "/1"})
    key = serve_lock._pg_key(connection)
    assert connection.scalar(text("SELECT pg_try_advisory_lock(:ns, :key)"),
                             {"ns": serve_lock._PG_CLASS, "key": key})
    connection.commit()
    return connection
