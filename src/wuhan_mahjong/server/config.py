"""Server settings: one frozen object built by ``wuhan-mahjong serve`` (or by a test)."""

from __future__ import annotations

import dataclasses
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..rules import OPTION_BOUNDS, PROFILES

__all__ = ["CLUSTER_HEARTBEAT_BOUNDS", "CLUSTER_TTL_BEATS", "CLUSTER_TTL_MAX", "DB_ENV", "HANDS_MAX",
           "REDIS_ENV", "STAKE_MAX", "ServerConfig", "calendar_zone", "database_url", "default_bot",
           "normalize_db_url", "redis_url"]

HANDS_MAX = 64
"""The most hands a match may have: a room's ``hands`` and the server's ``quick_hands``."""
STAKE_MAX = 1_000_000
"""The largest stake (silver per point): a room's ``stake`` and the server's ``quick_stake``.
A capped hand moves at most three times the largest cap an option allows (10,000 points),
so at this stake at most 3 × 10¹⁰ silver, far inside the ledger's exact range (2⁵³ − 1);
a stake past it made the settlement of a big hand fail (the hand voided, the table ended
as an error)."""

DB_ENV = "WUHAN_MAHJONG_DB"
"""Environment variable naming the database when ``--db`` is not given."""

DB_FILE = "wuhan_mahjong.db"

REDIS_ENV = "WUHAN_MAHJONG_REDIS"
"""Environment variable naming the Redis of a cluster when ``--redis`` is not given."""

CLUSTER_HEARTBEAT_BOUNDS = (0.05, 60.0)
"""The shortest and longest ``cluster_heartbeat`` (seconds): each beat is a few Redis round
trips and a database query, and a beat a minute apart keeps nothing alive for players."""
CLUSTER_TTL_BEATS = 3
"""``cluster_ttl`` is at least this many heartbeats, so that one late beat (a loaded machine)
does not let a live node's leases expire and its tables be taken over."""
CLUSTER_TTL_MAX = 600.0
"""The longest ``cluster_ttl`` (seconds): a dead node's tables wait this long for a survivor."""


