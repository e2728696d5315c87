"""Per-connection rate limiting: a token bucket plus an abuse counter."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

__all__ = ["RateLimiter", "TokenBucket"]


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
