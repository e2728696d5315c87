"""Bot seats beside people: does a bot's thinking delay other tables' frames?

Run:  python3 bench/bot_seats_bench.py [--bots expert,search] [--modes inline,thread,process]
          [--bot-tables 24] [--human-tables 20] [--duration 30] [--json]

For every bot policy and every ``--bot-worker`` mode, one ``python -m wuhan_mahjong.server``
subprocess (fresh SQLite, loopback) carries two kinds of tables at once:

* ``--bot-tables`` **bot tables**: a guest opens a free room of his own, bots fill the other
  three seats, and he switches to auto-play (托管), so the server's bot plays all four seats
  (``--bot-delay`` between moves, the production default 0.8 s);
* ``--human-tables`` **human tables**: four bench clients each (no server bot), playing a
  cheap policy after ``--think`` seconds (``bench/_bench_clients.py``).

Measured at the human tables: the delay from a client's discard to each of the three
other clients receiving the frame that shows it, p50/p99/max, over ``--duration`` seconds
after ``--warmup``.  Beside it: the server's CPU seconds (``/proc``) and this process's CPU
(``time.process_time``) over the same wall time, and the bot decisions the server made
(its ``/metrics``: played, safety-net hits, stale) with their mean wall time.

``inline`` is the old path (``choose`` inside the event loop): the named peer, run in the
same invocation; ``thread`` / ``process`` are the bot worker (``server/bot_worker.py``).
Client and server share the machine's cores.  This is not a test; it prints a summary.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _bench_clients as clients  # the human tables' clients, shared with server_bench

try:  # the client side is as cheap as we can make it
    from orjson import loads
except ImportError:  # pragma: no cover
    from json import loads


def server_flags(bot_delay: float) -> list[str]:
    """The load benchmarks' flags (abuse limits lifted...) with this bot delay."""
    flags = list(clients.SERVER_FLAGS)
    i = flags.index("--bot-delay")
    flags[i + 1] = str(bot_delay)
    return flags


def tree_cpu(pid: int) -> float:
    """CPU seconds of a process and all its descendants alive now (a process pool's workers
    are the server's grandchildren, under the forkserver)."""
    parent: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parent[int(stat.parent.name)] = int(fields[1])
    tree, grew = {pid}, True
    while grew:
        more = {p for p, pp in parent.items() if pp in tree and p not in tree}
        tree |= more
        grew = bool(more)
    return sum(clients.cpu_seconds(p) for p in tree)


async def bot_table(url: str, token: str, hands: int, stop: asyncio.Event,
                    counts: dict[str, int]) -> None:
    """One guest on auto-play at a free table his room's bots fill; reads every frame."""
    ws = await websockets.connect(url, max_size=2**22, compression=None)
    await ws.send(json.dumps({"type": "hello", "token": token}))
    room = {"hands": hands, "stake": 0, "fill_bots": True}
    sit_down = [{"type": "create_room", "options": room}, {"type": "ready"}, {"type": "start"}]

    async def sit() -> None:
        for m in sit_down:
            await ws.send(json.dumps(m))

    try:
        await sit()
        while not stop.is_set():
            try:
                raw = await asyncio.wait_for(ws.recv(), 1.0)
            except TimeoutError:
                continue
            msg = loads(raw)
            kind = msg["type"]
            if kind == "table":
                await ws.send(json.dumps({"type": "auto", "on": True}))
                counts["seated"] += 1
            elif kind == "hand_end":
                counts["hands"] += 1
            elif kind == "match_end":
                await sit()
            elif kind == "error":
                counts["errors"] += 1
    except websockets.ConnectionClosed:
        if not stop.is_set():
            counts["closed"] += 1
    finally:
        with contextlib.suppress(Exception):
            await ws.close()


def bot_metrics(base: str) -> dict[str, float]:
    """The server's bot-worker counters (``/metrics``)."""
    from prometheus_client.parser import text_string_to_metric_families

    out = {"played": 0.0, "cap": 0.0, "stale": 0.0, "seconds_sum": 0.0, "seconds_count": 0.0}
    text = httpx.get(f"{base}/metrics", timeout=30).text
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            if s.name == "wuhan_mahjong_bot_decisions_total":
                key = s.labels.get("outcome", "")
                if key in out:
                    out[key] += s.value
            elif s.name == "wuhan_mahjong_bot_decision_seconds_sum":
                out["seconds_sum"] += s.value
            elif s.name == "wuhan_mahjong_bot_decision_seconds_count":
                out["seconds_count"] += s.value
    return out


