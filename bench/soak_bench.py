"""Soak benchmark of the game server: N bot tables and a fuzzer, for a long time.

Run:  python3 bench/soak_bench.py [--tables 200] [--duration 600] [--fuzzers 4] [--json]
      python3 bench/soak_bench.py --tables 50 --duration 120     # a shortened run

``wuhan-mahjong serve`` runs in a subprocess on a free loopback port with a fresh SQLite
database (or ``--db URL``).  Each table has one guest client that opens a private room of its
own and starts it (a free table: the server's bots fill the other three seats), switches
its seat to auto-play (托管) and reads every frame; when its match ends it starts the next.  So
every table plays all the time, and every move goes through the durable match log.
Meanwhile ``--fuzzers`` clients send a stream of bad input: broken JSON, unknown types,
oversized frames, random actions with random decisions and hands, at tables and
outside them.

Reported:

* **errors** (target 0): an error frame or an unexpected close on a well-behaved table
  client, a match ended by a server error, a failed health probe, or an ``ERROR`` /
  ``Traceback`` line in the server's log;
* frames per second delivered to the table clients, matches and hands finished, and the
  match-log events written per second;
* the server's resident memory (RSS) every ``--interval`` seconds, and its growth from
  the first sample after ``--warmup`` to the end (target: flat);
* CPU: the server's CPU seconds beside the wall time, and this process's own
  (``time.process_time``): the named peer is the bench's client side, timed in the same
  run (server CPU ÷ client CPU).

Client and server share the machine's cores, so the figures are for the whole system.
This is not a test; it prints a summary (``--json`` for machine-readable output).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _bench_clients import cpu_seconds, free_port, rss_mib  # shared with the sibling benchmarks

try:  # the client side of the benchmark is as cheap as we can make it
    from orjson import loads
except ImportError:  # pragma: no cover
    from json import loads


@dataclass
class Stats:
    frames: int = 0
    fuzz_frames: int = 0
    hands: int = 0
    matches: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    samples: list[dict[str, float]] = field(default_factory=list)

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1


class Server:
    """``wuhan-mahjong serve`` in a subprocess."""

    def __init__(self, db: str | None, folder: Path, args: argparse.Namespace) -> None:
        self.port = free_port()
        self.log = folder / "server.log"
        db_url = db or f"sqlite:///{folder / 'soak.db'}"
        self.db_url = db_url
        wanted = {
            "--port": str(self.port), "--db": db_url, "--bot": args.bot,
            "--bot-wait": "0.05", "--bot-delay": str(args.bot_delay),
            "--claim-hold": str(args.claim_hold), "--hand-pause": str(args.hand_pause),
            "--quick-hands": str(args.hands), "--log-level": "warning",
            # One address (loopback) runs every table and guest of the bench.
            "--guests-per-hour": "1000000", "--tables-per-address": "1000000",
            "--register-per-hour": "1000000",
        }
        help_text = subprocess.run([sys.executable, "-m", "wuhan_mahjong", "serve", "--help"],
                                   capture_output=True, text=True, check=True).stdout
        cmd = [sys.executable, "-m", "wuhan_mahjong", "serve"]
        if args.trace:  # the same server under tracemalloc (bench/soak_trace.py)
            cmd = [sys.executable, str(Path(__file__).resolve().parent / "soak_trace.py"),
                   str(Path(args.trace).resolve()), "serve"]
        for flag, value in wanted.items():
            if flag in help_text:  # a setting this version does not have is left out
                cmd += [flag, value]
        self.out = self.log.open("wb")
        self.proc = subprocess.Popen(cmd, stdout=self.out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while True:
            if self.proc.poll() is not None:
                sys.exit(f"the server exited with {self.proc.returncode}:\n{self.log.read_text()}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.http}/api/health", timeout=1).status_code == 200:
                    break
            if time.monotonic() > deadline:
                sys.exit("the server did not start")
            time.sleep(0.1)

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def log_errors(self) -> int:
        text = self.log.read_text(errors="replace")
        return sum(1 for line in text.splitlines() if "Traceback" in line or " ERROR" in line
                   or line.startswith("ERROR"))

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.out.close()


async def guest(client: httpx.AsyncClient, server: Server) -> str:
    for _ in range(50):
        r = await client.post(f"{server.http}/api/guest")
        if r.status_code == 201:
            token: str = r.json()["token"]
            return token
        await asyncio.sleep(0.2)
    raise RuntimeError(f"no guest account: {r.status_code} {r.text}")


async def connect(server: Server, token: str) -> Any:
    ws = await websockets.connect(server.ws, max_size=2**22, compression=None)
    await ws.send(json.dumps({"type": "hello", "token": token}))
    welcome = loads(await ws.recv())
    if welcome.get("type") != "welcome":
        raise RuntimeError(f"not welcomed: {welcome}")
    return ws


async def table_client(server: Server, token: str, hands: int, stats: Stats,
                       stop: asyncio.Event) -> None:
    """One well-behaved player on auto-play: a room of his own that bots fill, read every
    frame, then the next match."""
    ws = await connect(server, token)

    async def sit() -> None:
        await ws.send(json.dumps({"type": "create_room", "options": {
            "hands": hands, "stake": 0, "fill_bots": True}}))
        await ws.send(json.dumps({"type": "ready"}))
        await ws.send(json.dumps({"type": "start"}))

    try:
        await sit()
        while not stop.is_set():
            try:
                raw = await asyncio.wait_for(ws.recv(), 60)
            except TimeoutError:
                stats.error("no frame for 60 s")
                continue
            msg = loads(raw)
            kind = msg["type"]
            stats.frames += 1
            if kind == "table":
                await ws.send(json.dumps({"type": "auto", "on": True}))
            elif kind == "hand_end":
                stats.hands += 1
            elif kind == "match_end":
                stats.matches += 1
                if msg.get("reason"):
                    stats.error(f"match ended: {msg['reason']}")
                await sit()
            elif kind == "error":
                stats.error(f"error frame {msg.get('code')}")
    except websockets.ConnectionClosed as e:
        if not stop.is_set():
            stats.error(f"table client closed {e.rcvd.code if e.rcvd else '?'}")
    finally:
        with contextlib.suppress(Exception):
            await ws.close()


ACTION_TYPES = ["discard", "chi", "peng", "kong", "special_kong", "laizi_discard", "win", "pass",
                "nonsense"]
TILES = ["1m", "5p", "9s", "E", "C", "F", "P", "0z", "", "1m2m", "x" * 20]


def fuzz_message(rng: random.Random) -> str:
    """One bad (or merely pointless) client message."""
    roll = rng.random()
    if roll < 0.15:
        return rng.choice(["{", "null", "[]", '{"type":', '"\\ud800"', "{}" * 50])
    if roll < 0.25:
        return json.dumps({"type": rng.choice(["hello", "ping", "snapshot", "leave", "ready",
                                                "start", "zzz", 7, None])})
    if roll < 0.3:
        return json.dumps({"type": "chat", "text": "x" * rng.randint(60_000, 80_000)})
    if roll < 0.4:
        return json.dumps({"type": "create_room", "options": {
            "hands": rng.choice([0, 1, 65, 2**70, -1, 1.5]), "stake": rng.choice([0, -5, 10**18]),
            "rules": {rng.choice(["turn_seconds", "escape", "cap", "bogus"]):
                      rng.choice([1e309, -1, 2**64, "x", None])}}})
    if roll < 0.45:
        return json.dumps({"type": "join_room", "code": str(rng.randint(0, 10**7))})
    if roll < 0.5:
        return json.dumps({"type": "quick_match"})
    action: dict[str, Any] = {"type": rng.choice(ACTION_TYPES)}
    if rng.random() < 0.7:
        action["tile"] = rng.choice(TILES)
    return json.dumps({"type": "action", "action": action,
                       "decision": rng.choice([0, 1, rng.randint(0, 500), -1, 2**40]),
                       "hand_no": rng.choice([None, 0, 1, 2**70, -3])})


async def fuzzer(server: Server, token: str, seed: int, stats: Stats, stop: asyncio.Event,
                 rate: float) -> None:
    """Bad input at ``rate`` messages a second; reconnects when the server closes it."""
    rng = random.Random(seed)
    while not stop.is_set():
        try:
            ws = await connect(server, token)
        except (OSError, websockets.WebSocketException, RuntimeError):
            await asyncio.sleep(1)
            continue
        reader = asyncio.get_running_loop().create_task(_drain(ws, stats))
        try:
            while not stop.is_set():
                await ws.send(fuzz_message(rng))
                await asyncio.sleep(rng.expovariate(rate))
        except websockets.ConnectionClosed:
            await asyncio.sleep(0.5)  # closed for abuse: come back
        finally:
            reader.cancel()
            with contextlib.suppress(Exception):
                await ws.close()


async def _drain(ws: Any, stats: Stats) -> None:
    with contextlib.suppress(websockets.ConnectionClosed):
        async for _ in ws:
            stats.fuzz_frames += 1


async def sampler(server: Server, stats: Stats, stop: asyncio.Event, interval: float,
                  start: float) -> None:
    last_frames, last_t = 0, start
    async with httpx.AsyncClient() as client:
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), interval)
            now = time.monotonic()
            try:
                health = (await client.get(f"{server.http}/api/health", timeout=10)).json()
            except (httpx.HTTPError, ValueError):
                stats.error("health probe failed")
                health = {}
            stats.samples.append({
                "t": round(now - start, 1), "rss_mib": round(rss_mib(server.proc.pid), 1),
                "tables": health.get("tables", -1), "connections": health.get("connections", -1),
                "frames_per_s": round((stats.frames - last_frames) / max(1e-9, now - last_t), 1),
                "hands": stats.hands,
                "server_cpu_s": round(cpu_seconds(server.proc.pid), 1)})
            last_frames, last_t = stats.frames, now


def events_written(db_url: str) -> int:
    from sqlalchemy import create_engine, text

    engine = create_engine(db_url)
    try:
        with engine.connect() as c:
            return int(c.execute(text("SELECT count(*) FROM match_events")).scalar() or 0)
    except Exception:  # a server version without the match log
        return -1
    finally:
        engine.dispose()


async def run(args: argparse.Namespace) -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp(prefix="wm-soak-"))
    server = Server(args.db, folder, args)
    stats = Stats()
    stop = asyncio.Event()
    try:
        async with httpx.AsyncClient(timeout=30) as client:
            tokens = [await guest(client, server) for _ in range(args.tables + args.fuzzers)]
        wall0, cpu0, scpu0 = time.monotonic(), time.process_time(), cpu_seconds(server.proc.pid)
        tasks = [asyncio.create_task(table_client(server, t, args.hands, stats, stop))
                 for t in tokens[:args.tables]]
        tasks += [asyncio.create_task(fuzzer(server, t, k, stats, stop, args.fuzz_rate))
                  for k, t in enumerate(tokens[args.tables:])]
        tasks.append(asyncio.create_task(sampler(server, stats, stop, args.interval, wall0)))
        await asyncio.sleep(args.duration)
        stop.set()
        await asyncio.wait(tasks, timeout=30)
        for t in tasks:
            t.cancel()
        wall = time.monotonic() - wall0
        client_cpu = time.process_time() - cpu0
        server_cpu = cpu_seconds(server.proc.pid) - scpu0
    finally:
        server.stop()
    log_errors = server.log_errors()
    if log_errors:
        stats.errors["server log ERROR/Traceback lines"] = log_errors
    events = events_written(server.db_url)
    warm = [s for s in stats.samples if s["t"] >= args.warmup] or stats.samples
    growth = warm[-1]["rss_mib"] - warm[0]["rss_mib"] if warm else 0.0
    return {
        "tables": args.tables, "fuzzers": args.fuzzers, "duration_s": round(wall, 1),
        "errors": sum(stats.errors.values()), "error_kinds": stats.errors,
        "frames": stats.frames, "frames_per_s": round(stats.frames / wall, 1),
        "fuzz_frames": stats.fuzz_frames, "hands": stats.hands, "matches": stats.matches,
        "log_events": events, "log_events_per_s": round(events / wall, 1),
        "server_cpu_s": round(server_cpu, 1), "client_cpu_s": round(client_cpu, 1),
        "server_to_client_cpu": round(server_cpu / client_cpu, 2) if client_cpu else None,
        "rss_after_warmup_mib": warm[0]["rss_mib"] if warm else None,
        "rss_end_mib": warm[-1]["rss_mib"] if warm else None,
        "rss_growth_mib": round(growth, 1), "samples": stats.samples,
        "server_log": str(server.log),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=200, help="bot tables (default 200)")
    p.add_argument("--duration", type=float, default=600.0, help="seconds (default 600)")
    p.add_argument("--fuzzers", type=int, default=4, help="fuzzing connections (default 4)")
    p.add_argument("--fuzz-rate", type=float, default=10.0,
                   help="messages a second per fuzzer (default 10)")
    p.add_argument("--interval", type=float, default=10.0,
                   help="seconds between memory samples (default 10)")
    p.add_argument("--warmup", type=float, default=30.0,
                   help="seconds before the memory baseline (default 30)")
    p.add_argument("--hands", type=int, default=4, help="hands per quick match (default 4)")
    p.add_argument("--bot", default="greedy", help="the server's bot (default greedy)")
    p.add_argument("--bot-delay", type=float, default=0.3, help="server bot delay (default 0.3)")
    p.add_argument("--claim-hold", type=float, default=0.3, help="claim hold (default 0.3)")
    p.add_argument("--hand-pause", type=float, default=1.0, help="hand pause (default 1.0)")
    p.add_argument("--db", help="database URL (default: a fresh SQLite file)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--trace", metavar="FILE",
                   help="run the server under tracemalloc and write what grows to FILE "
                        "(bench/soak_trace.py; slows the server)")
    args = p.parse_args()
    if args.tables < 1 or args.duration <= 0:
        p.error("--tables must be >= 1 and --duration > 0")
    result = asyncio.run(run(args))
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"soak: {result['tables']} tables + {result['fuzzers']} fuzzers for "
          f"{result['duration_s']} s (wall)")
    print(f"errors: {result['errors']} {result['error_kinds'] or ''}")
    print(f"frames: {result['frames']} ({result['frames_per_s']}/s to the table clients); "
          f"fuzzer got {result['fuzz_frames']} frames")
    print(f"hands finished: {result['hands']}, matches: {result['matches']}; match-log events "
          f"written: {result['log_events']} ({result['log_events_per_s']}/s)")
    print(f"CPU: server {result['server_cpu_s']} s, bench clients {result['client_cpu_s']} s "
          f"(process_time) over {result['duration_s']} s wall; server/client CPU "
          f"{result['server_to_client_cpu']}")
    print(f"server RSS: {result['rss_after_warmup_mib']} MiB after warm-up, "
          f"{result['rss_end_mib']} MiB at the end ({result['rss_growth_mib']:+} MiB)")
    print("   t(s)  RSS(MiB)  tables  conns  frames/s  hands  server CPU(s)")
    for s in result["samples"]:
        print(f"{s['t']:7.1f} {s['rss_mib']:9.1f} {s['tables']:7} {s['connections']:6} "
              f"{s['frames_per_s']:9.1f} {s['hands']:6} {s['server_cpu_s']:14.1f}")


if __name__ == "__main__":
    main()
