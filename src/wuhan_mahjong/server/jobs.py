"""Costly pure computations of the HTTP API, off the event loop: a hand's review (AI 复盘,
``review_api.py``), a discard puzzle (何切, ``puzzles_api.py``).

A :class:`JobQueue` runs one kind of job in the bot worker pool (``bot_worker.py``), at
most ``running`` at a time on this node (the pool also decides the bot seats, which must
not wait behind them), with at most ``waiting`` more queued: beyond, 429 ``rate_limited``
at once, as a busy node should answer rather than pile up work.  A job is a pure function
of its arguments, so its answers are kept by key (:class:`.security.ResponseCache`) and a
request for one being computed waits for that computation.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

from starlette.requests import Request

from .bot_worker import shared_worker
from .http import HttpError, hub_of
from .security import ResponseCache

__all__ = ["JobQueue", "job_queue"]

T = TypeVar("T")


class JobQueue:
    """One kind of job on this node (see the module docstring)."""

    def __init__(self, what: str, *, running: int, waiting: int, cached: int) -> None:
        self.what = what
        self.running = asyncio.Semaphore(running)
        self.waiting_max = waiting
        self.waiting = 0
        self.cache = ResponseCache(cached)

    async def run(self, request: Request, key: str, job: Callable[..., Any], *args: Any) -> Any:
        """``job(*args)`` (a module-level function of picklable arguments), or its kept
        answer for ``key``."""
        async def compute() -> Any:
            if self.waiting >= self.waiting_max:
                raise HttpError(429, "rate_limited", f"too many {self.what} are waiting: "
                                "try again in a moment", {"Retry-After": "5"})
            self.waiting += 1
            try:
                async with self.running:
                    cfg = hub_of(request).config
                    worker = shared_worker(cfg.bot_worker, cfg.bot_workers)
                    return await worker.run_job(asyncio.get_running_loop(), job, *args)
            finally:
                self.waiting -= 1

        return await self.cache.get(key, compute)


def job_queue(request: Request, name: str, make: Callable[[], JobQueue]) -> JobQueue:
    """The app's queue ``name``, made by ``make`` on first use (inside the event loop)."""
    queues: dict[str, JobQueue] | None = getattr(request.app.state, "job_queues", None)
    if queues is None:
        queues = request.app.state.job_queues = {}
    found = queues.get(name)
    if found is None:
        found = queues[name] = make()
    return found
