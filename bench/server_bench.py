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
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _bench_clients import SERVER_FLAGS, free_port, play, prepare_process, wait_healthy


async def bench(args: argparse.Namespace) -> dict[str, Any]:
    port = args.port or free_port()
    data = tempfile.mkdtemp(prefix="wm-bench-")
    env = {k: v for k, v in os.environ.items() if k != "WUHAN_MAHJONG_DB"}
    cmd = [sys.executable, "-m", "wuhan_mahjong.server", "--port", str(port), "--data-dir", data,
           "--claim-hold", str(args.claim_hold), *SERVER_FLAGS]
    server = (subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
              if not args.port else None)
    try:
        await wait_healthy(f"http://127.0.0.1:{port}")
        result = await play([port], [server.pid if server is not None else 0], tables=args.tables,
                            hands=args.hands, think=args.think, ramp=args.ramp,
                            warmup=args.warmup, duration=args.duration)
    finally:
        if server is not None:
            server.terminate()
            try:
                server.wait(20)
            except subprocess.TimeoutExpired:
                server.kill()
    result["claim_hold_s"] = args.claim_hold
    return result


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
    prepare_process(args.tables, args.gc_tuning)
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
