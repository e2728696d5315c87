"""The HTTP calculator: ``POST /api/score`` and ``POST /api/hand`` (``docs/protocol.md``).

Stateless: no account, no token, no database.  Each answer is exactly what the
CLI prints, because both call the same library functions
(:mod:`wuhan_mahjong.calculator`):

* ``POST /api/score`` takes the record ``wuhan-mahjong score`` reads.  200 and
  the settlement when settled, 422 and ``{"valid": false, "reason": ...}`` when
  it is not a legal win (the CLI's exit 1), 400 when malformed (exit 2).
* ``POST /api/hand`` takes ``{"hand", "indicator", "melds", "dealer",
  "profile", "options"}`` and answers what ``wuhan-mahjong hand --json`` prints.

Every client address has a token bucket (:class:`~.ratelimit.TokenBucket`);
past it the answer is 429 with ``Retry-After``.  A cluster node counts the buckets
in Redis instead (``app.state.calc_limit``, :mod:`.cluster_limits`), so that the
limit holds across the nodes.  The work runs in a worker
thread so that the tables' event loop never waits on a settlement.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..calculator import MALFORMED, hand_query_text, score_record
from ..problems import MALFORMED_CODE, InputProblem
from .ratelimit import TokenBucket

__all__ = ["AddressLimiter", "AddressLimits", "calculator_routes"]

MAX_BODY = 16_384
"""Bytes; a record with four full hands and every meld is well under 2 KB."""

RATE = 5.0
"""Requests per second per client address, sustained."""

BURST = 30
"""Requests a client address may make at once (a page settling a few hands in a row)."""


class AddressLimits(Protocol):
    """A per-key request limit as the HTTP handlers use it: this process's
    (:class:`AddressLimiter`) or a cluster's, counted in Redis
    (:class:`~.cluster_limits.RedisAddressLimiter`)."""

    async def check(self, key: str) -> float:
        """0 when this request may go ahead (and it is counted); else seconds to wait."""
        ...


class AddressLimiter:
    """One :class:`TokenBucket` per client address, in bounded memory.

    >>> clock = [0.0]
    >>> lim = AddressLimiter(rate=1, burst=2, clock=lambda: clock[0])
    >>> [lim.retry_after("1.2.3.4") for _ in range(3)], lim.retry_after("5.6.7.8")
    ([0.0, 0.0, 1.0], 0.0)
    >>> clock[0] = 1.0
    >>> lim.retry_after("1.2.3.4")
    0.0
    """

    def __init__(self, rate: float = RATE, burst: int = BURST, *, max_addresses: int = 100_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self.max_addresses = max_addresses
        self.clock = clock
        self.buckets: dict[str, TokenBucket] = {}

    def retry_after(self, address: str) -> float:
        """0 when this request may go ahead (and it is counted); else seconds to wait."""
        bucket = self.buckets.get(address)
        if bucket is None:
            if len(self.buckets) >= self.max_addresses:
                self._forget_idle()
            bucket = self.buckets[address] = TokenBucket(self.rate, self.burst, self.clock)
        if bucket.take():
            return 0.0
        if self.rate <= 0:
            return math.inf
        return (1.0 - bucket.tokens) / self.rate

    async def check(self, key: str) -> float:
        """:meth:`retry_after`, as :class:`AddressLimits` asks."""
        return self.retry_after(key)

    def _forget_idle(self) -> None:
        """Drop the buckets that have refilled (their address has been quiet), or all."""
        now = self.clock()
        full = [a for a, b in self.buckets.items()
                if b.tokens + (now - b.stamp) * self.rate >= self.burst]
        for a in full or list(self.buckets):
            del self.buckets[a]


def _error(status: int, code: str, message: str,
           params: Mapping[str, str | int | float] | None = None,
           headers: dict[str, str] | None = None) -> Response:
    """The server's error shape, ``{"error": {"code", "message", "params"}}``, with its codes:
    ``invalid_request`` (400: the CLI's exit-2 message), ``too_large`` (413), ``rate_limited``
    (429)."""
    return JSONResponse({"error": {"code": code, "message": message, "params": dict(params or {})}},
                        status_code=status, headers=headers)


class _Refused(Exception):
    def __init__(self, response: Response) -> None:
        super().__init__()
        self.response = response


async def _admit(request: Request, limiter: AddressLimits) -> str:
    """Rate-limit the client address, then read the body as UTF-8 text."""
    address = request.client.host if request.client else "unknown"
    shared: AddressLimits | None = getattr(request.app.state, "calc_limit", None)
    wait = await (shared or limiter).check(address)
    if wait > 0:
        seconds = max(1, math.ceil(min(wait, 3600.0)))
        raise _Refused(_error(429, "rate_limited",
                              f"too many calculator requests: try again in {seconds} s",
                              {"seconds": seconds}, {"Retry-After": str(seconds)}))
    too_large = _Refused(_error(413, "too_large", f"request body over {MAX_BODY} bytes", {"max": MAX_BODY}))
    declared = request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and (len(declared) > 9 or int(declared) > MAX_BODY):
        raise too_large
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY:
            raise too_large
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _Refused(_error(400, "invalid_request", "the body is not UTF-8 text",
                              {"problem": MALFORMED_CODE})) from None


def _malformed(e: ValueError) -> Response:
    """400 with the CLI's sentence, and ``params.problem`` (with the problem's own
    parameters) so that a client can say it in the player's language
    (:mod:`wuhan_mahjong.problems`)."""
    code, params = (e.code, e.params) if isinstance(e, InputProblem) else (MALFORMED_CODE, {})
    return _error(400, "invalid_request", str(e), {"problem": code, **params})


def _score(text: str) -> Response:
    try:
        answer = score_record(text)
    except MALFORMED as e:
        return _malformed(e)
    return JSONResponse(answer.body, status_code=200 if answer.settled else 422)


def _hand(text: str) -> Response:
    try:
        return JSONResponse(hand_query_text(text))
    except MALFORMED as e:
        return _malformed(e)


def calculator_routes(limiter: AddressLimiter | None = None) -> list[Route]:
    """The two routes, sharing one per-address limiter (a fresh default one if not given;
    the app's ``state.calc_limit`` instead when it has one: a cluster node's)."""
    lim = limiter or AddressLimiter()

    def endpoint(work: Callable[[str], Response]) -> Callable[[Request], Any]:
        async def handle(request: Request) -> Response:
            try:
                text = await _admit(request, lim)
            except _Refused as refused:
                return refused.response
            return await asyncio.to_thread(work, text)

        return handle

    return [Route("/api/score", endpoint(_score), methods=["POST"]),
            Route("/api/hand", endpoint(_hand), methods=["POST"])]
