"""Shared client side of the server benchmarks: bot clients over real WebSockets.

Used by ``bench/server_bench.py`` (one server process) and ``bench/cluster_bench.py``
(several ``wuhan-mahjong serve --redis`` nodes).  :func:`play` creates ``4 × tables``
guest accounts over HTTP, seats every four of them in a private room (so no
server-side bots), plays with a cheap policy behind each client (win when offered,
pass on claims, otherwise discard the drawn tile) and, after a warm-up, measures:

* hands finished per second (all tables together);
* for every discard: the delay from the moment the discarding client sends it to the
  moment each of the three other clients at the table receives the state frame that
  shows it ("action to others"); p50, p99 and max over all of them;
* error frames, closed connections, the CPU seconds of each server process (``/proc``)
  and of this client process (``time.process_time``), and the servers' resident memory.

With several servers, connection ``i`` of table ``t`` goes to server ``(t + i) mod N``:
round robin over the servers as a plain load balancer deals connections, with the
room's creator (whose server runs the table) turning too, so every server runs its
share of the tables and every table has players on every server.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import random
import resource
import socket
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets

try:  # the client side of the benchmark is as cheap as we can make it
    from orjson import loads
except ImportError:  # pragma: no cover
    from json import loads

# The server settings of every benchmark run: no server-side bots, short claim windows,
# no pause between hands, and the per-address abuse limits lifted (one loopback address
# plays every table here).
SERVER_FLAGS = ["--bot-wait", "600", "--bot-delay", "0", "--hand-pause", "0",
                "--turn-seconds", "60", "--claim-seconds", "60",
                "--msg-rate", "1000", "--msg-burst", "1000", "--log-level", "warning",
                "--guests-per-hour", "1000000", "--tables-per-address", "1000000"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (Linux /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def rss_mib(pid: int) -> float:
    """Resident memory of a process in MiB (Linux /proc); 0 if it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def prepare_process(tables: int, gc_tuning: bool = True) -> None:
    """Enough file descriptors for ``tables`` tables, and the server's GC thresholds."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = 8 * tables + 256
    if soft < need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, need), hard))
    if gc_tuning:  # as the server does (wuhan_mahjong.cli.serve.tune_gc)
        gc.collect()
        gc.freeze()
        gc.set_threshold(5_000, 20, 100)


def choose(view: dict[str, Any]) -> dict[str, Any]:
    """A cheap policy on the view's JSON: win, else pass, else discard the drawn tile."""
    legal = view["legal_actions"]
    for a in legal:
        if a["type"] == "win":
            return a
    for a in legal:
        if a["type"] == "pass":
            return a
    drawn = view.get("drawn")
    discards = [a for a in legal if a["type"] == "discard"]
    for a in discards:
        if a["tile"] == drawn:
            return a
    if discards:
        return discards[-1]
    return legal[0]


def discards_of(view: dict[str, Any]) -> int:
    return sum(len(s["discards"]) for s in view["seats"])


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    hands: int = 0
    errors: int = 0
    error_codes: dict[str, int] = field(default_factory=dict)
    closed: int = 0
    measuring: bool = False
    frames: int = 0


@dataclass
class TableProbe:
    """Shared by the four clients of a table: the last discard sent and when."""

    sent_at: float = 0.0
    expect: int = -1
    seen: set[int] = field(default_factory=set)


