"""Cluster benchmark: the same load against 1 node and against 2 nodes (issue 11, item 8).

Run:  python3 bench/cluster_bench.py [--flat-tables 40] [--load-tables 60] [--think 0.5]
      python3 bench/cluster_bench.py --sweep 25,50,100,150     # capacity of one node

Each node is a ``wuhan-mahjong serve --redis ... --db ...`` subprocess on a free loopback
port.  The nodes share one database and one Redis:

* the database is PostgreSQL (``--db``, default ``$WUHAN_MAHJONG_TEST_PG``), in a fresh
  schema for every run (dropped afterwards); ``--db sqlite`` uses one SQLite file for all
  nodes instead, which works on one machine but serialises every node's writes on the
  file's lock (and cannot span machines), so its figures undersell the cluster;
* Redis is ``--redis`` (default ``redis://127.0.0.1:6379/9``, with ``max_connections=10000``
  as redis-py's default pool of 100 is too small for a node relaying about 50 busy
  tables), emptied (FLUSHDB) before every run.

The clients run in this process (``bench/_bench_clients.py``, shared with
``bench/server_bench.py``): connection ``i`` of table ``t`` goes to node ``(t + i) mod N``,
round robin as a plain load balancer would deal them, so with 2 nodes every table has
players on both nodes and half of the frames are relayed between the nodes over Redis
(``--spread table``: a table's four players on its node, nothing relayed, for comparison).
``--seating quick``: instead of a private room per four players, every player asks for a
free quick match and the nodes decide who sits with whom and where (with round robin, the
case of ``--quick-affinity``: each node first seats the players connected to it).

Two comparisons, each run on 1 node and then on 2 nodes:

* flat out: ``--flat-tables`` tables whose clients answer at once; the ratio of discards
  (and hands) per second, 2 nodes over 1 node (each discard timed on the next player's
  frames only, unless ``--watch-all``: the clients then parse a third fewer frames);
* fixed load: ``--load-tables`` tables whose clients think ``--think`` seconds (0.5 to 1.5
  times) before each action; p50 and p99 of the delay from a discard to the three other
  players' frames showing it.

Beside each point, the CPU per discard of each part (:class:`ServiceMeter`): the nodes
(``/proc``), their PostgreSQL backends (``pg_stat_activity`` by the run's
``application_name``, ``/proc``), ``redis-server`` (``INFO cpu``) and the clients
(``process_time``), and ``r``, what serves the nodes over what the nodes take.  One node
flat out takes a whole core; on 2 cores, 2 nodes can carry at most ``2 / (1 + r)`` times
its discards, whatever the neighbours' load does to the wall-clock ratio of one run.

``--sweep`` runs one node at each table count (fixed load) instead, for the capacity
model: tables per core at p99 ≤ 50 ms, and memory per table from the resident memory over
the table count.  CPU seconds of every node (``/proc``) and of the client process
(``time.process_time``) are printed beside wall time.  The machine's cores are shared by
the nodes, Redis, PostgreSQL and the clients, so on a small machine the clients' own CPU
bounds what a second node can add: the figures are for the whole system on loopback.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _bench_clients import (
    SERVER_FLAGS,
    cpu_seconds,
    free_port,
    play,
    prepare_process,
    wait_healthy,
)


@dataclass
class Database:
    """One fresh database for a run: a PostgreSQL schema, or an SQLite file."""

    url: str
    drop: str = ""  # the schema to drop afterwards
    application: str = ""  # the nodes' PostgreSQL application_name (their backends)


def fresh_database(base: str, folder: str) -> Database:
    if base == "sqlite":
        return Database(f"sqlite:///{folder}/cluster.db")
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    schema = f"wm_bench_{uuid.uuid4().hex[:12]}"
    engine = create_engine(base)
    with engine.begin() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    engine.dispose()
    url = make_url(base).update_query_dict({"options": f"-csearch_path={schema}",
                                            "application_name": schema})
    return Database(url.render_as_string(hide_password=False), schema, schema)


def drop_database(base: str, db: Database) -> None:
    if not db.drop:
        return
    from sqlalchemy import create_engine, text

    engine = create_engine(base)
    with engine.begin() as connection:
        connection.execute(text(f'DROP SCHEMA "{db.drop}" CASCADE'))
    engine.dispose()


def _postgres_processes() -> dict[int, str]:
    """pid → command line of every ``postgres`` process (``/proc``)."""
    found: dict[int, str] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
            if text[text.find("(") + 1:text.rfind(")")] != "postgres":
                continue
            cmd = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        found[int(stat.parent.name)] = cmd.strip()
    return found


class ServiceMeter:
    """The CPU of what serves the nodes, over the clients' measuring window (the per-discard
    breakdown of a point):

    * ``pg_backends``: the PostgreSQL backends of this run's nodes (``pg_stat_activity`` by
      the nodes' ``application_name``, their CPU from ``/proc``), sampled every
      :attr:`period` seconds so that a backend that starts or ends during the window counts
      too (all of its life for one that starts; up to its last sample for one that ends);
    * ``pg_background``: PostgreSQL's own processes (WAL writer, checkpointer, background
      writer, autovacuum): mostly this run's writes, but shared with anyone else's;
    * ``redis``: the ``redis-server`` (``INFO cpu``: the whole server, shared with anyone
      else using it) and the commands it ran (``INFO stats``).

    The sampling thread's own CPU (``time.thread_time``) is returned too, to be taken off
    the client process's ``process_time``.
    """

    period = 0.25

    def __init__(self, db: Database, base: str, redis_url: str) -> None:
        self.db, self.base, self.redis_url = db, base, redis_url
        self.first: dict[int, float] = {}
        self.last: dict[int, float] = {}
        self.stop = threading.Event()
        self.thread: threading.Thread | None = None
        self.own_cpu = 0.0
        self.background0 = 0.0
        self.redis0: tuple[float, int] = (0.0, 0)

    def _background(self) -> float:
        total = 0.0
        for pid, cmd in _postgres_processes().items():
            if any(word in cmd for word in ("walwriter", "checkpointer", "background writer",
                                            "autovacuum")):
                total += cpu_seconds(pid)
        return total

    def _redis(self) -> tuple[float, int]:
        import redis

        client = redis.Redis.from_url(self.redis_url)
        try:
            cpu = client.info("cpu")
            stats = client.info("stats")
        finally:
            client.close()
        return (float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"]),
                int(stats["total_commands_processed"]))

    def _sample(self, connection: Any) -> None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pid FROM pg_stat_activity WHERE application_name = %s",
                           (self.db.application,))
            pids = [int(row[0]) for row in cursor.fetchall()]
        for pid in pids:
            cpu = cpu_seconds(pid)
            if cpu <= 0.0 and pid not in self.last:
                continue
            self.first.setdefault(pid, 0.0 if self.thread is not None else cpu)
            self.last[pid] = max(cpu, self.last.get(pid, 0.0))

    def _run(self, connection: Any) -> None:
        t0 = time.thread_time()
        while not self.stop.wait(self.period):
            self._sample(connection)
        self._sample(connection)
        self.own_cpu += time.thread_time() - t0

    def _connect(self) -> Any:
        import psycopg
        from sqlalchemy.engine import make_url

        url = make_url(self.base).set(drivername="postgresql")
        return psycopg.connect(url.render_as_string(hide_password=False), autocommit=True)

    def begin(self) -> None:
        t0 = time.thread_time()
        self.redis0 = self._redis()
        self.background0 = self._background()
        if self.db.application:
            self.connection = self._connect()
            self._sample(self.connection)  # the backends alive now: from their CPU so far
            self.thread = threading.Thread(target=self._run, args=(self.connection,), daemon=True)
        self.own_cpu = time.thread_time() - t0
        if self.thread is not None:
            self.thread.start()

    def end(self) -> dict[str, Any]:
        t0 = time.thread_time()
        if self.thread is not None:
            self.stop.set()
            self.thread.join()
            self.connection.close()
        redis_cpu, commands = self._redis()
        background = self._background() - self.background0
        self.own_cpu += time.thread_time() - t0
        return {
            "pg_backends_cpu_s": round(sum(self.last[p] - self.first[p] for p in self.last), 2),
            "pg_backends": len(self.last),
            "pg_background_cpu_s": round(background, 2),
            "redis_cpu_s": round(redis_cpu - self.redis0[0], 2),
            "redis_commands": commands - self.redis0[1],
            "meter_cpu_s": round(self.own_cpu, 3),
        }


def flush_redis(url: str) -> None:
    import redis

    client = redis.Redis.from_url(url)
    client.flushdb()
    client.close()


async def run_point(args: argparse.Namespace, nodes: int, tables: int, think: float) -> dict[str, Any]:
    """Start ``nodes`` fresh nodes, play ``tables`` tables on them, stop them."""
    folder = tempfile.mkdtemp(prefix="wm-cluster-bench-")
    db = fresh_database(args.db, folder)
    flush_redis(args.redis)
    env = {k: v for k, v in os.environ.items() if not k.startswith("WUHAN_MAHJONG_")}
    procs: list[subprocess.Popen[bytes]] = []
    ports: list[int] = []
    try:
        for n in range(nodes):  # one after the other: the first one migrates the schema
            port = free_port()
            log = open(f"{folder}/node{n}.log", "wb")  # noqa: SIM115 (closed with the process)
            procs.append(subprocess.Popen(
                [args.serve, "serve", "--port", str(port), "--data-dir", f"{folder}/node{n}",
                 "--db", db.url, "--redis", args.redis, "--claim-hold", str(args.claim_hold),
                 "--max-loop-lag", "0", *SERVER_FLAGS, *seating_flags(args)],
                env=env, stdout=log, stderr=subprocess.STDOUT))
            log.close()
            ports.append(port)
            try:
                await wait_healthy(f"http://127.0.0.1:{port}")
            except SystemExit:
                tail = Path(f"{folder}/node{n}.log").read_text(errors="replace")[-2000:]
                raise SystemExit(f"node {n} did not start:\n{tail}") from None
        result = await play(ports, [p.pid for p in procs], tables=tables, hands=64, think=think,
                            warmup=args.warmup, duration=args.duration,
                            by_table=args.spread == "table",
                            meter=ServiceMeter(db, args.db, args.redis),
                            watch_all=think > 0 or args.watch_all, seating=args.seating)
        result["load_average_1min"] = round(os.getloadavg()[0], 1)  # the machine is shared
        result["discards_per_s"] = round(discards_per_s(result), 1)
        result["client_cpu_s"] = round(result["client_cpu_s"] - result["meter"]["meter_cpu_s"], 2)
        result["breakdown"] = breakdown(result)
        result["node_cpu_ms_per_discard"] = result["breakdown"]["nodes"]
        result["client_cpu_ms_per_discard"] = result["breakdown"]["clients"]
        return result
    except BaseException:
        for n in range(len(procs)):  # what the nodes said, before their folder goes
            tail = Path(f"{folder}/node{n}.log").read_text(errors="replace")[-3000:]
            print(f"--- node {n} (port {ports[n]}) log tail:\n{tail}", file=sys.stderr)
        raise
    finally:
        for p in procs:  # nothing here is worth keeping: no drain, no take-over
            p.kill()
        for p in procs:
            p.wait()
        drop_database(args.db, db)
        flush_redis(args.redis)  # leave the Redis database empty, as found
        shutil.rmtree(folder, ignore_errors=True)


def seating_flags(args: argparse.Namespace) -> list[str]:
    """The nodes' flags for ``--seating quick``: the quick matches last as long as the
    rooms' (64 hands), and ``--quick-affinity`` when given (else the server's default)."""
    if args.seating != "quick":
        return []
    flags = ["--quick-hands", "64"]
    if args.quick_affinity is not None:
        flags += ["--quick-affinity", str(args.quick_affinity)]
    return flags


def discards_per_s(r: dict[str, Any]) -> float:
    """Discards per second (sent by the clients while measuring)."""
    return float(r["discards"]) / float(r["duration_s"])


def breakdown(r: dict[str, Any]) -> dict[str, float]:
    """CPU milliseconds per discard of each part, and ``r``: what serves the nodes (their
    PostgreSQL backends, Redis, the clients) over what the nodes take themselves.

    One node flat out takes a core; on ``c`` cores, ``c`` nodes can carry at most
    ``c / (1 + r)`` times one node's discards (they and what serves them share the cores),
    so ``r`` decides the flat-out ratio, and making a node cheaper does not raise it.
    PostgreSQL's background processes (WAL writer, checkpointer: shared with anyone else
    using the server) are shown apart, and in ``r_all`` with everything else.
    """
    discards = max(discards_per_s(r) * float(r["duration_s"]), 1.0)
    m = r["meter"]
    parts = {"nodes": sum(r["server_cpu_s"]), "pg_backends": m["pg_backends_cpu_s"],
             "redis": m["redis_cpu_s"], "clients": r["client_cpu_s"],
             "pg_background": m["pg_background_cpu_s"]}
    out = {k: round(1000 * v / discards, 3) for k, v in parts.items()}
    out["clients_system"] = round(1000 * r["client_system_cpu_s"] / discards, 3)
    serving = parts["pg_backends"] + parts["redis"] + parts["clients"]
    out["r"] = round(serving / max(parts["nodes"], 1e-9), 3)
    out["r_all"] = round((serving + parts["pg_background"]) / max(parts["nodes"], 1e-9), 3)
    out["predicted_ratio_2_cores"] = round(2 / (1 + out["r"]), 2)
    out["redis_commands_per_discard"] = round(m["redis_commands"] / discards, 1)
    out["frames_per_discard"] = round(r["frames_measured"] / discards, 1)
    out["bytes_per_frame"] = round(r["bytes_measured"] / max(r["frames_measured"], 1))
    out["frames_parsed_per_discard"] = round((r["frames_measured"] - r["frames_skipped"]) / discards, 1)
    return out


def describe_breakdown(r: dict[str, Any]) -> str:
    b = r["breakdown"]
    return (f"    CPU ms per discard: nodes {b['nodes']:.3f}, PostgreSQL backends "
            f"{b['pg_backends']:.3f} ({r['meter']['pg_backends']} backends seen), redis-server "
            f"{b['redis']:.3f} ({b['redis_commands_per_discard']} commands), clients "
            f"{b['clients']:.3f} ({b['frames_per_discard']} frames of {b['bytes_per_frame']} "
            f"bytes, {b['frames_parsed_per_discard']} parsed; {b['clients_system']:.3f} in the "
            f"kernel); PostgreSQL background {b['pg_background']:.3f} (shared); "
            f"r = {b['r']:.3f} ({b['r_all']:.3f} with the background) -> 2/(1+r) = "
            f"{b['predicted_ratio_2_cores']}x on 2 cores")


def describe(r: dict[str, Any]) -> str:
    lat = r["latency_ms"]
    cpu = " + ".join(f"{c:.1f}" for c in r["server_cpu_s"])
    rss = " + ".join(f"{m:.0f}" for m in r["server_rss_mib"])
    return (f"{r['nodes']} node{'s' if r['nodes'] > 1 else ''}, {r['tables']} tables: "
            f"{r['hands_per_s']:.1f} hands/s, {discards_per_s(r):.0f} discards/s; "
            f"action → {'others' if r['watch_all'] else 'next player'} p50 {lat['p50']} ms, "
            f"p99 {lat['p99']} ms, max {lat['max']} ms; "
            f"CPU s in {r['duration_s']} s wall: nodes {cpu}, clients {r['client_cpu_s']:.1f}; "
            f"CPU ms per discard: nodes {r['node_cpu_ms_per_discard']}, "
            f"clients {r['client_cpu_ms_per_discard']} ({100 * r['client_cpu_share']:.0f}% of "
            f"nodes + clients); PostgreSQL + Redis {r['services_cpu_s']} CPU s; machine "
            f"{r['machine_busy_percent']}% busy, other people's work {r['others_cpu_s']} CPU s; "
            f"RSS MiB {rss}; errors {r['errors']} {r['error_codes'] or ''}"
            f"closed {r['closed_connections']}; load average {r['load_average_1min']}")


async def compare(args: argparse.Namespace) -> dict[str, Any]:
    counts: list[int] = args.nodes
    out: dict[str, Any] = {"flat_out": [], "fixed_load": []}
    ratios: list[float] = []
    pair: list[dict[str, Any]] = []
    for run in range(1, args.repeat + 1):  # the node counts alternate, run after run
        pair = []
        for n in counts:
            r = await run_point(args, n, args.flat_tables, 0.0)
            pair.append(r)
            print("flat out   " + describe(r), flush=True)
            print(describe_breakdown(r), flush=True)
        out["flat_out"] += pair
        if len(counts) > 1 and discards_per_s(pair[0]) > 0:
            ratios.append(discards_per_s(pair[-1]) / discards_per_s(pair[0]))
            if args.repeat > 1:
                print(f"run {run} of {args.repeat}: {counts[-1]} nodes over {counts[0]}: "
                      f"{ratios[-1]:.2f}x discards/s", flush=True)
    if args.load_tables > 0:
        for n in counts:
            r = await run_point(args, n, args.load_tables, args.think)
            out["fixed_load"].append(r)
            print(f"fixed load (think {args.think} s) " + describe(r), flush=True)
            print(describe_breakdown(r), flush=True)
    if len(ratios) > 1:
        out["ratios_discards"] = [round(x, 2) for x in ratios]
        out["ratio_discards_median"] = round(statistics.median(ratios), 2)
        print(f"flat-out throughput over {len(ratios)} alternating runs, {counts[-1]} nodes over "
              f"{counts[0]}: median {out['ratio_discards_median']}x discards/s (runs: "
              f"{', '.join(f'{x:.2f}x' for x in ratios)}; the last run's details follow)")
    one, many = pair[0], pair[-1]
    if len(counts) > 1 and discards_per_s(one) > 0:
        out["ratio_discards"] = round(discards_per_s(many) / max(discards_per_s(one), 1e-9), 2)
        hands = "no hand ended in the 1-node point"
        if one["hands"] > 0:
            out["ratio_hands"] = round(many["hands_per_s"] / one["hands_per_s"], 2)
            hands = f"{out['ratio_hands']}x hands/s"
        print(f"flat-out throughput, {counts[-1]} nodes over {counts[0]}: "
              f"{out['ratio_discards']}x discards/s ({hands}: few hands end in a short run, "
              f"so discards are the steadier count)")
        b1, b2 = one["breakdown"], many["breakdown"]
        cores = os.cpu_count() or 1
        serving = b2["pg_backends"] + b2["redis"] + b2["clients"]
        out["ratio_predicted"] = round(min(counts[-1] / counts[0], cores * b1["nodes"]
                                           / max(b2["nodes"] + serving, 1e-9)), 2)
        print(f"predicted from the CPU per discard (robust to the neighbours' load): "
              f"{out['ratio_predicted']}x = {cores} cores x {b1['nodes']:.3f} ms (1 node) / "
              f"({b2['nodes']:.3f} + {serving:.3f}) ms ({counts[-1]} nodes + what serves them)")
    return out


async def sweep(args: argparse.Namespace) -> dict[str, Any]:
    points = []
    for tables in args.sweep:
        r = await run_point(args, 1, tables, args.think)
        points.append(r)
        print(f"one node, think {args.think} s: " + describe(r)
              + f"; node CPU {r['server_cpu_percent']}% of a core", flush=True)
    ok = [r for r in points if r["latency_ms"]["p99"] <= args.p99_target and not r["errors"]]
    out: dict[str, Any] = {"points": points}
    if ok:
        best = max(ok, key=lambda r: r["tables"])
        out["tables_at_target"] = best["tables"]
        out["node_cpu_percent_at_target"] = best["server_cpu_percent"]
        print(f"largest table count with p99 ≤ {args.p99_target} ms on one node (one core, one "
              f"event loop): {best['tables']} tables at {best['server_cpu_percent']}% of a core")
    if len(points) >= 2:  # least squares: RSS = base + per_table × tables
        xs = [float(r["tables"]) for r in points]
        ys = [float(r["server_rss_mib"][0]) for r in points]
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        slope = (sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
                 / sum((x - mx) ** 2 for x in xs))
        out["rss_mib_base"] = round(my - slope * mx, 1)
        out["rss_kib_per_table"] = round(1024 * slope, 1)
        print(f"memory: RSS ≈ {out['rss_mib_base']} MiB + {out['rss_kib_per_table']} KiB per table "
              f"(4 connections each)")
    return out


def run_clients(main: Coroutine[Any, Any, dict[str, Any]], loop: str) -> dict[str, Any]:
    """Run the clients' process on uvloop (``--client-loop uvloop``, the default when it is
    installed) or on asyncio's own loop.  Most of the clients' CPU is the event loop's own
    work per received frame (a 3 KB frame parses in about 8 µs of the 20 µs it cost in
    all), and the clients share the cores with what they measure; uvloop is what the nodes
    run on too (uvicorn's default when it is installed)."""
    if loop == "uvloop":
        import uvloop

        return uvloop.run(main)
    return asyncio.run(main)


def counts_list(text: str) -> list[int]:
    """``"25,50,100"`` → ``[25, 50, 100]`` (positive whole numbers)."""
    try:
        counts = [int(word) for word in text.split(",")]
    except ValueError:
        counts = []
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(f"not a list of positive whole numbers: {text!r}")
    return counts


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--db", default=os.environ.get("WUHAN_MAHJONG_TEST_PG", ""),
                   help="PostgreSQL URL shared by the nodes (a fresh schema per run; default "
                   "$WUHAN_MAHJONG_TEST_PG), or 'sqlite' for one shared SQLite file")
    p.add_argument("--redis", default="redis://127.0.0.1:6379/9?max_connections=10000",
                   help="Redis URL shared by the nodes; its database is emptied (FLUSHDB) "
                   "before every run (default redis://127.0.0.1:6379/9?max_connections=10000: "
                   "redis-py's asyncio pool allows 100 connections at once by default, and "
                   "a node relaying more than about 100 busy players fails with "
                   "MaxConnectionsError)")
    p.add_argument("--nodes", type=counts_list, default=[1, 2], help="node counts to compare (default 1,2)")
    p.add_argument("--flat-tables", type=int, default=40,
                   help="tables for the flat-out throughput (default 40)")
    p.add_argument("--load-tables", type=int, default=60,
                   help="tables for the fixed-load latency (default 60)")
    p.add_argument("--think", type=float, default=0.5,
                   help="mean thinking seconds per action at fixed load (default 0.5)")
    p.add_argument("--sweep", type=counts_list, default=[],
                   help="comma-separated table counts: capacity sweep on one node instead")
    p.add_argument("--spread", choices=["connection", "table"], default="connection",
                   help="connection (default): round robin per connection, as a plain load "
                   "balancer; table: a table's four players on the table's node (no relay)")
    p.add_argument("--seating", choices=["room", "quick"], default="room",
                   help="room (default): a private room per four players; quick: every player "
                   "asks for a free quick match and the nodes seat them (in a cluster each "
                   "node first seats the players connected to it: --quick-affinity)")
    p.add_argument("--quick-affinity", type=float, default=None,
                   help="the nodes' --quick-affinity with --seating quick (default: the "
                   "server's; 0: every quick match goes to the cluster's one queue)")
    p.add_argument("--p99-target", type=float, default=50.0, help="ms (default 50)")
    p.add_argument("--duration", type=float, default=20.0, help="measured seconds (default 20)")
    p.add_argument("--warmup", type=float, default=3.0, help="seconds before measuring (default 3)")
    p.add_argument("--claim-hold", type=float, default=0.01,
                   help="the nodes' --claim-hold (default 0.01 s)")
    try:
        import uvloop  # noqa: F401
        default_loop = "uvloop"
    except ImportError:
        default_loop = "asyncio"
    p.add_argument("--client-loop", choices=["uvloop", "asyncio"], default=default_loop,
                   help="the clients' event loop (default uvloop when installed: the clients "
                   "then cost less CPU on the cores they share with the nodes)")
    p.add_argument("--watch-all", action="store_true",
                   help="flat out, time each discard on all three other players' frames (by "
                   "default flat out times it on the next player's only, sparing the clients "
                   "the parsing of two frames in three; fixed load always times all three)")
    p.add_argument("--repeat", type=int, default=1,
                   help="flat-out runs, node counts alternating, and the median ratio (default "
                   "1; on a shared host a single run's ratio moves with the host's speed)")
    p.add_argument("--json", action="store_true", help="also print the results as JSON")
    args = p.parse_args()
    if args.repeat < 1:
        p.exit(2, "cluster_bench: --repeat must be at least 1\n")
    if not args.db:
        p.exit(2, "cluster_bench: no database: set WUHAN_MAHJONG_TEST_PG or pass --db URL "
               "(or --db sqlite)\n")
    serve = shutil.which("wuhan-mahjong")
    if serve is None:
        p.exit(2, "cluster_bench: the wuhan-mahjong command is not installed (pip install -e .)\n")
    args.serve = serve
    try:
        import redis

        redis.Redis.from_url(args.redis).ping()
    except Exception as exc:  # any failure to reach Redis is a one-line exit
        p.exit(2, f"cluster_bench: Redis at {args.redis} does not answer: {exc}\n")
    if args.db != "sqlite":
        try:
            from sqlalchemy import create_engine

            engine = create_engine(args.db)
            engine.connect().close()
            engine.dispose()
        except Exception as exc:  # a wrong URL or no server: one line, exit 2
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            p.exit(2, f"cluster_bench: database {args.db!r} does not answer: {first}\n")
    prepare_process(max(args.sweep or [args.flat_tables, args.load_tables]))
    print(f"cluster bench on {os.cpu_count()} cores shared by the nodes, Redis, the database and "
          f"the clients; db {'SQLite file' if args.db == 'sqlite' else 'PostgreSQL'}, {args.redis}; "
          f"{args.duration} s measured per point after {args.warmup} s warm-up; "
          f"claim hold {args.claim_hold} s; clients on {args.client_loop}; connections spread "
          f"{'by table' if args.spread == 'table' else 'round robin'}; seated by {args.seating}"
          + (f" (quick affinity {args.quick_affinity} s)" if args.quick_affinity is not None
             and args.seating == "quick" else ""), flush=True)
    result = run_clients(sweep(args) if args.sweep else compare(args), args.client_loop)
    if args.json:
        print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
