"""The abuse limits of a cluster, counted in Redis so that every node sees every attempt:
the login guard (:class:`~wuhan_mahjong.server.ratelimit.LoginLimits`) and the per-address or
per-account token buckets (:class:`~wuhan_mahjong.server.calculator.AddressLimits`) of
sign-ups, guests, hints, the calculator, the replays (``/api/public/hands/...``, a hand's
frames), the live-table list (``/api/tables/live``) and the ``watch`` message.

Each limit has one interface and two implementations, chosen once at start-up
(:func:`share_limits` replaces the process's own ones on a cluster node): the handlers
never know which one counts.

* **One Lua script per check**, run atomically by Redis on Redis's clock (``TIME``), so
  nodes with slightly different clocks still agree.  The calls go through the asyncio
  client (:func:`~wuhan_mahjong.server.cluster.connect_redis`): the event loop never waits
  on Redis.
* **A node-local fast path.**  Every shared limiter keeps the node's own bucket too
  (:class:`~wuhan_mahjong.server.calculator.AddressLimiter`), counting the requests this
  node let through.  Those are a part of what Redis counts, at the same rate, so when the
  node's bucket is empty the cluster's is too: the request is refused at once, without a
  round trip (a flood from one address costs Redis nothing).  Only a request the node's
  bucket admits asks Redis; if Redis refuses it, the node's token is given back.
* **Redis unreachable.**  As the running tables per address do
  (:meth:`~wuhan_mahjong.server.cluster.Cluster.tables_elsewhere`), a limit then counts
  this node's requests only (its own bucket or failures, always kept), and says so in the
  log (a warning per limit at most every :data:`WARN_EVERY` seconds): no request fails
  because of Redis, and none goes through unlimited.

What is *not* here, and why (``docs/cluster.md``, "Limits"): the quick-chat bucket (every
phrase of an account is handled on the node that runs its table, so the node's bucket is
already the cluster's); the per-connection message bucket (a connection lives on one node);
admission control (:mod:`.admission`: it protects the node's own CPU); and the running
tables per address, counted by :meth:`~wuhan_mahjong.server.cluster.Cluster.tables_elsewhere`.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette

from .calculator import AddressLimiter
from .config import ServerConfig
from .export_api import EXPORT_BURST, EXPORT_RATE
from .ratelimit import LoginGuard
from .review_api import REVIEW_BURST, REVIEW_RATE

if TYPE_CHECKING:
    from redis.asyncio import Redis

__all__ = ["WARN_EVERY", "RedisAddressLimiter", "RedisLoginGuard", "share_limits"]

log = logging.getLogger("wuhan_mahjong.server.cluster")

WARN_EVERY = 60.0
"""Seconds between two warnings of one limit that Redis does not answer."""


def _redis_errors() -> type[Exception]:
    """redis-py's errors (imported here: the ``redis`` extra is a cluster node's only)."""
    from redis.exceptions import RedisError

    return RedisError


class _Unreachable:
    """Logs, at most every :data:`WARN_EVERY` seconds, that a limit counts this node only."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.warned = float("-inf")
        self.missed = 0

    def __call__(self, error: Exception) -> None:
        self.missed += 1
        now = time.monotonic()
        if now - self.warned >= WARN_EVERY:
            self.warned = now
            log.warning("limit %s counted on this node only (%d check(s) since the last "
                        "warning): Redis does not answer: %s", self.name, self.missed, error)
            self.missed = 0


_BUCKET = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local b = redis.call('HMGET', KEYS[1], 'tokens', 'stamp')
local tokens, stamp = tonumber(b[1]), tonumber(b[2])
if tokens == nil then tokens, stamp = burst, now end
tokens = math.min(burst, tokens + (now - stamp) * rate)
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = (1 - tokens) / rate end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'stamp', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return tostring(wait)
"""
"""A token bucket (``rate`` per second, ``burst`` at most): 0 or the seconds to wait."""

_RECENT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local window = tonumber(ARGV[1])
local wait = 0
for i, key in ipairs(KEYS) do
  local limit = tonumber(ARGV[i + 1])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  if limit > 0 and redis.call('ZCARD', key) >= limit then
    local oldest = redis.call('ZRANGE', key, -limit, -limit, 'WITHSCORES')
    wait = math.max(wait, tonumber(oldest[2]) + window - now)
  end
end
return tostring(wait)
"""
"""Failures of each key within the window; the wait until the oldest counted one leaves it."""

_FAILED = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, now, t[1] .. '.' .. t[2] .. '.' .. redis.call('INCR', 'wm:seq'))
  redis.call('PEXPIRE', key, math.ceil(tonumber(ARGV[1]) * 1000))
