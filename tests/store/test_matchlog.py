"""The durable match log: write-ahead events, settlement of a hand exactly once, fencing."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import select
from sqlalchemy.exc import DBAPIError

from wuhan_mahjong.store import (
    HandRecord,
    MatchEvent,
    MatchFenced,
    MatchLogError,
    Store,
    hand_game_id,
    open_store,
)
from wuhan_mahjong.store.database import create_store_engine
from wuhan_mahjong.store.matchlog import MatchAppend
from wuhan_mahjong.store.models import MatchRow


def _players(store: Store) -> list[int]:
    return [store.create_guest().account.id for _ in range(4)]


def _record(match_id: str, hand_no: int, seats: list[int]) -> HandRecord:
    return HandRecord(match_id=match_id, hand_no=hand_no, commitment="c" * 64, wall="1m" * 136,
                      salt="00" * 32, events='{"e":"header"}',
                      seats=dict(enumerate(seats)))


def test_events_are_stored_in_order_and_gaps_refused(store: Store) -> None:
    players = _players(store)
    config = {"profile": "yuanhang", "seats": players}
    epoch = store.open_match("m1", "t1", "ab" * 32, config)
    assert store.running_matches() == ["m1"]
    events = [MatchEvent(0, 0, "deal", data="c0"),
              MatchEvent(1, 0, "act", seat=2, data='{"type":"discard","tile":"1m"}', source="player"),
              MatchEvent(2, 0, "auto", seat=1, data="on")]
    assert store.append_match_events("m1", epoch, events[:2]) == 2
    assert store.append_match_events("m1", epoch, events[2:]) == 3
    with pytest.raises(MatchLogError):  # seq 5 is not next (3 is)
        store.append_match_events("m1", epoch, [MatchEvent(5, 0, "escape", seat=1)])
    with pytest.raises(MatchLogError):
        store.append_match_events("m1", epoch, [MatchEvent(3, 0, "nonsense")])
    logged = store.load_match("m1")
    assert logged is not None
    assert logged.events == tuple(events)
    assert logged.config == config and logged.seed == "ab" * 32
    assert logged.next_seq == 3 and logged.status == "running"


def test_a_finished_hand_is_settled_exactly_once(store: Store) -> None:
    players = _players(store)
    epoch = store.open_match("m2", "t2", "00", {})
    deltas = {players[0]: -30, players[1]: 30, players[2]: 0, players[3]: 0}
    first = store.finish_hand("m2", epoch, _record("m2", 0, players), deltas, stake=2, fee=0,
                              profile="yuanhang", totals=[-30, 30, 0, 0])
    assert first is not None and first.game_id == hand_game_id("m2", 0) == "m2/0"
    balances = [store.account(a).silver for a in players]
    assert balances == [940, 1060, 1000, 1000]
    again = store.finish_hand("m2", epoch, _record("m2", 0, players), deltas, stake=2, fee=0,
                              profile="yuanhang", totals=[-30, 30, 0, 0])
    assert again is None
    assert [store.account(a).silver for a in players] == balances
    assert store.hand_numbers("m2", viewer=players[0]) == [0]
    logged = store.load_match("m2")
    assert logged is not None and logged.hands_done == 1 and logged.totals == (-30, 30, 0, 0)
    assert store.match_silver("m2") == {players[0]: (-60, 0), players[1]: (60, 0),
                                        players[2]: (0, 0), players[3]: (0, 0)}
    assert store.audit().ok


def test_concurrent_finishes_settle_once(store: Store) -> None:
    players = _players(store)
    epoch = store.open_match("m3", "t3", "00", {})
    deltas = {players[0]: 12, players[1]: -4, players[2]: -4, players[3]: -4}
    results: list[object] = []

    def finish() -> None:
        results.append(store.finish_hand("m3", epoch, _record("m3", 0, players), deltas, stake=5,
                                         fee=1, profile="bianfeng", totals=[12, -4, -4, -4]))

    threads = [threading.Thread(target=finish) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(r is not None for r in results) == 1
    assert store.account(players[0]).silver == 1000 + 60 - 1
    assert store.audit().ok


def test_a_claim_fences_the_old_runner(store: Store) -> None:
    epoch = store.open_match("m4", "t4", "00", {})
    newer = store.claim_match("m4", owner="node-b")
    assert newer == epoch + 1
    with pytest.raises(MatchFenced):
        store.append_match_events("m4", epoch, [MatchEvent(0, 0, "deal")])
    with pytest.raises(MatchFenced):
        store.end_match("m4", epoch, "finished")
    store.append_match_events("m4", newer, [MatchEvent(0, 0, "deal")])
    logged = store.load_match("m4")
    assert logged is not None and logged.owner == "node-b" and logged.epoch == newer


def test_an_ended_match_is_not_resumed_or_written(store: Store) -> None:
    epoch = store.open_match("m5", "t5", "00", {})
    store.end_match("m5", epoch, "aborted", "the table stopped on a server error")
    assert store.running_matches() == []
    with pytest.raises(MatchLogError):
        store.append_match_events("m5", epoch, [MatchEvent(0, 0, "deal")])
    with pytest.raises(MatchLogError):
        store.claim_match("m5")
    logged = store.load_match("m5")
    assert logged is not None and logged.status == "aborted"
    assert logged.reason == "the table stopped on a server error"
    assert store.load_match("nope") is None


def test_a_match_id_no_database_can_hold_is_refused(store: Store) -> None:
    """A NUL is refused by PostgreSQL's text columns at the first statement; the log
    refuses it before that, on every database alike."""
    with pytest.raises(MatchLogError, match="no NUL"):
        store.open_match("m\x00", "t6", "00", {})


def _act(seq: int, tile: str = "1m") -> MatchEvent:
    return MatchEvent(seq, 0, "act", seat=seq % 4, data=f'{{"type":"discard","tile":"{tile}"}}',
                      source="player")


def test_many_matches_append_in_one_transaction(store: Store) -> None:
    epochs = {m: store.open_match(m, "t", "00", {}) for m in ("b1", "b2", "b3")}
    first = [MatchAppend("b1", epochs["b1"], [MatchEvent(0, 0, "deal", data="c"), _act(1)]),
             MatchAppend("b2", epochs["b2"], [MatchEvent(0, 0, "deal", data="c")]),
             MatchAppend("b3", epochs["b3"], [MatchEvent(0, 0, "deal", data="c"), _act(1),
                                              _act(2, "9p")])]
    assert store.append_many_match_events(first) == [2, 1, 3]
    then = [MatchAppend("b3", epochs["b3"], [_act(3)]), MatchAppend("b1", epochs["b1"], [_act(2)])]
    assert store.append_many_match_events(then) == [4, 3]
    assert store.append_match_events("b2", epochs["b2"], [_act(1)]) == 2  # and alone after it
    for m, n in (("b1", 3), ("b2", 2), ("b3", 4)):
        logged = store.load_match(m)
        assert logged is not None and logged.next_seq == n
        assert [e.seq for e in logged.events] == list(range(n))
    logged = store.load_match("b3")
    assert logged is not None and logged.events[2] == _act(2, "9p")


def test_a_refused_append_fails_alone_in_its_batch(store: Store) -> None:
    """Each append of a batch is guarded on its own: a fenced, ended, unknown or out-of-step
    match gets what a lone append would have raised, and writes nothing; the others in the
    same transaction are written."""
    e = {m: store.open_match(m, "t", "00", {}) for m in ("ok1", "fenced", "ended", "gap", "ok2")}
    newer = store.claim_match("fenced", owner="node-b")
    store.end_match("ended", e["ended"], "aborted", "stopped")
    store.append_match_events("gap", e["gap"], [MatchEvent(0, 0, "deal")])
    got = store.append_many_match_events([
        MatchAppend("ok1", e["ok1"], [MatchEvent(0, 0, "deal"), _act(1)]),
        MatchAppend("fenced", e["fenced"], [MatchEvent(0, 0, "deal")]),
        MatchAppend("ended", e["ended"], [MatchEvent(0, 0, "deal")]),
        MatchAppend("gap", e["gap"], [_act(0)]),  # seq 1 is next, and seq 0 is another event
        MatchAppend("nope", 1, [MatchEvent(0, 0, "deal")]),
        MatchAppend("ok2", e["ok2"], [MatchEvent(0, 0, "deal")]),
        MatchAppend("bad", 1, [MatchEvent(0, 0, "nonsense")]),
    ])
    assert got[0] == 2 and got[5] == 1
    assert isinstance(got[1], MatchFenced) and got[1].epoch == e["fenced"]
    assert isinstance(got[2], MatchLogError) and "ended" in str(got[2])
    assert isinstance(got[3], MatchLogError) and "event 0 given, 1 expected" in str(got[3])
    assert isinstance(got[4], MatchLogError) and "no match nope" in str(got[4])
    assert isinstance(got[6], MatchLogError) and "nonsense" in str(got[6])
    assert not any(isinstance(g, MatchFenced) for g in (got[2], got[3], got[4], got[6]))
    for m, n in (("ok1", 2), ("ok2", 1), ("fenced", 0), ("ended", 0), ("gap", 1)):
        logged = store.load_match(m)
        assert logged is not None and len(logged.events) == n and logged.next_seq == n
    assert store.append_many_match_events([MatchAppend("fenced", newer, [MatchEvent(0, 0, "deal")])]) == [1]


def test_a_batch_names_each_match_once(store: Store) -> None:
    epoch = store.open_match("d1", "t", "00", {})
    with pytest.raises(ValueError, match="more than once"):
        store.append_many_match_events([MatchAppend("d1", epoch, [MatchEvent(0, 0, "deal")]),
                                        MatchAppend("d1", epoch, [_act(1)])])
    logged = store.load_match("d1")
    assert logged is not None and logged.events == ()


@pytest.mark.slow
def test_a_frozen_runner_cannot_hold_a_take_over_back(pg_url: str) -> None:
    """A process frozen in the middle of a write (SIGSTOP, a swapped-out VM) keeps its
    connection and its transaction's row locks: PostgreSQL ends its session after a few idle
    seconds, so a node taking its match over is not held up for as long as it stays frozen
    (found when a cluster take-over hung on a node paused mid-append), and the frozen
    runner's own commit fails."""
    store = open_store(pg_url)
    frozen = create_store_engine(pg_url)
    try:
        epoch = store.open_match("m9", "t9", "00", {})
        connection = frozen.connect()
        transaction = connection.begin()
        connection.execute(select(MatchRow.epoch).where(MatchRow.match_id == "m9")
                           .with_for_update())
        claimed: list[int] = []
        claim = threading.Thread(
            target=lambda: claimed.append(store.claim_match("m9", owner="node-b")), daemon=True)
        claim.start()
        claim.join(60)
        try:
            assert claimed == [epoch + 1], "the take-over waited on the frozen runner's lock"
            with pytest.raises(DBAPIError):  # its session was ended under it
                connection.execute(select(MatchRow.epoch))
                transaction.commit()
        finally:
            connection.invalidate()  # releases the lock if the test failed
            claim.join(10)
        with pytest.raises(MatchFenced):
            store.append_match_events("m9", epoch, [MatchEvent(0, 0, "deal")])
    finally:
        frozen.dispose()
        store.close()


