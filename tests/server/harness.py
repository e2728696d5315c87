"""Helpers of the server tests: a real uvicorn on a free loopback port, real clients.

Every test that takes ``server`` runs twice: on SQLite and on PostgreSQL.  The
PostgreSQL URL comes from ``WUHAN_MAHJONG_TEST_PG`` (``.ci/run`` sets it);
each test gets a fresh schema.  Without the variable the PostgreSQL cases are
skipped, or fail when ``CI`` is set.

The server runs in a thread with its own event loop (uvicorn's ``Server.serve``
on a pre-bound socket); the tests drive it with ``websockets`` and ``httpx``
from their own ``asyncio.run``.  Timers are tiny so that matches take a
fraction of a second per hand.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import uvicorn
import websockets
from argon2 import PasswordHasher

from loopback import free_port  # noqa: F401 - the tests import it from here
from wuhan_mahjong.bots import get_bot
from wuhan_mahjong.server import ServerConfig, create_app
from wuhan_mahjong.server.protocol import SERVER_MESSAGES
from wuhan_mahjong.store import Store

PG_ENV = "WUHAN_MAHJONG_TEST_PG"
FAST_HASHER = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)

FAST = ServerConfig(bot_wait=0.05, bot_delay=0.0, claim_hold=0.002, hand_pause=0.0,
                    claim_seconds=5.0, turn_seconds=5.0, quick_hands=1, bot="random",
                    msg_rate=1000.0, msg_burst=1000, web_dir=Path("/nonexistent-web-dir"),
                    quick_silver_distinct_addresses=False)
"""Tiny timers; the per-decision timeouts stay long so that only the timeout tests hit them.
Every test client connects from 127.0.0.1 (unless it names a ``source``): silver quick
tables seat players of one address here (the rule has its own test)."""


class _Uvicorn(uvicorn.Server):
    """uvicorn's server, stopping without idle waits: its main loop wakes when told to stop
    (uvicorn's own polls ``should_exit`` every 0.1 s; it still refreshes the ``Date`` header
    once a second), and its shutdown skips the grace for open connections when there are
    none.  A stop took 0.19 s of waiting, at each of the suite's hundreds of stops."""

    wake: asyncio.Event | None = None
    loop: asyncio.AbstractEventLoop | None = None

    async def main_loop(self) -> None:
        self.wake, self.loop = asyncio.Event(), asyncio.get_running_loop()
        counter = 0
        while not await self.on_tick(counter):
            counter = (counter + 10) % 864000  # on_tick refreshes the Date header at multiples of 10
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), 1.0)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        """uvicorn's shutdown, without its 0.1 s grace for open connections when none is open
        (most stops of the suite: the tests close their clients first).  Checked and closed
        with no ``await`` between, so no connection can come in meanwhile."""
        if self.server_state.connections or not hasattr(self, "_wait_tasks_to_complete"):
            # open connections, or a uvicorn whose internals differ from 0.54's: its own shutdown
            await super().shutdown(sockets)
            return
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        await asyncio.wait_for(self._wait_tasks_to_complete(),
                               timeout=self.config.timeout_graceful_shutdown)
        if not self.force_exit:
            await self.lifespan.shutdown()

    def stop_soon(self) -> None:
        """Ask the server to stop, from another thread."""
        self.should_exit = True
        loop, wake = self.loop, self.wake
        if loop is not None and wake is not None:
            with contextlib.suppress(RuntimeError):  # the loop has closed already
                loop.call_soon_threadsafe(wake.set)


class Server:
    """A running server: its URLs, its store, and its configuration."""

    def __init__(self, config: ServerConfig, store: Store) -> None:
        self.config = config
        self.store = store
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        self.sock = sock
        self.app = create_app(config, store=store)
        # proxy_headers off, as `wuhan-mahjong serve` runs it: the app trusts only the
        # proxies of its forwarded_allow_ips setting (uvicorn's default trusts 127.0.0.1)
        self.uvicorn = _Uvicorn(uvicorn.Config(self.app, log_level="warning", lifespan="on",
                                                     ws_max_size=64 * 1024, proxy_headers=False))
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 60  # a busy machine (tests/web/conftest.py)
        while not self.uvicorn.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.01)

    def _run(self) -> None:
        self.uvicorn.run(sockets=[self.sock])

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def hub(self) -> Any:
        return self.app.state.hub

    def stop(self) -> None:
        self.uvicorn.stop_soon()
        self.thread.join(20)
        self.sock.close()


StartServer = Callable[..., Server]


# --------------------------------------------------------------------------- clients
def guest_token(server: Server) -> str:
    r = httpx.post(f"{server.http}/api/guest", timeout=10)
    assert r.status_code == 201, r.text
    token: str = r.json()["token"]
    return token


def bearer(token: str) -> dict[str, str]:
    """The headers of an API request with ``token``."""
    return {"Authorization": f"Bearer {token}"}


def api_post(server: Server, path: str, token: str, body: Any = None) -> httpx.Response:
    """POST ``body`` (``{}`` when none) as JSON to ``path`` with ``token``."""
    return httpx.post(f"{server.http}{path}", json=body if body is not None else {},
                      headers=bearer(token), timeout=10)


