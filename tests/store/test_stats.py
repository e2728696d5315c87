"""Players' statistics (战绩): the rows written with each hand record add up to what the
engine says happened, on SQLite and PostgreSQL; migration v0008 writes the same rows for
hands recorded before it."""

from __future__ import annotations

import random
from collections import Counter
from datetime import timedelta
from typing import Any

from alembic import command
from argon2 import PasswordHasher
from sqlalchemy import insert, inspect

from wuhan_mahjong.engine import Match, simple_policy
from wuhan_mahjong.engine.records import SELF_DRAWN_WINS
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.store import HandRecord, Store, StoreSettings
from wuhan_mahjong.store.database import create_store_engine
from wuhan_mahjong.store.migrate import alembic_config, upgrade
from wuhan_mahjong.store.models import AccountRow, HandRecordRow, HandSeatRow, utcnow
from wuhan_mahjong.store.stats import ProfileStats, player_stats

FAST_HASHER = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)

PLAYED = (("laizishanzhuang", 4), ("yuanhang", 17), ("laizishanzhuang", 3), ("bianfeng", 0),
          ("yuanhang", 15))
"""(profile, seed) of the matches: seeds whose hands have big hands among their wins."""
START = utcnow() - timedelta(days=1)


def _records(players: list[int]) -> tuple[list[HandRecord], list[Any]]:
    """Matches of ``simple_policy`` players (2 hands each, one escape): their records, in
    order, and the engine's final state of each hand."""
    records, states = [], []
    for no, (profile, seed) in enumerate(PLAYED):
        rng = random.Random(seed)
        match = Match(get_rules(profile), 2, rng=rng)
        while not match.finished:
            hand = match.start_hand()
            if no == 3 and match.hand_no == 0:
                match.escape(1)
            while not hand.ended:
                seat = hand.to_act()[0]
                match.apply(seat, simple_policy(hand, seat))
            records.append(HandRecord(
                match_id=f"m{no}", hand_no=hand.hand_no, commitment=hand.commitment,
                wall="", salt=hand.salt.hex(), events="\n".join(match.history[-1].records),
                seats=dict(enumerate(players)),
                finished_at=START + timedelta(minutes=len(records))))
            states.append(hand)
    return records, states


def _expected(records: list[HandRecord], states: list[Any], account: int,
              seat_of: dict[int, int]) -> dict[str, ProfileStats]:
    """What the engine's states say about one account, tallied here."""
    tally: dict[str, Counter[str]] = {}
    big: dict[str, Counter[str]] = {}
    best: dict[str, tuple[int, str, int]] = {}
    matches: dict[str, set[str]] = {}
    for record, hand in zip(records, states, strict=True):
        seat, profile, result = seat_of[account], hand.rules.profile, hand.result
        t = tally.setdefault(profile, Counter())
        matches.setdefault(profile, set()).add(record.match_id)
        won = result.winner == seat
        t["hands"] += 1
        t["wins"] += won
        t["self_drawn"] += won and result.win_by in SELF_DRAWN_WINS
        t["dealt_in"] += (result.winner is not None and result.from_seat == seat
                          and result.win_by not in SELF_DRAWN_WINS)
        t["claimed"] += any(m.from_seat not in (None, seat) for m in hand.melds[seat])
        t["exhausted"] += result.outcome == "exhausted"
        t["escaped"] += any(e[0] == "escape" and e[1] == seat for e in hand.log)
        t["points"] += result.deltas[seat]
        if won:
            hands = result.settlement.hands
            t["big_wins"] += bool(hands)
            big.setdefault(profile, Counter()).update(hands)
            if profile not in best or result.deltas[seat] > best[profile][0]:
                best[profile] = (result.deltas[seat], record.match_id, record.hand_no)
    return {p: ProfileStats(profile=p, matches=len(matches[p]), hands=t["hands"],
                            wins=t["wins"], self_drawn=t["self_drawn"], dealt_in=t["dealt_in"],
                            claimed=t["claimed"], exhausted=t["exhausted"], escaped=t["escaped"],
                            points=t["points"], big_wins=t["big_wins"],
                            big_hands=dict(big.get(p, {})), best=None)
            for p, t in tally.items()}, best


