"""Bot decisions off the event loop (``server/bot_worker.py``; issue 16 item 8, issue 11).

Real servers, real WebSockets.  The bot seats play ``gated``: greedy, except that the one
decision the test arms does a large amount of real bot work (greedy evaluations of its view,
a budget of ten million, minutes on any machine) until the test releases it.  So "the
decision is still running" is a fact the test controls, not a race against the clock:
nothing here depends on the machine's speed.
"""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from wuhan_mahjong.bots import get_bot, register
from wuhan_mahjong.engine import Action, new_hand, seat_view
from wuhan_mahjong.engine.views import SeatView
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.server.bot_worker import BotWorker
from wuhan_mahjong.store import Store, applied_actions

from .harness import Client, Server, StartServer, guest_token, play, seat_four
from .test_durable import uninterrupted

WORK_BUDGET = 10_000_000
"""Greedy evaluations an armed decision may do before it gives up waiting for release."""


class Gate:
    """Arms one decision of the ``gated`` bot (optionally of one seat only)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.reset()

    def reset(self, seat: int | None = None, armed: bool = False) -> None:
        with self.lock:
            self.armed = armed
            self.seat = seat
            self.view: SeatView | None = None
            self.started = threading.Event()
            self.release = threading.Event()
            self.finished = threading.Event()
            self.work = 0

    def take(self, view: SeatView) -> bool:
        with self.lock:
            if not self.armed or (self.seat is not None and view["viewer"] != self.seat):
                return False
            self.armed = False
            self.view = view
            return True


GATE = Gate()


class GatedBot:
    """Greedy, with one armed decision that works (really) until released."""

    name = "gated"

    def __init__(self, seed: int | None = None) -> None:
        self.inner = get_bot("greedy", seed)

    def choose(self, view: SeatView) -> Action:
        if GATE.take(view):
            gate = GATE
            gate.started.set()
            while not gate.release.is_set() and gate.work < WORK_BUDGET:
                self.inner.choose(view)
                gate.work += 1
            gate.finished.set()
        return self.inner.choose(view)


register("gated", GatedBot)


@pytest.fixture(autouse=True)
def _gate() -> Any:
    GATE.reset()
    yield
    GATE.release.set()  # never leave a worker thread working for minutes


def scrape(server: Server) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    r = httpx.get(f"{server.http}/metrics", timeout=30)
    assert r.status_code == 200
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for f in text_string_to_metric_families(r.text) for s in f.samples}


def metric(server: Server, name: str, **labels: str) -> float:
    want = set(labels.items())
    return sum(v for (n, ls), v in scrape(server).items() if n == name and want <= set(ls))


async def wait_event(event: threading.Event, timeout: float = 60) -> None:
    assert await asyncio.to_thread(event.wait, timeout), "the armed decision never started"


async def auto_table(server: Server) -> tuple[Client, dict[str, Any]]:
    """A guest's own free table, bots in the other seats, the guest on auto-play (托管)."""
    c = Client(server, guest_token(server))
    await c.connect()
    await c.send({"type": "create_room", "options": {"hands": 1, "stake": 0, "fill_bots": True}})
    await c.send({"type": "ready"})
    await c.send({"type": "start"})
    table = await c.expect("table", timeout=30)
    await c.send({"type": "auto", "on": True})
    return c, table


def play_auto_match(server: Server) -> str:
    """A guest's one-hand table with bots (:func:`auto_table`) played to its end without
    error; its match id."""

    async def scenario() -> str:
        c, table = await auto_table(server)
        end = await c.expect("match_end", timeout=120)
        assert end.get("reason") is None
        await c.close()
        return str(table["match_id"])

    return asyncio.run(scenario())


def replays_identically(store: Store, match_id: str) -> list[Any]:
    """The finished match's stored totals are those of its log replayed through the engine;
    returns the log's events."""
    logged = store.load_match(match_id)
    assert logged is not None and logged.status == "finished", logged
    match = uninterrupted(store, match_id)
    assert match.finished and list(logged.totals) == match.totals
    return list(logged.events)


def test_a_long_bot_decision_does_not_hold_up_another_table(start_server: StartServer) -> None:
    server = start_server(bot="gated", bot_cap=600.0)
    humans = [guest_token(server) for _ in range(4)]

    async def scenario() -> None:
        GATE.reset(armed=True)
        a, table = await auto_table(server)
        await wait_event(GATE.started)
        # Table B (four people, no bots) plays a whole hand while A's bot is still working.
        b = await seat_four(server, humans, hands=1, stake=0)
        ends = await asyncio.gather(*(play(c, bot="random", seed=i, until="hand_end")
                                      for i, c in enumerate(b)))
        assert all(e["type"] == "hand_end" for e in ends)
        assert not GATE.finished.is_set(), "the armed decision ended before table B played"
        assert GATE.work < WORK_BUDGET
        GATE.release.set()
        end = await a.expect("match_end", timeout=60)
        assert end.get("reason") is None
        for c in [a, *b]:
            await c.close()
        replays_identically(server.store, table["match_id"])

    asyncio.run(scenario())


