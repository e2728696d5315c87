"""Riding out a database outage: a table's store calls tried again while the database is
away for a moment.

PostgreSQL restarts for an upgrade, fails over to a standby, or ends a session (an
operator's ``pg_terminate_backend``, a network blip): the next statement on each of the
server's connections fails with a connection error.  A table used to take that for a fault
of its own and abort its match, every hand in progress voided, though the database was back
a second later.  Every store call a running table makes is idempotent (a match-log append
found stored already, a hand found settled, is answered as done), so trying the same call
again is safe; :func:`ride_out` does so while the error is one that may pass
(:func:`~wuhan_mahjong.store.database.is_transient`), with pauses that grow from 50 ms to
2 s, for at most ``seconds``.  Write-ahead holds meanwhile: the table releases no frame
before its events are stored, so its players see it pause, not move on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

from ..store.database import error_line, is_transient

__all__ = ["ride_out"]

T = TypeVar("T")

log = logging.getLogger("wuhan_mahjong.server.outage")

FIRST_PAUSE = 0.05
MAX_PAUSE = 2.0


async def ride_out(call: Callable[[], Awaitable[T]], *, seconds: float, what: str) -> T:
    """``await call()``, called again after a transient database error until it succeeds or
    ``seconds`` have passed (then the last error is raised, as is any other error at once)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    pause = FIRST_PAUSE
    failures = 0
    while True:
        try:
            result = await call()
        except Exception as exc:
            if not is_transient(exc) or loop.time() + pause > deadline:
                raise
            failures += 1
            if failures == 1:
                log.warning("%s: the database is unavailable (%s); trying again for up to "
                            "%.0f s", what, error_line(exc), seconds)
            await asyncio.sleep(pause)
            pause = min(pause * 2, MAX_PAUSE)
            continue
        if failures:
            log.warning("%s: the database is back after %d failed tries", what, failures)
        return result
