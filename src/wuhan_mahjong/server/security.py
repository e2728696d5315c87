"""HTTP hardening: security headers, trusted proxies, no tokens in logs, costly-endpoint limits.

* :class:`SecurityHeaders` puts a strict Content-Security-Policy (the browser
  client has no inline script or style), ``nosniff``, ``frame-ancestors 'none'``
  and a referrer policy on every HTTP response.
* :func:`trust_proxies` believes ``X-Forwarded-For`` only from the addresses the
  operator lists (``forwarded_allow_ips``, default none), with uvicorn's own
  middleware; ``wuhan-mahjong serve`` switches uvicorn's built-in proxy handling
  off (it trusts 127.0.0.1 by default), so every limit counts the real peer.
* :class:`RedactTokens` scrubs ``token=...`` from log records (the server refuses
  tokens in URLs, but a client may still send one).
* :class:`ResponseCache` is a small LRU of computed responses (one computation per
  key at a time): the hints of recent seat views (``/api/hint``) and the frames of
  recently replayed hands (``server/replays.py``) each have one, so a client asking
  again for the same thing costs nothing.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import re
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, cast

from starlette.applications import Starlette
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

__all__ = ["CSP", "HardenedStarlette", "RedactTokens", "ResponseCache", "SecurityHeaders",
           "check_proxies", "redact_access_logs", "trust_proxies"]

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "font-src 'self'; connect-src 'self'{ws}; object-src 'none'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")
"""The Content-Security-Policy of every response (``{ws}`` adds the page's own WebSocket
origin, which older browsers do not count as ``'self'``)."""

HEADERS = (
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=(), payment=()"),
)

_HOST = re.compile(r"^[A-Za-z0-9.\-\[\]:]{1,255}$")


class SecurityHeaders:
    """ASGI middleware: the security headers on every HTTP response (static files,
    the API and errors alike; :class:`HardenedStarlette` puts it outside Starlette's
    own error handler, so even a 500 has them)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = ""
        for key, value in scope.get("headers", ()):
            if key == b"host":
                host = value.decode("latin-1")
        ws = f" ws://{host} wss://{host}" if _HOST.match(host) else ""
        csp = CSP.format(ws=ws).encode("latin-1")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", ())
                           if k.lower() not in {b"content-security-policy", *(h for h, _ in HEADERS)}]
                headers += [(b"content-security-policy", csp), *HEADERS]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


class HardenedStarlette(Starlette):
    """Starlette with :class:`SecurityHeaders` around its whole middleware stack."""

    def build_middleware_stack(self) -> ASGIApp:
        return SecurityHeaders(super().build_middleware_stack())


def check_proxies(addresses: Sequence[str]) -> None:
    """``ValueError`` naming the first entry of ``forwarded_allow_ips`` that would trust no
    peer: uvicorn keeps what it cannot read as an address or a (strict) network as a literal
    that no TCP peer's address ever equals, and reads ``*`` as "every peer" only alone.  A
    typo so trusted no proxy without a word, and every player behind it had its address.

    >>> check_proxies(["10.0.0.5", "172.16.0.0/12", "::1"])
    >>> check_proxies(["10.0.0.1/8"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: forwarded_allow_ips: '10.0.0.1/8' is no IP address or network (...)
    """
    if list(addresses) == ["*"]:
        return
    for entry in addresses:
        try:
            if entry == "*":
                raise ValueError(entry)
            if "/" in entry:
                ipaddress.ip_network(entry)  # as uvicorn reads it: host bits set is no network
            else:
                ipaddress.ip_address(entry)
        except ValueError:
            raise ValueError(f"forwarded_allow_ips: {entry[:100]!r} is no IP address or network "
                             "(e.g. 10.0.0.5, 10.0.0.0/8; '*' alone trusts every peer)") from None


def trust_proxies(app: Starlette, addresses: Sequence[str]) -> None:
    """Believe proxy headers from ``addresses`` only (none: no proxy header is read);
    ``ValueError`` for an entry that would trust nothing (:func:`check_proxies`).

    Add it last: Starlette puts the last middleware outermost, so every other part of
    the app sees the client's address already resolved."""
    check_proxies(addresses)
    if addresses:
        app.add_middleware(cast(Any, ProxyHeadersMiddleware), trusted_hosts=list(addresses))


class RedactTokens(logging.Filter):
    """Replace the value of any ``token=`` in a log record's message and arguments."""

    PATTERN = re.compile(r"(token=)[^&\s\"']+", re.IGNORECASE)

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = self.PATTERN.sub(r"\1[redacted]", record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(self.PATTERN.sub(r"\1[redacted]", a) if isinstance(a, str) else a
                                for a in record.args)
        return True


def redact_access_logs() -> None:
    """Install :class:`RedactTokens` on uvicorn's loggers (once)."""
    for name in ("uvicorn.access", "uvicorn.error"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactTokens) for f in logger.filters):
            logger.addFilter(RedactTokens())


class ResponseCache:
    """A small LRU of computed responses: the last ``size`` results of ``compute``, by key.

    For answers that are a pure function of their key and costly to compute: a hint
    of a seat view (keyed by the view's JSON text), the gzipped frames of a stored
    hand (keyed by ``match_id/hand_no``).  A repeated request is answered from here;
    requests that arrive while a key is being computed wait for that one computation.
    A computation that fails is not kept (the next request tries again).
    """

    def __init__(self, size: int = 2048) -> None:
        self.size = size
        self.entries: OrderedDict[str, asyncio.Future[Any]] = OrderedDict()
        self.computed = 0

    async def get(self, key: str, compute: Callable[[], Awaitable[Any]]) -> Any:
        future = self.entries.get(key)
        if future is not None:
            self.entries.move_to_end(key)
            return await asyncio.shield(future)
        future = asyncio.get_running_loop().create_future()
        self.entries[key] = future
        while len(self.entries) > self.size:
            self.entries.popitem(last=False)
        try:
            result = await compute()
        except BaseException as e:
            self.entries.pop(key, None)
            if isinstance(e, Exception):
                future.set_exception(e)
                future.exception()  # retrieved: no "never retrieved" warning if nobody waits
            else:
                future.cancel()
            raise
        self.computed += 1
        future.set_result(result)
        return result
