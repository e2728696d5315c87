"""Bot decisions off the event loop: a bounded pool of processes (or threads).

A bot seat or an auto-played (托管) seat is decided by the bot's ``choose(view)``: 5-54 ms of
CPU for the expert, up to about 200 ms for ``search``.  Called inside the event loop, that
held every table and socket of the node for as long.  :class:`BotWorker` runs it elsewhere
and hands the table an asyncio future; the table (``Table._bot_moves``) applies the result
exactly as it applies a human's action, or drops it when it has gone stale (the decision
moved on, the table stopped, the seat's player came back), or, when the decision overruns
the wall-clock safety net (``bot_cap``), plays a cheap greedy decision instead.  Both are
counted in ``/metrics`` (``server/observability.py``).

Modes (``--bot-worker``):

``process`` (the default)
    ``bot_workers`` processes (forkserver).  Real parallelism, at the price of shipping each
    view (a pickled dict) and the action back.  A worker builds a fresh bot from (policy,
    seed) for each decision, so this is only right for policies whose decision is a pure
    function of (seed, view): :data:`PURE_POLICIES`; any other policy runs in the thread
    pool.
``thread``
    ``bot_workers`` threads; the bot objects stay in this process, so bots that keep state
    between decisions (``random``'s generator) keep it, and one seat's decisions never run
    two at a time (a per-seat lock: a stale decision still running goes first).  Measured
    worse than ``inline`` (``bench/bot_seats_bench.py``, docs/server.md): a bot thread
    holding the GIL makes the loop wait up to the switch interval (5 ms) each time it gives
    the GIL up, at every socket write and every ``select``.
``inline``
    The old path: ``choose`` inside the event loop, at the bot's due time.  Kept for the
    benchmark's before/after comparison.

Decisions stay deterministic: every shipped bot is bounded by work, and a pool only moves
where it runs.  Only the safety net looks at the clock, and its hits are counted.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import multiprocessing
import os
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, Literal, TypeVar

from ..bots import Bot, get_bot
from ..engine import Action
from ..engine.views import SeatView

__all__ = ["PURE_POLICIES", "BotMode", "BotWorker", "shared_worker"]

BotMode = Literal["thread", "process", "inline"]
T = TypeVar("T")

PURE_POLICIES = frozenset({"greedy", "expert", "search"})
"""Policies whose decisions are a pure function of (seed, view) (they keep no state between
decisions that changes what they choose): a process worker may build its own copy."""

def _choose_in_process(name: str, seed: int, view: SeatView) -> Action:
    """A worker process's decision (module level: the pool pickles it by name).  A fresh bot
    each time (20 µs): nothing is carried from one decision to the next, and nothing piles
    up in a worker over the tables' lifetimes."""
    return get_bot(name, seed).choose(view)


def _choose_locked(bot: Bot, lock: threading.Lock, view: SeatView) -> Action:
    with lock:  # a stale decision of this seat still running finishes first
        return bot.choose(view)


def _warm() -> None:
    """Import the bots in a fresh worker process before the first decision needs them (the
    registry imports each policy's module on its first use)."""
    for name in sorted(PURE_POLICIES):
        get_bot(name, 0)


def _start_worker(server_alive: Connection) -> None:
    """A worker process's initializer: end with the server, then import the bots.

    A pool's workers wait on their task queue, of which each holds both ends, so they never
    see the server go: killed (kill -9, out of memory) it would leave them, and the
    forkserver they hold open, running for ever, and every restart would add more.
    ``server_alive`` is the reading end of a pipe whose only writing end the server holds:
    its end of file, when the server is gone however it went, ends the worker."""

    def exit_with_the_server() -> None:
        with contextlib.suppress(EOFError, OSError):
            server_alive.recv()
        os._exit(0)

    threading.Thread(target=exit_with_the_server, name="wm-bot-server-alive",
                     daemon=True).start()
    _warm()