def api_get(server: Server, path: str, token: str) -> httpx.Response:
    return httpx.get(f"{server.http}{path}", headers=bearer(token), timeout=10)


def register(server: Server, username: str, password: str = "secret-123") -> str:
    r = httpx.post(f"{server.http}/api/register", json={"username": username, "password": password},
                   timeout=10)
    assert r.status_code == 201, r.text
    token: str = r.json()["token"]
    return token


@dataclass
class Frame:
    at: float
    msg: dict[str, Any]


class Client:
    """A WebSocket client that validates and keeps every frame it receives."""

    def __init__(self, server: Server, token: str, name: str = "",
                 source: str | None = None) -> None:
        self.server = server
        self.token = token
        self.name = name
        self.source = source
        """The loopback address it connects from (``127.0.0.2``, ...): another player's
        address, as the server sees it; ``None``: the system's choice (127.0.0.1)."""
        self.frames: list[Frame] = []
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.ws: Any = None
        self.reader: asyncio.Task[None] | None = None
        self.closed = asyncio.Event()
        self.close_code: int | None = None

    async def connect(self, via_header: bool = False) -> dict[str, Any]:
        """Connect and authenticate: with a ``hello`` message, or with an
        ``Authorization: Bearer`` header on the upgrade request (never the URL)."""
        self.closed = asyncio.Event()
        headers = {"Authorization": f"Bearer {self.token}"} if via_header else None
        extra: dict[str, Any] = {} if self.source is None else {"local_addr": (self.source, 0)}
        self.ws = await websockets.connect(self.server.ws, max_size=2**22, additional_headers=headers,
                                           **extra)
        self.reader = asyncio.get_running_loop().create_task(self._read())
        if not via_header:
            await self.send({"type": "hello", "token": self.token})
        return await self.expect("welcome")

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                msg = json.loads(raw)
                SERVER_MESSAGES.validate_python(msg)  # every frame matches its model
                self.frames.append(Frame(time.monotonic(), msg))
                await self.inbox.put(msg)
        except websockets.ConnectionClosed:
            pass
        finally:
            self.close_code = self.ws.close_code
            self.closed.set()

    async def send(self, obj: Any) -> None:
        await self.ws.send(obj if isinstance(obj, str | bytes) else json.dumps(obj))

    async def recv(self, timeout: float = 10) -> dict[str, Any]:
        return await asyncio.wait_for(self.inbox.get(), timeout)

    async def expect(self, kind: str, timeout: float = 10, **fields: Any) -> dict[str, Any]:
        """The next frame of type ``kind`` (and matching ``fields``); others are skipped."""
        deadline = time.monotonic() + timeout
        while True:
            msg = await self.recv(max(0.01, deadline - time.monotonic()))
            if msg["type"] == kind and all(msg.get(k) == v for k, v in fields.items()):
                return msg

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(self.reader, 5)

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [f.msg for f in self.frames if f.msg["type"] == kind]


def decision_key(view: dict[str, Any]) -> tuple[Any, ...]:
    return (view["hand_no"], view["phase"], view["turn"], view["wall"], json.dumps(view["on_table"]),
            sum(len(s["discards"]) for s in view["seats"]), view["hand"], view["drawn"],
            view["final_draws_left"])


async def play(client: Client, *, bot: str = "random", seed: int = 0, until: str = "match_end",
               timeout: float = 60, act: bool = True,
               on_state: Callable[[dict[str, Any]], Any] | None = None,
               first: dict[str, Any] | None = None) -> dict[str, Any]:
    """Answer every decision with a bot until a frame of type ``until`` arrives.

    ``first``: a frame the test already took from the inbox (a ``state`` it checked, say),
    handled before the next one: the decision it offers may be the only offer of it."""
    policy = get_bot(bot, seed)
    done: set[tuple[Any, ...]] = set()
    deadline = time.monotonic() + timeout
    while True:
        if first is not None:
            msg, first = first, None
        else:
            msg = await client.recv(max(0.01, deadline - time.monotonic()))
        if msg["type"] == until:
            return msg
        if msg["type"] != "state" or not act:
            continue
        if on_state is not None and await_maybe(on_state(msg)) is False:
            continue
        view = msg["view"]
        if not view["legal_actions"] or msg["answered"]:
            continue
        key = decision_key(view)
        if key in done:
            continue
        done.add(key)
        action = policy.choose(view)
        await client.send({"type": "action", "action": action.to_json(), "hand_no": view["hand_no"],
                           "decision": view["decision"]})


def await_maybe(value: Any) -> Any:
    return value


async def seat_four(server: Server, tokens: list[str], **options: Any) -> list[Client]:
    """Four clients meet in a private room (``options`` are its options), ready up, and sit."""
    clients = [Client(server, t, f"c{i}") for i, t in enumerate(tokens)]
    for c in clients:
        await c.connect()
    await clients[0].send({"type": "create_room", "options": options})
    room = await clients[0].expect("room")
    for c in clients[1:]:
        await c.send({"type": "join_room", "code": room["code"]})
        await c.expect("room")
    for c in clients:
        await c.send({"type": "ready"})
    for c in clients:
        await c.expect("table")
    return clients