class BenchClient:
    def __init__(self, url: str, token: str, seat_hint: int, probe: TableProbe, stats: Stats) -> None:
        self.url = url
        self.token = token
        self.hint = seat_hint
        self.probe = probe
        self.stats = stats
        self.ws: Any = None
        self.done: set[tuple[Any, ...]] = set()
        self.table = asyncio.Event()
        self.think = 0.0
        self.pending: asyncio.TimerHandle | None = None
        self.tasks: set[asyncio.Task[None]] = set()

    async def connect(self) -> None:
        self.ws = await websockets.connect(self.url, max_size=2**22, compression=None)
        await self.ws.send(json.dumps({"type": "hello", "token": self.token}))  # never in the URL
        welcome = loads(await self.ws.recv())
        if welcome.get("type") != "welcome":
            raise SystemExit(f"no welcome from {self.url}: {welcome}")

    async def send(self, obj: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(obj))

    def _act_soon(self, view: dict[str, Any], n: int) -> None:
        task = asyncio.get_running_loop().create_task(self._act(view, n))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _act(self, view: dict[str, Any], n: int) -> None:
        action = choose(view)
        if action["type"] == "discard":
            probe = self.probe
            probe.sent_at = time.perf_counter()
            probe.expect = n + 1
            probe.seen = {self.hint}
        with contextlib.suppress(websockets.ConnectionClosed):
            await self.send({"type": "action", "action": action, "decision": view["decision"]})

    async def run(self) -> None:
        stats, probe = self.stats, self.probe
        try:
            async for raw in self.ws:
                msg = loads(raw)
                kind = msg["type"]
                stats.frames += 1
                if kind == "state":
                    self.table.set()
                    view = msg["view"]
                    n = discards_of(view)
                    if probe.expect >= 0 and n >= probe.expect and self.hint not in probe.seen:
                        probe.seen.add(self.hint)
                        if stats.measuring:
                            stats.latencies.append(time.perf_counter() - probe.sent_at)
                    legal = view["legal_actions"]
                    if not legal or msg["answered"]:
                        continue
                    key = (view["hand_no"], view["phase"], view["wall"], n, view["drawn"],
                           view["final_draws_left"])
                    if key in self.done:
                        continue
                    self.done.add(key)
                    if self.think > 0:  # think without blocking the reading of frames
                        delay = self.think * (0.5 + random.random())
                        self.pending = asyncio.get_running_loop().call_later(
                            delay, self._act_soon, view, n)
                    else:
                        await self._act(view, n)
                elif kind == "table":
                    self.table.set()
                elif kind == "hand_end":
                    self.done.clear()
                    if self.hint == 0 and stats.measuring:
                        stats.hands += 1
                elif kind == "error":
                    stats.errors += 1
                    stats.error_codes[msg["code"]] = stats.error_codes.get(msg["code"], 0) + 1
        except websockets.ConnectionClosed:
            pass
        finally:
            if stats.measuring:
                stats.closed += 1


async def seat_table(clients: list[BenchClient], hands: int) -> None:
    host = clients[0]
    await host.send({"type": "create_room",
                     "options": {"hands": hands, "fill_bots": False, "stake": 0}})
    while True:
        msg = json.loads(await host.ws.recv())
        if msg["type"] == "room":
            code = msg["code"]
            break
    for c in clients[1:]:
        await c.send({"type": "join_room", "code": code})
        while json.loads(await c.ws.recv())["type"] != "room":
            pass
    for c in clients:
        await c.send({"type": "ready"})


async def wait_healthy(base: str, tries: int = 400) -> None:
    """Wait until the server at ``base`` answers ``/api/health`` (about 20 s at most)."""
    async with httpx.AsyncClient(timeout=5) as http:
        for _ in range(tries):
            try:
                if (await http.get(f"{base}/api/health")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.05)
    raise SystemExit(f"the server at {base} did not start")


def latency_summary(latencies: list[float]) -> dict[str, Any]:
    """p50, p99, max and mean in milliseconds."""
    lat = sorted(latencies)

    def pct(p: float) -> float:
        return round(1000 * lat[min(len(lat) - 1, int(p * len(lat)))], 1) if lat else float("nan")

    return {"p50": pct(0.50), "p99": pct(0.99),
            "max": round(1000 * lat[-1], 1) if lat else None,
            "mean": round(1000 * statistics.fmean(lat), 1) if lat else None}


