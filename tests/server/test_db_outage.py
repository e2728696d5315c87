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
from pathlib import Path

import httpx
import psycopg
import pytest
import websockets
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError, OperationalError

from wuhan_mahjong.store import MatchFenced, hand_game_id
from wuhan_mahjong.store.database import is_transient

from .harness import StartServer, play, register, seat_four
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
