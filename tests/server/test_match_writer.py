"""The node's group commit of the match log (``server/match_writer.py``): the appends of
many tables share transactions, and each table still gets its own answer."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Sequence

import pytest
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.orm import Session
from sqlalchemy.pool import QueuePool

from wuhan_mahjong.server import match_writer as match_writer_module
from wuhan_mahjong.server.match_writer import MatchWriter, close_match_writer, match_writer
from wuhan_mahjong.store import MatchEvent, MatchFenced, MatchLogError, Store, matchlog, open_store
from wuhan_mahjong.store.database import PG_IDLE_IN_TRANSACTION_MS
from wuhan_mahjong.store.matchlog import MatchAppend

from .harness import FAST_HASHER


@pytest.fixture
def store(db_url: str, migrated_sqlite: Callable[[str], None]) -> Iterator[Store]:
    migrated_sqlite(db_url)
    with open_store(db_url, password_hasher=FAST_HASHER) as opened:
        yield opened


def _acts(first: int, n: int) -> list[MatchEvent]:
    return [MatchEvent(first + i, 0, "act", seat=(first + i) % 4,
                       data='{"type":"discard","tile":"1m"}', source="player") for i in range(n)]


def test_the_tables_of_a_node_share_their_transactions(store: Store) -> None:
    """Twelve tables appending ten times each: every append is written, in order, in ten
    transactions (the twelve appends that arrive together are written together)."""
    epochs = {f"w{i}": store.open_match(f"w{i}", "t", "00", {}) for i in range(12)}

    async def table(match_id: str) -> None:
        seq = 0
        for k in range(10):
            events = _acts(seq, 1 + k % 2)
            seq += len(events)
            assert await match_writer(store).append(match_id, epochs[match_id], events) == seq

    async def scenario() -> MatchWriter:
        await asyncio.gather(*(table(m) for m in epochs))
        return match_writer(store)

    writer = asyncio.run(scenario())
    assert writer.appends == 120
    assert writer.batches == 10
    for match_id in epochs:
        logged = store.load_match(match_id)
        assert logged is not None and logged.next_seq == 15
        assert [e.seq for e in logged.events] == list(range(15))


def test_a_fenced_or_ended_match_fails_only_its_own_table(store: Store) -> None:
    epochs = {m: store.open_match(m, "t", "00", {}) for m in ("a", "fenced", "ended", "b")}
    store.claim_match("fenced", owner="node-b")
    store.end_match("ended", epochs["ended"], "aborted", "stopped")

    async def scenario() -> list[int | BaseException]:
        writer = match_writer(store)
        return await asyncio.gather(*(writer.append(m, epochs[m], _acts(0, 2)) for m in epochs),
                                    return_exceptions=True)

    got = asyncio.run(scenario())
    assert got[0] == 2 and got[3] == 2
    assert isinstance(got[1], MatchFenced)
    assert isinstance(got[2], MatchLogError) and not isinstance(got[2], MatchFenced)
    for m, n in (("a", 2), ("fenced", 0), ("ended", 0), ("b", 2)):
        logged = store.load_match(m)
        assert logged is not None and len(logged.events) == n


def test_a_failed_batch_fails_only_the_append_that_broke_it(store: Store) -> None:
    """A database error spoils the batch's transaction (here PostgreSQL refusing a ``source``
    longer than its column): the appends are written again one by one, and only the table
    whose own write fails sees the error."""
    if make_url(store.engine.url).get_backend_name() != "postgresql":
        pytest.skip("SQLite does not enforce the column's length")
    epochs = {m: store.open_match(m, "t", "00", {}) for m in ("a", "broken", "b")}
    events = {m: _acts(0, 1) for m in epochs}
    events["broken"] = [MatchEvent(0, 0, "act", seat=0, data="{}", source="x" * 40)]

    async def scenario() -> list[int | BaseException]:
        writer = match_writer(store)
        return await asyncio.gather(*(writer.append(m, epochs[m], events[m]) for m in epochs),
                                    return_exceptions=True)

    got = asyncio.run(scenario())
    assert got[0] == 1 and got[2] == 1
    assert isinstance(got[1], DBAPIError)
    for m, n in (("a", 1), ("broken", 0), ("b", 1)):
        logged = store.load_match(m)
        assert logged is not None and len(logged.events) == n


def test_an_append_cancelled_before_its_turn_is_not_written(store: Store) -> None:
    epochs = {m: store.open_match(m, "t", "00", {}) for m in ("a", "b")}

    async def scenario() -> int:
        writer = match_writer(store)
        first = asyncio.ensure_future(writer.append("a", epochs["a"], _acts(0, 1)))
        second = asyncio.ensure_future(writer.append("a", epochs["a"], _acts(1, 1)))
        other = asyncio.ensure_future(writer.append("b", epochs["b"], _acts(0, 1)))
        await asyncio.sleep(0)  # all three wait; the second one waits for a later batch
        second.cancel()
        assert await first == 1 and await other == 1
        with pytest.raises(asyncio.CancelledError):
            await second
        await asyncio.sleep(0)
        return writer.batches

    assert asyncio.run(scenario()) == 1
    logged = store.load_match("a")
    assert logged is not None and logged.next_seq == 1


def test_postgresql_batches_are_written_from_the_event_loop(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """On PostgreSQL the writer runs each batch in the event loop's own thread, on a
    connection of its own (no worker thread: one that needs the GIL after every answer
    from the server starves behind a busy loop), with the same idle-in-transaction
    limit as every other connection (a frozen node must not hold the match rows), and
    closes that connection with the node."""
    if make_url(store.engine.url).get_backend_name() != "postgresql":
        pytest.skip("SQLite batches are written in a worker thread")
    threads: list[int] = []
    real = matchlog.append_many

    def spy(session: Session, appends: Sequence[MatchAppend]) -> list[int | MatchLogError]:
        threads.append(threading.get_ident())
        return real(session, appends)

    monkeypatch.setattr(match_writer_module, "append_many", spy)
    epochs = {f"l{i}": store.open_match(f"l{i}", "t", "00", {}) for i in range(3)}

    async def scenario() -> tuple[int, str]:
        writer = match_writer(store)
        for seq in range(0, 6, 2):
            assert await asyncio.gather(*(writer.append(m, epochs[m], _acts(seq, 2))
                                          for m in epochs)) == [seq + 2] * 3
        assert writer.engine is not None
        async with writer.engine.connect() as connection:
            timeout = (await connection.exec_driver_sql(
                "SHOW idle_in_transaction_session_timeout")).scalar()
        pool = writer.engine.pool
        assert isinstance(pool, QueuePool) and pool.checkedin() == 1
        await close_match_writer(store)
        assert pool.checkedin() == 0  # closed
        return threading.get_ident(), str(timeout)

    loop_thread, timeout = asyncio.run(scenario())
    assert threads and set(threads) == {loop_thread}
    assert timeout == f"{PG_IDLE_IN_TRANSACTION_MS // 1000}s"
    for match_id in epochs:
        logged = store.load_match(match_id)
        assert logged is not None and [e.seq for e in logged.events] == list(range(6))


def test_a_server_without_the_postgres_extra_needs_no_greenlet() -> None:
    """SQLAlchemy's asyncio (the PostgreSQL writer's) needs greenlet, which only the
    ``postgres`` extra installs: a SQLite server imports and writes without it."""
    script = (
        "import asyncio, sys, tempfile\n"
        "sys.modules['greenlet'] = None  # as if not installed\n"
        "from wuhan_mahjong.server.app import create_app\n"
        "from wuhan_mahjong.server.match_writer import close_match_writer, match_writer\n"
        "from wuhan_mahjong.store import MatchEvent, open_store\n"
        "url = f'sqlite:///{tempfile.mkdtemp()}/g.db'\n"
        "store = open_store(url)\n"
        "epoch = store.open_match('m', 't', '00', {})\n"
        "async def main():\n"
        "    n = await match_writer(store).append('m', epoch, [MatchEvent(0, 0, 'act')])\n"
        "    await close_match_writer(store)\n"
        "    return n\n"
        "print(asyncio.run(main()))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1"


def test_a_batch_whose_commit_answer_was_lost_is_not_an_error(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """The batch was committed but its answer lost (here: written, then the batch raises
    as a dropped connection would): the writer writes each append again alone, each finds
    its own events already stored, and every table goes on (it used to end in an error)."""
    epochs = {m: store.open_match(m, "t", "00", {}) for m in ("x", "y")}
    for m in epochs:  # what the lost batch committed
        store.append_match_events(m, epochs[m], _acts(0, 2))

    def lost(*_args: object) -> list[int | MatchLogError]:
        raise OperationalError("COMMIT", {}, Exception("server closed the connection"))

    monkeypatch.setattr(match_writer_module, "append_many", lost)  # PostgreSQL's path
    monkeypatch.setattr(store, "append_many_match_events", lost)  # SQLite's

    async def scenario() -> list[int]:
        writer = match_writer(store)
        got = await asyncio.gather(*(writer.append(m, epochs[m], _acts(0, 2)) for m in epochs))
        await close_match_writer(store)
        return got

    assert asyncio.run(scenario()) == [2, 2]
    for m in epochs:
        logged = store.load_match(m)
        assert logged is not None and [e.seq for e in logged.events] == [0, 1]
