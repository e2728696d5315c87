"""The HTTP abuse limits of a cluster, counted in Redis so that every node sees every attempt:
the login guard (:class:`~wuhan_mahjong.server.ratelimit.LoginLimits`) and the per-address
token buckets of sign-ups, guests, hints and the calculator
(:class:`~wuhan_mahjong.server.calculator.AddressLimits`), behind the same interfaces.

Each check is one Lua script run atomically by Redis on Redis's clock (``TIME``), so nodes
with slightly different clocks still agree.  The calls go through the asyncio client
(:func:`~wuhan_mahjong.server.cluster.connect_redis`): the event loop never waits on Redis.
(The running tables per address, the other per-address limit, are counted by
:meth:`~wuhan_mahjong.server.cluster.Cluster.tables_elsewhere`.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette

from .config import ServerConfig

if TYPE_CHECKING:
    from redis.asyncio import Redis

__all__ = ["RedisAddressLimiter", "RedisLoginGuard", "share_limits"]

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
    """:class:`~wuhan_mahjong.server.calculator.AddressLimits` with its buckets in Redis."""

    def __init__(self, redis: Redis, name: str, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self.prefix = f"wm:limit:{name}:"
        self._script = redis.register_script(_BUCKET)

    async def check(self, key: str) -> float:
        """0 when this request may go ahead (and it is counted); else seconds to wait."""
        return float(await self._script(keys=[self.prefix + key], args=[self.rate, self.burst]))


class RedisLoginGuard:
    """:class:`~wuhan_mahjong.server.ratelimit.LoginLimits` with its failures in Redis: the
    same limits per (address, username) and per address, counted over every node."""

    def __init__(self, redis: Redis, per_account: int, per_client: int, window: float) -> None:
        self.redis = redis
        self.per_account = per_account
        self.per_client = per_client
        self.window = window
        self._recent = redis.register_script(_RECENT)
        self._failed = redis.register_script(_FAILED)

    @staticmethod
    def _keys(client: str, username: str) -> list[str]:
        return [f"wm:login:{client}:{username.casefold()}", f"wm:login:{client}"]

    async def check(self, client: str, username: str) -> float:
        """Seconds until a login may be tried again (0: now)."""
        return float(await self._recent(keys=self._keys(client, username),
                                        args=[self.window, self.per_account, self.per_client]))

    async def record(self, client: str, username: str, *, ok: bool) -> None:
        """A success clears the username's failures from that client; a failure counts."""
        if ok:
            await self.redis.delete(self._keys(client, username)[0])
        else:
            await self._failed(keys=self._keys(client, username), args=[self.window])


def share_limits(app: Starlette, url: str, cfg: ServerConfig) -> None:
    """Count the app's login guard and sign-up, guest, hint and calculator limits in Redis at
    ``url`` (a cluster node), in place of the process's own counters."""
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
