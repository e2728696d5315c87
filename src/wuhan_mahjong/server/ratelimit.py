"""Rate limiting: a token bucket plus an abuse counter per connection, and a guard
against password guessing on the HTTP login."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from typing import Protocol

__all__ = ["LoginGuard", "LoginLimits", "RateLimiter", "TokenBucket"]


class TokenBucket:
    """``rate`` tokens per second, at most ``burst`` saved up; one message costs one token.

    >>> clock = [0.0]
    >>> b = TokenBucket(rate=1, burst=2, clock=lambda: clock[0])
    >>> b.take(), b.take(), b.take()
    (True, True, False)
    >>> clock[0] = 1.0
    >>> b.take()
    True
    """

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.clock = clock
        self.stamp = clock()

    def take(self) -> bool:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


class RateLimiter:
    """A bucket, and a count of rejected messages in a sliding window: ``abusive`` once more
    than ``abuse_limit`` were rejected within ``window`` seconds (the server then closes)."""

    def __init__(self, rate: float, burst: int, abuse_limit: int, window: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.bucket = TokenBucket(rate, burst, clock)
        self.abuse_limit = abuse_limit
        self.window = window
        self.clock = clock
        self.rejected: deque[float] = deque()

    def allow(self) -> bool:
        if self.bucket.take():
            return True
        now = self.clock()
        self.rejected.append(now)
        while self.rejected and self.rejected[0] < now - self.window:
            self.rejected.popleft()
        return False

    @property
    def abusive(self) -> bool:
        return len(self.rejected) > self.abuse_limit


class LoginLimits(Protocol):
    """The login guard as the HTTP handlers use it: this process's (:class:`LoginGuard`)
    or a cluster's, counted in Redis (:class:`~.cluster_limits.RedisLoginGuard`)."""

    async def check(self, client: str, username: str) -> float:
        """Seconds until a login may be tried again (0: now)."""
        ...

    async def record(self, client: str, username: str, *, ok: bool) -> None:
        """A login (or a password check) succeeded or failed."""
        ...


class LoginGuard:
    """Failed logins in a sliding window, per (client address, username) and per client.

    Once ``per_account`` logins of one username from one client, or
    ``per_client`` logins of any username from one client, failed within
    ``window`` seconds, further attempts are refused (even with the right
    password) until the oldest failure leaves the window.  A success clears
    that username's failures from that client.  Successful logins never count,
    so players are not slowed down; a guesser gets ``per_account`` tries per
    window.  A limit of 0 switches that check off.

    >>> clock = [0.0]
    >>> g = LoginGuard(per_account=2, per_client=10, window=60, clock=lambda: clock[0])
    >>> g.failed("1.2.3.4", "Zhang"); g.failed("1.2.3.4", "zhang")
    >>> g.retry_after("1.2.3.4", "zhang"), g.retry_after("1.2.3.4", "li"), g.retry_after("5.6.7.8", "zhang")
    (60.0, 0.0, 0.0)
    >>> clock[0] = 61.0
    >>> g.retry_after("1.2.3.4", "zhang")
    0.0
    """

    def __init__(self, per_account: int, per_client: int, window: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.per_account = per_account
        self.per_client = per_client
        self.window = window
        self.clock = clock
        self.failures: dict[tuple[str, str], deque[float]] = {}

    def _recent(self, key: tuple[str, str], now: float) -> deque[float]:
        times = self.failures.get(key)
        if times is None:
            return deque()
        while times and times[0] <= now - self.window:
            times.popleft()
        if not times:
            del self.failures[key]
        return times

    def retry_after(self, client: str, username: str) -> float:
        """Seconds until a login may be tried again (0: now)."""
        now = self.clock()
        wait = 0.0
        for key, limit in (((client, username.casefold()), self.per_account),
                           ((client, ""), self.per_client)):
            times = self._recent(key, now)
            if limit and len(times) >= limit:
                wait = max(wait, times[-limit] + self.window - now)
        return wait

    def failed(self, client: str, username: str) -> None:
        now = self.clock()
        for key in ((client, username.casefold()), (client, "")):
            self.failures.setdefault(key, deque()).append(now)
        if len(self.failures) > 100_000:  # bounded memory: drop what has expired
            for key in list(self.failures):
                self._recent(key, now)

    def succeeded(self, client: str, username: str) -> None:
        self.failures.pop((client, username.casefold()), None)

    async def check(self, client: str, username: str) -> float:
        """:meth:`retry_after`, as :class:`LoginLimits` asks."""
        return self.retry_after(client, username)

    async def record(self, client: str, username: str, *, ok: bool) -> None:
        """:meth:`succeeded` or :meth:`failed`, as :class:`LoginLimits` asks."""
        if ok:
            self.succeeded(client, username)
        else:
            self.failed(client, username)