def test_a_retry_of_an_open_or_an_end_is_answered_as_the_first(store: Store) -> None:
    """An open or an end whose ``COMMIT`` answer was lost is tried again by the table
    (``server/outage.py``): it finds its own row and gets the first answer, where it used
    to meet "exists" or "has ended" and end the table as an error at its start or end.
    Another open of the id, another end, or an end by a fenced runner stays refused."""
    assert store.open_match("o", "t", "00", {"hands": 8}, owner="node-a") == 1
    assert store.open_match("o", "t", "00", {"hands": 8}, owner="node-a") == 1  # the retry
    for other in (("t", "01", {"hands": 8}, "node-a"), ("t2", "00", {"hands": 8}, "node-a"),
                  ("t", "00", {"hands": 4}, "node-a"), ("t", "00", {"hands": 8}, "node-b")):
        table, seed, config, owner = other
        with pytest.raises(MatchLogError):
            store.open_match("o", table, seed, config, owner=owner)
    store.append_match_events("o", 1, [MatchEvent(0, 0, "deal")])
    with pytest.raises(MatchLogError):  # the log has begun: not a retry of the open
        store.open_match("o", "t", "00", {"hands": 8}, owner="node-a")
    store.end_match("o", 1, "aborted", "the table stopped on a server error")
    store.end_match("o", 1, "aborted", "the table stopped on a server error")  # the retry
    for status, reason in (("finished", None), ("aborted", "another reason")):
        with pytest.raises(MatchLogError):
            store.end_match("o", 1, status, reason)
    logged = store.load_match("o")
    assert logged is not None and logged.status == "aborted"
    epoch = store.open_match("p", "t", "00", {})
    newer = store.claim_match("p", owner="node-b")
    store.end_match("p", newer, "finished")
    with pytest.raises(MatchFenced):
        store.end_match("p", epoch, "finished")