async def play(ports: list[int], pids: list[int], *, tables: int, hands: int = 64,
               think: float = 0.0, ramp: float = 0.0, warmup: float = 3.0,
               duration: float = 30.0, by_table: bool = False) -> dict[str, Any]:
    """Play ``tables`` tables against the servers on ``ports`` and measure (module docstring).

    ``pids`` are the servers' process ids for the CPU and memory figures (0: unknown).
    ``by_table``: the four connections of table ``t`` all go to server ``t mod N`` (a
    balancer that keeps a table's players together) instead of round robin.
    """
    nodes = len(ports)
    bases = [f"http://127.0.0.1:{p}" for p in ports]
    t0 = time.perf_counter()
    sem = asyncio.Semaphore(16)
    async with httpx.AsyncClient(timeout=30) as http:

        async def guest(i: int) -> str:
            async with sem:  # accounts are made round robin over the servers too
                r = await http.post(f"{bases[i % nodes]}/api/guest")
                token: str = r.json()["token"]
                return token

        tokens = list(await asyncio.gather(*(guest(i) for i in range(4 * tables))))
    setup_accounts = time.perf_counter() - t0
    stats = Stats()
    seated: list[list[BenchClient]] = []
    for t in range(tables):
        probe = TableProbe()
        seated.append([BenchClient(f"ws://127.0.0.1:{ports[(t + (0 if by_table else i)) % nodes]}/ws",
                                   tokens[4 * t + i], i, probe, stats) for i in range(4)])
        for c in seated[-1]:
            c.think = think
    t1 = time.perf_counter()
    sem2 = asyncio.Semaphore(32)

    async def connect(c: BenchClient) -> None:
        async with sem2:
            await c.connect()

    await asyncio.gather(*(connect(c) for tb in seated for c in tb))
    runners: list[asyncio.Task[None]] = []
    for i in range(0, len(seated), 25):
        batch = seated[i:i + 25]
        await asyncio.gather(*(seat_table(tb, hands) for tb in batch))
        runners += [asyncio.create_task(c.run()) for tb in batch for c in tb]
        if ramp > 0:  # tables start spread out, as players arrive
            await asyncio.sleep(ramp * 25 / len(seated))
    await asyncio.wait_for(asyncio.gather(*(c.table.wait() for tb in seated for c in tb)), 120)
    setup_tables = time.perf_counter() - t1
    await asyncio.sleep(warmup)
    cpu0 = [cpu_seconds(pid) for pid in pids]
    m0, own0 = time.perf_counter(), time.process_time()
    stats.measuring = True
    await asyncio.sleep(duration)
    stats.measuring = False
    elapsed = time.perf_counter() - m0
    cpu = [cpu_seconds(pid) - c0 for pid, c0 in zip(pids, cpu0, strict=True)]
    own = time.process_time() - own0
    rss = [rss_mib(pid) for pid in pids]
    for tb in seated:
        for c in tb:
            await c.ws.close()
    for r in runners:
        r.cancel()
    lat = stats.latencies
    return {
        "tables": tables, "connections": 4 * tables, "nodes": nodes, "think_s": think,
        "spread": "by table" if by_table else "round robin",
        "duration_s": round(elapsed, 1), "hands": stats.hands,
        "hands_per_s": round(stats.hands / elapsed, 2),
        "updates_measured": len(lat), "latency_ms": latency_summary(lat),
        "errors": stats.errors, "error_codes": stats.error_codes, "closed_connections": stats.closed,
        "server_cpu_s": [round(c, 2) for c in cpu], "client_cpu_s": round(own, 2),
        "server_cpu_percent": round(100 * sum(cpu) / elapsed, 1),
        "client_cpu_percent": round(100 * own / elapsed, 1),
        "server_rss_mib": [round(r, 1) for r in rss],
        "setup_s": {"accounts": round(setup_accounts, 1), "tables": round(setup_tables, 1)},
    }