class BotWorker:
    """A bounded pool that runs bot decisions for every table of this process."""

    def __init__(self, mode: BotMode, workers: int) -> None:
        if mode not in ("thread", "process", "inline"):
            raise ValueError(f"unknown bot worker mode {mode!r}")
        self.mode: BotMode = mode
        self.workers = max(1, workers)
        self._threads: concurrent.futures.ThreadPoolExecutor | None = None
        self._processes: concurrent.futures.ProcessPoolExecutor | None = None
        self._server_alive: tuple[Connection, Connection] | None = None
        """The pipe whose end of file ends the worker processes (:func:`_start_worker`);
        its writing end never leaves this process."""
        self._lock = threading.Lock()

    @property
    def inline(self) -> bool:
        return self.mode == "inline"

    def _thread_pool(self) -> concurrent.futures.ThreadPoolExecutor:
        with self._lock:
            if self._threads is None:
                self._threads = concurrent.futures.ThreadPoolExecutor(
                    self.workers, thread_name_prefix="wm-bot")
            return self._threads

    def _process_pool(self) -> concurrent.futures.ProcessPoolExecutor:
        with self._lock:
            if self._processes is None:
                # forkserver: the server has threads (the store's, this pool's); forking
                # them is unsafe.  Each worker imports the bots once.
                if self._server_alive is None:  # one pipe for every pool of this worker
                    self._server_alive = multiprocessing.Pipe(duplex=False)
                self._processes = concurrent.futures.ProcessPoolExecutor(
                    self.workers, mp_context=multiprocessing.get_context("forkserver"),
                    initializer=_start_worker, initargs=(self._server_alive[0],))
                for _ in range(self.workers):  # start them now, not at the first decision
                    self._processes.submit(_warm)
            return self._processes

    def _replace_broken(self, broken: concurrent.futures.ProcessPoolExecutor) -> None:
        """A worker process died (killed, out of memory): its pool refuses all work; start
        another.  The decisions it had end in errors (the tables play the timeout action)."""
        with self._lock:
            if self._processes is broken:
                self._processes = None
        broken.shutdown(wait=False, cancel_futures=True)

    def start(self) -> None:
        """Start the pool now (a process pool's workers take a second to import the bots)."""
        if self.mode == "process":
            self._process_pool()

    def submit(self, loop: asyncio.AbstractEventLoop, name: str, seed: int, bot: Bot,
               lock: threading.Lock, view: SeatView) -> asyncio.Future[Action]:
        """Start one decision; its future completes in ``loop`` (never in inline mode)."""
        if self.mode == "process" and name in PURE_POLICIES:
            pool = self._process_pool()
            try:
                return loop.run_in_executor(pool, _choose_in_process, name, seed, view)
            except concurrent.futures.process.BrokenProcessPool:
                self._replace_broken(pool)
                return loop.run_in_executor(self._process_pool(), _choose_in_process, name,
                                            seed, view)
        return loop.run_in_executor(self._thread_pool(), _choose_locked, bot, lock, view)

    def run_job(self, loop: asyncio.AbstractEventLoop, job: Callable[..., T], *args: Any
                ) -> asyncio.Future[T]:
        """Run other work of the bots off the event loop (a hand's review): ``job`` is a
        module-level function of picklable arguments, a pure function of them.  In the
        process pool in ``process`` mode, else in the thread pool (inline mode too: a job
        may take a second, which the loop must never spend)."""
        if self.mode == "process":
            pool = self._process_pool()
            try:
                return loop.run_in_executor(pool, job, *args)
            except concurrent.futures.process.BrokenProcessPool:
                self._replace_broken(pool)
                return loop.run_in_executor(self._process_pool(), job, *args)
        return loop.run_in_executor(self._thread_pool(), job, *args)

    def shutdown(self) -> None:
        """Stop the pools without waiting for running decisions (their results are stale)."""
        with self._lock:
            threads, processes = self._threads, self._processes
            self._threads = self._processes = None
        if threads is not None:
            threads.shutdown(wait=False, cancel_futures=True)
        if processes is not None:
            processes.shutdown(wait=False, cancel_futures=True)


_SHARED: dict[tuple[str, int], BotWorker] = {}
_SHARED_LOCK = threading.Lock()


def shared_worker(mode: BotMode, workers: int) -> BotWorker:
    """The process's worker of that mode and size: every table (and every server of a test
    process) shares it, so the pool bounds the bots' CPU for the whole node."""
    key = (mode, workers)
    with _SHARED_LOCK:
        worker = _SHARED.get(key)
        if worker is None:
            worker = _SHARED[key] = BotWorker(mode, workers)
            worker.start()  # with the node's first table: the workers import during its deal
        return worker


@atexit.register
def _shutdown_all() -> None:  # pragma: no cover - at interpreter exit
    with _SHARED_LOCK:
        workers = list(_SHARED.values())
    for w in workers:
        w.shutdown()