@dataclass(frozen=True)
class ServerConfig:
    """Every tunable of the game server (``docs/server.md`` lists the CLI flags).

    Times are in seconds.  ``claim_seconds`` / ``turn_seconds`` override the
    rules' timers on every table (tests use tiny ones); ``None`` keeps each
    table's own rules (the profile's, or the room's override).
    """

    host: str = "127.0.0.1"
    port: int = 8000
    data_dir: Path = Path("data")
    db_url: str | None = None
    redis_url: str | None = None
    """``redis://HOST:PORT/N``: this process is one node of a cluster sharing the database and
    this Redis (docs/cluster.md); ``None`` (and no ``$WUHAN_MAHJONG_REDIS``): one process alone."""
    cluster_heartbeat: float = 1.0
    """Cluster only: seconds between two heartbeats of this node, each renewing its presence,
    its tables' leases, its players' homes and its rooms' codes in Redis, and looking for the
    matches of dead nodes to take over (docs/cluster.md)."""
    cluster_ttl: float = 5.0
    """Cluster only: life of what a heartbeat renews: a node silent this long is dead and its
    tables run again on a survivor within about ``cluster_ttl + cluster_heartbeat``.  At least
    :data:`CLUSTER_TTL_BEATS` heartbeats: a node whose event loop stalls past it loses its
    leases (its tables stop and move to another node)."""
    bot: str | None = None
    """Bot policy for bot seats and auto-play (托管); ``None``: the strongest that fits in half of
    ``bot_delay`` (``default_bot``)."""
    bot_wait: float = 5.0
    """Quick match: seconds the first waiting player waits before bots fill the table."""
    quick_affinity: float = 1.5
    """Cluster only: seconds a quick-match player waits with the players connected to the
    same node before joining the cluster's queue on another node.  Four of them make a table
    on their own node, where nothing is relayed (docs/cluster.md); 0: straight to the
    cluster's queue."""
    bot_delay: float = 0.8
    """Seconds a bot (or an auto-played seat) waits before it acts."""
    bot_worker: Literal["thread", "process", "inline"] = "process"
    """Where bot seats and auto-play (托管) decide (``server/bot_worker.py``): a pool of
    ``bot_workers`` processes (policies that keep state between decisions run in threads), a
    pool of that many threads (measured worse than inline: the GIL), or ``inline`` in the
    event loop (the old path, which holds every table of the node while a bot thinks)."""
    bot_workers: int = 2
    """Processes (or threads) of the bot worker pool: bot decisions run at most this many at
    a time on this node."""
    bot_cap: float = 2.0
    """Wall-clock safety net of one bot decision, in seconds from the moment it was asked
    (at the earliest the bot's due time): past it the seat plays a greedy decision instead,
    counted in ``/metrics`` (``bot_cap_hits``).  Never reached by a healthy node: decisions
    are bounded by work."""
    claim_hold: float = 1.0
    """Every claim window (and 海底 decision) stays open at least this long, whoever may claim."""
    claim_seconds: float | None = None
    turn_seconds: float | None = None
    hand_pause: float = 10.0
    """Pause between two hands of a match, the settlement on screen; it ends as soon as
    every player at the table says he is ready for the next hand (``next_hand``, 继续), as
    the apps' 准备 between hands does.  (3 s, before there was 继续, was too short to read a
    settlement of three payments.)"""
    quick_profile: str = "yuanhang"
    quick_hands: int = 4
    quick_stake: int = 1
    """Silver per point at silver quick-match tables (free tables: 0)."""
    quick_silver_distinct_addresses: bool = True
    """A silver quick-match table seats four players connected from four different addresses
    (同IP不同桌): a player waits for others rather than meet, for silver, another account
    connected from his address (his own, or a housemate's).  Free tables and private rooms
    seat anyone."""
    fee: int | None = None
    """Service fee F per finished match at silver tables; ``None``: the profile's ``service_fee``."""
    starting_silver: int = 1000
    """Silver of a new account or guest: the sign-up grant, a named ledger source."""
    daily_allowance: int = 0
    """Silver granted to a registered account once a day (of ``timezone``), when it first
    connects that day (a named ledger source, ``daily_allowance``); 0: none (the default)."""
    timezone: str = "Asia/Shanghai"
    """The platform's calendar, an IANA time zone: its midnight starts the day of the daily
    allowance, its Monday midnight the week of the weekly leaderboard.  Wuhan's by default, so
    that a day turns when the players' day does (UTC turns at 08:00 there)."""
    msg_rate: float = 20.0
    """Token bucket: messages per second a connection may send on average."""
    msg_burst: int = 40
    abuse_limit: int = 60
    """Rejected (rate-limited) messages within ``abuse_window`` seconds that close the connection."""
    abuse_window: float = 10.0
    login_failures: int = 5
    """Failed logins of one username from one address within ``login_window`` seconds
    after which further attempts are refused (429) until the window passes; 0: no limit."""
    login_failures_per_client: int = 30
    """The same for failed logins of any username from one address."""
    login_window: float = 300.0
    calc_rate: float = 5.0
    """Calculator API (``/api/score``, ``/api/hand``): requests per second per client address."""
    calc_burst: int = 30
    """Calculator requests one address may make at once before ``calc_rate`` applies (429)."""
    replay_rate: float = 10.0
    """Replays (``server/replays.py``: public hands, replay frames, the publish switch),
    a player's own match records (``/api/matches/...``) and the live-table list: requests
    per second per client address (``replay_burst`` at once; 429 beyond)."""
    replay_burst: int = 60
    puzzle_rate: float = 1.0
    """Puzzles (``server/puzzles_api.py``: positions and answers, each found once per node by
    bots' play): requests per second per account, or per client address without one
    (``puzzle_burst`` at once; 429 beyond)."""
    puzzle_burst: int = 30
    spectator_delay_moves: int = 3
    """Spectators see each move this many moves late (``server/spectate.py``), so watching
    cannot help a player; 0: live.  A hand's end is shown at once."""
    spectators_per_table: int = 50
    """Watchers one table may have at once (``watchers_full`` beyond)."""
    watch_rate: float = 1.0
    """``watch`` messages per second per account (``watch_burst`` at once)."""
    watch_burst: int = 5
    forwarded_allow_ips: tuple[str, ...] = ()
    """Addresses of the reverse proxies whose ``X-Forwarded-For`` / ``X-Forwarded-Proto``
    are believed (uvicorn's ``forwarded_allow_ips``); empty (the default): none, every
    limit counts the TCP peer's address."""
    register_per_hour: int = 10
    """Accounts one address may register per hour (``/api/register``, 429 beyond)."""
    guests_per_hour: int = 20
    """Guest accounts one address may create per hour (``/api/guest``, 429 beyond)."""
    hint_rate: float = 1.0
    """Hints (``/api/hint``) per second per account, and four times that per address."""
    hint_burst: int = 5
    abandon_seconds: float = 120.0
    """A table at which no player has been connected for this long is abandoned: its
    players escape (the escape rules) and the match ends after the hand in progress."""
    end_vote_seconds: float = 60.0
    """How long the players at a table have to answer a request to end the match early
    (申请解散, ``server/end_vote.py``); who has not answered by then agrees."""
    room_grace_seconds: float = 90.0
    """How long a private room holds the place of a member whose connection dropped (a
    reload, a phone moving from Wi-Fi to mobile data): he is shown away and not ready, and
    is in the room again when he is back within it; then he leaves it.  0: at once.  (A
    quick-match queue lets a dropped player go at once: joining it again costs nothing.)"""
    tables_per_address: int = 8
    """Running tables with a player from one address; a new queue, room or table from
    that address waits until one ends.  (Each account is at one place at a time.)"""
    max_tables: int = 0
    """Admission control: running tables at which this node refuses new tables and new
    connections (``busy``, reason ``overloaded``; ``/readyz`` 503); 0: no cap."""
    max_loop_lag: float = 1.0
    """Admission control: event-loop lag (seconds, a moving average) at which this node
    refuses new tables and connections the same way; 0: not watched."""
    metrics_audit_seconds: float = 30.0
    """``/metrics`` reuses the ledger audit (a scan of the whole ledger) for this long: a
    scrape costs at most one audit per period, however often it comes; 0: every scrape."""
    db_outage_seconds: float = 60.0
    """A table that cannot reach the database (a restart, a failover, a dropped connection)
    waits for it this long, trying again with growing pauses, before it stops its match
    (``server/outage.py``); its players see the table pause meanwhile.  0: no waiting."""
    max_message_bytes: int = 4096
    auth_timeout: float = 10.0
    send_queue: int = 512
    """Frames queued for one slow client before the server drops the connection."""
    web_dir: Path | None = None
    """Static files served at ``/``; ``None``: the package's ``web/`` folder."""

    def __post_init__(self) -> None:
        if self.quick_profile not in PROFILES:
            raise ValueError(f"unknown profile '{self.quick_profile}'")
        for f in dataclasses.fields(self):  # no nan or infinity: each is a time or a rate
            value = getattr(self, f.name)
            if isinstance(value, float) and not math.isfinite(value):
                raise ValueError(f"{f.name} must be a finite number, not {value}")
        for name in ("bot_wait", "quick_affinity", "bot_delay", "claim_hold", "hand_pause",
                     "db_outage_seconds"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0")
        for name in ("claim_seconds", "turn_seconds"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"{name} must be > 0")
        if self.login_failures < 0 or self.login_failures_per_client < 0 or self.login_window <= 0:
            raise ValueError("login limits must be >= 0 and the login window > 0")
        if self.calc_rate <= 0 or self.calc_burst < 1:
            raise ValueError("calc_rate must be > 0 and calc_burst >= 1")
        if self.replay_rate <= 0 or self.replay_burst < 1:
            raise ValueError("replay_rate must be > 0 and replay_burst >= 1")
        if self.puzzle_rate <= 0 or self.puzzle_burst < 1:
            raise ValueError("puzzle_rate must be > 0 and puzzle_burst >= 1")
        if self.daily_allowance < 0 or self.register_per_hour < 0 or self.guests_per_hour < 0:
            raise ValueError("daily_allowance and the sign-up limits must be >= 0")
        if self.hint_rate <= 0 or self.hint_burst < 1:
            raise ValueError("hint_rate must be > 0 and hint_burst >= 1")
        if not 0 < self.end_vote_seconds <= 3600:
            raise ValueError("end_vote_seconds must be > 0 and at most 3600")
        if not 0 <= self.room_grace_seconds <= 3600:
            raise ValueError("room_grace_seconds must be >= 0 and at most 3600")
        if not 0 < self.abandon_seconds < float("inf") or self.tables_per_address < 1:
            raise ValueError("abandon_seconds must be > 0 and tables_per_address >= 1")
        if self.max_tables < 0 or self.max_loop_lag < 0:
            raise ValueError("max_tables and max_loop_lag must be >= 0")
        if not 0 <= self.metrics_audit_seconds < float("inf"):
            raise ValueError("metrics_audit_seconds must be >= 0")
        if not 0 <= self.spectator_delay_moves <= 1000 or self.spectators_per_table < 0:
            raise ValueError("spectator_delay_moves must be in 0..1000, spectators_per_table >= 0")
        if self.watch_rate <= 0 or self.watch_burst < 1:
            raise ValueError("watch_rate must be > 0 and watch_burst >= 1")
        if self.bot_workers < 1 or not 0 < self.bot_cap < float("inf"):
            raise ValueError("bot_workers must be >= 1 and bot_cap > 0")
        low, high = CLUSTER_HEARTBEAT_BOUNDS
        if not low <= self.cluster_heartbeat <= high:
            raise ValueError(f"cluster_heartbeat must be in {low:g}..{high:g} seconds, "
                             f"not {self.cluster_heartbeat:g}")
        if not CLUSTER_TTL_BEATS * self.cluster_heartbeat <= self.cluster_ttl <= CLUSTER_TTL_MAX:
            raise ValueError(f"cluster_ttl must be at least {CLUSTER_TTL_BEATS} heartbeats "
                             f"({CLUSTER_TTL_BEATS} x cluster_heartbeat = "
                             f"{CLUSTER_TTL_BEATS * self.cluster_heartbeat:g} s) and at most "
                             f"{CLUSTER_TTL_MAX:g} s, not {self.cluster_ttl:g}")
        if not 1 <= self.quick_hands <= HANDS_MAX:
            raise ValueError(f"quick_hands must be in 1..{HANDS_MAX}")
        if not 0 <= self.quick_stake <= STAKE_MAX:
            raise ValueError(f"quick_stake must be in 0..{STAKE_MAX}")
        calendar_zone(self.timezone)  # raises ValueError for a name that is not a zone
        fee_low, fee_high = OPTION_BOUNDS["service_fee"]
        if self.fee is not None and not fee_low <= self.fee <= fee_high:
            raise ValueError(f"fee must be in {fee_low:g}..{fee_high:g}")


def calendar_zone(name: str) -> ZoneInfo:
    """The IANA time zone ``name`` (the ``timezone`` setting); ``ValueError`` if there is none.

    >>> calendar_zone("Asia/Shanghai").key
    'Asia/Shanghai'
    >>> calendar_zone("Mars/Olympus")
    Traceback (most recent call last):
    ...
    ValueError: unknown time zone 'Mars/Olympus' (an IANA name such as Asia/Shanghai or UTC)
    """
    try:
        return ZoneInfo(name)
    except (ValueError, ZoneInfoNotFoundError, OSError):  # OSError: a name the OS cannot open
        raise ValueError(f"unknown time zone {name[:64]!r} (an IANA name such as "
                         "Asia/Shanghai or UTC)") from None


def normalize_db_url(url: str) -> str:
    """Map ``postgresql://`` and ``postgres://`` to SQLAlchemy's psycopg 3 driver.

    >>> normalize_db_url("postgresql://u:p@h/db")
    'postgresql+psycopg://u:p@h/db'
    >>> normalize_db_url("sqlite:///x.db")
    'sqlite:///x.db'
    """
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


def database_url(config: ServerConfig) -> str:
    """``--db``, else ``$WUHAN_MAHJONG_DB``, else an SQLite file in the data folder."""
    url = config.db_url or os.environ.get(DB_ENV)
    if url:
        return normalize_db_url(url)
    path = (config.data_dir / DB_FILE).expanduser().resolve()
    return f"sqlite:///{path}"


def redis_url(config: ServerConfig) -> str | None:
    """``--redis``, else ``$WUHAN_MAHJONG_REDIS``, else ``None`` (no cluster)."""
    url = config.redis_url or os.environ.get(REDIS_ENV) or None
    if url is not None and not url.startswith(("redis://", "rediss://", "unix://")):
        raise ValueError(f"a Redis URL starts with redis://, rediss:// or unix://, not {url!r}")
    return url


def default_bot(think_seconds: float = 0.8) -> str:
    """The strongest bot whose decisions fit in half of ``think_seconds`` (the seconds a bot
    seat or an auto-played seat waits before it acts, ``bot_delay``) by their measured
    99th percentile of CPU time (``wuhan_mahjong.bots.best_bot``); at least greedy (2 ms)."""
    from ..bots import best_bot

    return best_bot(max(think_seconds * 1000 / 2, 2.0))
