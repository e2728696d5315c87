"""The database goes away mid-match: a network cut, PostgreSQL restarting or failing over,
its sessions ended by an operator.  The server's connections fail, new ones are refused for
a while; every table waits for the database (``server/outage.py``) and plays on to the end
of its match, settled exactly as an uninterrupted run would settle it.  Each cut starts
after a number of frames drawn from a seeded generator, like the crash tests; its length is
a second or two of wall clock, far inside the minute a table waits."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import socket
import sqlite3
import threading
import time
from pathlib import Path

import httpx
import psycopg
import pytest
import websockets
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError, OperationalError

from wuhan_mahjong.server.match_writer import close_match_writer, match_writer
from wuhan_mahjong.store import MatchFenced, hand_game_id, open_store
from wuhan_mahjong.store.admin import AdminError, backup
from wuhan_mahjong.store.database import PG_CLIENT_TIMEOUTS, create_store_engine, is_transient

from .harness import FAST_HASHER, Client, Server, StartServer, play, register, seat_four
from .test_durable import PASSWORD, RICH, check_settled_like_uninterrupted
from .test_durable_crash import Player, ServeProcess, _accounts


class CuttableProxy:
    """A TCP proxy to PostgreSQL that the test can cut: every connection through it closed,
    and new ones closed on arrival, until :meth:`restore` (a network outage, or a database
    restarting, as the server sees it)."""

    def __init__(self, host: str, port: int) -> None:
        self.upstream = (host, port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.cut_now = threading.Event()
        self.lock = threading.Lock()
        self.open: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.cut_now.is_set():
                client.close()
                continue
            try:
                server = socket.create_connection(self.upstream)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.open += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        for s in (source, sink):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        self.cut_now.set()
        with self.lock:
            sockets, self.open = self.open, []
        for s in sockets:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()

    def restore(self) -> None:
        self.cut_now.clear()

    def close(self) -> None:
        self.cut()
        self.listener.close()


@pytest.mark.parametrize(("error", "transient"), [
    (OperationalError("COMMIT", {}, psycopg.OperationalError("server closed the connection")),
     True),
    (OperationalError("x", {}, psycopg.errors.AdminShutdown("terminating connection")), True),
    (OperationalError("x", {}, psycopg.errors.DeadlockDetected("deadlock detected")), True),
    (OperationalError("x", {}, sqlite3.OperationalError("database is locked")), True),
    (OperationalError("x", {}, sqlite3.OperationalError("database or disk is full")), True),
    # a statement's own fault: trying again cannot help, and a table must not wait a minute
    (OperationalError("x", {}, sqlite3.OperationalError("no such table: matches")), False),
    (IntegrityError("x", {}, psycopg.errors.UniqueViolation("duplicate key")), False),
    (MatchFenced("m", 1), False),
    (ValueError("not a database error"), False),
])
def test_which_database_errors_may_pass(error: Exception, transient: bool) -> None:
    assert is_transient(error) is transient


@pytest.mark.slow
@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_a_database_outage_mid_match_loses_nothing(db_url: str, tmp_path: Path) -> None:
    """It used to abort the match at the first failed write: every hand in progress voided,
    the players told the server had failed, though the database was back at once."""
    store, tokens, ids = _accounts(db_url, 4)
    url = make_url(db_url)
    proxy = CuttableProxy(url.host or "127.0.0.1", url.port or 5432)
    server = ServeProcess(url.set(host="127.0.0.1", port=proxy.port)
                          .render_as_string(hide_password=False), tmp_path / "server.log")
    rng = random.Random(int(os.environ.get("WUHAN_MAHJONG_OUTAGE_SEED", "11")))
    try:
        server.start()

        async def scenario() -> tuple[str, int]:
            clients = await seat_four(server, tokens, hands=8, stake=5,  # type: ignore[arg-type]
                                      profile="bianfeng")
            match_id = clients[0].of_type("table")[0]["match_id"]
            players = []
            for i, c in enumerate(clients):
                p = Player(server, tokens[i], 500 + i)
                p.seat = c.of_type("table")[0]["seat"]
                players.append(p)
            cuts = 0

            async def outages() -> None:
                nonlocal cuts
                for length in (0.0, 1.5, 0.0, 2.0, 0.0):  # a dropped session, or a cut
                    target = sum(p.states for p in players) + rng.randint(20, 150)
                    while sum(p.states for p in players) < target:
                        if all(p.end is not None for p in players):
                            return
                        await asyncio.sleep(0.01)
                    proxy.cut()
                    cuts += 1
                    await asyncio.sleep(length)
                    proxy.restore()

            await asyncio.gather(outages(), *(p.play(c, store, match_id)
                                              for p, c in zip(players, clients, strict=True)))
            for p in players:
                assert p.welcomes == [], "a player was disconnected"
                assert p.end is not None and p.end.get("reason") is None, p.end
                if p.client is not None:
                    await p.client.close()
            return match_id, cuts

        match_id, cuts = asyncio.run(scenario())
        assert cuts >= 4, f"the match ended after {cuts} cuts"
        match = check_settled_like_uninterrupted(store, match_id, dict.fromkeys(ids, RICH))
        assert len(match.history) == 8
        assert store.audit().ok and store.running_matches() == []
        assert server.proc is not None and server.proc.poll() is None, "the server died"
        log = (tmp_path / "server.log").read_text()
        assert "the database is unavailable" in log and "table_error" not in log
        # the HTTP API meanwhile: 503 and when to try again, then served as usual
        login = {"username": "crash0", "password": PASSWORD}
        proxy.cut()
        try:
            r = httpx.post(f"{server.http}/api/login", json=login, timeout=30)
        finally:
            proxy.restore()
        assert r.status_code == 503 and r.headers["retry-after"] == "2", r.text
        # and a WebSocket's log-in: an error frame, then 1013 (try again later)
        proxy.cut()
        try:
            closed = asyncio.run(_log_in_over_websocket(server.ws, tokens[0]))
        finally:
            proxy.restore()
        assert closed == ("server_error", 1013), closed
        assert r.json()["error"]["code"] == "server_error"
        assert httpx.post(f"{server.http}/api/login", json=login, timeout=30).status_code == 200
    finally:
        server.close()
        proxy.close()
        store.close()


async def _log_in_over_websocket(url: str, token: str) -> tuple[str, int | None]:
    """The code of the first frame after a ``hello``, and the close code that follows."""
    async with websockets.connect(url) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token, "protocol": 1}))
        first = json.loads(await asyncio.wait_for(ws.recv(), 30))
        with contextlib.suppress(websockets.ConnectionClosed):
            await asyncio.wait_for(ws.recv(), 30)
        return first.get("code", first["type"]), ws.close_code


def test_an_open_and_an_end_whose_commit_answers_were_lost(start_server: StartServer,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The table's first and last writes commit, then the connection drops before the
    answer arrives: the table tries each again (``server/outage.py``), finds it done and
    plays on.  The retried open used to meet its own row, and the retried end a match no
    longer running, and end the table as an error at its start or its very end."""
    server = start_server()
    store = server.store
    lost: list[str] = []

    def answer_lost(name: str) -> None:
        real = getattr(store, name)

        def committed_then_dropped(*args: object, **kwargs: object) -> object:
            result = real(*args, **kwargs)
            if name not in lost:
                lost.append(name)
                raise OperationalError("COMMIT", {}, Exception("server closed the connection"))
            return result
        monkeypatch.setattr(store, name, committed_then_dropped)

    answer_lost("open_match")
    answer_lost("end_match")
    tokens = [register(server, f"lost{i}") for i in range(4)]

    async def scenario() -> tuple[str, list[str]]:
        clients = await seat_four(server, tokens, hands=1)
        ends = await asyncio.gather(*(play(c, bot="greedy", seed=i) for i, c in enumerate(clients)))
        for c in clients:
            await c.close()
        return str(clients[0].of_type("table")[0]["match_id"]), [e["type"] for e in ends]

    match_id, ends = asyncio.run(scenario())
    assert ends == ["match_end"] * 4
    assert lost == ["open_match", "end_match"]
    logged = store.load_match(match_id)
    assert logged is not None and logged.status == "finished", logged
    assert store.is_settled(hand_game_id(match_id, 0))
    assert store.audit().ok


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_metrics_and_readiness_answer_while_the_database_is_away(db_url: str,
                                                                 tmp_path: Path) -> None:
    """An operator looks at ``/metrics`` when something is wrong, as when the database has
    gone away: the scrape failed as a whole (503), so the node's own figures (connections,
    tables, bot decisions) went dark with it.  Now it answers with them, says the database
    is down (``wuhan_mahjong_database_up 0``), and shows the last ledger audit with its age;
    ``/readyz`` says not ready.  Back to normal once the database is."""
    url = make_url(db_url)
    proxy = CuttableProxy(url.host or "127.0.0.1", url.port or 5432)
    server = ServeProcess(url.set(host="127.0.0.1", port=proxy.port)
                          .render_as_string(hide_password=False), tmp_path / "server.log",
                          options=("--metrics-audit-seconds", "0"))

    def scrape() -> dict[str, float]:
        r = httpx.get(f"{server.http}/metrics", timeout=30)
        assert r.status_code == 200, r.text
        return {line.split(" ")[0]: float(line.split(" ")[1]) for line in r.text.splitlines()
                if line.startswith("wuhan_mahjong_") and " " in line}

    try:
        server.start()
        up = scrape()
        assert up["wuhan_mahjong_database_up"] == 1
        assert up["wuhan_mahjong_ledger_consistent"] == 1
        proxy.cut()
        try:
            down = scrape()
            ready = httpx.get(f"{server.http}/readyz", timeout=30)
        finally:
            proxy.restore()
        assert down["wuhan_mahjong_database_up"] == 0
        assert down["wuhan_mahjong_connections"] == 0 and down["wuhan_mahjong_tables"] == 0
        assert down["wuhan_mahjong_ledger_consistent"] == 1  # the last audit's verdict ...
        assert down["wuhan_mahjong_ledger_audit_age_seconds"] > 0  # ... and how old it is
        assert ready.status_code == 503 and ready.json()["checks"]["database"].startswith("error")
        again = scrape()
        assert again["wuhan_mahjong_database_up"] == 1
        assert again["wuhan_mahjong_ledger_audit_age_seconds"] < down[
            "wuhan_mahjong_ledger_audit_age_seconds"]
    finally:
        server.close()
        proxy.close()