end
return 1
"""


class RedisAddressLimiter:
    """:class:`~wuhan_mahjong.server.calculator.AddressLimits` with its buckets in Redis
    (``wm:limit:<name>:<key>``), behind this node's own bucket (the module's docstring)."""

    def __init__(self, redis: Redis, name: str, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self.prefix = f"wm:limit:{name}:"
        self.local = AddressLimiter(rate, burst)
        """This node's part: refuses at once when empty; the limit while Redis is away."""
        self._script = redis.register_script(_BUCKET)
        self._unreachable = _Unreachable(name)
        self._errors = _redis_errors()

    async def check(self, key: str) -> float:
        """0 when this request may go ahead (and it is counted); else seconds to wait."""
        wait = self.local.retry_after(key)
        if wait > 0:
            return wait
        try:
            wait = float(await self._script(keys=[self.prefix + key], args=[self.rate, self.burst]))
        except self._errors as e:
            self._unreachable(e)
            return 0.0  # this node's bucket admitted it
        if wait > 0:  # the other nodes spent the tokens: this node's one is given back
            bucket = self.local.buckets.get(key)
            if bucket is not None:
                bucket.tokens = min(bucket.burst, bucket.tokens + 1.0)
        return wait


class RedisLoginGuard:
    """:class:`~wuhan_mahjong.server.ratelimit.LoginLimits` with its failures in Redis: the
    same limits per (address, username) and per address, counted over every node; this
    node's own failures are kept too (a refusal without Redis, and the guard while Redis
    is away)."""

    def __init__(self, redis: Redis, per_account: int, per_client: int, window: float) -> None:
        self.redis = redis
        self.per_account = per_account
        self.per_client = per_client
        self.window = window
        self.local = LoginGuard(per_account, per_client, window)
        self._recent = redis.register_script(_RECENT)
        self._failed = redis.register_script(_FAILED)
        self._unreachable = _Unreachable("login")
        self._errors = _redis_errors()

    @staticmethod
    def _keys(client: str, username: str) -> list[str]:
        return [f"wm:login:{client}:{username.casefold()}", f"wm:login:{client}"]

    async def check(self, client: str, username: str) -> float:
        """Seconds until a login may be tried again (0: now)."""
        wait = self.local.retry_after(client, username)
        if wait > 0:
            return wait
        try:
            return float(await self._recent(keys=self._keys(client, username),
                                            args=[self.window, self.per_account, self.per_client]))
        except self._errors as e:
            self._unreachable(e)
            return 0.0

    async def record(self, client: str, username: str, *, ok: bool) -> None:
        """A success clears the username's failures from that client; a failure counts."""
        await self.local.record(client, username, ok=ok)
        try:
            if ok:
                await self.redis.delete(self._keys(client, username)[0])
            else:
                await self._failed(keys=self._keys(client, username), args=[self.window])
        except self._errors as e:
            self._unreachable(e)


def share_limits(app: Starlette, url: str, cfg: ServerConfig) -> None:
    """Count the app's login guard and its per-address and per-account limits in Redis at
    ``url`` (a cluster node), in place of the process's own counters (``app.state``; the
    lifespan hands ``state.watch_limit`` to the hub's spectating)."""
    from .cluster import connect_redis

    redis = connect_redis(url)
    state: Any = app.state
    state.login_guard = RedisLoginGuard(redis, cfg.login_failures, cfg.login_failures_per_client,
                                        cfg.login_window)
    if cfg.register_per_hour > 0:
        state.register_limit = RedisAddressLimiter(redis, "register", cfg.register_per_hour / 3600,
                                                   cfg.register_per_hour)
    if cfg.guests_per_hour > 0:
        state.guest_limit = RedisAddressLimiter(redis, "guest", cfg.guests_per_hour / 3600,
                                                cfg.guests_per_hour)
    state.hint_limit = RedisAddressLimiter(redis, "hint", cfg.hint_rate, cfg.hint_burst)
    state.hint_address_limit = RedisAddressLimiter(redis, "hint-address", 4 * cfg.hint_rate,
                                                   4 * cfg.hint_burst)
    state.calc_limit = RedisAddressLimiter(redis, "calc", cfg.calc_rate, cfg.calc_burst)
    state.replay_limit = RedisAddressLimiter(redis, "replay", cfg.replay_rate, cfg.replay_burst)
    state.live_limit = RedisAddressLimiter(redis, "live", cfg.replay_rate, cfg.replay_burst)
    state.tournament_limit = RedisAddressLimiter(redis, "tournament", cfg.replay_rate,
                                                 cfg.replay_burst)
    state.club_limit = RedisAddressLimiter(redis, "club", cfg.replay_rate, cfg.replay_burst)
    state.staff_limit = RedisAddressLimiter(redis, "staff", cfg.replay_rate, cfg.replay_burst)
    state.watch_limit = RedisAddressLimiter(redis, "watch", cfg.watch_rate, cfg.watch_burst)
    state.export_limit = RedisAddressLimiter(redis, "export", EXPORT_RATE, EXPORT_BURST)
    state.review_limit = RedisAddressLimiter(redis, "review", REVIEW_RATE, REVIEW_BURST)
    state.puzzle_limit = RedisAddressLimiter(redis, "puzzle", cfg.puzzle_rate, cfg.puzzle_burst)
