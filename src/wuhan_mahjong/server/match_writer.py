"""Group commit of the match log: one node-wide writer for the appends of all its tables.

Every table writes its pending events before it lets any player see them (write-ahead,
``Table._persist``).  Written one table at a time, each append is a transaction of its own
(``BEGIN``, the guarded ``UPDATE``, the ``INSERT``, ``COMMIT`` and its WAL flush) and a hop
to a thread: with many busy tables most of PostgreSQL's CPU, and much of the node's, went
to that overhead rather than to the rows.  Here the appends that arrive while a batch is
being written wait for the next one, and each batch is one transaction and one thread
hop (:meth:`RecordStore.append_many_match_events`).  Nothing waits for a timer: a lone
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
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..store.matchlog import MatchAppend, MatchEvent

if TYPE_CHECKING:
    from ..store import Store

__all__ = ["MatchWriter", "match_writer"]

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
                results = await asyncio.to_thread(self._write, [a for a, _ in batch])
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

    def _write(self, appends: list[MatchAppend]) -> Sequence[int | BaseException]:
        """In a worker thread: the batch in one transaction, or, if that transaction fails,
        each append alone (so that only the appends whose own write fails see an error)."""
        store = self._store()
        if store is None:
            raise RuntimeError("the store of this match writer is gone")
        try:
            return store.append_many_match_events(appends)
        except Exception as exc:
            if len(appends) == 1:
                return [exc]
            log.warning("a batch of %d match-log appends failed; writing them one by one",
                        len(appends), exc_info=True)
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
