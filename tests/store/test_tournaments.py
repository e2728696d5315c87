"""Tournaments in the store: entries, the start, each round's tables claimed by one node,
the tables' matches opened and ended in the transactions of their matches, the standings,
and the rounds moving on, once; on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from wuhan_mahjong.cli import main
from wuhan_mahjong.store import HandRecord, Store
from wuhan_mahjong.store import tournaments as tour
from wuhan_mahjong.store.admin import Admin
from wuhan_mahjong.store.models import MatchRow, TournamentTableRow, utcnow

PW = "correct horse battery"


def _players(store: Store, n: int) -> list[int]:
    return [store.register(f"t{k:02d}", PW).id for k in range(n)]


def _play(store: Store, claimed: tour.ClaimedTable, owner: str, points: list[int],
          *, status: str = "finished") -> str:
    """Open the table's match (as its node does), settle one hand with ``points`` per seat
    (humans first, then bots) and end it."""
    match_id = f"m{claimed.tournament_id}-{claimed.round}-{claimed.table_no}"
    humans = [a for a, _ in claimed.players]
    bots = [store.create_bot().id for _ in range(4 - len(humans))]
    seats = [{"account_id": a, "name": f"p{a}", "is_bot": a in bots} for a in humans + bots]
    config = {"profile": claimed.profile, "seats": seats,
              "tournament": {"id": claimed.tournament_id, "round": claimed.round,
                             "table": claimed.table_no}}
    epoch = store.open_match(match_id, "t" + match_id, "00", config, owner=owner)
    hand = HandRecord(match_id=match_id, hand_no=0, commitment="c", wall="", salt="s",
                      events="{}", seats={k: s["account_id"] for k, s in enumerate(seats)})
    store.finish_hand(match_id, epoch, hand, {s["account_id"]: p for s, p in zip(seats, points,
                                                                                 strict=True)},
                      stake=0, fee=0, profile=claimed.profile, totals=points)
    store.end_match(match_id, epoch, status)
    return match_id


def _claim_all(store: Store, owner: str) -> list[tour.ClaimedTable]:
    out = []
    for t, r, k, _ in tour.claimable(store):
        claimed = tour.claim(store, t, r, k, owner)
        assert claimed is not None
        out.append(claimed)
    return out


def test_a_tournament_from_entries_to_its_end(store: Store) -> None:
    ids = _players(store, 9)
    names = {a: f"t{k:02d}" for k, a in enumerate(ids)}
    tid = tour.create(store, ids[0], "  武汉  杯 ", "yuanhang", hands=1, rounds=2, capacity=10)
    for a in ids[1:]:
        tour.join(store, tid, a)
    tour.join(store, tid, ids[1])  # again: nothing changes
    assert tour.entered(store, ids[3]) == tid
    with pytest.raises(tour.TournamentError) as no:
        tour.start(store, tid, ids[1])
    assert no.value.code == "not_creator"
    tour.start(store, tid, ids[0])
    detail = tour.detail(store, tid)
    assert detail is not None and detail.tournament.name == "武汉 杯"
    assert (detail.tournament.status, detail.tournament.round) == ("running", 1)
    # nine players: three tables of three, drawn at random
    assert sorted(len(t.players) for t in detail.tables) == [3, 3, 3]
    assert sorted(a for t in detail.tables for a, _ in t.players) == sorted(ids)
    with pytest.raises(tour.TournamentError) as late:
        tour.join(store, tid, store.register("late", PW).id)
    assert late.value.code == "closed"

    # one node claims each table; another node finds nothing left
    claimed = _claim_all(store, "node-a")
    assert len(claimed) == 3 and tour.claimable(store) == []
    assert tour.claim(store, tid, 1, 0, "node-b") is None
    assert tour.advance(store) == []  # the round is not over
    # the first seat of each table wins 30, the others lose 10 each (a bot too)
    for c in claimed:
        _play(store, c, "node-a", [30, -10, -10, -10])
    winners = {c.players[0][0] for c in claimed}
    assert tour.advance(store) == [tid]
    assert tour.advance(store) == []  # once
    detail = tour.detail(store, tid)
    assert detail is not None and detail.tournament.round == 2
    top = [s for s in detail.standings if s.rank <= 3]
    assert {s.account_id for s in top} == winners
    assert all(s.points == 30 and s.firsts == 1 and s.matches == 1 for s in top)
    # round two seats by standing: the three winners at the first table
    second = [t for t in detail.tables if t.round == 2]
    assert {a for a, _ in second[0].players} == winners
    assert [n for _, n in second[0].players] == [names[a] for a, _ in second[0].players]

    # a withdrawn player stays in the standings and is seated no more
    leaver = detail.standings[-1].account_id
    tour.withdraw(store, tid, leaver)
    assert tour.entered(store, leaver) is None
    for c in _claim_all(store, "node-a"):
        _play(store, c, "node-a", [0, 0, 0, 0], status="aborted")
    assert tour.advance(store) == [tid]
    done = tour.detail(store, tid)
    assert done is not None and done.tournament.status == "finished"
    assert [s.account_id for s in done.standings][:3] == [s.account_id for s in top]
    assert next(s for s in done.standings if s.account_id == leaver).withdrawn
    assert tour.entered(store, ids[0]) is None
    assert any(t.id == tid for t in tour.listing(store))
    assert store.audit().ok


def test_a_claim_is_the_one_nodes_and_a_stale_one_is_taken_again(store: Store) -> None:
    ids = _players(store, 4)
    tid = tour.create(store, ids[0], "claims", "bianfeng", hands=1, rounds=1, capacity=4)
    for a in ids[1:]:
        tour.join(store, tid, a)
    with pytest.raises(tour.TournamentError) as full:
        tour.join(store, tid, store.register("fifth", PW).id)
    assert full.value.code == "full"
    tour.start(store, tid, ids[0])
    (first,) = _claim_all(store, "node-a")
    tour.release(store, first, "node-b")  # not node-b's to give back
    assert tour.claimable(store) == []
    tour.release(store, first, "node-a")
    (again,) = _claim_all(store, "node-b")
    # node-b froze for longer than the claim lives: node-a takes the table over
    with store._write() as session:
        session.execute(update(TournamentTableRow).values(
            claimed_at=utcnow() - tour.CLAIM_STALE - timedelta(seconds=1)))
    (taken,) = _claim_all(store, "node-a")
    # node-b wakes up and opens its match: refused, and nothing of it is written
    with pytest.raises(tour.ClaimLost):
        _play(store, again, "node-b", [0, 0, 0, 0])
    with store._read() as session:
        assert session.scalars(select(MatchRow)).all() == []
    match_id = _play(store, taken, "node-a", [10, -10, 5, -5])
    with store._read() as session:
        row = session.get(TournamentTableRow, (tid, 1, 0))
        assert row is not None and (row.status, row.match_id) == ("finished", match_id)
    assert tour.advance(store) == [tid]
    detail = tour.detail(store, tid)
    assert detail is not None and detail.tournament.status == "finished"
    assert [s.points for s in detail.standings] == [10, 5, -5, -10]
    assert detail.tables[0].table_id == "t" + match_id


@pytest.mark.parametrize(("change", "code"), [
    ({"name": ""}, "bad_name"),
    ({"name": "x" * 41}, "bad_name"),
    ({"name": "a\u200bb"}, "bad_name"),
    ({"profile": "nope"}, "invalid"),
    ({"hands": 0}, "invalid"),
    ({"hands": 9}, "invalid"),
    ({"rounds": 9}, "invalid"),
    ({"capacity": 3}, "invalid"),
    ({"capacity": 65}, "invalid"),
    ({"capacity": True}, "invalid"),
])
def test_bad_tournaments_are_refused(store: Store, change: dict[str, object], code: str) -> None:
    (a,) = _players(store, 1)
    args: dict[str, object] = {"name": "cup", "profile": "yuanhang", "hands": 1, "rounds": 1,
                               "capacity": 8, **change}
    with pytest.raises(tour.TournamentError) as refused:
        tour.create(store, a, str(args.pop("name")), str(args.pop("profile")),
                    **args)  # type: ignore[arg-type]
    assert refused.value.code == code


def test_a_name_keeps_its_full_width_punctuation(store: Store) -> None:
    """NFC, not NFKC: 「武汉杯（第一届）！」 stays as written (NFKC made it 「武汉杯(第一届)!」)."""
    (a,) = _players(store, 1)
    tid = tour.create(store, a, "武汉杯（第一届）！", "yuanhang", hands=1, rounds=1, capacity=8)
    detail = tour.detail(store, tid)
    assert detail is not None and detail.tournament.name == "武汉杯（第一届）！"


def test_who_may_create_enter_and_call_off(store: Store) -> None:
    a, b, c, d = _players(store, 4)
    guest = store.create_guest().account.id
    with pytest.raises(tour.TournamentError) as refused:
        tour.create(store, guest, "cup", "yuanhang", hands=1, rounds=1, capacity=4)
    assert refused.value.code == "guest"
    made = [tour.create(store, a, f"cup {k}", "yuanhang", hands=1, rounds=1, capacity=4)
            for k in range(tour.OPEN_PER_CREATOR)]
    with pytest.raises(tour.TournamentError) as many:
        tour.create(store, a, "one more", "yuanhang", hands=1, rounds=1, capacity=4)
    assert many.value.code == "too_many"
    with pytest.raises(tour.TournamentError) as guests:
        tour.join(store, made[0], guest)
    assert guests.value.code == "guest"
    tour.join(store, made[0], b)
    tour.withdraw(store, made[0], b)  # before the start: the entry goes
    assert tour.entered(store, b) is None
    with pytest.raises(tour.TournamentError) as few:
        tour.start(store, made[0], a)
    assert few.value.code == "too_few"
    with pytest.raises(tour.TournamentError) as other:
        tour.cancel(store, made[0], c)
    assert other.value.code == "not_creator"
    tour.cancel(store, made[0], a)
    assert tour.detail(store, made[0]).tournament.status == "cancelled"  # type: ignore[union-attr]
    with pytest.raises(tour.TournamentError) as closed:
        tour.join(store, made[0], d)
    assert closed.value.code == "closed"
    # one left open too long is called off, and its players are free again
    stale = tour.create(store, b, "forgotten", "yuanhang", hands=1, rounds=1, capacity=4)
    tour.join(store, stale, d)
    assert tour.entered(store, d) == stale
    assert tour.advance(store, now=utcnow() + tour.OPEN_FOR - timedelta(minutes=1)) == []
    assert tour.entered(store, d) == stale
    tour.advance(store, now=utcnow() + tour.OPEN_FOR + timedelta(minutes=1))
    assert tour.entered(store, d) is None
    assert tour.detail(store, stale).tournament.status == "cancelled"  # type: ignore[union-attr]
    assert tour.detail(store, 10**6) is None
    with pytest.raises(tour.TournamentError) as missing:
        tour.join(store, 10**6, d)
    assert missing.value.code == "not_found"
    # the seats of a table are JSON account ids
    with store._read() as session:
        assert all(isinstance(json.loads(t.players), list)
                   for t in session.scalars(select(TournamentTableRow)))


def test_the_operator_lists_and_calls_off_tournaments(store: Store, db_url: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    ids = _players(store, 4)
    running = tour.create(store, ids[0], "rude name", "yuanhang", hands=1, rounds=2, capacity=4)
    for a in ids[1:]:
        tour.join(store, running, a)
    tour.start(store, running, ids[0])
    waiting = tour.create(store, ids[1], "later", "bianfeng", hands=1, rounds=1, capacity=8)

    def admin(*words: str) -> tuple[int, str, str]:
        code = main(["admin", "--db", db_url, "--as", "ops", *words])
        out, err = capsys.readouterr()
        return code, out, err

    code, out, _ = admin("tournaments", "--json")
    listed = {t["id"]: t for t in json.loads(out)}
    assert code == 0 and listed[running]["status"] == "running" and listed[running]["round"] == 1
    assert listed[waiting]["players"] == 1
    code, out, _ = admin("tournaments")
    assert code == 0 and f"#{running} 'rude name' yuanhang, round 1/2" in out
    code, out, _ = admin("tournament-cancel", str(running), "--reason", "its name")
    assert code == 0 and f"tournament #{running} called off (it was running)" in out
    assert tour.claimable(store) == []  # no table of it starts any more
    assert tour.entered(store, ids[2]) is None
    code, _, err = admin("tournament-cancel", str(running))
    assert code == 2 and "cancelled already" in err and "Traceback" not in err
    code, _, err = admin("tournament-cancel", "999999")
    assert code == 2 and "no such tournament" in err
    assert admin("tournament-cancel", str(waiting))[0] == 0
    (logged, *_) = [a for a in Admin(store, "t").actions() if a.action == "tournament_cancel"]
    assert logged.actor == "ops" and logged.detail is not None


def test_a_tournament_starts_at_its_start_time(store: Store) -> None:
    """定时开赛: at its start time :func:`advance` starts it with the players entered (round 1
    seated), or calls it off below four; the start time is 5 minutes to 7 days ahead; the
    creator may still start it earlier."""
    ids = _players(store, 6)
    now = utcnow()
    at = now + timedelta(hours=2)
    on_time = tour.create(store, ids[0], "晚上八点", "yuanhang", hands=1, rounds=2, capacity=8,
                          starts_at=at, now=now)
    too_few = tour.create(store, ids[1], "没人来", "yuanhang", hands=1, rounds=1, capacity=8,
                          starts_at=at, now=now)
    early = tour.create(store, ids[2], "提前", "yuanhang", hands=1, rounds=1, capacity=8,
                        starts_at=at, now=now)
    for k in ids[1:5]:
        tour.join(store, on_time, k)
    for k in ids[3:6]:
        tour.join(store, early, k)
    tour.start(store, early, ids[2])  # by hand, before its time
    (shown,) = [t for t in tour.listing(store) if t.id == on_time]
    assert shown.starts_at == at and shown.status == "open"
    assert tour.advance(store, now=at - timedelta(seconds=1)) == []  # not yet
    assert sorted(tour.advance(store, now=at)) == [on_time]
    statuses = {t.id: t.status for t in tour.listing(store)}
    assert statuses[on_time] == "running" and statuses[early] == "running"
    assert too_few not in statuses  # called off: no longer listed
    detail = tour.detail(store, on_time)
    assert detail is not None and detail.tournament.round == 1
    assert sorted(a for t in detail.tables for a, _ in t.players) == sorted(ids[:5])
    assert tour.advance(store, now=at + timedelta(minutes=1)) == []  # once
    for bad in (now + timedelta(minutes=4), now + timedelta(days=7), now - timedelta(hours=1),
                at.replace(tzinfo=None)):
        with pytest.raises(tour.TournamentError) as caught:
            tour.create(store, ids[5], "坏时间", "yuanhang", hands=1, rounds=1, capacity=8,
                        starts_at=bad, now=now)
        assert caught.value.code == "bad_start"
