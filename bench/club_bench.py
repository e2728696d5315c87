"""Clubs: what a club's standings (战绩榜) and its page cost as the club grows.

    python bench/club_bench.py [--members 200] [--matches 2000] [--elsewhere 2000] [--db URL]

Builds a club of ``--members`` members on a fresh database (SQLite in a temporary directory
by default; ``--db postgresql+psycopg://...`` for an empty PostgreSQL database), and
``--matches`` finished matches of 4 hands at its tables, four members at each, with their
``hand_stats`` rows written as ``finish_hand`` writes them (bulk inserts, so that building
is quick), and ``--elsewhere`` matches of the same members away from the club (quick
matches), which the club's queries must not wade through.  Then times, in one run:

* the club's standings over all of it and over this week (``clubs.standings``), which add
  up every member's hands at the club's tables;
* the club's page: the members and the latest matches (``clubs.members``,
  ``clubs.club_matches``);
* the peer: one player's statistics page (战绩, ``stats.player_stats``), which adds up one
  account's hands the same way, over the same rows.

Each is asked ``--repeat`` times; reported: ms per call, CPU (``time.process_time``, this
process: with SQLite that is the database's work too; with PostgreSQL the server's work is
in its own process, so read the wall time) and wall, and each figure's ratio to the peer's.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

from argon2 import PasswordHasher
from sqlalchemy import insert, select

from wuhan_mahjong.store import clubs, open_store
from wuhan_mahjong.store.models import (
    ClubMatchRow,
    ClubRow,
    HandRecordRow,
    HandSeatRow,
    HandStatRow,
    MatchRow,
    utcnow,
)
from wuhan_mahjong.store.stats import player_stats

HANDS = 4
FAST = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)


def build(url: str, members: int, matches: int, seed: int,
          elsewhere: int = 0) -> tuple[Any, int, int]:
    """The store, the club's number and one member's account id."""
    store = open_store(url, password_hasher=FAST)
    ids = [store.register(f"m{k:04d}", "secret-123").id for k in range(members)]
    number = clubs.create(store, ids[0], "bench", "yuanhang", {"profile": "yuanhang"}).number
    for k, account in enumerate(ids[1:], start=1):
        clubs.apply(store, number, account)
        clubs.answer(store, number, ids[0], f"m{k:04d}", "approve")
    with store._write() as session:
        club_id = session.scalar(select(ClubRow.id).where(ClubRow.number == number))
    rng = random.Random(seed)
    now = utcnow()
    record_id = 0
    total = matches + elsewhere
    at_club = set(rng.sample(range(total), matches))  # interleaved in time with the others
    for start in range(0, total, 500):
        match_rows, club_rows, records, seats, stats = [], [], [], [], []
        for m in range(start, min(total, start + 500)):
            match_id = f"bench-{m}"
            at = now - timedelta(minutes=30 * (total - m))
            players = rng.sample(ids, 4)
            match_rows.append({"match_id": match_id, "table_id": f"t{m}", "status": "finished",
                               "seed": "00", "hands_done": HANDS, "totals": "[0, 0, 0, 0]",
                               "next_seq": 0, "epoch": 1, "created_at": at, "updated_at": at,
                               "config": json.dumps({"hands": HANDS, "seats": [
                                   {"account_id": a, "name": f"p{a}", "is_bot": False}
                                   for a in players]})})
            if m in at_club:
                club_rows.append({"match_id": match_id, "club_id": club_id, "created_at": at})
            for h in range(HANDS):
                record_id += 1
                records.append({"id": record_id, "match_id": match_id, "hand_no": h,
                                "commitment": "c", "wall": "", "salt": "s", "events": "{}",
                                "finished_at": at, "published": False})
                winner = rng.randrange(4)
                for seat, account in enumerate(players):
                    points = 3 * 40 if seat == winner else -40
                    seats.append({"record_id": record_id, "seat": seat, "account_id": account})
                    stats.append({"record_id": record_id, "seat": seat, "account_id": account,
                                  "profile": "yuanhang", "points": points,
                                  "won": seat == winner, "self_drawn": False,
                                  "dealt_in": False, "claimed": False, "escaped": False,
                                  "exhausted": False, "big_hands": ""})
        with store._write() as session:
            for model, rows in ((MatchRow, match_rows), (ClubMatchRow, club_rows),
                                (HandRecordRow, records), (HandSeatRow, seats),
                                (HandStatRow, stats)):
                session.execute(insert(model), rows)
    return store, number, ids[1]


def timed(call: Callable[[], object], repeat: int) -> tuple[float, float]:
    """(CPU ms, wall ms) per call, the median of ``repeat`` calls."""
    cpu, wall = [], []
    for _ in range(repeat):
        c, w = time.process_time(), time.perf_counter()
        call()
        cpu.append(1000 * (time.process_time() - c))
        wall.append(1000 * (time.perf_counter() - w))
    return statistics.median(cpu), statistics.median(wall)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--members", type=int, default=200)
    parser.add_argument("--matches", type=int, default=2000)
    parser.add_argument("--elsewhere", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--db", help="an empty database's URL (default: SQLite, temporary)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = args.db or f"sqlite:///{Path(tmp) / 'bench.db'}"
        t0 = time.perf_counter()
        store, number, member = build(url, args.members, args.matches, args.seed,
                                      args.elsewhere)
        built = time.perf_counter() - t0
        week = utcnow() - timedelta(days=7)
        cases = [
            ("one player's statistics (peer)", lambda: player_stats(store, member)),
            ("standings, ever", lambda: clubs.standings(store, number)),
            ("standings, the last 7 days", lambda: clubs.standings(store, number, week)),
            ("members", lambda: clubs.members(store, number)),
            ("latest 20 matches", lambda: clubs.club_matches(store, number)),
        ]
        table = clubs.standings(store, number)
        assert sum(s.hands for s in table) == 4 * HANDS * args.matches  # every seat's hand
        results = [(name, *timed(call, args.repeat)) for name, call in cases]
        store.close()
    peer_cpu, peer_wall = results[0][1], results[0][2]
    print(f"club of {args.members} members, {args.matches} matches of {HANDS} hands "
          f"({4 * HANDS * args.matches:,} seat-hands) and {args.elsewhere} elsewhere on "
          f"{url.split(':')[0]}, built in "
          f"{built:.1f} s; median of {args.repeat} calls; {len(table)} members ranked")
    print(f"{'':34} {'CPU ms':>8} {'wall ms':>8} {'CPU ×peer':>10} {'wall ×peer':>10}")
    for name, cpu, wall in results:
        print(f"{name:34} {cpu:8.1f} {wall:8.1f} {cpu / max(peer_cpu, 1e-9):10.1f} "
              f"{wall / max(peer_wall, 1e-9):10.1f}")


if __name__ == "__main__":
    main()
