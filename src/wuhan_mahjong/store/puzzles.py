"""Puzzles: each account's first answers and its record, per kind of puzzle: ``discard``
(何切, ``bots/puzzles.py``: the answer is a tile) and ``win`` (胡不胡,
``bots/win_puzzles.py``: the answer is ``yes`` or ``no``).

The first answer an account gives to a puzzle (kind, profile, number) is the one that
counts, as on lichess: it is kept with whether it was right, and the account's record in
that kind (first answers, right ones, the current and the best run of right answers) moves
with it in the same transaction.  Answering again is free and changes nothing here.  Both go when the account
is closed (``store/closing.py``); the data download carries them (``store/export.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import case, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from .models import PuzzleAttemptRow, PuzzleStatsRow, utcnow

if TYPE_CHECKING:
    from .core import StoreCore

__all__ = ["HISTORY_OFFSET_MAX", "PUZZLE_KINDS", "PastAttempt", "PuzzleAttempt", "PuzzleStats",
           "puzzle_attempt", "puzzle_history", "puzzle_stats", "record_attempt"]

PUZZLE_KINDS = ("discard", "win")
"""The kinds of puzzle, each with its own record."""
HISTORY_OFFSET_MAX = 100_000
"""The deepest page of an account's history (:func:`puzzle_history`)."""

_TRIES = 3
"""Transactions tried when another request of the same account races this one (the same
puzzle answered twice at once, or the record's first row made twice)."""


@dataclass(frozen=True)
class PuzzleStats:
    attempted: int
    solved: int
    streak: int
    """Right first answers in a row, up to the latest."""
    best_streak: int


NO_STATS = PuzzleStats(0, 0, 0, 0)


@dataclass(frozen=True)
class PuzzleAttempt:
    answer: str
    correct: bool
    at: datetime


def _stats(row: PuzzleStatsRow | None) -> PuzzleStats:
    if row is None:
        return NO_STATS
    return PuzzleStats(row.attempted, row.solved, row.streak, row.best_streak)


def record_attempt(store: StoreCore, account_id: int, kind: str, profile: str, number: int,
                   answer: str, correct: bool) -> tuple[PuzzleAttempt, PuzzleStats]:
    """Record the account's answer to the puzzle if it is his first: (his first answer, his
    record in the kind after it)."""
    if kind not in PUZZLE_KINDS:
        raise ValueError(f"no kind of puzzle {kind!r}")
    for attempt in range(_TRIES):
        try:
            with store._write() as session:
                first = session.get(PuzzleAttemptRow, (account_id, kind, profile, number))
                if first is None:
                    first = PuzzleAttemptRow(account_id=account_id, kind=kind, profile=profile,
                                             number=number, answer=answer, correct=correct,
                                             created_at=utcnow())
                    session.add(first)
                    session.flush()
                    _count(session, account_id, kind, correct)
                stats = session.scalar(select(PuzzleStatsRow)
                                       .where(PuzzleStatsRow.account_id == account_id,
                                              PuzzleStatsRow.kind == kind)
                                       .execution_options(populate_existing=True))
                return (PuzzleAttempt(first.answer, first.correct, first.created_at),
                        _stats(stats))
        except IntegrityError:
            if attempt == _TRIES - 1:
                raise
    raise AssertionError("unreachable")


def _count(session: Session, account_id: int, kind: str, correct: bool) -> None:
    """Move the record by one first answer: one statement, so that two answers at once
    (two tabs) each count on the other's result."""
    stats = PuzzleStatsRow
    run = stats.streak + 1
    values = ({"attempted": stats.attempted + 1, "solved": stats.solved + 1, "streak": run,
               "best_streak": case((run > stats.best_streak, run), else_=stats.best_streak)}
              if correct else {"attempted": stats.attempted + 1, "streak": 0})
    moved = session.execute(update(stats).where(stats.account_id == account_id,
                                                stats.kind == kind).values(**values))
    if not getattr(moved, "rowcount", 0):
        hit = int(correct)
        session.add(PuzzleStatsRow(account_id=account_id, kind=kind, attempted=1, solved=hit,
                                   streak=hit, best_streak=hit))
        session.flush()


def puzzle_attempt(store: StoreCore, account_id: int, kind: str, profile: str,
                   number: int) -> PuzzleAttempt | None:
    """The account's first answer to the puzzle, if he gave one."""
    with store._read() as session:
        row = session.get(PuzzleAttemptRow, (account_id, kind, profile, number))
        return None if row is None else PuzzleAttempt(row.answer, row.correct, row.created_at)


def puzzle_stats(store: StoreCore, account_id: int, kind: str) -> PuzzleStats:
    """The account's record in ``kind`` (all zero before his first answer)."""
    with store._read() as session:
        return _stats(session.get(PuzzleStatsRow, (account_id, kind)))


@dataclass(frozen=True)
class PastAttempt:
    """One first answer in an account's history (错题本)."""

    kind: str
    profile: str
    number: int
    answer: str
    correct: bool
    at: datetime


def puzzle_history(store: StoreCore, account_id: int, kind: str, *, wrong_only: bool = False,
                   offset: int = 0, limit: int = 20) -> tuple[list[PastAttempt], bool]:
    """The account's first answers in ``kind``, newest first (only the wrong ones with
    ``wrong_only``): up to ``limit`` from ``offset``, and whether more follow."""
    if kind not in PUZZLE_KINDS:
        raise ValueError(f"no kind of puzzle {kind!r}")
    offset = max(0, min(offset, HISTORY_OFFSET_MAX))
    row = PuzzleAttemptRow
    query = select(row).where(row.account_id == account_id, row.kind == kind)
    if wrong_only:
        query = query.where(~row.correct)
    query = (query.order_by(row.created_at.desc(), row.profile, row.number.desc())
             .offset(offset).limit(max(0, limit) + 1))
    with store._read() as session:
        rows = list(session.scalars(query))
    found = [PastAttempt(r.kind, r.profile, r.number, r.answer, r.correct, r.created_at)
             for r in rows[:limit]]
    return found, len(rows) > limit