async def one_run(args: argparse.Namespace, bot: str, mode: str) -> dict[str, Any]:
    port = clients.free_port()
    base = f"http://127.0.0.1:{port}"
    data = tempfile.mkdtemp(prefix="wm-botbench-")
    env = {k: v for k, v in os.environ.items() if k != "WUHAN_MAHJONG_DB"}
    cmd = [sys.executable, "-m", "wuhan_mahjong.server", "--port", str(port), "--data-dir", data,
           "--claim-hold", str(args.claim_hold), *server_flags(args.bot_delay),
           "--bot", bot, "--bot-worker", mode, "--bot-workers", str(args.workers),
           "--bot-cap", str(args.cap)]
    server = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    stop = asyncio.Event()
    counts = {"seated": 0, "hands": 0, "errors": 0, "closed": 0}
    tasks: list[asyncio.Task[None]] = []
    try:
        await clients.wait_healthy(base)
        async with httpx.AsyncClient(timeout=30) as http:
            tokens = [(await http.post(f"{base}/api/guest")).json()["token"]
                      for _ in range(args.bot_tables)]
        tasks = [asyncio.create_task(bot_table(f"ws://127.0.0.1:{port}/ws", t, 64, stop, counts))
                 for t in tokens]
        deadline = time.monotonic() + 60
        while counts["seated"] < args.bot_tables and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        m0 = await asyncio.to_thread(bot_metrics, base)
        hands0 = counts["hands"]
        tree0 = tree_cpu(server.pid)
        w0 = time.perf_counter()
        result = await clients.play([port], [server.pid], tables=args.human_tables, hands=64,
                            think=args.think, warmup=args.warmup, duration=args.duration)
        wall = time.perf_counter() - w0
        tree = tree_cpu(server.pid) - tree0
        m1 = await asyncio.to_thread(bot_metrics, base)
    finally:
        stop.set()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        server.terminate()
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()
    d = {k: m1[k] - m0[k] for k in m0}
    decided = d["seconds_count"]
    result.update({
        "bot": bot, "mode": mode, "bot_tables": args.bot_tables, "bot_tables_seated": counts["seated"],
        "bot_table_hands": counts["hands"] - hands0, "bot_table_errors": counts["errors"],
        "bot_decisions": int(d["played"]), "bot_cap_hits": int(d["cap"]),
        "bot_stale": int(d["stale"]),
        "bot_decision_ms_mean": round(1000 * d["seconds_sum"] / decided, 1) if decided else None,
        "phase_wall_s": round(wall, 1), "phase_server_tree_cpu_s": round(tree, 1),
    })
    return result


async def bench(args: argparse.Namespace) -> list[dict[str, Any]]:
    out = []
    for bot in args.bots.split(","):
        for mode in args.modes.split(","):
            r = await one_run(args, bot, mode)
            out.append(r)
            if not args.json:
                show(r)
    return out


def show(r: dict[str, Any]) -> None:
    lat = r["latency_ms"]
    cpu = sum(r["server_cpu_s"])
    dec = (f"{r['bot_decisions']} bot decisions in the worker (mean {r['bot_decision_ms_mean']} ms "
           f"wall), {r['bot_cap_hits']} cap hits, {r['bot_stale']} stale"
           if r["mode"] != "inline" else "bot decisions in the event loop (not counted)")
    print(f"{r['bot']:>7} {r['mode']:>7}: discard → others p50 {lat['p50']} ms, p99 {lat['p99']} ms, "
          f"max {lat['max']} ms ({r['updates_measured']} updates); "
          f"wall {r['duration_s']} s, server CPU {cpu:.1f} s ({r['server_cpu_percent']}% of a core), "
          f"bench CPU {r['client_cpu_s']} s; machine busy {r['machine_busy_percent']}%; "
          f"human hands {r['hands']}, bot-table hands {r['bot_table_hands']} "
          f"({r['bot_tables_seated']}/{r['bot_tables']} seated); {dec}; "
          f"errors {r['errors']} + {r['bot_table_errors']}; whole phase (set-up and warm-up "
          f"included): wall {r['phase_wall_s']} s, server and its workers "
          f"{r['phase_server_tree_cpu_s']} s CPU", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--bots", default="expert,search", help="bot policies, one run each")
    p.add_argument("--modes", default="inline,thread,process",
                   help="--bot-worker modes, one run each (inline: the old path, the peer)")
    p.add_argument("--bot-tables", type=int, default=24, help="tables of one auto-play guest "
                   "and three server bots (default 24)")
    p.add_argument("--human-tables", type=int, default=20,
                   help="tables of four bench clients, where the latency is measured (default 20)")
    p.add_argument("--bot-delay", type=float, default=0.8, help="the server's --bot-delay (0.8)")
    p.add_argument("--claim-hold", type=float, default=0.01, help="the server's --claim-hold")
    p.add_argument("--think", type=float, default=0.2,
                   help="mean seconds a human-table client waits before acting (default 0.2)")
    p.add_argument("--workers", type=int, default=2, help="the server's --bot-workers (2)")
    p.add_argument("--cap", type=float, default=2.0, help="the server's --bot-cap (2 s)")
    p.add_argument("--duration", type=float, default=30.0, help="measured seconds per run (30)")
    p.add_argument("--warmup", type=float, default=5.0, help="seconds before measuring (5)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    args = p.parse_args()
    clients.prepare_process(args.human_tables + args.bot_tables)
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    results = asyncio.run(bench(args))
    if args.json:
        print(json.dumps(results, indent=2))
        return
    by = {(r["bot"], r["mode"]): r for r in results}
    for bot in args.bots.split(","):
        peer = by.get((bot, "inline"))
        if peer is None:
            continue
        for mode in args.modes.split(","):
            r = by.get((bot, mode))
            if r is None or mode == "inline":
                continue
            p99, p99_peer = r["latency_ms"]["p99"], peer["latency_ms"]["p99"]
            print(f"{bot}: p99 {mode} {p99} ms vs inline {p99_peer} ms "
                  f"({p99_peer / max(p99, 1e-9):.2f}x lower); server and workers' CPU per wall "
                  f"second {mode} {r['phase_server_tree_cpu_s'] / r['phase_wall_s']:.2f} vs "
                  f"inline {peer['phase_server_tree_cpu_s'] / peer['phase_wall_s']:.2f}")
    print(f"bench total: wall {time.perf_counter() - start_wall:.0f} s, "
          f"bench CPU {time.process_time() - start_cpu:.1f} s")


if __name__ == "__main__":
    main()
