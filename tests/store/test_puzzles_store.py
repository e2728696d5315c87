"""Puzzle answers (``store/puzzles.py``): the first answer counts, the record of its kind
moves with it in one statement (two answers at once both count), the download carries them
and closing the account removes them.  On SQLite and PostgreSQL."""

from __future__ import annotations

import threading

import pytest

from wuhan_mahjong.store import Store
from wuhan_mahjong.store.closing import close_account
from wuhan_mahjong.store.export import account_export
from wuhan_mahjong.store.puzzles import (
    PuzzleStats,
    puzzle_attempt,
    puzzle_history,
    puzzle_stats,
    record_attempt,
)

PASSWORD = "correct horse battery staple"


def test_the_first_answer_counts_and_the_record_follows(store: Store) -> None:
    me = store.register("me", PASSWORD).id
    other = store.register("other", PASSWORD).id
    assert puzzle_stats(store, me, "discard") == PuzzleStats(0, 0, 0, 0)
    assert puzzle_attempt(store, me, "discard", "yuanhang", 1) is None
    answers = [("yuanhang", 1, "3m", True), ("yuanhang", 2, "4p", True),
               ("bianfeng", 1, "5s", False), ("yuanhang", 3, "1m", True),
               ("yuanhang", 4, "2m", True), ("yuanhang", 5, "9s", True)]
    expected = [(1, 1, 1, 1), (2, 2, 2, 2), (3, 2, 0, 2), (4, 3, 1, 2), (5, 4, 2, 2),
                (6, 5, 3, 3)]
    for (profile, number, tile, right), want in zip(answers, expected, strict=True):
        first, stats = record_attempt(store, me, "discard", profile, number, tile, right)
        assert (first.answer, first.correct) == (tile, right)
        assert stats == PuzzleStats(*want)
    # again, and wrong this time: the first answer stands and the record does not move
    first, stats = record_attempt(store, me, "discard", "yuanhang", 1, "9p", False)
    assert (first.answer, first.correct) == ("3m", True)
    assert stats == PuzzleStats(6, 5, 3, 3)
    assert puzzle_attempt(store, me, "discard", "bianfeng", 1) is not None
    assert puzzle_attempt(store, me, "discard", "laizishanzhuang", 1) is None
    # the other kind has its own answers and record: the same number is another puzzle
    assert puzzle_attempt(store, me, "win", "yuanhang", 1) is None
    first, stats = record_attempt(store, me, "win", "yuanhang", 1, "no", False)
    assert (first.answer, first.correct) == ("no", False) and stats == PuzzleStats(1, 0, 0, 0)
    assert puzzle_stats(store, me, "discard") == PuzzleStats(6, 5, 3, 3)
    with pytest.raises(ValueError):
        record_attempt(store, me, "riddle", "yuanhang", 1, "x", True)
    # one account's answers are not another's
    assert puzzle_stats(store, other, "discard") == PuzzleStats(0, 0, 0, 0)
    assert puzzle_attempt(store, other, "discard", "yuanhang", 1) is None


def test_answers_at_the_same_moment_all_count(store: Store) -> None:
    """Two tabs answering at once: every first answer counts once, the same puzzle twice
    counts once."""
    me = store.register("me", PASSWORD).id
    numbers = [1, 2, 3, 4, 5, 6, 6, 6]
    errors: list[BaseException] = []

    def answer(n: int) -> None:
        try:
            record_attempt(store, me, "discard", "yuanhang", n, "5m", True)
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=answer, args=(n,)) for n in numbers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert puzzle_stats(store, me, "discard") == PuzzleStats(6, 6, 6, 6)


def test_the_download_carries_them_and_closing_removes_them(store: Store) -> None:
    me = store.register("me", PASSWORD).id
    record_attempt(store, me, "discard", "yuanhang", 7, "5m", False)
    record_attempt(store, me, "discard", "laizishanzhuang", 8, "6p", True)
    record_attempt(store, me, "win", "bianfeng", 9, "yes", True)
    data = account_export(store, me)["puzzles"]
    assert [(a["kind"], a["profile"], a["number"], a["answer"], a["correct"])
            for a in data["attempts"]] == [
        ("discard", "yuanhang", 7, "5m", False), ("discard", "laizishanzhuang", 8, "6p", True),
        ("win", "bianfeng", 9, "yes", True)]
    assert data["records"] == {
        "discard": {"attempted": 2, "solved": 1, "streak": 1, "best_streak": 1},
        "win": {"attempted": 1, "solved": 1, "streak": 1, "best_streak": 1}}
    close_account(store, me, actor="test")
    assert puzzle_stats(store, me, "discard") == PuzzleStats(0, 0, 0, 0)
    assert puzzle_stats(store, me, "win") == PuzzleStats(0, 0, 0, 0)
    assert puzzle_attempt(store, me, "discard", "yuanhang", 7) is None


def test_the_history_newest_first_and_the_wrong_ones(store: Store) -> None:
    me = store.register("me", PASSWORD).id
    answers = [("yuanhang", 1, "3m", True), ("bianfeng", 2, "4p", False),
               ("yuanhang", 3, "5s", False), ("laizishanzhuang", 4, "6m", True)]
    for profile, number, tile, right in answers:
        record_attempt(store, me, "discard", profile, number, tile, right)
    record_attempt(store, me, "win", "yuanhang", 9, "yes", False)
    found, more = puzzle_history(store, me, "discard")
    assert [(a.profile, a.number, a.answer, a.correct) for a in found] == list(reversed(answers))
    assert more is False and [a.kind for a in found] == ["discard"] * 4
    wrong, _ = puzzle_history(store, me, "discard", wrong_only=True)
    assert [a.number for a in wrong] == [3, 2]
    page, more = puzzle_history(store, me, "discard", limit=3)
    assert [a.number for a in page] == [4, 3, 2] and more is True
    page, more = puzzle_history(store, me, "discard", offset=3, limit=3)
    assert [a.number for a in page] == [1] and more is False
    assert [a.answer for a in puzzle_history(store, me, "win")[0]] == ["yes"]
    assert puzzle_history(store, store.register("other", PASSWORD).id, "discard") == ([], False)
    with pytest.raises(ValueError):
        puzzle_history(store, me, "riddle")
