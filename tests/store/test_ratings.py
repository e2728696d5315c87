"""Skill ratings: a finished match of four humans is rated once, a bot match never;
leaderboards rank by rating with a minimum number of matches (all time and this week)."""

from __future__ import annotations

import itertools
import threading
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import update

from wuhan_mahjong.store import HandRecord, MatchEvent, MatchLogError, Store
from wuhan_mahjong.store.admin import Admin
from wuhan_mahjong.store.models import RatedResultRow
from wuhan_mahjong.store.ratings import (
    display_rating,
    leaderboard,
    placings,
    ratings_of,
    week_start,
)


def _players(store: Store, prefix: str, n: int = 4) -> list[int]:
    return [store.register(f"{prefix}{k}", "correct horse battery staple").id for k in range(n)]


def _play(store: Store, match_id: str, players: list[int], points: list[int], *,
          bots: tuple[int, ...] = (), profile: str = "yuanhang", escaped: tuple[int, ...] = ()
          ) -> None:
    """Open, play one settled hand and finish a match, as a table does."""
    seats = [{"account_id": a, "name": f"p{a}", "is_bot": k in bots} for k, a in enumerate(players)]
    epoch = store.open_match(match_id, "t-" + match_id, "00", {"profile": profile, "seats": seats})
    if escaped:
        store.append_match_events(match_id, epoch, [MatchEvent(k, 0, "escape", seat=s)
                                                    for k, s in enumerate(escaped)])
    record = HandRecord(match_id=match_id, hand_no=0, commitment="c" * 64, wall="1m" * 136,
                        salt="00" * 32, events="{}", seats=dict(enumerate(players)))
    store.finish_hand(match_id, epoch, record, dict(zip(players, points, strict=True)), stake=0,
                      fee=0, profile=profile, totals=points)
    store.end_match(match_id, epoch, "finished")


def test_placings() -> None:
    assert placings([5, 5, -5, -5], [False] * 4) == [1, 1, 3, 3]
    assert placings([40, 0, -20, -20], [False, True, False, False]) == [1, 4, 2, 2]


def test_four_human_match_is_rated_once(store: Store) -> None:
    players = _players(store, "ra")
    assert all(ratings_of(store, a) == [] for a in players)
    _play(store, "m1", players, [24, -8, -8, -8])
    after = {a: ratings_of(store, a) for a in players}
    assert all(len(r) == 1 and r[0].profile == "yuanhang" and r[0].matches == 1
               for r in after.values())
    winner, *losers = (after[a][0] for a in players)
    assert winner.mu > 25.0 > losers[0].mu
    assert losers[0].mu == losers[1].mu == losers[2].mu  # a shared place
    assert all(r.sigma < 25 / 3 for r in (winner, *losers))
    assert winner.rating > display_rating(25.0, 25 / 3)
    # ending the match again changes nothing: the same end (a retry whose answer was
    # lost) is answered as done and rates nobody twice; another end is refused
    store.end_match("m1", 1, "finished")
    with pytest.raises(MatchLogError):
        store.end_match("m1", 1, "aborted", "boom")
    assert {a: ratings_of(store, a) for a in players} == after
    with store.engine.connect() as c:
        rows = c.execute(RatedResultRow.__table__.select()).all()
    assert len(rows) == 4


def test_bot_match_is_not_rated(store: Store) -> None:
    players = _players(store, "rb")
    _play(store, "m2", players, [24, -8, -8, -8], bots=(3,))
    assert all(ratings_of(store, a) == [] for a in players)


def test_aborted_match_is_not_rated(store: Store) -> None:
    players = _players(store, "rc")
    seats = [{"account_id": a, "name": "x", "is_bot": False} for a in players]
    epoch = store.open_match("m3", "t", "00", {"profile": "yuanhang", "seats": seats})
    store.end_match("m3", epoch, "aborted", "boom")
    assert all(ratings_of(store, a) == [] for a in players)


def test_an_escaper_is_placed_last(store: Store) -> None:
    players = _players(store, "rd")
    _play(store, "m4", players, [30, -10, -10, -10], escaped=(0,))
    mus = [ratings_of(store, a)[0].mu for a in players]
    assert mus[0] < min(mus[1:])


def test_leaderboard_order_and_minimum(store: Store) -> None:
    strong, mid, weak, rare = _players(store, "lb")
    extra = _players(store, "lx", 3)
    for k in range(3):
        _play(store, f"g{k}", [strong, mid, weak, extra[k % 3]], [30, 10, -20, -20])
    _play(store, "g9", [rare, extra[0], extra[1], extra[2]], [60, -20, -20, -20])
    board = leaderboard(store, "yuanhang", "all", min_matches=3)
    assert [line.username for line in board] == ["lb0", "lb1", "lb2"]
    assert [line.rank for line in board] == [1, 2, 3]
    assert board[0].rating > board[1].rating > board[2].rating
    assert all(line.matches == 3 for line in board)
    everyone = leaderboard(store, "yuanhang", "all", min_matches=1)
    assert {line.username for line in everyone} >= {"lb3", "lx0"}
    assert [line.rating for line in everyone] == sorted((line.rating for line in everyone),
                                                        reverse=True)
    assert leaderboard(store, "bianfeng", "all", min_matches=1) == []
    # a banned player leaves the leaderboard
    Admin(store, "test").ban("lb0")
    assert [line.username for line in leaderboard(store, "yuanhang", min_matches=3)] == [
        "lb1", "lb2"]