def _check(store: Store, records: list[HandRecord], states: list[Any], players: list[int]) -> None:
    for seat, account in enumerate(players):
        expected, best = _expected(records, states, account, {a: s for s, a in
                                                             enumerate(players)})
        found = player_stats(store, account)
        # in the profiles' own order: yuanhang, bianfeng, laizishanzhuang
        assert [s.profile for s in found] == ["yuanhang", "bianfeng", "laizishanzhuang"]
        for stats in found:
            want = expected[stats.profile]
            assert stats.big_hands == want.big_hands, (seat, stats.profile)
            if stats.profile in best:
                assert stats.best is not None
                assert (stats.best.points, stats.best.match_id, stats.best.hand_no) \
                    == best[stats.profile]
            else:
                assert stats.best is None
            assert {**vars_of(stats), "best": None, "big_hands": {}} == \
                {**vars_of(want), "best": None, "big_hands": {}}


def vars_of(stats: ProfileStats) -> dict[str, object]:
    return {name: getattr(stats, name) for name in ProfileStats.__slots__}


def _players(store: Store) -> list[int]:
    return [store.register(f"stat{n}", "secret-123").id for n in range(4)]


def test_statistics_add_up_what_the_engine_says(store: Store) -> None:
    players = _players(store)
    records, states = _records(players)
    for record in records:
        store.save_hand_record(record)
    _check(store, records, states, players)
    totals = player_stats(store, players[0])
    assert sum(s.hands for s in totals) == len(records)
    # the cases were all there: a win, a deal-in, an escape, a big hand, a claim
    every = [s for a in players for s in player_stats(store, a)]
    for name in ("wins", "self_drawn", "dealt_in", "claimed", "escaped", "big_wins"):
        assert sum(getattr(s, name) for s in every) > 0, name


def test_a_record_that_is_no_finished_hand_has_no_statistics(store: Store) -> None:
    players = _players(store)
    store.save_hand_record(HandRecord(match_id="x", hand_no=0, commitment="c", wall="",
                                      salt="s", events="{}", seats=dict(enumerate(players))))
    records, _ = _records(players)
    unfinished = "\n".join(records[0].events.splitlines()[:-3])  # cut before its end
    store.save_hand_record(HandRecord(match_id="y", hand_no=0, commitment="c", wall="",
                                      salt="s", events=unfinished,
                                      seats=dict(enumerate(players))))
    assert player_stats(store, players[0]) == []
    assert store.audit().ok


def test_the_migration_writes_the_rows_of_earlier_hands(db_url: str) -> None:
    engine = create_store_engine(db_url)
    try:
        upgrade(engine, "v0007_follows")
        with engine.begin() as connection:  # the accounts and hands as v0007 kept them
            players = [int(connection.execute(insert(AccountRow.__table__).values(
                username=f"stat{n}", username_key=f"stat{n}", password_hash=None,
                is_guest=False, is_house=False, silver=0, points=0, created_at=utcnow()))
                .inserted_primary_key[0]) for n in range(4)]
        records, states = _records(players)
        with engine.begin() as connection:
            for no, record in enumerate(records, 1):
                connection.execute(insert(HandRecordRow.__table__).values(
                    id=no, match_id=record.match_id, hand_no=record.hand_no,
                    commitment=record.commitment, wall=record.wall, salt=record.salt,
                    events=record.events, finished_at=record.finished_at, published=False))
                connection.execute(insert(HandSeatRow.__table__), [
                    {"record_id": no, "seat": s, "account_id": a}
                    for s, a in record.seats.items()])
        upgrade(engine)
        store = Store(engine, StoreSettings(password_hasher=FAST_HASHER))
        _check(store, records, states, players)
        with engine.begin() as connection:
            command.downgrade(alembic_config(connection), "v0007_follows")
        assert "hand_stats" not in inspect(engine).get_table_names()
        upgrade(engine)  # and up again: the same rows
        _check(store, records, states, players)
    finally:
        engine.dispose()
