"""Shared client side of the server benchmarks: bot clients over real WebSockets.

Used by ``bench/server_bench.py`` (one server process) and ``bench/cluster_bench.py``
(several ``wuhan-mahjong serve --redis`` nodes).  :func:`play` creates ``4 × tables``
guest accounts over HTTP, seats every four of them in a private room (so no
server-side bots), plays with a cheap policy behind each client (win when offered,
pass on claims, otherwise discard the drawn tile) and, after a warm-up, measures:

* hands finished per second (all tables together);
* for every discard: the delay from the moment the discarding client sends it to the
  moment each of the three other clients at the table receives the state frame that
  shows it ("action to others"; or the next player only, ``watch_all=False``); p50, p99
  and max over all of them;
* error frames, closed connections, the CPU seconds of each server process (``/proc``)
  and of this client process (``time.process_time``), the machine's busy share over the
  run (``/proc/stat``: what the database, Redis and other people's work took), and the
  servers' resident memory.

The clients are :class:`WireClient` s: the WebSocket protocol spoken on an asyncio
transport, each frame handled in ``data_received`` (no task or queue per message), so
that the client process takes a small share of the cores it shares with the servers.

With several servers, connection ``i`` of table ``t`` goes to server ``(t + i) mod N``:
round robin over the servers as a plain load balancer deals connections, with the
room's creator (whose server runs the table) turning too, so every server runs its
share of the tables and every table has players on every server.
"""

from __future__ import annotations

import asyncio
import base64
import gc
import os
import random
import resource
import socket
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import httpx
from orjson import dumps, loads  # the client side must be cheap: the C parser

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


def machine_cpu() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine so far, every process (``/proc/stat``):
    how much of the cores other work took during a run."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except OSError:
        return 0.0, 0.0
    ticks = os.sysconf("SC_CLK_TCK")
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return (sum(fields) - idle) / ticks, sum(fields) / ticks


def services_cpu() -> dict[int, float]:
    """CPU seconds so far of every ``postgres`` and ``redis-server`` process (``/proc``), by
    pid: the database's and Redis's share of a run (with whatever else uses them meanwhile;
    :func:`services_delta` of two of them)."""
    found: dict[int, float] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        name = text[text.find("(") + 1:text.rfind(")")]
        if name == "postgres" or name.startswith("redis-server"):
            found[int(stat.parent.name)] = cpu_seconds(int(stat.parent.name))
    return found


def services_delta(before: dict[int, float], after: dict[int, float]) -> float:
    """The CPU seconds taken between two :func:`services_cpu`: of the processes alive at the
    end (a process that ended meanwhile drops out, instead of making the sum negative)."""
    return sum(cpu - before.get(pid, 0.0) for pid, cpu in after.items())


class Meter(Protocol):
    """Something measured over the same window as the clients (e.g. the database's and
    Redis's CPU, ``bench/cluster_bench.py``): :meth:`begin` when measuring starts,
    :meth:`end` when it stops, returning figures that go into the result as ``meter``."""

    def begin(self) -> None: ...

    def end(self) -> dict[str, Any]: ...


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
    discards: int = 0
    """Discards sent while measuring."""
    frames: int = 0
    frames_measured: int = 0
    frames_skipped: int = 0
    """State frames not parsed: nothing to decide or measure in them (:meth:`BenchClient.receive`)."""
    bytes_measured: int = 0


@dataclass
class TableProbe:
    """Shared by the four clients of a table: the last discard sent and when."""

    sent_at: float = 0.0
    expect: int = -1
    seen: set[int] = field(default_factory=set)
    watch_all: bool = True
    """Time every discard on the three other players' frames, or (``False``) on the next
    player's only: the two others' frames then need not be parsed (:meth:`BenchClient.receive`)."""


