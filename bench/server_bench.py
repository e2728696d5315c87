"""Load benchmark of the game server: N tables of 4 bot clients over real WebSockets.

Run:  python3 bench/server_bench.py [--tables 250] [--duration 30] [--claim-hold 0.01]

The server runs in a subprocess (``python -m wuhan_mahjong.server``) on a free
loopback port with a fresh SQLite database in a temporary folder; this process
creates ``4 × tables`` guest accounts over HTTP, seats every four of them in a
private room (so no server-side bots), and plays with a cheap policy behind
each client: win when offered, pass on claims, otherwise discard the drawn
tile (or the first legal discard).  After ``--warmup`` seconds it measures for
``--duration`` seconds:

* hands finished per second (all tables together);
* for every discard: the delay from the moment the discarding client sends it
  to the moment each of the three other clients at the table receives the
  state frame that shows it; p50, p99 and max over all of them;
* error frames, closed connections, and the server's CPU use.

Client and server share the machine's cores, so the figures are for the whole
system on loopback, client work included.  This is not a test; it prints a
summary (``--json`` for machine-readable output).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
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
        await self.ws.recv()  # welcome

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


async def bench(args: argparse.Namespace) -> dict[str, Any]:
    port = args.port or free_port()
    base = f"http://127.0.0.1:{port}"
    data = tempfile.mkdtemp(prefix="wm-bench-")
    env = {k: v for k, v in os.environ.items() if k != "WUHAN_MAHJONG_DB"}
    cmd = [sys.executable, "-m", "wuhan_mahjong.server", "--port", str(port), "--data-dir", data,
           "--bot-wait", "600", "--bot-delay", "0", "--claim-hold", str(args.claim_hold),
           "--hand-pause", "0", "--turn-seconds", "60", "--claim-seconds", "60",
           "--msg-rate", "1000", "--msg-burst", "1000", "--log-level", "warning",
           # one address plays every table here: lift the per-address abuse limits
           "--guests-per-hour", "1000000", "--tables-per-address", "1000000"]
    server = (subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
              if not args.port else None)
    try:
        async with httpx.AsyncClient(timeout=30) as http:
            for _ in range(200):
                try:
                    if (await http.get(f"{base}/api/health")).status_code == 200:
                        break
                except httpx.TransportError:
                    await asyncio.sleep(0.05)
            else:
                raise SystemExit("the server did not start")
            t0 = time.perf_counter()
            tokens: list[str] = []
            sem = asyncio.Semaphore(16)

            async def guest() -> str:
                async with sem:
                    r = await http.post(f"{base}/api/guest")
                    token: str = r.json()["token"]
                    return token

            tokens = list(await asyncio.gather(*(guest() for _ in range(4 * args.tables))))
            setup_accounts = time.perf_counter() - t0
        stats = Stats()
        url = f"ws://127.0.0.1:{port}/ws"
        tables: list[list[BenchClient]] = []
        for t in range(args.tables):
            probe = TableProbe()
            tables.append([BenchClient(url, tokens[4 * t + i], i, probe, stats) for i in range(4)])
            for c in tables[-1]:
                c.think = args.think
        t1 = time.perf_counter()
        sem2 = asyncio.Semaphore(32)

        async def connect(c: BenchClient) -> None:
            async with sem2:
                await c.connect()

        await asyncio.gather(*(connect(c) for tb in tables for c in tb))
        runners: list[asyncio.Task[None]] = []
        for i in range(0, len(tables), 25):
            batch = tables[i:i + 25]
            await asyncio.gather(*(seat_table(tb, args.hands) for tb in batch))
            runners += [asyncio.create_task(c.run()) for tb in batch for c in tb]
            if args.ramp > 0:  # tables start spread out, as players arrive
                await asyncio.sleep(args.ramp * 25 / len(tables))
        await asyncio.wait_for(asyncio.gather(*(c.table.wait() for tb in tables for c in tb)), 120)
        setup_tables = time.perf_counter() - t1
        await asyncio.sleep(args.warmup)
        pid = server.pid if server is not None else 0
        cpu0, m0 = cpu_seconds(pid), time.perf_counter()
        own0 = time.process_time()
        stats.measuring = True
        await asyncio.sleep(args.duration)
        stats.measuring = False
        elapsed = time.perf_counter() - m0
        cpu = cpu_seconds(pid) - cpu0
        own = time.process_time() - own0
        for tb in tables:
            for c in tb:
                await c.ws.close()
        for r in runners:
            r.cancel()
    finally:
        if server is not None:
            server.terminate()
            try:
                server.wait(20)
            except subprocess.TimeoutExpired:
                server.kill()
    lat = sorted(stats.latencies)

    def pct(p: float) -> float:
        return 1000 * lat[min(len(lat) - 1, int(p * len(lat)))] if lat else float("nan")

    return {
        "tables": args.tables, "connections": 4 * args.tables, "duration_s": round(elapsed, 1),
        "claim_hold_s": args.claim_hold, "hands": stats.hands,
        "hands_per_s": round(stats.hands / elapsed, 2),
        "updates_measured": len(lat),
        "latency_ms": {"p50": round(pct(0.50), 1), "p99": round(pct(0.99), 1),
                       "max": round(1000 * lat[-1], 1) if lat else None,
                       "mean": round(1000 * statistics.fmean(lat), 1) if lat else None},
        "errors": stats.errors, "error_codes": stats.error_codes, "closed_connections": stats.closed,
        "server_cpu_percent": round(100 * cpu / elapsed, 1),
        "client_cpu_percent": round(100 * own / elapsed, 1),
        "setup_s": {"accounts": round(setup_accounts, 1), "tables": round(setup_tables, 1)},
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tables", type=int, default=250, help="concurrent tables (default 250)")
    p.add_argument("--duration", type=float, default=30.0, help="measured seconds (default 30)")
    p.add_argument("--warmup", type=float, default=3.0, help="seconds before measuring (default 3)")
    p.add_argument("--ramp", type=float, default=0.0,
                   help="seconds over which the tables start (default 0: all at once)")
    p.add_argument("--claim-hold", type=float, default=0.01,
                   help="the server's --claim-hold (default 0.01 s)")
    p.add_argument("--hands", type=int, default=64, help="hands per match (default 64: no match "
                   "ends during the run)")
    p.add_argument("--think", type=float, default=0.0,
                   help="mean seconds a client waits before each action (uniform 0.5-1.5 times "
                   "this), like a bot's delay (default 0: as fast as possible)")
    p.add_argument("--port", type=int, default=0,
                   help="use a server already running on this loopback port (default: start one)")
    p.add_argument("--no-gc-tuning", dest="gc_tuning", action="store_false",
                   help="keep the default garbage-collector thresholds in the bench process")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    args = p.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = 8 * args.tables + 256
    if soft < need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, need), hard))
    if args.gc_tuning:  # as the server does (wuhan_mahjong.cli.serve.tune_gc)
        import gc

        gc.collect()
        gc.freeze()
        gc.set_threshold(5_000, 20, 100)
    result = asyncio.run(bench(args))
    if args.json:
        print(json.dumps(result, indent=2))
        return
    lat = result["latency_ms"]
    print(f"server bench: {result['tables']} tables, {result['connections']} WebSocket connections, "
          f"{result['duration_s']} s measured (claim hold {args.claim_hold} s)")
    print(f"  hands finished     {result['hands']} ({result['hands_per_s']} per second)")
    print(f"  action → others    p50 {lat['p50']} ms, p99 {lat['p99']} ms, max {lat['max']} ms "
          f"({result['updates_measured']} updates)")
    print(f"  errors             {result['errors']} {result['error_codes'] or ''}; "
          f"closed connections {result['closed_connections']}")
    print(f"  CPU                server {result['server_cpu_percent']}% of one core, "
          f"bench clients {result['client_cpu_percent']}%")
    print(f"  setup              accounts {result['setup_s']['accounts']} s, "
          f"tables {result['setup_s']['tables']} s")


if __name__ == "__main__":
    main()
