"""One node of a cluster: several ``wuhan-mahjong serve`` processes on one database and one
Redis (``--redis``), behind a plain load balancer (``docs/cluster.md``).

What lives where:

* **The database** (the match log of ``store/matchlog.py``) is the truth about every match:
  its owner node and its fencing ``epoch``.  A node that takes a match over raises the epoch
  (:meth:`Store.claim_match`), after which every write of the old owner is refused
  (``MatchFenced``): a node that was only paused and comes back runs nothing twice.
* **Redis** holds what must be shared quickly and may be lost:

  - ``wm:node:<node>``: the node's heartbeat (a key with a time to live, refreshed every
    ``heartbeat`` seconds), ``"<unix time> <relay version>"``; a node without one is dead.
    A node relays only to nodes of its own :data:`RELAY_VERSION` (:meth:`Cluster.speaks`).
  - ``wm:lease:<match>``: the lease of a running match, ``"<node> <epoch>"`` (the fencing
    token), taken with ``SET NX PX`` by the node that takes the match over and renewed by
    its owner's heartbeat; whoever holds it runs the match.  A node whose renewal finds
    another node's lease stops its table at once (its writes would be fenced anyway).
  - ``wm:home:<account>``: the node whose table seats the account (renewed by that node).
  - channel ``wm:<db>:kick``: a connection opened anywhere closes the account's other
    connections on every node (one live connection per account across the cluster);
    ``wm:conn:<account>`` names the newest one, for a node that missed the kick.
  - channel ``wm:<db>:deliver``: a frame for an account's socket that no table or room
    here concerns (an invitation, ``server/invite.py``): the node holding the socket sends it.
  - channel ``wm:<db>:to:<node>``: what other nodes send this node: relayed client
    messages (``in``, ``attach``, ``detach``) for accounts whose table it runs, and frames
    (``out``, ``close``) for the sockets it holds; several per ``PUBLISH`` when they queue
    up (:meth:`Cluster.publish`), handled in one lane per account (:meth:`Cluster._route`).
  - ``wm:addr:<address>``: each node's running tables per address (``tables_per_address``
    across the nodes, :meth:`Cluster.tables_elsewhere`).
  - ``wm:live`` (field: the node) and ``wm:table:<table>``: each node's watchable tables
    (written when they changed) and the node each one runs on (renewed every heartbeat):
    the live-table list, the player pages' ``playing`` and the followed players' tables
    are the whole cluster's, and a ``watch`` of a table on another node moves the
    spectator's messages there, as a room's code does (:meth:`Cluster.forward`).
  - ``wm:counts`` (field: the node): the node's connected players and running tables,
    written with its heartbeat; the lobby's *在线 N 人* adds up the live nodes' (:meth:`Cluster.counts`).
  - ``wm:online:<account>``: the account is connected (to the node named), set with the
    heartbeat's time to live and renewed every heartbeat by the node holding its socket:
    the presence the followed-players list shows (:meth:`Cluster.online`); a closed
    connection counts as online for at most ``ttl``.  Redis's clock alone decides, as for
    every key here (no node's clock is compared with another's).

**Failover.**  Every ``heartbeat`` seconds each node lists the running matches
(:meth:`Store.running_match_owners`); a match whose owner has no heartbeat is taken by the
first node to win its lease, claimed in the database (a new epoch) and resumed from its log
by the same code that resumes matches at start (:meth:`Hub.resume_matches`), at the same
move, with fresh timers.  A killed node's tables run again on a survivor within about
``ttl + heartbeat`` seconds.

**Relay.**  A socket may land on any node.  If the account's home (its table) is on another
live node, this node relays: every text frame the client sends goes to the home node (after
this node's own size and rate checks), which handles it exactly as one of its own
connections (a :class:`~wuhan_mahjong.server.hub.Client` whose "socket" publishes to this
node); the home node's frames for that account come back and are written to the socket.
Frames are per account, so hidden tiles stay per seat between nodes too.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections import Counter, deque
from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING, Any, cast

from starlette.websockets import WebSocket, WebSocketDisconnect

from ..store.database import PG_CLIENT_TIMEOUTS
from ..store.rooms import kept_room_owner, kept_room_owners, saved_rooms
from .admission import OVERLOADED_CLOSE_CODE
from .config import redis_url
from .limits import table_addresses, tables_by_address
from .observability import CLUSTER_STRAYS
from .protocol import (
    ErrorMsg,
    JoinRoomMsg,
    NoticeMsg,
    ProtocolError,
    QuickMatchMsg,
    WatchMsg,
    encode,
    parse_client_message,
)
from .ratelimit import RateLimiter

if TYPE_CHECKING:
    from redis.asyncio import Redis

    from ..store import Account
    from .hub import Client, Hub
    from .lobby import ClubRoom
    from .table import Table

__all__ = ["Cluster", "connect_redis", "join_cluster"]

log = logging.getLogger("wuhan_mahjong.server.cluster")

SEAT_MS = 60_000
"""Life of ``wm:seat:<account>`` (renewed every heartbeat while the account is seated)."""

TAKEOVER_WAIT = 10.0
"""Seconds a reconnection waits for a dead node's table beyond that node's heartbeat life
(and three heartbeats for a survivor to notice): the time a take-over may take to read the
match's log and replay it (issue 11 asks for 10 s).  Without it a take-over slowed by a
loaded machine came after the wait, and the player was welcomed as seated nowhere while
his table went on without him (seen once in a full run at a load of 9)."""

ONLINE_PREFIX = "wm:online:"
"""Keys of the connected accounts (the module's doc)."""

COUNTS_KEY = "wm:counts"
"""The hash of every node's "<connected players> <running tables>" (field: the node)."""

LIVE_KEY = "wm:live"
"""The hash of every node's watchable tables (field: the node; the module's doc)."""

CONN_MS = 3_600_000
"""Life of ``wm:conn:<account>``, the account's newest connection (read after Redis was
lost, to close the connections replaced meanwhile)."""

ADDR_MS = 30_000
"""Life of ``wm:addr:<address>`` (a node writes the counts that change every heartbeat, and
all of its counts every :data:`ADDR_REFRESH` heartbeats or after Redis was lost)."""

ADDR_REFRESH = 10

RELAY_VERSION = 1
"""The format of what nodes send each other (:func:`_pack`, the message kinds and fields),
published in every heartbeat.  Raise it with any change of that format: during a rolling
upgrade a node closes (1012) a socket it would have to relay to a node of another version,
and the client reconnects to one that can serve it (``docs/cluster.md``).  A heartbeat
without a version (a node older than the versioning) counts as version 0."""

LOG_VERSION = 2
"""The match-log events this node reads (``store/matchlog.py``): 1 = ``deal``, ``act``,
``escape``, ``auto``, ``end``; 2 adds ``window`` (a claim window's answers in one event).
Published in every heartbeat after the relay version (none: 1), and counted by the
channels a node listens on (:meth:`Cluster._read_log_versions`).  Any live node may resume
any dead node's matches, so a node writes ``window`` events only while every node reads
them (:attr:`Cluster.log_version`): during a rolling upgrade from a release before them,
the new nodes write the old form until the old nodes are gone."""

RELAY_CONCURRENCY = 64
"""Relayed messages handled at once on a node (each account's in order, see
:meth:`Cluster._route`)."""

_RENEW = """
local v = redis.call('GET', KEYS[1])
if v == false or string.sub(v, 1, string.len(ARGV[2]) + 1) == ARGV[2] .. ' ' then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
  return 1
end
return 0
"""
"""Renew a lease held by this node (value ``"<node> <epoch>"``), or take it when it is free."""

_ELSEWHERE = """
local total = 0
local fields = redis.call('HGETALL', KEYS[1])
for i = 1, #fields, 2 do
  local node = fields[i]
  if node ~= ARGV[1] then
    if redis.call('EXISTS', 'wm:node:' .. node) == 1 then
      total = total + tonumber(fields[i + 1])
    else
      redis.call('HDEL', KEYS[1], node)
    end
  end
end
return total
"""
"""The running tables of an address (``wm:addr:<address>``: node → count) on the live nodes
other than ``ARGV[1]``; a dead node's count goes (its tables are counted by their new node)."""


REDIS_POOL_SIZE = 256
"""Connections one node keeps to Redis at most (the URL's ``max_connections`` overrides it)."""

REDIS_CONNECT_TIMEOUT = float(PG_CLIENT_TIMEOUTS["connect_timeout"])
"""Seconds a new connection to Redis may take (as one to the database)."""


def redis_socket_options() -> dict[int, int]:
    """TCP options of every Redis connection: keepalive probes every 5 s after 10 s of
    quiet (dead after three missed), and data unacknowledged for 30 s fails the command.

    A Redis host that went silent (a failover that moved its address, packets dropped)
    left the subscriber of the cluster channel waiting for messages that could not come,
    so relayed frames stopped without a word, and a command waited out the kernel's
    retransmissions (about fifteen minutes).  Now the subscriber's connection fails
    within about half a minute and it subscribes again.  The figures are the database's
    (``store.database.PG_CLIENT_TIMEOUTS``); options this system lacks are left out."""
    import socket

    libpq_names = (("TCP_KEEPIDLE", "keepalives_idle"), ("TCP_KEEPINTVL", "keepalives_interval"),
                   ("TCP_KEEPCNT", "keepalives_count"), ("TCP_USER_TIMEOUT", "tcp_user_timeout"))
    return {getattr(socket, option): int(PG_CLIENT_TIMEOUTS[libpq])
            for option, libpq in libpq_names if hasattr(socket, option)}


def connect_redis(url: str) -> Redis:
    """An asyncio Redis client for ``url`` (``redis://HOST:PORT/N``), answers decoded.

    The pool *blocks* when all its connections are busy: a burst of relayed frames
    waits a moment for a connection instead of failing with redis-py's
    ``MaxConnectionsError`` (its default pool allows 100 and then raises, which
    closed relayed sockets once about 50 busy tables were relayed).
    """
    try:
        from redis.asyncio import BlockingConnectionPool, Redis
    except ModuleNotFoundError as e:  # pragma: no cover - the [redis] extra is missing
        raise RuntimeError("a cluster needs the redis extra: pip install 'wuhan-mahjong[redis]'") from e
    from redis.asyncio.retry import Retry
    from redis.backoff import ExponentialBackoff

    # Retry a command whose connection fails: after a Redis restart, the pool's idle
    # connections are dead and redis-py does not notice before using one (the first
    # command on each raised ConnectionError, which closed a new player's socket before
    # its welcome); a retry reconnects.  While Redis is down, the retries are refused at
    # once (a few milliseconds).
    retry = Retry(ExponentialBackoff(cap=0.2, base=0.01), 2)
    pool = BlockingConnectionPool.from_url(
        url, decode_responses=True, timeout=30, retry=retry, max_connections=REDIS_POOL_SIZE,
        socket_connect_timeout=REDIS_CONNECT_TIMEOUT, socket_keepalive=True,
        socket_keepalive_options=redis_socket_options())
    return Redis(connection_pool=pool)


async def join_cluster(hub: Hub) -> Cluster | None:
    """With ``--redis`` (or ``$WUHAN_MAHJONG_REDIS``): join the cluster and take over the
    matches of dead nodes (instead of resuming every running match, as a process alone
    does); ``None`` without Redis."""
    url = redis_url(hub.config)
    if url is None:
        return None
    cluster = Cluster(hub, connect_redis(url), heartbeat=hub.config.cluster_heartbeat,
                      ttl=hub.config.cluster_ttl)
    await cluster.start()
    hub.cluster = cluster
    await cluster.take_over()
    await cluster.take_over_rooms()  # after the matches: their players are seated
    return cluster


class RelayPort:
    """The "socket" of a :class:`Client` whose WebSocket is on another node: what the hub
    writes to it is published to that node (``out`` and ``close`` messages)."""

    def __init__(self, cluster: Cluster, account_id: int, node: str, cid: str) -> None:
        self.cluster = cluster
        self.account_id = account_id
        self.node = node
        self.cid = cid

    async def send_text(self, text: str) -> None:
        await self.cluster.publish(self.node, {"k": "out", "a": self.account_id, "c": self.cid,
                                               "t": text})

    async def close(self, code: int = 1000, reason: str = "") -> None:
        await self.cluster.publish(self.node, {"k": "close", "a": self.account_id, "c": self.cid,
                                               "code": code, "reason": reason})


class _RelayedSocket:
    """A WebSocket this node holds for an account whose table runs on another node."""

    def __init__(self, ws: WebSocket, account_id: int, home: str, cid: str, token_hash: str,
                 address: str) -> None:
        self.ws = ws
        self.account_id = account_id
        self.home = home
        self.cid = cid
        self.token_hash = token_hash
        self.address = address
        self.drop_welcome = False
        """Set when the relay moves to another node: that node's ``welcome`` is not shown."""
        self.frames: asyncio.Queue[str | None] = asyncio.Queue()
        self.close_code = 1000
        self.close_reason = ""

    def close(self, code: int, reason: str) -> None:
        self.close_code, self.close_reason = code, reason
        self.frames.put_nowait(None)


class _Moved:
    """A socket served by this node's hub whose account now lives on another node (it joined
    a room or a quick-match queue held there): its messages go there, its frames come back."""

    def __init__(self, client: Client, home: str, cid: str) -> None:
        self.client = client
        self.home = home
        self.cid = cid
        self.drop_welcome = True
        """The home node's ``welcome`` (its attach) is not shown: the client had one."""


def _pack(message: dict[str, Any]) -> str:
    """A message between nodes: a relayed frame or client message (``out``, ``in``) as a
    ``"<kind> <account> <cid>"`` line followed by the text as it is (no JSON around the
    JSON: the text is neither escaped nor parsed on the way), anything else as JSON."""
    kind = message["k"]
    if kind in ("out", "in"):
        return f"{kind} {message['a']} {message['c']}\n{message['t']}"
    return json.dumps(message, separators=(",", ":"))


def _batch(packed: list[str]) -> str:
    """Several packed messages as one: ``"*"``, then ``"<length>:<message>"`` each."""
    return "*" + "".join(f"{len(m)}:{m}" for m in packed)


def _unbatch(raw: str) -> list[str]:
    """The packed messages of one published text (:func:`_batch`, or a single one)."""
    if not raw.startswith("*"):
        return [raw]
    out, pos = [], 1
    while pos < len(raw):
        colon = raw.index(":", pos)
        end = colon + 1 + int(raw[pos:colon])
        out.append(raw[colon + 1:end])
        pos = end
    return out


def _unpack(raw: str) -> dict[str, Any]:
    """The message :func:`_pack` made."""
    if raw.startswith("{"):
        data: dict[str, Any] = json.loads(raw)
        return data
    head, _, text = raw.partition("\n")
    kind, account, cid = head.split(" ")
    return {"k": kind, "a": int(account), "c": cid, "t": text}


def _dropped_welcome(route: _Moved | _RelayedSocket, text: str) -> bool:
    """Whether ``text`` is the ``welcome`` of a node the route just moved to (not shown: the
    client had its welcome when it connected)."""
    if not route.drop_welcome:
        return False
    route.drop_welcome = False
    return bool(json.loads(text).get("type") == "welcome")


class Cluster:
    """This node's part of the cluster (see the module's docstring)."""

    def __init__(self, hub: Hub, redis: Redis, *, heartbeat: float = 1.0, ttl: float = 5.0) -> None:
        self.hub = hub
        self.redis = redis
        self.node = hub.node_id
        # Redis pub/sub channels are server-wide, not per database number: name them
        # after the database so that platforms sharing one Redis never hear each other.
        db = redis.connection_pool.connection_kwargs.get("db", 0)
        self.space = f"wm:{db}:"
        self.kick_channel = f"{self.space}kick"
        self.logout_channel = f"{self.space}logout"
        self.deliver_channel = f"{self.space}deliver"
        self.heartbeat = heartbeat
        self.ttl_ms = int(ttl * 1000)
        self.takeover_wait = TAKEOVER_WAIT
        self.tasks: list[asyncio.Task[None]] = []
        self.leaving = False
        """Set by :meth:`close`: the heartbeat loop ends at its next beat even if its
        cancellation was lost (see :meth:`_beat_during`)."""
        self.relayed: dict[int, _RelayedSocket] = {}
        """Sockets held here whose account's home is another node, by account."""
        self.remote: dict[tuple[int, str], Client] = {}
        """Clients of this node's hub whose sockets are on other nodes: (account, cid)."""
        self.moved: dict[int, _Moved] = {}
        """Local sockets whose account's lobby place is on another node, by account."""
        self.writers: set[asyncio.Task[None]] = set()
        self.homes: set[int] = set()
        self.leased: set[str] = set()
        """The matches whose leases this node held at its last heartbeat."""
        self.takeovers = 0
        self.announced: dict[int, str] = {}
        """The id of each account's newest connection on this node (see ``wm:conn``)."""
        self.lanes: dict[int, deque[dict[str, Any]]] = {}
        """Relayed messages waiting, per account (:meth:`_route`)."""
        self.lane_slots = asyncio.Semaphore(RELAY_CONCURRENCY)
        self.outboxes: dict[str, list[str]] = {}
        """Packed messages waiting to be published, per node (:meth:`publish`)."""
        self.senders: dict[str, asyncio.Task[None]] = {}
        self.healthy_since: float | None = float("-inf")
        """Since when (loop time) Redis has answered without a break; ``None``: it did not."""
        self._renew = redis.register_script(_RENEW)
        self._elsewhere = redis.register_script(_ELSEWHERE)
        self.address_tables: Counter[str] = Counter()
        """This node's running tables per address, as last written to ``wm:addr``."""
        self.beats = 0
        self.club_writes = asyncio.Lock()
        """Club listings are written in the order the lobby changed them (FIFO lock)."""
        self.live_text = ""
        """This node's watchable tables as last written to ``wm:live``."""
        self.strays: dict[int, str] = {}
        """Sockets held here whose account's home, at the last heartbeat, was a node other
        than where the socket goes: account → that home (:meth:`_send_strays_home`)."""
        self.log_version = 1
        """The lowest :data:`LOG_VERSION` of the live nodes at the last heartbeat (1 until
        the first look): the match-log form this node may write."""

    # ------------------------------------------------------------------ life cycle
    async def start(self) -> None:
        """Join: a first heartbeat, the listener, and the heartbeat/failover loop."""
        await self.redis.ping()
        await self._beat()
        pubsub = self.redis.pubsub()
        await pubsub.subscribe(*self.channels)
        await self._read_log_versions()
        loop = asyncio.get_running_loop()
        self.tasks = [loop.create_task(self._listen(pubsub), name="cluster-listen"),
                      loop.create_task(self._loop(), name="cluster-heartbeat")]
        log.info("node %s joined the cluster", self.node)

    async def close(self) -> None:
        """Leave: stop the loops and drop the heartbeat and leases, so that the survivors
        take this node's (stopped, persisted) matches over at once."""
        for relayed in list(self.relayed.values()):
            relayed.close(1012, "server restarting: reconnect to resume your match")
        if self.writers:  # the last frames of relayed clients (their close)
            await asyncio.wait(list(self.writers), timeout=2)
        if self.senders:  # and what is queued for the other nodes
            await asyncio.wait(list(self.senders.values()), timeout=2)
        self.leaving = True
        # Bounded, as the hub's shutdown: a stuck loop must not keep the leases.  A
        # cancellation can be lost inside redis-py (see :meth:`_beat_during`): the
        # heartbeat then beats on after the leave, writing this node's heartbeat again (in
        # a full run, a node whose heartbeat was left behind here did not exit within 60 s
        # of its SIGTERM).  So a loop still running is cancelled again, and the heartbeat
        # also ends on :attr:`leaving`.
        stuck = set(self.tasks)
        for wait in (5.0, 1.0, 1.0):
            if not stuck:
                break
            for task in stuck:
                task.cancel()
            done, stuck = await asyncio.wait(stuck, timeout=wait)
            for task in done:
                with contextlib.suppress(BaseException):
                    task.result()
        for task in stuck:
            log.warning("cluster task %s did not stop: left behind", task.get_name())
        with contextlib.suppress(Exception):
            keys = [f"wm:lease:{match_id}" for match_id in self.leased]
            keys += [f"wm:home:{account_id}" for account_id in self.homes]
            await self.redis.delete(f"wm:node:{self.node}", *keys)
            await self.redis.hdel(LIVE_KEY, self.node)
            await self.redis.hdel(COUNTS_KEY, self.node)
        with contextlib.suppress(Exception):
            await self.redis.aclose()

    async def _mark_online(self, px: int) -> None:
        """Renew ``wm:online:<account>`` of this node's connected accounts (one round trip)."""
        here = set(self.hub.clients) | set(self.relayed)
        if not here:
            return
        pipe = self.redis.pipeline(transaction=False)
        for account_id in here:
            pipe.set(f"{ONLINE_PREFIX}{account_id}", self.node, px=px)
        await pipe.execute()

    async def _publish_live(self, px: int) -> None:
        """This node's watchable tables, for the other nodes' live list and player pages
        (``wm:live``, field: this node; written when it changed), and where each one runs
        (``wm:table:<id>``, renewed with the heartbeat's time to live) for a ``watch`` sent
        to another node."""
        tables = self.hub.spectate.live(accounts=True)
        text = json.dumps(tables, separators=(",", ":"))
        pipe = self.redis.pipeline(transaction=False)
        if text != self.live_text:
            pipe.hset(LIVE_KEY, self.node, text)
        for table in tables:
            pipe.set(f"wm:table:{table['table_id']}", self.node, px=px)
        if text != self.live_text or tables:
            await pipe.execute()
        self.live_text = text

    async def live_elsewhere(self) -> list[dict[str, Any]]:
        """The watchable tables of the other live nodes, as each published them at its last
        heartbeat (a dead node's are dropped from ``wm:live``)."""
        published = await self.redis.hgetall(LIVE_KEY)
        out: list[dict[str, Any]] = []
        dead = []
        for node, text in published.items():
            if node == self.node:
                continue
            if not await self.alive(str(node)):
                dead.append(node)
                continue
            out.extend(json.loads(text))
        if dead:
            await self.redis.hdel(LIVE_KEY, *dead)
        return out

    async def counts(self) -> tuple[int, int]:
        """(connected players, running tables) over the live nodes: this node's as they are
        now, and each other node's as its last heartbeat wrote them; a node without a
        heartbeat (dead) counts nothing, and its field goes."""
        written = await self.redis.hgetall(COUNTS_KEY)
        players, tables = self.hub.node_counts()
        dead = []
        for node, text in written.items():
            if node == self.node:
                continue
            if not await self.alive(str(node)):
                dead.append(node)
                continue
            with contextlib.suppress(ValueError):
                p, t = (int(x) for x in str(text).split())
                players, tables = players + p, tables + t
        if dead:
            await self.redis.hdel(COUNTS_KEY, *dead)
        return players, tables

    async def online(self, account_ids: Sequence[int]) -> set[int]:
        """Which of ``account_ids`` are connected to any node (see ``wm:online``)."""
        if not account_ids:
            return set()
        found = await self.redis.mget([f"{ONLINE_PREFIX}{a}" for a in account_ids])
        return {a for a, node in zip(account_ids, found, strict=True) if node is not None}

    def _channel(self, node: str) -> str:
        return f"{self.space}to:{node}"

    async def publish(self, node: str, message: dict[str, Any]) -> None:
        """Send ``message`` to ``node``: queued at once, in order per node, and published
        by that node's sender, which puts every message queued meanwhile into one PUBLISH
        (a state broadcast reaches several players relayed to one node in one hop).
        Lost while Redis is away, as pub/sub messages are."""
        box = self.outboxes.get(node)
        if box is None:
            box = self.outboxes[node] = []
        box.append(_pack(message))
        if node not in self.senders:
            task = asyncio.get_running_loop().create_task(self._send_out(node, box))
            self.senders[node] = task

    async def _send_out(self, node: str, box: list[str]) -> None:
        channel = self._channel(node)
        try:
            while box:
                packed = box[:]
                del box[:]
                try:
                    await self.redis.publish(channel, packed[0] if len(packed) == 1 else _batch(packed))
                except Exception as e:  # Redis away: the messages are lost, as on pub/sub
                    log.warning("%d message(s) to node %s lost: %s", len(packed), node, e)
        finally:
            del self.senders[node]
            if not box:
                self.outboxes.pop(node, None)

    async def alive(self, node: str) -> bool:
        return node == self.node or bool(await self.redis.exists(f"wm:node:{node}"))

    async def speaks(self, node: str) -> bool:
        """Whether ``node`` is alive and reads this node's relay format (its heartbeat's
        :data:`RELAY_VERSION`; none: version 0)."""
        if node == self.node:
            return True
        beat = await self.redis.get(f"wm:node:{node}")
        if beat is None:
            return False
        parts = str(beat).split(" ")
        return (int(parts[1]) if len(parts) > 1 else 0) == RELAY_VERSION

    @staticmethod
    def _other_version(node: str) -> tuple[int, str]:
        log.info("node %s runs another relay version: its client is sent to reconnect", node)
        return 1012, "server upgrading: reconnect to resume"

    # ------------------------------------------------------------------ heartbeat, failover
    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(self.heartbeat)
            if self.leaving:  # its cancellation was lost: no beat after the leave
                return
            try:
                await self._beat()
                await self._read_log_versions()
                now = asyncio.get_running_loop().time()
                if self.healthy_since is None:
                    self.healthy_since = now
                # After Redis was lost, other nodes' heartbeats may not be back yet: take
                # nothing over until they had a heartbeat's life to come back.
                if now - self.healthy_since >= self.ttl_ms / 1000:
                    await self.take_over()
                    await self.take_over_rooms()
                await self._watch_relays()
                await self._send_strays_home()
            except asyncio.CancelledError:
                raise
            except Exception as e:  # Redis unreachable: the tables go on, the log says so
                self.healthy_since = None
                log.warning("cluster heartbeat failed: %s", e)

    def _log_channel(self, version: int) -> str:
        """A channel nobody publishes on: every connected node that reads match-log
        ``version`` is subscribed to it, so ``PUBSUB NUMSUB`` counts those nodes."""
        return f"{self.space}log-reads:{version}"

    @property
    def channels(self) -> list[str]:
        """What this node subscribes to: the kick, logout and deliver channels, its own, and one per
        match-log version from 2 to :data:`LOG_VERSION` (see :meth:`_read_log_versions`)."""
        return [self.kick_channel, self.logout_channel, self.deliver_channel,
                self._channel(self.node),
                *(self._log_channel(v) for v in range(2, LOG_VERSION + 1))]

    async def _read_log_versions(self) -> None:
        """:attr:`log_version`: the highest version whose channel every node listens on.
        Every node of every release is subscribed to the kick channel; a node that reads
        version ``v`` also to ``log-reads:2`` .. ``log-reads:v`` (a release before the
        versioning, to none of them).  One ``PUBSUB NUMSUB``, whatever the keyspace's size
        (a node killed with SIGKILL drops out at once: its connection closes)."""
        answer = await self.redis.pubsub_numsub(
            self.kick_channel, *(self._log_channel(v) for v in range(2, LOG_VERSION + 1)))
        counts = {(c.decode() if isinstance(c, bytes) else str(c)): int(n) for c, n in answer}
        nodes = counts.get(self.kick_channel, 0)
        lowest = 1
        for v in range(2, LOG_VERSION + 1):
            if counts.get(self._log_channel(v), 0) < nodes:
                break
            lowest = v
        if lowest != self.log_version:
            log.info("every node reads match-log version %d and up", lowest)
        self.log_version = lowest

    async def _beat(self) -> None:
        """Refresh this node's heartbeat, its tables' leases and its players' homes."""
        px = self.ttl_ms
        await self.redis.set(f"wm:node:{self.node}", f"{time.time()} {RELAY_VERSION} {LOG_VERSION}",
                             px=px)
        players, tables = self.hub.node_counts()
        await self.redis.hset(COUNTS_KEY, self.node, f"{players} {tables}")
        homes: set[int] = set()
        leased: set[str] = set()
        live = [t for t in self.hub.tables.values()
                if not (t.epoch == 0 or t.finished or t.stopping)]
        for table in self.hub.tables.values():  # being opened (no epoch, no lease yet)
            if table.epoch == 0 and not (table.finished or table.stopping):
                homes.update(s.account_id for s in table.seats
                             if not s.is_bot and not s.escaped)
        if self.hub.shutting_down:
            # The stopped tables go on elsewhere: their players stay seated (``wm:seat``)
            # so that a reconnection waits for the take-over; :meth:`close` drops the homes.
            homes |= self.homes
        lobby = self.hub.lobby
        places = [f"wm:room:{code}" for code in lobby.rooms]
        places += [self._queue_key(key) for key, queue in lobby.queues.items() if queue.members]
        pipe = self.redis.pipeline(transaction=False)  # one round trip for every lease
        for table in live:
            await self._renew(keys=[f"wm:lease:{table.match_id}"],
                              args=[f"{self.node} {table.epoch}", self.node, px], client=pipe)
        for key in places:
            await self._renew(keys=[key], args=[f"{self.node} lobby", self.node, px], client=pipe)
        renewed = await pipe.execute() if live or places else []
        for table, held in zip(live, renewed, strict=False):
            if not held:
                log.warning("match %s is leased by another node: this table stops", table.match_id)
                table.lost()
                continue
            leased.add(table.match_id)
            for seat in table.seats:
                if not seat.is_bot and not seat.escaped:
                    homes.add(seat.account_id)
        await self._mark_homes(homes)
        await self._mark_online(px)
        await self._publish_live(px)
        self.beats += 1
        if self.healthy_since is None or self.beats % ADDR_REFRESH == 0:
            self.address_tables = Counter()  # write them all again
            self.live_text = ""
        await self._count_addresses(tables_by_address(self.hub))
        # Tables that ended here: their players are free.  Not those of a table seated while
        # this beat was under way (``homes`` was taken before it): dropping theirs sent a
        # tournament's next round, started here meanwhile, to the lobby of the node its
        # players reconnected to (seen in CI under load).
        for account_id in self.homes - homes:
            if account_id not in self._seated_here():
                await self._renew_home_drop(account_id)
        self.homes = homes | self._seated_here()
        self.leased = leased
        for account_id in [a for a in self.announced  # forget the connections gone
                           if a not in self.relayed and a not in self.hub.clients]:
            del self.announced[account_id]

    async def _send_strays_home(self) -> None:
        """Close (1012) a socket held here that goes to no table while its account's table
        runs elsewhere, once two heartbeats in a row found it so: the client reconnects,
        and the reconnection goes to the table (:meth:`_home`).

        A player is seated on another node by a message that moves his socket (a room's,
        a queue's, a tournament's ``reseat``).  Races lost that step three times in CI
        under load (a heartbeat that dropped homes it should have kept, a table's first
        frames sent before its homes were written), each one leaving a player in a lobby
        while his table played on without him.  Each was fixed; this is the net under the
        next one: such a player is at most three heartbeats from his table.  It covers a
        socket served here (in this node's lobby, or moved to another node's room or
        queue) and one relayed to another node (its lobby, after a match there) alike:
        where the socket goes is compared with the account's home (``wm:home``).  Two
        sightings, not one, because a move in flight (a room starting on another node, a
        ``reseat`` on its way) looks the same for a moment.  Each is counted
        (``wuhan_mahjong_cluster_strays_total``) and logged: it is a bug to report."""
        seated = self._seated_here()
        going = {a: relayed.home for a, relayed in self.relayed.items()}
        for account_id, client in self.hub.clients.items():
            if account_id in seated or account_id in going or isinstance(client.ws, RelayPort):
                continue
            moved = self.moved.get(account_id)
            going[account_id] = self.node if moved is None else moved.home
        accounts = list(going)
        found = await self.redis.mget([f"wm:home:{a}" for a in accounts]) if accounts else []
        seen, self.strays = self.strays, {}
        for account_id, home in zip(accounts, found, strict=True):
            if home is None or str(home) == going[account_id]:
                continue
            if seen.get(account_id) != str(home):
                self.strays[account_id] = str(home)  # the first sighting
            elif await self.alive(str(home)):
                log.warning("account %s has a socket here that goes to node %s while its "
                            "table runs on node %s: the socket is closed to reconnect",
                            account_id, going[account_id], home)
                CLUSTER_STRAYS.inc()
                self._reseat_here(account_id, str(home))

    def _seated_here(self) -> set[int]:
        """The accounts (not bots, not escaped) at a table here that has not ended."""
        return {s.account_id for t in self.hub.tables.values() if not (t.finished or t.stopping)
                for s in t.seats if not s.is_bot and not s.escaped}

    def seated(self, table: Table) -> asyncio.Task[None]:
        """A table starts (or resumes) here: its players' home is this node from now on
        (the heartbeat renews it), so a reconnection on any node is relayed here at once.
        Returns the task that writes the homes: the table sends nothing before it is done
        (:meth:`Hub._run_table`)."""
        humans = [s.account_id for s in table.seats if not s.is_bot and not s.escaped]
        self.homes.update(humans)
        for account_id in humans:  # a socket here that was moved elsewhere (watching) is back
            moved = self.moved.pop(account_id, None)
            if moved is not None:
                self.hub.background(asyncio.get_running_loop().create_task(self.publish(
                    moved.home, {"k": "detach", "a": account_id, "c": moved.cid})))
        loop = asyncio.get_running_loop()
        homes = loop.create_task(self._mark_homes(humans))
        self.hub.background(homes)
        addresses = table_addresses(self.hub, table)  # the other nodes count it at once
        counts = tables_by_address(self.hub)
        self.hub.background(loop.create_task(self._count_addresses(
            Counter({a: counts[a] for a in addresses}), partial=True)))
        return homes

    async def _count_addresses(self, counts: Counter[str], *, partial: bool = False) -> None:
        """Write this node's running tables per address (``wm:addr:<address>``, field: this
        node) that differ from what it wrote last, for the other nodes'
        ``tables_per_address`` (:meth:`tables_elsewhere`); the addresses gone from
        ``counts`` are dropped unless ``partial`` (only those given)."""
        gone = set() if partial else set(self.address_tables) - set(counts)
        changed = {a: c for a, c in counts.items() if self.address_tables.get(a) != c}
        if not changed and not gone:
            return
        pipe = self.redis.pipeline(transaction=False)
        for address, count in changed.items():
            key = f"wm:addr:{address}"
            pipe.hset(key, self.node, count)
            pipe.pexpire(key, ADDR_MS)
        for address in gone:
            pipe.hdel(f"wm:addr:{address}", self.node)
        await pipe.execute()
        if partial:
            for address, count in counts.items():
                self.address_tables[address] = count
        else:
            self.address_tables = counts

    async def tables_elsewhere(self, address: str) -> int:
        """Running tables with a player from ``address`` on the other live nodes (0 while
        Redis does not answer: the limit then counts this node's only)."""
        from redis.exceptions import RedisError

        try:
            return int(await self._elsewhere(keys=[f"wm:addr:{address}"], args=[self.node]))
        except RedisError as e:
            log.warning("tables per address counted on this node only: %s", e)
            return 0

    async def _mark_homes(self, accounts: Collection[int]) -> None:
        """``wm:home``: the accounts' table is on this node (lives as long as the node's
        heartbeat); ``wm:seat``: they sit at a table somewhere (lives a minute, so that a
        reconnection while a dead node's table is being taken over waits for it)."""
        if not accounts:
            return
        pipe = self.redis.pipeline(transaction=False)
        for account_id in accounts:
            pipe.set(f"wm:home:{account_id}", self.node, px=self.ttl_ms)
            pipe.set(f"wm:seat:{account_id}", self.node, px=SEAT_MS)
        await pipe.execute()

    async def _renew_home_drop(self, account_id: int) -> None:
        for key in (f"wm:home:{account_id}", f"wm:seat:{account_id}"):
            if await self.redis.get(key) == self.node:
                await self.redis.delete(key)

    def _takeover_time(self) -> float:
        """Seconds to wait for a dead node's table or room to be taken over: its heartbeat's
        life, three heartbeats for a survivor to notice, and :data:`TAKEOVER_WAIT` for the
        take-over itself."""
        return self.ttl_ms / 1000 + 3 * self.heartbeat + self.takeover_wait

    async def _home(self, account_id: int) -> str | None:
        """The live node that runs the account's table (``None``: not seated).  While a dead
        node's table is being taken over, wait for the node that takes it (at most
        :meth:`_takeover_time`)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._takeover_time()
        while True:
            found = await self.redis.get(f"wm:home:{account_id}")
            if found is not None and await self.alive(str(found)):
                return str(found)
            if not await self.redis.exists(f"wm:seat:{account_id}") or loop.time() >= deadline:
                return None
            await asyncio.sleep(self.heartbeat / 4)

    async def take_over(self) -> int:
        """Resume every running match whose owner node is dead (and whose lease this node
        wins); the number taken over."""
        owners = await asyncio.to_thread(self.hub.store.running_match_owners)
        local = {t.match_id for t in self.hub.tables.values()}
        dead: dict[str, bool] = {}
        wanted: list[str] = []
        for match_id, owner in owners:
            if match_id in local or owner == self.node:
                continue
            if owner is not None:
                if owner not in dead:
                    dead[owner] = not await self.alive(owner)
                if not dead[owner]:
                    continue
            if await self.redis.set(f"wm:lease:{match_id}", f"{self.node} 0", nx=True, px=self.ttl_ms):
                wanted.append(match_id)
        if not wanted:
            return 0
        # A take-over may outlast a heartbeat's life (many matches, long logs, a loaded
        # machine), and this loop beats no more until it is over: beat on beside it, or
        # this node's heartbeat, its tables' leases and the leases just taken would expire
        # and another node would take the same matches (fenced, but moved twice).
        over = asyncio.Event()
        keeper = asyncio.get_running_loop().create_task(self._beat_during(wanted, over))
        try:
            resumed = await self.hub.resume_matches(wanted)
        finally:
            over.set()
            keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await keeper
        for match_id in wanted:  # the fencing token: the epoch this node claimed
            table = next((t for t in self.hub.tables.values() if t.match_id == match_id), None)
            if table is not None:
                await self.redis.set(f"wm:lease:{match_id}", f"{self.node} {table.epoch}",
                                     px=self.ttl_ms)
        self.takeovers += resumed
        if resumed:
            log.warning("took over %d match(es) of a dead node", resumed)
            await self._beat()
        return resumed

    async def _beat_during(self, taking: list[str], over: asyncio.Event) -> None:
        """Every heartbeat until ``over`` is set, while a take-over of ``taking`` runs: the
        heartbeat (this node, its running tables' leases, its players' homes) and the
        leases of the matches not resumed yet (a resumed one's lease is its table's,
        renewed by the heartbeat).

        The take-over also cancels this task, but a cancellation can be lost on Python
        3.11: a timeout inside redis-py (``asyncio.wait_for``) swallows it when its own
        wait ends at the same moment.  The task then beat on for ever and the take-over
        never ended (one run in three of ``test_a_long_take_over_keeps_the_leases_it_took``,
        which hung the suite); ``over`` ends it at the next heartbeat whatever happens."""
        while True:
            await asyncio.sleep(self.heartbeat)
            if over.is_set():
                return
            try:
                await self._beat()
                here = {t.match_id for t in self.hub.tables.values()}
                for match_id in taking:
                    if match_id not in here:
                        await self._renew(keys=[f"wm:lease:{match_id}"],
                                          args=[f"{self.node} 0", self.node, self.ttl_ms])
            except asyncio.CancelledError:
                raise
            except Exception as e:  # Redis unreachable: the take-over goes on
                log.warning("cluster heartbeat during a take-over failed: %s", e)

    async def take_over_rooms(self) -> int:
        """Open again the kept rooms of dead nodes (``server/room_keeper.py``) whose codes
        this node reserves; the number opened."""
        kept = await asyncio.to_thread(kept_room_owners, self.hub.store)
        dead: dict[str, bool] = {}
        wanted: list[str] = []
        for code, owner in kept:
            if owner == self.node or code in self.hub.lobby.rooms:
                continue
            if owner not in dead:
                dead[owner] = not await self.alive(owner)
            if dead[owner] and await self.redis.set(
                    f"wm:room:{code}", f"{self.node} lobby", nx=True, px=self.ttl_ms):
                wanted.append(code)
        if not wanted:
            return 0
        opened = await self.hub.lobby.restore_rooms(
            await asyncio.to_thread(saved_rooms, self.hub.store, wanted))
        for code in wanted:  # not opened here (or no longer kept): its code is free again
            if code not in self.hub.lobby.rooms:
                await self.redis.delete(f"wm:room:{code}")
        if opened:
            log.warning("took over %d room(s) of a dead node", opened)
        return opened

    # ------------------------------------------------------------------ the shared lobby
    @staticmethod
    def _queue_key(key: tuple[str, int]) -> str:
        return f"wm:queue:{key[0]}:{key[1]}"

    async def hold_queue(self, key: tuple[str, int]) -> bool:
        """Whether this node's quick-match queue ``key`` is the cluster's: held here, or held
        by no live node (taken now if free).  False while another live node holds it: this
        node's queue then only gathers its own players for a while (:class:`~.lobby.Lobby`)."""
        name = self._queue_key(key)
        home = await self._holder(name)
        if home is None:
            await self.redis.set(name, f"{self.node} lobby", nx=True, px=self.ttl_ms)
            return True
        return home == self.node

    async def room_code(self, code: str, fresh: Callable[[], str]) -> str:
        """A room code no node uses: ``code`` (or another from ``fresh``) reserved in Redis."""
        while not await self.redis.set(f"wm:room:{code}", f"{self.node} lobby", nx=True,
                                       px=self.ttl_ms):
            code = fresh()
        return code

    def _club_key(self, number: int) -> str:
        return f"{self.space}club:{number}:rooms"

    async def list_club_room(self, number: int, code: str, room: ClubRoom | None) -> None:
        """List a club's table waiting on this node (``None``: it started or closed) in the
        cluster's listing of the club (a Redis hash: code → the table and its node)."""
        from redis.exceptions import RedisError

        async with self.club_writes:
            try:
                if room is None:
                    await self.redis.hdel(self._club_key(number), code)
                else:
                    await self.redis.hset(self._club_key(number), code, json.dumps(
                        {"node": self.node, "host": room.host, "players": list(room.players),
                         "hands": room.hands, "stake": room.stake}, ensure_ascii=False))
            except RedisError as e:  # the listing lags; the room itself is not touched
                log.warning("club %d: the listing of room %s was not written (%s)", number,
                            code, e)

    async def others_club_rooms(self, number: int) -> list[ClubRoom]:
        """The other nodes' tables of the club waiting for players (this node's lobby knows
        its own better than its listing, written behind).  An entry whose room code no live
        node holds any more (its node died, or a write was lost) is dropped."""
        from .lobby import ClubRoom

        key = self._club_key(number)
        entries = [(field if isinstance(field, str) else bytes(field).decode(), json.loads(raw))
                   for field, raw in (await self.redis.hgetall(key)).items()]
        entries = [(code, entry) for code, entry in entries if entry["node"] != self.node]
        holders = await asyncio.gather(*(self._holder(f"wm:room:{code}") for code, _ in entries))
        found, stale = [], []
        for (code, entry), holder in zip(entries, holders, strict=True):
            if holder != entry["node"]:
                stale.append(code)
                continue
            found.append(ClubRoom(code=code, host=str(entry["host"]),
                                  players=tuple(str(p) for p in entry["players"]),
                                  hands=int(entry["hands"]), stake=int(entry["stake"])))
        if stale:
            await self.redis.hdel(key, *stale)
        return found

    async def _room_home(self, code: str, *, rejoin: bool) -> str | None:
        """The live node holding room ``code`` (``None``: none).  A member asking to be back
        in his room (``rejoin``) after its node died waits while a survivor takes the kept
        room over and opens it (:meth:`_takeover_time`, as a reconnection to a table being
        taken over does): answered before, he would be told he is in no room."""
        key = f"wm:room:{code}"
        home = await self._holder(key)
        if not rejoin or (home is not None and home != self.node):
            return home
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._takeover_time()
        while loop.time() < deadline and code not in self.hub.lobby.rooms:
            if home is not None and home != self.node:
                return home
            if home is None:  # its node died: is the room kept, and is it taken over yet?
                owner = await asyncio.to_thread(kept_room_owner, self.hub.store, code)
                if owner is None or (owner != self.node and await self.alive(owner)):
                    return await self._holder(key)  # no such room; or its holder answers
            # else this node reserved the code and is opening the room
            await asyncio.sleep(self.heartbeat / 4)
            home = await self._holder(key)
        return home

    async def _holder(self, key: str) -> str | None:
        """The live node holding a room or queue key (``None``: none, or a dead one)."""
        value = await self.redis.get(key)
        if value is None:
            return None
        node = str(value).split(" ", 1)[0]
        return node if await self.alive(node) else None

    async def forward(self, client: Client, msg: Any, *, local_first: bool = True) -> bool:
        """Send ``msg`` to the node where the account's lobby place is, if not here: a room
        code held by another node, a quick-match queue that already waits on another node
        (one queue per profile and stake in the cluster), a table to watch that runs on
        another node.  True when forwarded.

        A quick match from a socket held here first waits with this node's own players
        (``local_first``, for :attr:`~.config.ServerConfig.quick_affinity` seconds): four of
        them make a table here, where nothing is relayed (:class:`~.lobby.Lobby`); not while
        this node is saturated (:mod:`.admission`), which would refuse the table."""
        moved = self.moved.get(client.account_id)
        if moved is not None and moved.client is client:
            await self._forward(moved, msg)
            return True
        if isinstance(msg, JoinRoomMsg):
            if msg.code in self.hub.lobby.rooms:
                return False
            home = await self._room_home(msg.code, rejoin=msg.rejoin)
        elif isinstance(msg, WatchMsg):
            if msg.table in self.hub.tables:
                return False
            home = await self._holder(f"wm:table:{msg.table}")
        elif isinstance(msg, QuickMatchMsg):
            cfg = self.hub.config
            place = (msg.profile or cfg.quick_profile, cfg.quick_stake if msg.silver else 0)
            key = self._queue_key(place)
            queue = self.hub.lobby.queues.get(place)
            # A saturated node starts no table (admission control): its own players then
            # go to the cluster's queue at once instead of being refused here.
            busy = self.hub.admission.busy() is not None
            if queue is not None and queue.members and not (busy and queue.local):
                return False  # this node's queue: the cluster's, or its own players' first
            if (local_first and cfg.quick_affinity > 0 and not busy
                    and not isinstance(client.ws, RelayPort)):
                return False
            home = await self._holder(key)
            if home is None and await self.redis.set(key, f"{self.node} lobby", nx=True,
                                                     px=self.ttl_ms):
                return False  # the cluster's queue is this node's now
            home = home or await self._holder(key)
        else:
            return False
        if home is None or home == self.node:
            return False
        if not await self.speaks(home):  # a rolling upgrade: reconnect to a node that can
            client.close(*self._other_version(home))
            return True
        if isinstance(client.ws, RelayPort):  # served here for another node's socket:
            port = client.ws  # that node sends it on to the room's or queue's node instead
            await self.publish(port.node, {"k": "move", "a": client.account_id, "c": port.cid,
                                           "to": home, "t": self._text(msg)})
            return True
        moved = _Moved(client, home, secrets.token_hex(8))
        self.moved[client.account_id] = moved
        await self.publish(home, {"k": "attach", "a": client.account_id, "n": self.node,
                                  "c": moved.cid, "h": client.token_hash, "addr": client.address})
        await self._forward(moved, msg)
        return True

    @staticmethod
    def _text(msg: Any) -> str:
        fields = msg.model_dump(mode="json", by_alias=True, exclude_none=True)
        return json.dumps(fields, separators=(",", ":"))

    async def _forward(self, moved: _Moved, msg: Any) -> None:
        await self.publish(moved.home, {"k": "in", "a": moved.client.account_id, "c": moved.cid,
                                        "t": self._text(msg)})

    async def _move(self, account_id: int, data: dict[str, Any]) -> None:
        """The node serving one of this node's sockets found that the account's next place
        (a room, a queue) is on node ``to``: leave the old node, attach to the new one and
        hand it the message."""
        cid, to, text = str(data["c"]), str(data["to"]), str(data["t"])
        new = secrets.token_hex(8)
        moved = self.moved.get(account_id)
        relayed = self.relayed.get(account_id)
        if not await self.speaks(to):  # a rolling upgrade: reconnect to a node that can
            if moved is not None and moved.cid == cid:
                moved.client.close(*self._other_version(to))
            elif relayed is not None and relayed.cid == cid:
                relayed.close(*self._other_version(to))
            return
        if moved is not None and moved.cid == cid:
            old, token_hash, address = moved.home, moved.client.token_hash, moved.client.address
            if to == self.node:  # back to the node that holds the socket: served here
                del self.moved[account_id]
                await self.publish(old, {"k": "detach", "a": account_id, "c": cid})
                await self.hub.dispatch(moved.client, parse_client_message(text))
                return
            moved.home, moved.cid, moved.drop_welcome = to, new, True
        elif relayed is not None and relayed.cid == cid:
            old, token_hash, address = relayed.home, relayed.token_hash, relayed.address
            relayed.home, relayed.cid, relayed.drop_welcome = to, new, True
        else:
            return
        await self.publish(old, {"k": "detach", "a": account_id, "c": cid})
        await self.publish(to, {"k": "attach", "a": account_id, "n": self.node, "c": new,
                                "h": token_hash, "addr": address})
        await self.publish(to, {"k": "in", "a": account_id, "c": new, "t": text})

    def detached(self, client: Client) -> None:
        """A local socket closed: if its account lived on another node, that node lets go."""
        moved = self.moved.get(client.account_id)
        if moved is None or moved.client is not client:
            return
        del self.moved[client.account_id]
        self.hub.background(asyncio.get_running_loop().create_task(self.publish(
            moved.home, {"k": "detach", "a": client.account_id, "c": moved.cid})))

    # ------------------------------------------------------------------ presence and relay
    async def serve_elsewhere(self, ws: WebSocket, account: Account, token_hash: str,
                              limiter: RateLimiter, address: str) -> bool:
        """Announce the new connection (closing the account's others on every node); if the
        account's table runs on another live node, relay this socket there until it closes
        and return True; otherwise False (this node serves it as usual)."""
        from redis.exceptions import RedisError

        cid = secrets.token_hex(8)
        try:
            # ``wm:conn`` names the account's newest connection: a node that was not
            # listening when the kick went out (Redis restarted) finds it when it is back.
            pipe = self.redis.pipeline(transaction=False)
            pipe.set(f"wm:conn:{account.id}", f"{self.node} {cid}", px=CONN_MS)
            pipe.publish(self.kick_channel, json.dumps({"a": account.id, "n": self.node, "c": cid}))
            await pipe.execute()
            home = await self._home(account.id)
            other = home is not None and home != self.node and not await self.speaks(home)
        except RedisError as e:  # Redis is away: say so at once, the client tries again
            log.warning("a connection of account %s refused: Redis does not answer (%s)",
                        account.id, e)
            with contextlib.suppress(Exception):
                await ws.send_text(encode(ErrorMsg(
                    code="busy", message="the server cannot place this connection now: "
                    "try again in a moment")))
                await ws.close(OVERLOADED_CLOSE_CODE, "cluster store unreachable")
            return True
        self.announced[account.id] = cid
        if home is None or home == self.node:
            return False
        if other:  # a rolling upgrade: the client reconnects to a node of the table's version
            with contextlib.suppress(Exception):
                await ws.close(*self._other_version(home))
            return True
        await self._relay(ws, account, home, cid, token_hash, limiter, address)
        return True

    async def _sweep_replaced(self) -> None:
        """Close this node's sockets whose account connected again elsewhere while this
        node was not listening (``wm:conn`` names another connection)."""
        ours = {a: c for a, c in self.announced.items() if a in self.relayed or a in self.hub.clients}
        if not ours:
            return
        newest = await self.redis.mget([f"wm:conn:{a}" for a in ours])
        for (account_id, cid), value in zip(ours.items(), newest, strict=True):
            if value is None or self.announced.get(account_id) != cid:
                continue  # unknown, or connected here again meanwhile
            node, other = str(value).split(" ", 1)
            if other != cid:
                self._kicked({"a": account_id, "n": node, "c": other})

    async def _relay(self, ws: WebSocket, account: Account, home: str, cid: str,
                     token_hash: str, limiter: RateLimiter, address: str) -> None:
        relayed = _RelayedSocket(ws, account.id, home, cid, token_hash, address)
        old = self.relayed.get(account.id)
        if old is not None:
            old.close(4000, "replaced by a new connection")
        self.relayed[account.id] = relayed
        cfg = self.hub.config
        writer = asyncio.get_running_loop().create_task(self._relay_writer(relayed))
        await self.publish(home, {"k": "attach", "a": account.id, "n": self.node, "c": cid,
                                  "h": token_hash, "addr": address})
        try:
            while not writer.done():
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                if not limiter.allow():
                    if limiter.abusive:
                        await ws.send_text(encode(ErrorMsg(code="rate_limited",
                                                           message="too many messages: closing")))
                        relayed.close(1008, "rate limit exceeded")
                        break
                    await ws.send_text(encode(ErrorMsg(
                        code="rate_limited", params={"rate": cfg.msg_rate},
                        message=f"too many messages (at most {cfg.msg_rate:g} a second)")))
                    continue
                if not isinstance(text, str) or len(text) > cfg.max_message_bytes:
                    await ws.send_text(encode(ErrorMsg(
                        code="too_large" if isinstance(text, str) else "binary_frame",
                        params={"max": cfg.max_message_bytes} if isinstance(text, str) else {},
                        message="a message is one JSON text frame of at most "
                                f"{cfg.max_message_bytes} bytes")))
                    continue
                await self.publish(relayed.home, {"k": "in", "a": account.id, "c": relayed.cid,
                                                  "t": text})
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            if self.relayed.get(account.id) is relayed:
                del self.relayed[account.id]
            with contextlib.suppress(Exception):
                await self.publish(relayed.home, {"k": "detach", "a": account.id,
                                                  "c": relayed.cid})
            relayed.close(relayed.close_code, relayed.close_reason)
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(writer, 5)

    @staticmethod
    async def _relay_writer(relayed: _RelayedSocket) -> None:
        try:
            while True:
                text = await relayed.frames.get()
                if text is None:
                    break
                await relayed.ws.send_text(text)
        except Exception:  # the peer went away
            pass
        finally:
            with contextlib.suppress(Exception):
                await relayed.ws.close(relayed.close_code, relayed.close_reason)

    async def _watch_relays(self) -> None:
        """Close relayed sockets whose home node died: the client reconnects (as after a
        restart) and lands on the node that took its table over."""
        alive: dict[str, bool] = {}  # one look per node, not per socket
        for home in {r.home for r in self.relayed.values()} | {m.home for m in self.moved.values()}:
            alive[home] = await self.alive(home)
        for relayed in list(self.relayed.values()):
            if not alive.get(relayed.home, True):
                relayed.close(1012, "server restarting: reconnect to resume your match")
        for moved in list(self.moved.values()):
            if not alive.get(moved.home, True):
                moved.client.close(1012, "server restarting: reconnect to resume your match")

    # ------------------------------------------------------------------ the listener
    async def _listen(self, pubsub: Any) -> None:
        """Handle what other nodes send; after a lost Redis connection, subscribe again
        (at once, then every ``heartbeat / 4`` while Redis is away) and close the sockets
        replaced meanwhile."""
        lost = False
        while True:
            if lost:
                with contextlib.suppress(Exception):
                    pubsub = self.redis.pubsub()
                    await pubsub.subscribe(*self.channels)
                    await self._sweep_replaced()
            try:
                await self._listen_once(pubsub)
            except asyncio.CancelledError:
                raise
            except Exception as e:
                if not lost:
                    log.warning("cluster channel lost (%s): subscribing again", e)
                self.healthy_since = None
            lost = True
            await asyncio.sleep(self.heartbeat / 4)

    async def _listen_once(self, pubsub: Any) -> None:
        try:
            async for message in pubsub.listen():
                if message.get("type") != "message":
                    continue
                try:
                    channel = message["channel"]
                    if channel == self.kick_channel:
                        self._kicked(json.loads(message["data"]))
                    elif channel == self.logout_channel:
                        self._logged_out(json.loads(message["data"]))
                    elif channel == self.deliver_channel:
                        self._delivered(json.loads(message["data"]))
                    else:
                        for packed in _unbatch(message["data"]):
                            self._route(_unpack(packed))
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("bad cluster message %r", message.get("data"))
        finally:
            with contextlib.suppress(Exception):
                await pubsub.aclose()

    def _route(self, data: dict[str, Any]) -> None:
        """Handle a relayed message without holding up the others: each account has its
        own lane (its messages are handled one at a time, in order: a seat's actions and
        frames keep their order), and at most :data:`RELAY_CONCURRENCY` lanes run at once.
        A frame for a socket here (``out``, ``close``) needs no wait and is handled at once
        unless its account's lane has messages waiting."""
        account_id = int(data["a"])
        lane = self.lanes.get(account_id)
        if lane is not None:
            lane.append(data)
        elif data["k"] in ("out", "close"):
            self._deliver(data)
        else:
            self.lanes[account_id] = deque([data])
            task = asyncio.get_running_loop().create_task(self._drain(account_id))
            self.writers.add(task)
            task.add_done_callback(self.writers.discard)

    async def _drain(self, account_id: int) -> None:
        lane = self.lanes[account_id]
        try:
            async with self.lane_slots:
                while lane:
                    try:
                        await self._received(lane[0])
                    except asyncio.CancelledError:
                        raise
                    except Exception:
                        log.exception("relayed message %r failed", lane[0])
                    lane.popleft()
        finally:
            del self.lanes[account_id]

    def logout(self, account_id: int, token_hash: str | None) -> None:
        """A logout or a password change here: the account's sockets (of that session, when
        ``token_hash`` is given) close on every node, as they do on this one."""
        message = json.dumps({"a": account_id, "h": token_hash, "n": self.node})

        async def publish() -> None:
            await self.redis.publish(self.logout_channel, message)

        self.hub.background(asyncio.get_running_loop().create_task(publish()))

    def deliver(self, account_id: int, text: str) -> None:
        """Send a frame to the account's socket: here if this node holds it, else every
        node is asked (channel ``deliver``) and the one holding it sends it."""
        if self._deliver_here(account_id, text):
            return
        message = json.dumps({"a": account_id, "t": text, "n": self.node})

        async def publish() -> None:
            await self.redis.publish(self.deliver_channel, message)

        self.hub.background(asyncio.get_running_loop().create_task(publish()))

    def _deliver_here(self, account_id: int, text: str) -> bool:
        """Send ``text`` to the account's socket if this node holds it (a socket served here,
        or one relayed from here to its table's node); whether it did."""
        client = self.hub.clients.get(account_id)
        if client is not None and not isinstance(client.ws, RelayPort):
            client.send_text(text)
            return True
        relayed = self.relayed.get(account_id)
        if relayed is not None:
            relayed.frames.put_nowait(text)
            return True
        return False

    def _delivered(self, data: dict[str, Any]) -> None:
        if data["n"] == self.node:
            return
        if "reseat" in data:
            self._reseat_here(int(data["a"]), str(data["reseat"]))
        else:
            self._deliver_here(int(data["a"]), str(data["t"]))

    def reseat(self, account_ids: Collection[int]) -> None:
        """A table here seats these accounts, whose sockets are not this node's own (a
        tournament's round): the node holding each socket (another, or this one relaying it
        to an earlier table's node) closes it for the client to reconnect, and the
        reconnection is relayed here (the account's home)."""
        for account_id in account_ids:  # a socket here relayed to an earlier table's node
            self._reseat_here(account_id, self.node)
        messages = [json.dumps({"a": a, "reseat": self.node, "n": self.node})
                    for a in account_ids]
        accounts = list(account_ids)

        async def publish() -> None:
            # their homes first (the table's own write of them may still be on its way): a
            # socket closed by this message reconnects and is looked up at once
            await self._mark_homes(accounts)
            for message in messages:
                await self.redis.publish(self.deliver_channel, message)

        self.hub.background(asyncio.get_running_loop().create_task(publish()))

    def _reseat_here(self, account_id: int, home: str) -> None:
        """Close this node's socket of the account unless it already goes to ``home``."""
        relayed = self.relayed.get(account_id)
        if relayed is not None:
            if relayed.home != home:
                relayed.close(1012, "your table is on another server: reconnect")
            return
        client = self.hub.clients.get(account_id)
        if client is None or isinstance(client.ws, RelayPort):
            return
        moved = self.moved.get(account_id)
        if moved is not None and moved.home == home:
            return
        client.close(1012, "your table is on another server: reconnect")

    async def seated_somewhere(self, account_ids: Sequence[int]) -> set[int]:
        """Which of ``account_ids`` sit at a table on some node (``wm:seat``)."""
        if not account_ids:
            return set()
        found = await self.redis.mget([f"wm:seat:{a}" for a in account_ids])
        return {a for a, node in zip(account_ids, found, strict=True) if node is not None}

    def _logged_out(self, data: dict[str, Any]) -> None:
        if data["n"] == self.node:
            return
        client = self.hub.clients.get(int(data["a"]))
        if client is None or (data["h"] is not None and client.token_hash != data["h"]):
            return
        client.send(NoticeMsg(code="logged_out", message="this session has ended (logged out)"))
        client.close(4401, "logged out")

    def _kicked(self, data: dict[str, Any]) -> None:
        """Another connection of the account opened (``n``: on which node, ``c``: its id)."""
        account_id, node, cid = int(data["a"]), str(data["n"]), str(data["c"])
        relayed = self.relayed.get(account_id)
        if relayed is not None and relayed.cid != cid:
            relayed.frames.put_nowait(encode(NoticeMsg(
                code="replaced", message="this account connected again elsewhere")))
            relayed.close(4000, "replaced by a new connection")
        if node == self.node:
            return  # a local replacement is the hub's own (Hub.attach)
        client = self.hub.clients.get(account_id)
        if client is not None and not isinstance(client.ws, RelayPort):
            client.send(NoticeMsg(code="replaced", message="this account connected again elsewhere"))
            client.close(4000, "replaced by a new connection")

    def _deliver(self, data: dict[str, Any]) -> None:
        """A frame (``out``) or a close from the node serving one of this node's sockets."""
        kind, account_id, cid = data["k"], int(data["a"]), str(data["c"])
        moved = self.moved.get(account_id)
        if moved is not None and moved.cid == cid:
            if kind == "close":
                moved.client.close(int(data["code"]), str(data["reason"]))
            elif not _dropped_welcome(moved, str(data["t"])):
                moved.client.send_text(str(data["t"]))
            return
        relayed = self.relayed.get(account_id)
        if relayed is None or relayed.cid != cid:
            return
        if kind == "out":
            if not _dropped_welcome(relayed, str(data["t"])):
                relayed.frames.put_nowait(str(data["t"]))
        else:
            relayed.close(int(data["code"]), str(data["reason"]))

    async def _received(self, data: dict[str, Any]) -> None:
        kind, account_id, cid = data["k"], int(data["a"]), str(data["c"])
        if kind in ("out", "close"):
            self._deliver(data)
            return
        if kind == "move":
            await self._move(account_id, data)
            return
        hub = self.hub
        if kind == "attach":
            from .hub import Client

            account = await hub.fresh_account(account_id)
            staff = await hub.staff_role(account)
            port = RelayPort(self, account_id, str(data["n"]), cid)
            client = Client(hub, cast(WebSocket, port), account)
            client.token_hash = str(data["h"])
            client.address = str(data["addr"])
            hub.addresses[account_id] = client.address
            writer = asyncio.get_running_loop().create_task(client.writer())
            self.writers.add(writer)
            writer.add_done_callback(self.writers.discard)
            self.remote[(account_id, cid)] = client
            hub.attach(client, account, staff)
        elif kind == "in":
            sender = self.remote.get((account_id, cid))
            if sender is None or sender.closed:
                return
            try:
                msg = parse_client_message(str(data["t"]))
            except ProtocolError as e:
                sender.send(ErrorMsg(code=e.code, message=str(e), params=e.params, ref=e.ref))
                return
            await hub.dispatch(sender, msg)
        elif kind == "detach":
            gone = self.remote.pop((account_id, cid), None)
            if gone is not None:
                hub.detach(gone)
                gone.close(gone.close_code if gone.closed else 1000, gone.close_reason)