def test_a_stale_bot_result_is_dropped(start_server: StartServer) -> None:
    server = start_server(bot="gated", bot_cap=600.0)

    async def scenario() -> None:
        stale0 = metric(server, "wuhan_mahjong_bot_decisions_total", outcome="stale")
        c = Client(server, guest_token(server))
        await c.connect()
        await c.send({"type": "create_room", "options": {"hands": 1, "stake": 0,
                                                         "fill_bots": True}})
        await c.send({"type": "ready"})
        await c.send({"type": "start"})
        table = await c.expect("table", timeout=30)
        seat = table["seat"]
        GATE.reset(seat=seat, armed=True)  # the bot working for this player on 托管
        await c.send({"type": "auto", "on": True})
        await wait_event(GATE.started)
        view = GATE.view
        assert view is not None
        # The player comes back and answers the decision the bot is still working on.
        mine = get_bot("greedy", 7).choose(view)
        await c.send({"type": "action", "action": mine.to_json(), "hand_no": view["hand_no"],
                      "decision": view["decision"]})
        await c.expect("notice", code="auto_off")
        deadline = time.monotonic() + 60
        while metric(server, "wuhan_mahjong_bot_decisions_total", outcome="stale") <= stale0:
            assert time.monotonic() < deadline, "the stale job was never dropped"
            await asyncio.sleep(0.02)
        GATE.release.set()  # the bot's answer comes in now: too late, it must not be played
        await asyncio.to_thread(GATE.finished.wait, 60)
        await c.send({"type": "snapshot"})
        await play(c, bot="greedy", seed=1, until="match_end", timeout=120)
        await c.close()
        events = replays_identically(server.store, table["match_id"])
        ours = [e for e in applied_actions(events) if e.kind == "act" and e.seat == seat
                and e.hand_no == view["hand_no"]]
        # the answered decision holds the player's action, once; no auto action after it
        # until the player goes back on 托管 (he does not here)
        sources = [e.source for e in ours]
        assert "player" in sources
        first_player = sources.index("player")
        assert "auto" not in sources[first_player:]

    asyncio.run(scenario())


def test_the_safety_net_plays_greedy_and_is_counted(start_server: StartServer) -> None:
    server = start_server(bot="gated", bot_cap=0.001)

    async def scenario() -> None:
        hits0 = metric(server, "wuhan_mahjong_bot_cap_hits_total")
        cap0 = metric(server, "wuhan_mahjong_bot_decisions_total", outcome="cap")
        GATE.reset(armed=True)
        c, table = await auto_table(server)
        await wait_event(GATE.started)
        # The armed decision cannot end before it is released: only the cap moves the table.
        end = await c.expect("match_end", timeout=120)
        assert end.get("reason") is None
        assert not GATE.finished.is_set()
        assert metric(server, "wuhan_mahjong_bot_cap_hits_total") > hits0
        assert metric(server, "wuhan_mahjong_bot_decisions_total", outcome="cap") > cap0
        GATE.release.set()
        await c.close()
        events = replays_identically(server.store, table["match_id"])
        assert any(e.kind == "act" and e.source in ("bot", "auto") for e in applied_actions(events))

    asyncio.run(scenario())


def test_bot_seats_play_through_a_process_pool(start_server: StartServer) -> None:
    server = start_server(bot="greedy", bot_worker="process", bot_workers=1)

    async def scenario() -> None:
        played0 = metric(server, "wuhan_mahjong_bot_decisions_total", outcome="played")
        c, table = await auto_table(server)
        end = await c.expect("match_end", timeout=120)
        assert end.get("reason") is None
        assert metric(server, "wuhan_mahjong_bot_decisions_total", outcome="played") > played0
        await c.close()
        events = replays_identically(server.store, table["match_id"])
        assert any(e.kind == "act" and e.source == "auto" for e in applied_actions(events))

    asyncio.run(scenario())