class WireClient(asyncio.Protocol):
    """One player's WebSocket, spoken directly on an asyncio transport (RFC 6455, text
    frames, no extensions): the benchmark's client side must cost little CPU, because
    it shares the machine's cores with the nodes it measures.  A frame is parsed and
    answered in ``data_received`` itself, with no coroutine, queue or task per message
    (the ``websockets`` library costs several times more per frame).  Outgoing frames
    are masked with the connection's key, as the RFC asks of a client."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.upgraded = asyncio.get_running_loop().create_future()
        self.key = os.urandom(4)
        self.inbox: asyncio.Queue[dict[str, Any]] | None = asyncio.Queue()
        """Messages while setting up (``recv``); ``None`` once :attr:`on_message` takes them."""
        self.on_message: Any = None
        """Called with each text message's bytes once set up."""
        self.closed = False
        self.stats: Stats | None = None
        """Counts this connection if it closes while measuring."""

    async def open(self, path: str = "/ws") -> None:
        loop = asyncio.get_running_loop()
        await loop.create_connection(lambda: self, self.host, self.port)
        assert self.transport is not None
        nonce = base64.b64encode(os.urandom(16)).decode()
        self.transport.write((f"GET {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                              "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                              f"Sec-WebSocket-Key: {nonce}\r\nSec-WebSocket-Version: 13\r\n\r\n")
                             .encode())
        await asyncio.wait_for(self.upgraded, 30)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.stats is not None and self.stats.measuring:
            self.stats.closed += 1
        if not self.upgraded.done():
            self.upgraded.set_exception(ConnectionError("closed before the upgrade"))

    def data_received(self, data: bytes) -> None:
        buf = self.buffer
        buf += data
        if self.stats is not None and self.stats.measuring:
            self.stats.bytes_measured += len(data)
        if not self.upgraded.done():
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            if not buf.startswith(b"HTTP/1.1 101"):
                self.upgraded.set_exception(ConnectionError(bytes(buf[:end]).decode(errors="replace")))
                return
            del buf[:end + 4]
            self.upgraded.set_result(None)
        pos, size = 0, len(buf)
        while size - pos >= 2:
            b0, n = buf[pos], buf[pos + 1] & 0x7F
            head = 2
            if n == 126:
                if size - pos < 4:
                    break
                n, head = int.from_bytes(buf[pos + 2:pos + 4], "big"), 4
            elif n == 127:
                if size - pos < 10:
                    break
                n, head = int.from_bytes(buf[pos + 2:pos + 10], "big"), 10
            if size - pos < head + n:
                break
            payload = bytes(buf[pos + head:pos + head + n])
            pos += head + n
            opcode = b0 & 0x0F
            if opcode == 1:  # the server sends each message as one text frame
                if self.inbox is not None:
                    self.inbox.put_nowait(loads(payload))
                else:
                    self.on_message(payload)
            elif opcode == 9:  # ping: pong
                self._frame(0x8A, payload)
            elif opcode == 8:
                self.closed = True
                if self.transport is not None:
                    self.transport.close()
        del buf[:pos]

    def _frame(self, first: int, payload: bytes) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        n = len(payload)
        if n < 126:
            head = bytes((first, 0x80 | n))
        elif n < 65536:
            head = bytes((first, 0x80 | 126)) + n.to_bytes(2, "big")
        else:
            head = bytes((first, 0x80 | 127)) + n.to_bytes(8, "big")
        mask = (self.key * (n // 4 + 1))[:n]
        masked = (int.from_bytes(payload, "little") ^ int.from_bytes(mask, "little")).to_bytes(n, "little")
        self.transport.write(head + self.key + masked)

    def send(self, obj: Any) -> None:
        self._frame(0x81, dumps(obj))

    async def recv(self) -> dict[str, Any]:
        assert self.inbox is not None
        return await asyncio.wait_for(self.inbox.get(), 60)

    def close(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self._frame(0x88, (1000).to_bytes(2, "big"))
            self.transport.close()


class BenchClient:
    def __init__(self, url: str, token: str, seat_hint: int, probe: TableProbe, stats: Stats) -> None:
        self.url = url
        self.token = token
        self.hint = seat_hint
        self.probe = probe
        self.stats = stats
        self.ws: WireClient | None = None
        self.done: set[tuple[Any, ...]] = set()
        self.table = asyncio.Event()
        self.think = 0.0
        self.pending: asyncio.TimerHandle | None = None
        self.ended = asyncio.Event()

    async def connect(self) -> None:
        host, port = self.url.removeprefix("ws://").split("/", 1)[0].rsplit(":", 1)
        self.ws = WireClient(host, int(port))
        await self.ws.open()
        self.ws.send({"type": "hello", "token": self.token})  # never in the URL
        welcome = await self.ws.recv()
        if welcome.get("type") != "welcome":
            raise SystemExit(f"no welcome from {self.url}: {welcome}")

    async def send(self, obj: dict[str, Any]) -> None:
        assert self.ws is not None
        self.ws.send(obj)

    async def recv(self) -> dict[str, Any]:
        assert self.ws is not None
        return await self.ws.recv()

    def _act(self, view: dict[str, Any], n: int) -> None:
        action = choose(view)
        if action["type"] == "discard":
            probe = self.probe
            probe.sent_at = time.perf_counter()
            probe.expect = n + 1
            probe.seen = {self.hint} if probe.watch_all else {self.hint, (self.hint + 2) % 4,
                                                             (self.hint + 3) % 4}
            if self.stats.measuring:
                self.stats.discards += 1
        assert self.ws is not None
        self.ws.send({"type": "action", "action": action, "decision": view["decision"]})

    def receive(self, payload: bytes) -> None:
        """One message's JSON from the server: parsed and handled (:meth:`handle`), unless it
        is a state frame that can change nothing here: no legal actions for this player
        (nothing to decide) while the table's last discard is not awaited in this player's
        frames (nothing to measure).  About half of the state frames are such (the three
        other players' frames after a draw, the discarder's own after his discard), and
        parsing is most of the clients' CPU.  ``"legal_actions":[]`` with its quotes
        unescaped can only be the view's own key (a quote inside a JSON string is escaped).
        """
        probe = self.probe
        if ((probe.expect < 0 or self.hint in probe.seen)
                and payload.startswith(b'{"type":"state"') and b'"legal_actions":[]' in payload):
            self.table.set()
            stats = self.stats
            stats.frames += 1
            if stats.measuring:
                stats.frames_measured += 1
                stats.frames_skipped += 1
            return
        self.handle(loads(payload))

    def handle(self, msg: dict[str, Any]) -> None:
        """One message from the server, answered at once (or after the thinking time)."""
        stats, probe = self.stats, self.probe
        kind = msg["type"]
        stats.frames += 1
        if stats.measuring:
            stats.frames_measured += 1
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
                return
            key = (view["hand_no"], view["phase"], view["wall"], n, view["drawn"],
                   view["final_draws_left"])
            if key in self.done:
                return
            self.done.add(key)
            if self.think > 0:  # think without holding up the reading of frames
                delay = self.think * (0.5 + random.random())
                self.pending = asyncio.get_running_loop().call_later(delay, self._act, view, n)
            else:
                self._act(view, n)
        elif kind == "table":
            self.table.set()
        elif kind == "hand_end":
            self.done.clear()
            if self.hint == 0 and stats.measuring:
                stats.hands += 1
        elif kind == "error":
            stats.errors += 1
            stats.error_codes[msg["code"]] = stats.error_codes.get(msg["code"], 0) + 1

    def start(self) -> None:
        """From now on every message is handled as it arrives (those already read first)."""
        ws = self.ws
        assert ws is not None and ws.inbox is not None
        waiting, ws.inbox = ws.inbox, None
        ws.on_message = self.receive
        ws.stats = self.stats
        while not waiting.empty():
            self.handle(waiting.get_nowait())

    def close(self) -> None:
        if self.ws is not None:
            self.ws.close()


async def seat_table(clients: list[BenchClient], hands: int) -> None:
    host = clients[0]
    await host.send({"type": "create_room",
                     "options": {"hands": hands, "fill_bots": False, "stake": 0}})
    while True:
        msg = await host.recv()
        if msg["type"] == "room":
            code = msg["code"]
            break
    for c in clients[1:]:
        await c.send({"type": "join_room", "code": code})
        while (await c.recv())["type"] != "room":
            pass
    for c in clients:
        await c.send({"type": "ready"})


async def seat_quick(clients: list[BenchClient], probes: dict[str, TableProbe]) -> None:
    """Every client asks for a free quick match, in order; each table's four clients, as the
    servers seat them (``table``), then share one probe, each with his seat as its hint."""
    for c in clients:
        await c.send({"type": "quick_match", "profile": "yuanhang"})

    async def seated(c: BenchClient) -> None:
        while (msg := await c.recv())["type"] != "table":
            pass
        c.hint = int(msg["seat"])
        c.probe = probes.setdefault(str(msg["match_id"]), TableProbe(watch_all=c.probe.watch_all))

    await asyncio.gather(*(seated(c) for c in clients))


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
               duration: float = 30.0, by_table: bool = False,
               meter: Meter | None = None, watch_all: bool = True,
               seating: str = "room") -> dict[str, Any]:
    """Play ``tables`` tables against the servers on ``ports`` and measure (module docstring).

    ``pids`` are the servers' process ids for the CPU and memory figures (0: unknown).
    ``by_table``: the four connections of table ``t`` all go to server ``t mod N`` (a
    balancer that keeps a table's players together) instead of round robin.  ``meter``:
    measured over the same window (its figures in the result's ``meter``).  ``watch_all``:
    time each discard on the three other players' frames (else on the next player's only,
    which spares the clients parsing the two others' frames: for throughput runs).
    ``seating``: ``room`` (a private room per four clients, the room's creator turning over
    the servers) or ``quick`` (every client asks for a free quick match, and the servers
    decide who sits with whom and where: the servers need ``--quick-hands`` and a long
    ``--bot-wait``; ``by_table`` then puts every four clients in a row on one server).
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
        probe = TableProbe(watch_all=watch_all)
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
    if seating == "quick":  # the servers make the tables: regrouped by what they said
        probes: dict[str, TableProbe] = {}
        await seat_quick([c for tb in seated for c in tb], probes)
        by_match: dict[int, list[BenchClient]] = {}
        for c in (c for tb in seated for c in tb):
            by_match.setdefault(id(c.probe), []).append(c)
        seated = list(by_match.values())
        for tb in seated:
            for c in tb:
                c.start()
    for i in range(0, len(seated) if seating == "room" else 0, 25):
        batch = seated[i:i + 25]
        await asyncio.gather(*(seat_table(tb, hands) for tb in batch))
        for tb in batch:
            for c in tb:
                c.start()
        if ramp > 0:  # tables start spread out, as players arrive
            await asyncio.sleep(ramp * 25 / len(seated))
    await asyncio.wait_for(asyncio.gather(*(c.table.wait() for tb in seated for c in tb)), 120)
    setup_tables = time.perf_counter() - t1
    await asyncio.sleep(warmup)
    cpu0 = [cpu_seconds(pid) for pid in pids]
    busy0, total0 = machine_cpu()
    services0 = services_cpu()
    if meter is not None:
        meter.begin()
    sys0 = resource.getrusage(resource.RUSAGE_SELF).ru_stime
    m0, own0 = time.perf_counter(), time.process_time()
    stats.measuring = True
    await asyncio.sleep(duration)
    stats.measuring = False
    elapsed = time.perf_counter() - m0
    metered = meter.end() if meter is not None else {}
    cpu = [cpu_seconds(pid) - c0 for pid, c0 in zip(pids, cpu0, strict=True)]
    own = time.process_time() - own0
    own_sys = resource.getrusage(resource.RUSAGE_SELF).ru_stime - sys0
    busy1, total1 = machine_cpu()
    services = services_delta(services0, services_cpu())
    rss = [rss_mib(pid) for pid in pids]
    for tb in seated:
        for c in tb:
            c.close()
    lat = stats.latencies
    return {
        "tables": tables, "connections": 4 * tables, "nodes": nodes, "think_s": think,
        "spread": "by table" if by_table else "round robin", "seating": seating,
        "duration_s": round(elapsed, 1), "hands": stats.hands,
        "hands_per_s": round(stats.hands / elapsed, 2),
        "updates_measured": len(lat), "latency_ms": latency_summary(lat),
        "discards": stats.discards, "watch_all": watch_all,
        "errors": stats.errors, "error_codes": stats.error_codes, "closed_connections": stats.closed,
        "frames_measured": stats.frames_measured, "frames_skipped": stats.frames_skipped,
        "bytes_measured": stats.bytes_measured,
        "server_cpu_s": [round(c, 2) for c in cpu], "client_cpu_s": round(own, 2),
        "client_system_cpu_s": round(own_sys, 2),
        "server_cpu_percent": round(100 * sum(cpu) / elapsed, 1),
        "client_cpu_percent": round(100 * own / elapsed, 1),
        "client_cpu_share": round(own / max(own + sum(cpu), 1e-9), 3),
        "machine_busy_percent": round(100 * (busy1 - busy0) / max(total1 - total0, 1e-9), 1),
        "services_cpu_s": round(services, 1),
        "others_cpu_s": round(max(0.0, busy1 - busy0 - own - sum(cpu) - services), 1),
        "server_rss_mib": [round(r, 1) for r in rss],
        "setup_s": {"accounts": round(setup_accounts, 1), "tables": round(setup_tables, 1)},
        "meter": metered,
    }