def _silent_port() -> tuple[socket.socket, list[socket.socket]]:
    """A port whose host answers nothing, as a vanished database host does: a listener
    whose accept queue is full, so the kernel drops every new SYN (the caller closes)."""
    listener = socket.create_server(("127.0.0.1", 0), backlog=0)
    fillers = []
    for _ in range(3):
        s = socket.socket()
        s.setblocking(False)
        with contextlib.suppress(BlockingIOError):
            s.connect(listener.getsockname())
        fillers.append(s)
    return listener, fillers


def test_a_silent_database_host_is_given_up_on_in_seconds(monkeypatch: pytest.MonkeyPatch,
                                                          tmp_path: Path) -> None:
    """A database host that vanishes without a word held a new connection for the kernel's
    SYN retries (about two minutes), so a table's store call neither finished nor failed
    and its wait for the database never began.  The store's connections now give up after
    ``connect_timeout`` (10 s; 2 here) with an error the table rides out."""
    monkeypatch.setitem(PG_CLIENT_TIMEOUTS, "connect_timeout", "2")
    listener, fillers = _silent_port()
    port = listener.getsockname()[1]
    engine = create_store_engine(f"postgresql+psycopg://u:p@127.0.0.1:{port}/db")
    outcome: list[BaseException | float] = []

    def connect() -> None:
        start = time.monotonic()
        try:
            engine.connect().close()
        except OperationalError as e:
            outcome.extend([e, time.monotonic() - start])

    try:
        worker = threading.Thread(target=connect, daemon=True)
        worker.start()
        worker.join(30)
        assert not worker.is_alive(), "the connection attempt hung"
        error, seconds = outcome
        assert isinstance(error, OperationalError) and is_transient(error)
        assert isinstance(seconds, float) and seconds < 10
        # and the operator's backup (pg_dump, through libpq's own parameters)
        start = time.monotonic()
        with pytest.raises(AdminError, match=r"pg_dump failed: .*timeout"):
            backup(f"postgresql://u:p@127.0.0.1:{port}/db", tmp_path / "b.dump")
        assert time.monotonic() - start < 20
    finally:
        engine.dispose()
        for s in [listener, *fillers]:
            s.close()


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_every_database_connection_of_a_node_is_probed(db_url: str) -> None:
    """The store's connections and the match writer's own carry the timeouts (a query on a
    connection whose host went silent used to wait out about fifteen minutes of TCP
    retransmissions); a parameter the URL sets stays as it says."""
    url = make_url(db_url).update_query_dict({"keepalives_idle": "7"})
    store = open_store(url.render_as_string(hide_password=False), password_hasher=FAST_HASHER)
    want = {**PG_CLIENT_TIMEOUTS, "keepalives_idle": "7"}

    async def writer_parameters() -> dict[str, str]:
        writer = match_writer(store)
        assert writer.engine is not None
        async with writer.engine.connect() as connection:
            raw = await connection.get_raw_connection()
            parameters: dict[str, str] = raw.driver_connection.info.get_parameters()
        await close_match_writer(store)
        return parameters

    try:
        with store.engine.connect() as connection:
            info = connection.connection.dbapi_connection.info  # type: ignore[union-attr]
            parameters = info.get_parameters()
        for got in (parameters, asyncio.run(writer_parameters())):
            assert {k: got.get(k) for k in want} == want
    finally:
        store.close()


def test_a_request_while_the_database_blinks_is_an_error_frame(
        server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    """A quick match asked while the database does not answer gets a ``server_error`` frame
    and the connection stays (the error left the handler and closed it with 1011)."""
    from wuhan_mahjong.server import hub as hub_module

    token = register(server, "pat")

    def away(*_: object) -> None:
        raise OperationalError("SELECT", {}, sqlite3.OperationalError("database is locked"))

    monkeypatch.setattr(hub_module, "entered", away)

    async def flow() -> None:
        pat = Client(server, token, "pat")
        await pat.connect()
        await pat.send({"type": "quick_match", "profile": "yuanhang", "ref": "q"})
        error = await pat.expect("error")
        assert (error["code"], error["ref"]) == ("server_error", "q")
        await pat.send({"type": "ping", "ref": "p"})
        await pat.expect("pong")
        assert not pat.closed.is_set()
        await pat.close()

    asyncio.run(flow())