def hand_views(deals: int, steps: int) -> list[SeatView]:
    """Every view a seat decides on in the first ``steps`` decisions of some greedy hands."""
    views: list[SeatView] = []
    greedy = get_bot("greedy", 0)
    for deal in range(deals):
        state = new_hand(get_rules("yuanhang"), dealer=deal % 4, rng=random.Random(deal))
        for _ in range(steps):
            if state.ended:
                break
            for seat in state.to_act():
                view = seat_view(state, seat)
                views.append(view)
                state.apply(seat, greedy.choose(view))
    return views


@pytest.mark.parametrize("policy", ["greedy", "expert"])
def test_a_worker_process_decides_as_the_bot_here(policy: str) -> None:
    """A process worker builds its own bot from (policy, seed): its decisions are this
    process's, view for view (another interpreter, another hash seed)."""
    views = hand_views(3, 40)
    worker = BotWorker("process", 2)
    here = get_bot(policy, 12345)
    lock = threading.Lock()

    async def there() -> list[Action]:
        loop = asyncio.get_running_loop()
        return list(await asyncio.gather(*(worker.submit(loop, policy, 12345, here, lock, v)
                                           for v in views)))

    try:
        remote = asyncio.run(there())
    finally:
        worker.shutdown()
    assert len(views) > 100
    assert remote == [here.choose(v) for v in views]


def test_a_bot_result_after_the_table_stopped_is_not_played(start_server: StartServer) -> None:
    """The server drains while a bot decision runs: the table stops at once (it does not
    wait for the bot), the match stays running for the next start, and the bot's late
    answer is never applied or logged."""
    server = start_server(bot="gated", bot_cap=600.0)

    async def scenario() -> str:
        GATE.reset(armed=True)
        c, table = await auto_table(server)
        await wait_event(GATE.started)
        await asyncio.to_thread(server.stop)
        assert not GATE.finished.is_set()  # the drain did not wait for the bot
        await c.close()
        return str(table["match_id"])

    match_id = asyncio.run(scenario())
    stopped = server.store.load_match(match_id)
    assert stopped is not None and stopped.status == "running"
    GATE.release.set()
    assert GATE.finished.wait(60)
    later = server.store.load_match(match_id)
    assert later is not None and later.status == "running"
    assert [e.seq for e in later.events] == [e.seq for e in stopped.events]


_POOL_OWNER = """
import json, sys
from wuhan_mahjong.server.bot_worker import BotWorker

if __name__ == "__main__":
    worker = BotWorker("process", 2)
    worker.start()
    pool = worker._processes
    assert pool is not None
    for future in [pool.submit(sum, [i]) for i in range(8)]:
        future.result()
    print(json.dumps(sorted(pool._processes)), flush=True)
    sys.stdin.read()  # until killed
"""


def _running(pid: int) -> bool:
    """Whether the process exists and has not ended (a zombie has ended).  A process reaped
    between the open and the read of its stat file makes the read fail with ESRCH
    (ProcessLookupError), not ENOENT: both mean it has ended (CI met the second)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return fields[0] != "Z"


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
def test_worker_processes_end_with_a_killed_server(tmp_path: Path) -> None:
    """kill -9 of a process whose bot pool runs: its worker processes and their forkserver
    end with it.  (They wait on a task queue of which each holds both ends, so they used to
    run for ever, and every restart of a killed server left two more.)"""
    script = tmp_path / "pool_owner.py"
    script.write_text(_POOL_OWNER)
    owner = subprocess.Popen([sys.executable, str(script)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert owner.stdout is not None
        workers = json.loads(owner.stdout.readline())
        assert len(workers) == 2
        parents = {int(Path(f"/proc/{w}/stat").read_text().rsplit(")", 1)[1].split()[1])
                   for w in workers}  # the forkserver
        watched = [*workers, *parents]
        assert all(_running(pid) for pid in watched)
    finally:
        owner.kill()
        owner.wait()
    deadline = time.monotonic() + 60  # at once in practice; the bound only stops a hang
    while any(_running(pid) for pid in watched):
        assert time.monotonic() < deadline, [p for p in watched if _running(p)]
        time.sleep(0.05)


def test_the_pool_starts_with_the_server_before_any_table(start_server: StartServer) -> None:
    """The process pool is started by the server's start-up, in a thread, not by the node's
    first table in the event loop (starting a forkserver there stalled every socket for up to
    seconds on a busy machine: a browser test's table took over 20 s to show)."""
    from wuhan_mahjong.server import bot_worker

    key = ("process", 3)  # a size no other test uses
    with bot_worker._SHARED_LOCK:
        earlier = bot_worker._SHARED.pop(key, None)  # this test's other database's
    if earlier is not None:
        earlier.shutdown()
    start_server(bot="greedy", bot_worker="process", bot_workers=3)
    worker = bot_worker._SHARED[key]
    assert worker._processes is not None