def test_a_retry_of_a_written_append_is_answered_as_the_first_write(store: Store) -> None:
    """A committed append whose answer was lost (the connection dropped during ``COMMIT``)
    is written again by the node's writer: the same events at the same ``seq`` are this
    append's own, so the retry gets the first write's answer and stores nothing twice,
    alone or in a batch.  Anything else at a written ``seq`` stays refused: other events,
    a part that is not the log's end, or a retry after the log has moved on."""
    epoch = store.open_match("r", "t", "00", {})
    written = [MatchEvent(0, 0, "deal"), _act(1, "5s")]
    assert store.append_match_events("r", epoch, written) == 2
    assert store.append_match_events("r", epoch, written) == 2  # the lost answer, again
    assert store.append_many_match_events([MatchAppend("r", epoch, written)]) == [2]
    for other in ([MatchEvent(0, 0, "deal"), _act(1, "6s")],  # another tile
                  [MatchEvent(0, 0, "deal")]):  # only part of it
        with pytest.raises(MatchLogError):
            store.append_match_events("r", epoch, other)
        refused = store.append_many_match_events([MatchAppend("r", epoch, other)])
        assert isinstance(refused[0], MatchLogError)
    assert store.append_match_events("r", epoch, [_act(2)]) == 3
    with pytest.raises(MatchLogError):  # the log moved on: no longer a retry
        store.append_match_events("r", epoch, written)
    newer = store.claim_match("r", owner="node-b")
    with pytest.raises(MatchFenced):  # and never for a fenced runner
        store.append_match_events("r", epoch, [_act(2)])
    logged = store.load_match("r")
    assert logged is not None and [e.seq for e in logged.events] == [0, 1, 2]
    assert newer > epoch
