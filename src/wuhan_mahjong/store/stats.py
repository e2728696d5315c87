"""A player's statistics (战绩) per rule profile, as mahjong platforms show them: hands
played, how often he wins, wins on his own draw, deals in (放冲) and claims, his points
per hand, his best hand and the big hands he has won.

Each recorded hand adds one :class:`~.models.HandStatRow` per seat, in the transaction
that saves the record (:func:`add_hand`), from what the record's derived lines say
(:func:`wuhan_mahjong.engine.records.record_outcome`); migration ``v0008_hand_stats``
wrote them for the hands recorded before.  :func:`player_stats` adds them up with one
indexed query per profile.  A record whose events are not a finished hand (a test's
``"{}"``) has no statistics: there is nothing to count.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sqlalchemy import ColumnElement, ColumnExpressionArgument, case, func, insert, select
from sqlalchemy.orm import Session

from ..engine.records import HandRecordError, RecordOutcome, load_records, record_outcome
from ..rules import PROFILES
from .models import HandRecordRow, HandStatRow

if TYPE_CHECKING:
    from .store import Store

__all__ = ["BestHand", "ProfileStats", "add_hand", "outcome_of", "player_stats", "stat_values"]


@dataclass(frozen=True, slots=True)
class BestHand:
    """The hand a player won the most points in (the first such, when several tie)."""

    points: int
    match_id: str
    hand_no: int
    big_hands: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ProfileStats:
    """One player's counts in one profile; rates are these over ``hands`` (or ``wins``)."""

    profile: str
    matches: int
    hands: int
    wins: int
    self_drawn: int
    dealt_in: int
    claimed: int
    exhausted: int
    escaped: int
    points: int
    """The sum of his points over the hands (their ends; escape penalties are not in it)."""
    big_wins: int
    """Wins with at least one big hand (大胡)."""
    big_hands: Mapping[str, int] = field(default_factory=dict)
    """How often he won with each big hand (a win with two counts for both)."""
    best: BestHand | None = None


def outcome_of(events: str) -> RecordOutcome | None:
    """The outcome of the one hand in ``events`` (JSON lines), or ``None`` if they are not
    exactly one finished hand's record."""
    try:
        hands = load_records(events)
        return record_outcome(hands[0]) if len(hands) == 1 else None
    except HandRecordError:
        return None


def stat_values(record_id: int, seats: Mapping[int, int],
                outcome: RecordOutcome) -> list[dict[str, object]]:
    """The ``hand_stats`` rows of one hand record, one per seat with an account, as column
    values (the store and the migration that wrote the earlier hands' rows share them)."""
    return [
        {"record_id": record_id, "seat": seat, "account_id": account_id,
         "profile": outcome.profile, "points": line.points, "won": line.won,
         "self_drawn": line.self_drawn, "dealt_in": line.dealt_in, "claimed": line.claimed,
         "escaped": line.escaped, "exhausted": outcome.exhausted,
         "big_hands": " ".join(line.big_hands)}
        for seat, account_id in sorted(seats.items())
        for line in (outcome.seats[seat],)
    ]


def add_hand(session: Session, record_id: int, seats: Mapping[int, int], events: str) -> None:
    """Write a newly saved hand record's statistics rows (none if ``events`` is not one
    finished hand)."""
    outcome = outcome_of(events)
    if outcome is not None:
        session.execute(insert(HandStatRow), stat_values(record_id, seats, outcome))


def _count(condition: ColumnExpressionArgument[bool]) -> ColumnElement[int]:
    """How many rows meet ``condition`` (a sum of 1s: booleans do not add on PostgreSQL)."""
    return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)


def player_stats(store: Store, account_id: int) -> list[ProfileStats]:
    """An account's statistics, one entry per profile he has played a recorded hand in,
    in the order of :data:`wuhan_mahjong.rules.PROFILES`."""
    row = HandStatRow
    totals = (
        select(row.profile, func.count(), func.count(func.distinct(HandRecordRow.match_id)),
               _count(row.won), _count(row.self_drawn), _count(row.dealt_in),
               _count(row.claimed), _count(row.exhausted), _count(row.escaped),
               func.coalesce(func.sum(row.points), 0),
               _count(row.won & (row.big_hands != "")))
        .join(HandRecordRow, HandRecordRow.id == row.record_id)
        .where(row.account_id == account_id)
        .group_by(row.profile)
    )
    out: list[ProfileStats] = []
    with store._read() as session:
        found = {str(r[0]): r for r in session.execute(totals)}
        order = list(PROFILES)
        for profile in sorted(found, key=lambda p: (order.index(p) if p in order
                                                    else len(order), p)):
            r = found[profile]
            big = Counter(
                name
                for names in session.scalars(
                    select(row.big_hands).where(row.account_id == account_id,
                                                row.profile == profile, row.big_hands != ""))
                for name in names.split())
            best = session.execute(
                select(row.points, HandRecordRow.match_id, HandRecordRow.hand_no, row.big_hands)
                .join(HandRecordRow, HandRecordRow.id == row.record_id)
                .where(row.account_id == account_id, row.profile == profile, row.won)
                .order_by(row.points.desc(), HandRecordRow.finished_at, HandRecordRow.id)
                .limit(1)).first()
            out.append(ProfileStats(
                profile=profile, hands=int(r[1]), matches=int(r[2]), wins=int(r[3]),
                self_drawn=int(r[4]), dealt_in=int(r[5]), claimed=int(r[6]),
                exhausted=int(r[7]), escaped=int(r[8]), points=int(r[9]), big_wins=int(r[10]),
                big_hands=dict(sorted(big.items(), key=lambda kv: (-kv[1], kv[0]))),
                best=None if best is None else BestHand(
                    points=int(best[0]), match_id=str(best[1]), hand_no=int(best[2]),
                    big_hands=tuple(str(best[3]).split()))))
    return out

