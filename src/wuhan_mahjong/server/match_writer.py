"""Group commit of the match log: one node-wide writer for the appends of all its tables.

Every table writes its pending events before it lets any player see them (write-ahead,
``Table._persist``).  Written one table at a time, each append is a transaction of its own
(``BEGIN``, the guarded ``UPDATE``, the ``INSERT``, ``COMMIT`` and its WAL flush) and a hop
to a thread: with many busy tables most of PostgreSQL's CPU, and much of the node's, went
to that overhead rather than to the rows.  Here the appends that arrive while a batch is
being written wait for the next one, and each batch is one transaction (on SQLite one
thread hop, :meth:`RecordStore.append_many_match_events`; on PostgreSQL no thread at all,
below).  Nothing waits for a timer: a lone
append is written at once, and under load the batches grow by themselves, as large as
the appends that arrive during one commit.

What each table keeps:

* **write-ahead**: :meth:`MatchWriter.append` returns only once the table's events are
  committed, and the table releases its frames after that, as before;
* **its own answer**: each append is guarded on its own (epoch, status and first ``seq``)
  inside the batch: a fenced or ended match gets its :class:`MatchFenced` or
  :class:`MatchLogError` and the others in the batch are written all the same;
* **nothing half-written**: a batch is one transaction, so a node killed during it leaves
  either all of the batch's events or none (each table's events are then written again
  by nobody: its frames were never sent, and the match resumes from what is stored);
* **no shared failure**: if the batch's transaction fails (a lost connection, a
  deadlock), each of its appends is tried again alone, so an error reaches only the
  tables whose own write fails.

On PostgreSQL a batch is written from the event loop itself, on a connection of the
writer's own (SQLAlchemy's asyncio engine over psycopg's async connection, running
:func:`~wuhan_mahjong.store.matchlog.append_many` unchanged through ``run_sync``): its
statements' CPU is spent in the loop, and the waits for PostgreSQL let the loop serve
the tables.  Written in a worker thread, as on SQLite, a batch needed the GIL after every
answer from the server, and a busy loop hands the GIL over only every switch interval
(5 ms): measured at 80 tables flat out, a batch of 38 appends took 32 ms of which 4 ms
were the thread's own CPU, the writer was never idle, and it, not the CPU, held each node
(two nodes on two cores used 0.65 of a core each).  SQLite keeps the thread: its driver
has no asynchronous form, and its writes wait for one file lock anyway.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..store.database import pg_connect_args, setup_postgresql
from ..store.matchlog import MatchAppend, MatchEvent, MatchLogError, append_many

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncEngine

    from ..store import Store

__all__ = ["MatchWriter", "close_match_writer", "match_writer"]

log = logging.getLogger("wuhan_mahjong.server.match_writer")

MAX_BATCH = 256
"""Appends in one transaction at most (the rest wait for the next one)."""


class MatchWriter:
    """Writes the match-log appends of every table of a node (one event loop), a batch at a
    time (module docstring).  Get it with :func:`match_writer`."""

    def __init__(self, store: Store, loop: asyncio.AbstractEventLoop) -> None:
        self._store = weakref.ref(store)  # the writers are kept by store, weakly
        self.loop = loop
        self.waiting: list[tuple[MatchAppend, asyncio.Future[int]]] = []
        self.task: asyncio.Task[None] | None = None
        self.batches = 0
        self.appends = 0
        """Batches and appends written so far (the mean batch size, for the curious)."""
        self.engine: AsyncEngine | None = None
        """PostgreSQL: the writer's own connection, used from the loop (module docstring)."""
        if store.engine.dialect.name == "postgresql":
            # Imported here: SQLAlchemy's asyncio needs greenlet, which only the postgres
            # extra installs (a SQLite server has neither).
            from sqlalchemy.ext.asyncio import create_async_engine

            url = store.engine.url.set(drivername="postgresql+psycopg")
            self.engine = create_async_engine(
                url, connect_args=pg_connect_args(url, {}),
                pool_size=1, max_overflow=0)  # no ping: a batch on a dropped connection
            setup_postgresql(self.engine.sync_engine)  # fails, and is written again alone

    async def append(self, match_id: str, epoch: int, events: Sequence[MatchEvent]) -> int:
        """Write ``events`` to the match's log (durable when this returns); the match's new
        ``next_seq``.  Raises what :meth:`Store.append_match_events` would raise for this
        append alone."""
        future: asyncio.Future[int] = self.loop.create_future()
        self.waiting.append((MatchAppend(match_id, epoch, tuple(events)), future))
        if self.task is None:
            self.task = self.loop.create_task(self._run(), name="match-writer")
        return await future

    async def _run(self) -> None:
        batch: list[tuple[MatchAppend, asyncio.Future[int]]] = []
        try:
            while self.waiting:
                batch, self.waiting = self._take(self.waiting)
                results = await self._write_batch([a for a, _ in batch])
                self.batches += 1
                self.appends += len(batch)
                for (_, future), result in zip(batch, results, strict=True):
                    if future.done():  # its table was cancelled meanwhile
                        continue
                    if isinstance(result, BaseException):
                        future.set_exception(result)
                    else:
                        future.set_result(result)
                batch = []
        except BaseException as exc:  # cancelled (the loop ends) or a bug: nobody hangs
            for _, future in batch + self.waiting:
                if not future.done():
                    if isinstance(exc, asyncio.CancelledError):
                        future.cancel()
                    else:
                        future.set_exception(exc)
            self.waiting = []
            raise
        finally:
            self.task = None

    @staticmethod
    def _take(waiting: list[tuple[MatchAppend, asyncio.Future[int]]]) -> tuple[
            list[tuple[MatchAppend, asyncio.Future[int]]],
            list[tuple[MatchAppend, asyncio.Future[int]]]]:
        """The next batch (one append per match, at most :data:`MAX_BATCH`, ordered by match:
        every batch locks its rows in the same order) and what waits for a later one."""
        batch: dict[str, tuple[MatchAppend, asyncio.Future[int]]] = {}
        rest: list[tuple[MatchAppend, asyncio.Future[int]]] = []
        for item in waiting:
            if item[1].done():  # cancelled before its turn: not written
                continue
            if item[0].match_id in batch or len(batch) >= MAX_BATCH:
                rest.append(item)
            else:
                batch[item[0].match_id] = item
        return sorted(batch.values(), key=lambda item: item[0].match_id), rest

    async def _write_batch(self, appends: list[MatchAppend]) -> Sequence[int | BaseException]:
        """The batch in one transaction, or, if that transaction fails, each append alone
        (so that only the appends whose own write fails see an error)."""
        try:
            return await self._write_together(appends)
        except Exception as exc:
            if len(appends) == 1:
                return [exc]
            log.warning("a batch of %d match-log appends failed; writing them one by one",
                        len(appends), exc_info=True)
        return await asyncio.to_thread(self._write_alone, appends)

    async def _write_together(self, appends: list[MatchAppend]) -> Sequence[int | BaseException]:
        """The batch in one transaction: from the loop on PostgreSQL, in a thread on SQLite."""
        if self.engine is None:
            return await asyncio.to_thread(
                lambda: self._live_store().append_many_match_events(appends))
        from sqlalchemy.ext.asyncio import AsyncSession

        async with AsyncSession(self.engine, expire_on_commit=False) as session, \
                session.begin():
            written: list[int | MatchLogError] = await session.run_sync(append_many, appends)
        return written

    async def close(self) -> None:
        """Close the writer's own connection (the node stops; its tables are stopped)."""
        if self.engine is not None:
            await self.engine.dispose()

    def _live_store(self) -> Store:
        store = self._store()
        if store is None:
            raise RuntimeError("the store of this match writer is gone")
        return store

    def _write_alone(self, appends: list[MatchAppend]) -> Sequence[int | BaseException]:
        """In a worker thread: each append in a transaction of its own."""
        store = self._live_store()
        results: list[int | BaseException] = []
        for a in appends:
            try:
                results.append(store.append_match_events(a.match_id, a.epoch, a.events))
            except Exception as exc:
                results.append(exc)
        return results


_writers: weakref.WeakKeyDictionary[Store, MatchWriter] = weakref.WeakKeyDictionary()


def match_writer(store: Store) -> MatchWriter:
    """The writer of ``store`` on the running event loop (one per store and loop: the tables
    of a node share it)."""
    loop = asyncio.get_running_loop()
    writer = _writers.get(store)
    if writer is None or writer.loop is not loop:
        writer = _writers[store] = MatchWriter(store, loop)
    return writer


async def close_match_writer(store: Store) -> None:
    """Close the writer of ``store`` on the running event loop, if it has one (at the end
    of a node: its own PostgreSQL connection)."""
    writer = _writers.get(store)
    if writer is not None and writer.loop is asyncio.get_running_loop():
        del _writers[store]
        await writer.close()
