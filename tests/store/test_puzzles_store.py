"""Puzzle answers (``store/puzzles.py``): the first answer counts, the record moves with it
in one statement (two answers at once both count), the download carries them and closing
the account removes them.  On SQLite and PostgreSQL."""

from __future__ import annotations

import threading

from wuhan_mahjong.store import Store
from wuhan_mahjong.store.closing import close_account
from wuhan_mahjong.store.export import account_export
from wuhan_mahjong.store.puzzles import (
    PuzzleStats,
    puzzle_attempt,
    puzzle_stats,
    record_attempt,
)

PASSWORD = "correct horse battery staple"


def test_the_first_answer_counts_and_the_record_follows(store: Store) -> None:
    me = store.register("me", PASSWORD).id
    other = store.register("other", PASSWORD).id
    assert puzzle_stats(store, me) == PuzzleStats(0, 0, 0, 0)
    assert puzzle_attempt(store, me, "yuanhang", 1) is None
    answers = [("yuanhang", 1, "3m", True), ("yuanhang", 2, "4p", True),
               ("bianfeng", 1, "5s", False), ("yuanhang", 3, "1m", True),
               ("yuanhang", 4, "2m", True), ("yuanhang", 5, "9s", True)]
    expected = [(1, 1, 1, 1), (2, 2, 2, 2), (3, 2, 0, 2), (4, 3, 1, 2), (5, 4, 2, 2),
                (6, 5, 3, 3)]
    for (profile, number, tile, right), want in zip(answers, expected, strict=True):
        first, stats = record_attempt(store, me, profile, number, tile, right)
        assert (first.discard, first.correct) == (tile, right)
        assert stats == PuzzleStats(*want)
    # again, and wrong this time: the first answer stands and the record does not move
    first, stats = record_attempt(store, me, "yuanhang", 1, "9p", False)
    assert (first.discard, first.correct) == ("3m", True)
    assert stats == PuzzleStats(6, 5, 3, 3)
    assert puzzle_attempt(store, me, "bianfeng", 1) is not None
    assert puzzle_attempt(store, me, "laizishanzhuang", 1) is None
    # one account's answers are not another's
    assert puzzle_stats(store, other) == PuzzleStats(0, 0, 0, 0)
    assert puzzle_attempt(store, other, "yuanhang", 1) is None


def test_answers_at_the_same_moment_all_count(store: Store) -> None:
    """Two tabs answering at once: every first answer counts once, the same puzzle twice
    counts once."""
    me = store.register("me", PASSWORD).id
    numbers = [1, 2, 3, 4, 5, 6, 6, 6]
    errors: list[BaseException] = []

    def answer(n: int) -> None:
        try:
            record_attempt(store, me, "yuanhang", n, "5m", True)
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=answer, args=(n,)) for n in numbers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert puzzle_stats(store, me) == PuzzleStats(6, 6, 6, 6)


def test_the_download_carries_them_and_closing_removes_them(store: Store) -> None:
    me = store.register("me", PASSWORD).id
    record_attempt(store, me, "yuanhang", 7, "5m", False)
    record_attempt(store, me, "laizishanzhuang", 8, "6p", True)
    data = account_export(store, me)["puzzles"]
    assert [(a["profile"], a["number"], a["discard"], a["correct"]) for a in data["attempts"]] == [
        ("yuanhang", 7, "5m", False), ("laizishanzhuang", 8, "6p", True)]
    assert data["record"] == {"attempted": 2, "solved": 1, "streak": 1, "best_streak": 1}
    close_account(store, me, actor="test")
    assert puzzle_stats(store, me) == PuzzleStats(0, 0, 0, 0)
    assert puzzle_attempt(store, me, "yuanhang", 7) is None
