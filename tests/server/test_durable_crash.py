"""Crash tests: a ``wuhan-mahjong serve`` process killed with SIGKILL at random points, or
stopped with SIGTERM, loses no match, settles every hand exactly once, and creates or
destroys no silver.

The kill points are drawn from a seeded generator and counted in frames, not seconds, so
the test does the same on a fast or a slow machine.  Every match is then checked against
an uninterrupted replay of its stored walls and actions (``test_durable.uninterrupted``):
the same hand records, totals and silver.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from wuhan_mahjong.bots import get_bot
from wuhan_mahjong.store import Store, open_store

from .harness import FAST_HASHER, Client, decision_key, free_port, seat_four
from .test_durable import PASSWORD, RICH, check_settled_like_uninterrupted, persisted_views


@dataclass
class ServeProcess:
    """``wuhan-mahjong serve`` in a subprocess, on one database, restartable on one port."""

    db_url: str
    log: Path
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None
    starts: int = 0
    options: tuple[str, ...] = ()
    """More ``serve`` options (after the defaults: a repeated flag takes the last value)."""

    BOT_WORKER = ("--bot-worker", "thread")
    """The served bot is ``random``, which keeps state between decisions, so its seats are
    decided in the thread pool whatever the mode (``bot_worker.PURE_POLICIES``).  The default
    ``process`` mode would only add a forkserver and two worker processes to every start,
    which decide nothing here: 0.7 s of CPU a start beside the start itself, and left to end
    on their own after each ``kill -9``.  What they do with a killed server is
    ``test_bot_worker.test_worker_processes_end_with_a_killed_server``'s subject; a test
    whose requests run as pool jobs passes ``--bot-worker process`` in :attr:`options`."""

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(self) -> None:
        self.launch()
        self.wait_started()

    @staticmethod
    def start_all(processes: list[ServeProcess]) -> list[ServeProcess]:
        """Start ``processes`` side by side (a start is mostly waiting: imports, the bot
        pool's processes), as an operator's nodes start; returns them."""
        for p in processes:
            p.launch()
        for p in processes:
            p.wait_started()
        return processes

    def launch(self) -> None:
        """Start the process and return at once (:meth:`wait_started` waits for it)."""
        self.starts += 1
        cmd = [sys.executable, "-m", "wuhan_mahjong", "serve", "--port", str(self.port),
               "--db", self.db_url, "--bot", "random", "--bot-delay", "0", "--claim-hold",
               "0.002", "--hand-pause", "0", "--claim-seconds", "30", "--turn-seconds", "30",
               "--msg-rate", "1000", "--msg-burst", "1000", "--no-gc-tuning",
               "--log-level", "warning", "--no-quick-silver-distinct-addresses",
               *self.BOT_WORKER, *self.options]
        with self.log.open("ab") as out:
            out.write(f"--- start {self.starts}\n".encode())
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)

    def wait_started(self) -> None:
        """Wait until the launched process answers its health check (a minute at most).

        One HTTP client for the whole wait: ``httpx.get`` builds a client, and with it a TLS
        context, for each call (35 ms of CPU, beside a start of 1.3 s), every 0.05 s."""
        assert self.proc is not None
        deadline = time.monotonic() + 60
        with httpx.Client(timeout=1) as http:
            while True:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"the server exited with {self.proc.returncode}; "
                                       f"see {self.log}")
                with contextlib.suppress(httpx.HTTPError):
                    if http.get(f"{self.http}/api/health").status_code == 200:
                        return
                if time.monotonic() > deadline:
                    raise RuntimeError("the server did not start")
                time.sleep(0.05)

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(30)

    def terminate(self) -> int:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(60)

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(30)


@pytest.fixture
def serve(db_url: str, tmp_path: Path) -> Any:
    made: list[ServeProcess] = []

    def make() -> ServeProcess:
        p = ServeProcess(db_url, tmp_path / "server.log")
        made.append(p)
        return p

    yield make
    for p in made:
        p.close()


def _accounts(db_url: str, n: int) -> tuple[Store, list[str], list[int]]:
    store = open_store(db_url, password_hasher=FAST_HASHER, starting_silver=RICH)
    tokens, ids = [], []
    for i in range(n):
        account = store.register(f"crash{i}", PASSWORD)
        tokens.append(store.login(account.username, PASSWORD).token)
        ids.append(account.id)
    return store, tokens, ids


class Player:
    """One human seat driven by a bot; reconnects after every server death."""

    def __init__(self, server: ServeProcess, token: str, seed: int) -> None:
        self.server = server
        self.token = token
        self.bot = get_bot("greedy", seed)  # wins often: most hands move silver
        self.seed = seed
        self.other = get_bot("random", seed)
        self.fresh = 0
        """Decisions left to answer at random after a reconnect: a state shown but never
        written (a broken write-ahead) would then not come back after the restart."""
        self.client: Client | None = None
        self.end: dict[str, Any] | None = None
        self.states = 0
        self.welcomes: list[dict[str, Any]] = []
        self.seat = -1
        self.seen: set[tuple[Any, ...]] = set()
        """(seat, decision key) of every state frame received."""

    async def play(self, first: Client, store: Store, match_id: str) -> None:
        client: Client | None = first
        while self.end is None:
            if client is None:
                client = Client(self.server, self.token)  # type: ignore[arg-type]
                try:
                    welcome = await client.connect()
                except (TimeoutError, OSError, websockets.WebSocketException):
                    await asyncio.sleep(0.05)
                    client = None
                    continue
                self.welcomes.append(welcome)
                self.fresh = 3
                self.other = get_bot("random", self.seed * 1000 + len(self.welcomes))
                if not welcome["at_table"]:
                    # Only when the match ended while this player was away.
                    logged = await asyncio.to_thread(store.load_match, match_id)
                    assert logged is not None and logged.status == "finished", welcome
                    await client.close()
                    return
            self.client = client
            await self._answer(client)
            client = None

    async def _answer(self, client: Client) -> None:
        done: set[tuple[Any, ...]] = set()
        while self.end is None:
            getter = asyncio.ensure_future(client.inbox.get())
            closed = asyncio.ensure_future(client.closed.wait())
            finished, _ = await asyncio.wait({getter, closed}, timeout=120,
                                             return_when=asyncio.FIRST_COMPLETED)
            if getter not in finished:
                getter.cancel()
                closed.cancel()
                assert finished, "no frame for 120 s"
                while not client.inbox.empty():  # frames that arrived before the close
                    self._handle(client.inbox.get_nowait(), done, None)
                return
            closed.cancel()
            await self._handle_send(client, getter.result(), done)

    def _handle(self, msg: dict[str, Any], done: set[tuple[Any, ...]],
                client: Client | None) -> dict[str, Any] | None:
        if msg["type"] == "match_end":
            self.end = msg
            return None
        if msg["type"] != "state":
            return None
        self.states += 1
        view = msg["view"]
        self.seen.add((self.seat, *decision_key(view)))
        if msg["answered"] or not view["legal_actions"]:
            return None
        key = decision_key(view)
        if key in done:
            return None
        done.add(key)
        if self.fresh > 0:
            self.fresh -= 1
            action = self.other.choose(view)
        else:
            action = self.bot.choose(view)
        return {"type": "action", "action": action.to_json(), "hand_no": view["hand_no"],
                "decision": view["decision"]}

    async def _handle_send(self, client: Client, msg: dict[str, Any],
                           done: set[tuple[Any, ...]]) -> None:
        out = self._handle(msg, done, client)
        if out is not None:
            with contextlib.suppress(websockets.WebSocketException):
                await client.send(out)


async def _killer(server: ServeProcess, players: list[Player], rng: random.Random,
                  kills: int, how: str) -> int:
    """Kill (or stop) the server after a random number of state frames, ``kills`` times."""
    done = 0
    while done < kills and not all(p.end is not None for p in players):
        target = sum(p.states for p in players) + rng.randint(20, 400)
        while sum(p.states for p in players) < target:
            if all(p.end is not None for p in players):
                return done
            await asyncio.sleep(0.01)
        if how == "kill":
            await asyncio.to_thread(server.kill)
        else:
            assert await asyncio.to_thread(server.terminate) == 0
        done += 1
        await asyncio.to_thread(server.start)
    return done


def _run(serve: Any, db_url: str, *, rooms: int, hands: int, kills: int, how: str,
         seed: int) -> None:
    store, tokens, ids = _accounts(db_url, 4 * rooms)
    try:
        server: ServeProcess = serve()
        server.start()

        async def scenario() -> tuple[list[str], int]:
            tables = []
            for r in range(rooms):
                clients = await seat_four(server, tokens[4 * r:4 * r + 4],  # type: ignore[arg-type]
                                          hands=hands, stake=5, profile="bianfeng")
                tables.append(clients)
            match_ids = [t[0].of_type("table")[0]["match_id"] for t in tables]
            players = []
            runs = []
            for r, clients in enumerate(tables):
                for i, c in enumerate(clients):
                    p = Player(server, tokens[4 * r + i], seed * 100 + 4 * r + i)
                    p.seat = c.of_type("table")[0]["seat"]
                    players.append(p)
                    runs.append(p.play(c, store, match_ids[r]))
            killer = _killer(server, players, random.Random(seed), kills, how)
            results = await asyncio.gather(killer, *runs)
            for p in players:
                assert all(w["at_table"] for w in p.welcomes[:-1])
                if p.client is not None:
                    await p.client.close()
            return match_ids, results[0], players

        match_ids, done, players = asyncio.run(scenario())
        assert done >= min(kills, 3), f"only {done} restarts happened"
        matches = [check_settled_like_uninterrupted(store, match_id, dict.fromkeys(ids, RICH))
                   for match_id in match_ids]
        assert sum(len(m.history) for m in matches) == rooms * hands
        # Write-ahead: every state a player was shown is one the stored log goes through.
        for r, match_id in enumerate(match_ids):
            persisted = persisted_views(store, match_id)
            for p in players[4 * r:4 * r + 4]:
                assert p.seen and p.seen <= persisted, sorted(p.seen - persisted)[:3]
        wins = sum(h.result.outcome == "win" for m in matches for h in m.history)
        assert wins * 4 >= rooms * hands, f"only {wins} hands were won: little silver moved"
        # No silver created or lost: the players' silver and the house's fees add up.
        audit = store.audit()
        assert audit.ok, audit
        players_silver = sum(store.account(a).silver for a in ids)
        assert players_silver + audit.house_balance == RICH * len(ids)
        assert store.running_matches() == []
    finally:
        store.close()


@pytest.mark.slow
def test_kill_9_at_random_points_loses_nothing(serve: Any, db_url: str) -> None:
    """Two tables, 24 hands in all, the server killed with SIGKILL at 6 random points."""
    _run(serve, db_url, rooms=2, hands=12, kills=6, how="kill", seed=int(os.environ.get(
        "WUHAN_MAHJONG_CRASH_SEED", "7")))


@pytest.mark.slow
def test_sigterm_drains_and_the_restart_resumes(serve: Any, db_url: str) -> None:
    """SIGTERM: the process exits 0 after persisting its tables; the next one resumes them."""
    _run(serve, db_url, rooms=1, hands=4, kills=2, how="term", seed=3)