def test_weekly_leaderboard_counts_this_weeks_matches(store: Store) -> None:
    a, b, c, d = _players(store, "wk")
    for k in range(2):
        _play(store, f"w{k}", [a, b, c, d], [30, 10, -20, -20])
    now = datetime.now(UTC)
    week = leaderboard(store, "yuanhang", "week", min_matches=2, now=now)
    assert [ln.username for ln in week][:2] == ["wk0", "wk1"] and len(week) == 4
    # one of the two matches moves to last week: nobody has two this week
    with store.engine.begin() as conn:
        conn.execute(update(RatedResultRow).where(RatedResultRow.match_id == "w0")
                     .values(rated_at=week_start(now) - timedelta(hours=1)))
    assert leaderboard(store, "yuanhang", "week", min_matches=2, now=now) == []
    assert len(leaderboard(store, "yuanhang", "week", min_matches=1, now=now)) == 4
    assert len(leaderboard(store, "yuanhang", "all", min_matches=2, now=now)) == 4


def test_week_start() -> None:
    assert week_start(datetime(2026, 12, 3, 15, 30, tzinfo=UTC)) == datetime(2026, 11, 30,
                                                                              tzinfo=UTC)


@pytest.mark.parametrize(("zone", "now", "start"), [
    # 01:00 on Monday 7 December in Wuhan is still Sunday in UTC: Wuhan's week has begun
    ("Asia/Shanghai", datetime(2026, 12, 6, 17, 0, tzinfo=UTC), datetime(2026, 12, 6, 16, 0)),
    ("Asia/Shanghai", datetime(2026, 12, 6, 15, 59, tzinfo=UTC), datetime(2026, 11, 29, 16, 0)),
    ("UTC", datetime(2026, 12, 6, 17, 0, tzinfo=UTC), datetime(2026, 11, 30, 0, 0)),
    # a zone west of UTC, and one whose offset changed during the week (summer time ended
    # on Sunday 25 October 2026 in Berlin: Monday 19 October began at 22:00 UTC)
    ("America/New_York", datetime(2026, 11, 30, 3, 0, tzinfo=UTC), datetime(2026, 11, 23, 5, 0)),
    ("Europe/Berlin", datetime(2026, 10, 25, 12, 0, tzinfo=UTC), datetime(2026, 10, 18, 22, 0)),
])
def test_the_week_starts_on_monday_midnight_of_the_zone(zone: str, now: datetime,
                                                        start: datetime) -> None:
    assert week_start(now, ZoneInfo(zone)) == start.replace(tzinfo=UTC)


def test_the_weekly_leaderboard_follows_the_zone(store: Store) -> None:
    """A match rated at 15:00 UTC on a Sunday belongs to last week in Wuhan by 17:00 UTC
    (01:00 on Monday there), and to this week on UTC's calendar."""
    a, b, c, d = _players(store, "tz")
    _play(store, "tz0", [a, b, c, d], [30, 10, -20, -20])
    with store.engine.begin() as conn:
        conn.execute(update(RatedResultRow).where(RatedResultRow.match_id == "tz0")
                     .values(rated_at=datetime(2026, 12, 6, 15, 0, tzinfo=UTC)))
    now = datetime(2026, 12, 6, 17, 0, tzinfo=UTC)
    assert len(leaderboard(store, "yuanhang", "week", min_matches=1, now=now)) == 4
    assert leaderboard(store, "yuanhang", "week", min_matches=1, now=now,
                       zone=ZoneInfo("Asia/Shanghai")) == []


def test_concurrent_match_ends_rate_once(store: Store) -> None:
    players = _players(store, "cc")
    seats = [{"account_id": a, "name": "x", "is_bot": False} for a in players]
    epoch = store.open_match("mc", "t", "00", {"profile": "bianfeng", "seats": seats})
    start = threading.Barrier(3)
    outcomes: list[str] = []

    def end() -> None:
        start.wait()
        try:
            store.end_match("mc", epoch, "finished")
            outcomes.append("ended")
        except MatchLogError:
            outcomes.append("refused")

    # three ends at once: one ends the match, the others find it ended as they would end it
    # (answered as done, as a retry whose answer was lost is); it is rated once
    threads = [threading.Thread(target=end) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert outcomes == ["ended"] * 3
    assert all(ratings_of(store, a)[0].matches == 1 for a in players)


def test_a_player_pages_rating_curve(store: Store) -> None:
    """The curve is the shown rating before the first rated match and after each, as the page
    showed it at the time; only the newest ``points`` matches are kept; per profile."""
    from wuhan_mahjong.store.ratings import public_player, rating_history

    ids = _players(store, "curve")
    places = [[30, 10, -10, -30], [-30, 10, 30, -10], [10, 30, -30, -10], [30, -10, 10, -30],
              [-10, -30, 10, 30], [30, 10, -10, -30]]
    seen = []
    for k, points in enumerate(places):
        _play(store, f"cv{k}", ids, points)
        page = public_player(store, "curve0")
        assert page is not None
        seen.append(page.ratings[0].rating)
    _play(store, "cv-bf", ids, [30, 10, -10, -30], profile="bianfeng")
    page = public_player(store, "curve0")
    assert page is not None
    by_profile = {r.profile: r for r in page.ratings}
    curve = by_profile["yuanhang"].history
    assert [p.rating for p in curve] == [1000, *seen]
    assert [p.rating for p in by_profile["bianfeng"].history][:1] == [1000]
    assert len(by_profile["bianfeng"].history) == 2
    assert all(a.at <= b.at for a, b in itertools.pairwise(curve))
    with store._read() as session:
        newest = rating_history(session, ids[0], "yuanhang", points=3)
        assert [p.rating for p in newest] == seen[-4:]
        assert rating_history(session, ids[0], "laizishanzhuang") == ()
