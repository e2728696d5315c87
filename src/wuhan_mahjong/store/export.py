"""A player's own data, whole, to take away (数据导出): what privacy law calls the right of
access and of portability (GDPR articles 15 and 20, PIPL article 45), and what a platform
that lets a player close his account (:mod:`.closing`) owes him before he does.

:func:`account_export` reads, in one snapshot, everything the platform holds about one
account and returns it as one JSON-ready document (:data:`EXPORT_FORMAT`, version
:data:`EXPORT_VERSION`):

* ``account``: name, guest or registered, when it was made, silver, points and level, a
  ban in force;
* ``sessions``: when each login session began and ends (never its token: only its hash is
  stored, and that is no use to anyone);
* ``ledger``: every change of his silver, with its reason and reference, oldest first;
* ``settlements``: his points and silver in every settled hand (game id ``match/hand``)
  or escape;
* ``ratings`` and ``rating_history``: his skill rating per profile, and each rated match's
  change;
* ``hands``: every recorded hand he sat at (match, hand, seat, whether he published it)
  with how he fared in it; the records themselves, which hold the whole wall and every
  move, are :func:`account_records`' (a JSON-lines file that ``wuhan-mahjong verify``
  checks and ``wuhan-mahjong replay`` shows);
* ``following`` (names and since when) and the number of ``followers`` (who follows him is
  the followers' data, not his); ``blocked``, the players he blocks;
* ``tournaments``: each tournament he entered or created;
* ``operator_actions``: what operators did to his account (grants, bans, password
  resets), without the operator's name;
* ``reports_filed``: the reports (举报, :mod:`.reports`) he filed, and whether an operator
  closed them.  Reports about him are not his to read: they would name who reported him;
* ``puzzles``: his first answer to each puzzle (何切 and 胡不胡, :mod:`.puzzles`) and his
  record in each kind;
* ``clubs``: each club (亲友圈, :mod:`.clubs`) he is in or asked to join: its number, name
  and his role, since when;
* ``staff``: his staff role (:mod:`.staff`) and since when, or ``null``.

A closed account exports nothing (:class:`UnknownAccount`): its name, password and
follows are gone, and it can no longer sign in to ask.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session, aliased

from .errors import UnknownAccount
from .levels import level_for_points
from .models import (
    AccountRow,
    AdminActionRow,
    AuthSessionRow,
    BanRow,
    BlockRow,
    ClubMemberRow,
    ClubRow,
    FollowRow,
    HandRecordRow,
    HandSeatRow,
    HandStatRow,
    LedgerRow,
    MatchResultRow,
    PuzzleAttemptRow,
    PuzzleStatsRow,
    RatedResultRow,
    RatingRow,
    ReportRow,
    StaffRow,
    TournamentPlayerRow,
    TournamentRow,
    utcnow,
)
from .ratings import display_rating

if TYPE_CHECKING:
    from .core import StoreCore

__all__ = ["EXPORT_FORMAT", "EXPORT_VERSION", "RECORDS_BATCH", "account_export",
           "account_records"]

EXPORT_FORMAT = "wuhan-mahjong/account-export"
EXPORT_VERSION = 1
RECORDS_BATCH = 200
"""Hand records read per query by :func:`account_records`' callers (a record is a few KB)."""


def _at(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def _open_account(session: Session, account_id: int) -> AccountRow:
    row = session.get(AccountRow, account_id)
    if row is None or row.is_house or row.closed_at is not None:
        raise UnknownAccount(account_id)
    return row


def _account(session: Session, row: AccountRow) -> dict[str, Any]:
    level = level_for_points(row.points)
    ban = session.get(BanRow, row.id)
    return {
        "id": row.id, "username": row.username, "guest": row.is_guest,
        "created_at": _at(row.created_at), "silver": row.silver, "points": row.points,
        "level": {"number": level.number, "title_zh": level.title_zh,
                  "title_en": level.title_en},
        "banned": None if ban is None else {"since": _at(ban.banned_at), "reason": ban.reason},
    }


def _hands(session: Session, account_id: int) -> list[dict[str, Any]]:
    rows = session.execute(
        select(HandRecordRow.match_id, HandRecordRow.hand_no, HandRecordRow.finished_at,
               HandRecordRow.published, HandSeatRow.seat, HandStatRow)
        .join(HandSeatRow, HandSeatRow.record_id == HandRecordRow.id)
        .outerjoin(HandStatRow, (HandStatRow.record_id == HandRecordRow.id)
                   & (HandStatRow.seat == HandSeatRow.seat))
        .where(HandSeatRow.account_id == account_id)
        .order_by(HandRecordRow.id))
    out: list[dict[str, Any]] = []
    for match_id, hand_no, finished_at, published, seat, stat in rows:
        hand: dict[str, Any] = {"match_id": match_id, "hand_no": hand_no, "seat": seat,
                                "finished_at": _at(finished_at), "published": published}
        if stat is not None:  # a record the statistics could not read has no outcome
            hand.update(profile=stat.profile, points=stat.points, won=stat.won,
                        self_drawn=stat.self_drawn, dealt_in=stat.dealt_in,
                        claimed=stat.claimed, escaped=stat.escaped, exhausted=stat.exhausted,
                        big_hands=stat.big_hands.split())
        out.append(hand)
    return out


def _tournaments(session: Session, account_id: int) -> list[dict[str, Any]]:
    entries = {row.tournament_id: row for row in session.scalars(
        select(TournamentPlayerRow).where(TournamentPlayerRow.account_id == account_id))}
    rows = session.scalars(select(TournamentRow).where(or_(
        TournamentRow.id.in_(sorted(entries)), TournamentRow.creator_id == account_id))
        .order_by(TournamentRow.id))
    out = []
    for row in rows:
        entry = entries.get(row.id)
        out.append({"id": row.id, "name": row.name, "profile": row.profile,
                    "status": row.status, "created_at": _at(row.created_at),
                    "created_by_you": row.creator_id == account_id,
                    "joined_at": None if entry is None else _at(entry.joined_at),
                    "withdrawn": None if entry is None else entry.withdrawn})
    return out


def account_export(store: StoreCore, account_id: int, *,
                   now: datetime | None = None) -> dict[str, Any]:
    """Everything the platform holds about the account, as one JSON-ready document (see the
    module's doc).  :class:`UnknownAccount` for no such account, the house or a closed one."""
    with store._read(snapshot=True) as session:
        row = _open_account(session, account_id)
        mine = account_id
        sessions = [{"created_at": _at(s.created_at), "expires_at": _at(s.expires_at)}
                    for s in session.scalars(select(AuthSessionRow)
                                             .where(AuthSessionRow.account_id == mine)
                                             .order_by(AuthSessionRow.created_at))]
        ledger = [{"id": e.id, "at": _at(e.created_at), "delta": e.delta,
                   "balance_after": e.balance_after, "reason": e.reason,
                   "reference": e.reference}
                  for e in session.scalars(select(LedgerRow).where(LedgerRow.account_id == mine)
                                           .order_by(LedgerRow.id))]
        settled = [{"game_id": m.game_id, "profile": m.profile, "points": m.points_delta,
                    "silver": m.silver_delta, "fee": m.fee, "escaped": m.escaped,
                    "finished_at": _at(m.finished_at)}
                   for m in session.scalars(select(MatchResultRow)
                                            .where(MatchResultRow.account_id == mine)
                                            .order_by(MatchResultRow.finished_at,
                                                      MatchResultRow.game_id))]
        ratings = [{"profile": r.profile, "rating": display_rating(r.mu, r.sigma),
                    "mu": r.mu, "sigma": r.sigma, "matches": r.matches,
                    "updated_at": _at(r.updated_at)}
                   for r in session.scalars(select(RatingRow).where(RatingRow.account_id == mine)
                                            .order_by(RatingRow.profile))]
        history = [{"match_id": r.match_id, "profile": r.profile, "place": r.place,
                    "mu_before": r.mu_before, "sigma_before": r.sigma_before,
                    "mu_after": r.mu_after, "sigma_after": r.sigma_after,
                    "rated_at": _at(r.rated_at)}
                   for r in session.scalars(select(RatedResultRow)
                                            .where(RatedResultRow.account_id == mine)
                                            .order_by(RatedResultRow.rated_at,
                                                      RatedResultRow.match_id))]
        following = [{"username": name, "since": _at(since)} for name, since in session.execute(
            select(AccountRow.username, FollowRow.created_at)
            .join(FollowRow, FollowRow.followee_id == AccountRow.id)
            .where(FollowRow.follower_id == mine).order_by(AccountRow.username_key))]
        blocks = [{"username": name, "since": _at(since)} for name, since in session.execute(
            select(AccountRow.username, BlockRow.created_at)
            .join(BlockRow, BlockRow.blocked_id == AccountRow.id)
            .where(BlockRow.blocker_id == mine).order_by(AccountRow.username_key))]
        followers = session.scalar(select(func.count()).select_from(FollowRow)
                                   .where(FollowRow.followee_id == mine)) or 0
        actions = [{"at": _at(a.created_at), "action": a.action,
                    "detail": None if a.detail is None else json.loads(a.detail)}
                   for a in session.scalars(select(AdminActionRow)
                                            .where(AdminActionRow.account_id == mine)
                                            .order_by(AdminActionRow.id))]
        reported = aliased(AccountRow)
        filed = [{"at": _at(r.created_at), "reported": name, "reason": r.reason,
                  "match_id": r.match_id, "seat": r.seat, "status": r.status}
                 for r, name in session.execute(
                     select(ReportRow, reported.username)
                     .join(reported, reported.id == ReportRow.reported_id)
                     .where(ReportRow.reporter_id == mine).order_by(ReportRow.id))]
        puzzles = [{"kind": a.kind, "profile": a.profile, "number": a.number,
                    "answer": a.answer, "correct": a.correct, "at": _at(a.created_at)}
                   for a in session.scalars(select(PuzzleAttemptRow)
                                            .where(PuzzleAttemptRow.account_id == mine)
                                            .order_by(PuzzleAttemptRow.created_at,
                                                      PuzzleAttemptRow.kind,
                                                      PuzzleAttemptRow.profile,
                                                      PuzzleAttemptRow.number))]
        records = {r.kind: {"attempted": r.attempted, "solved": r.solved, "streak": r.streak,
                            "best_streak": r.best_streak}
                   for r in session.scalars(select(PuzzleStatsRow)
                                            .where(PuzzleStatsRow.account_id == mine)
                                            .order_by(PuzzleStatsRow.kind))}
        clubs = [{"number": number, "name": name, "role": role, "since": _at(since)}
                 for number, name, role, since in session.execute(
                     select(ClubRow.number, ClubRow.name, ClubMemberRow.role, ClubMemberRow.since)
                     .join(ClubMemberRow, ClubMemberRow.club_id == ClubRow.id)
                     .where(ClubMemberRow.account_id == mine).order_by(ClubRow.number))]
        staff = session.get(StaffRow, mine)
        return {
            "format": EXPORT_FORMAT, "version": EXPORT_VERSION,
            "exported_at": _at(now or utcnow()),
            "account": _account(session, row), "sessions": sessions, "ledger": ledger,
            "settlements": settled, "ratings": ratings, "rating_history": history,
            "hands": _hands(session, mine), "following": following,
            "followers": int(followers), "blocked": blocks, "tournaments": _tournaments(session, mine),
            "operator_actions": actions, "reports_filed": filed,
            "puzzles": {"attempts": puzzles, "records": records}, "clubs": clubs,
            "staff": None if staff is None else {"role": staff.role,
                                                 "since": _at(staff.granted_at)},
        }


def account_records(store: StoreCore, account_id: int, *, after: int = 0,
                    limit: int = RECORDS_BATCH) -> Sequence[tuple[int, str]]:
    """The next ``limit`` hand records the account sat at, after record id ``after``, as
    ``(id, JSON lines)`` in id order (pass the last id back as ``after`` for the next
    batch; an empty answer is the end).  :class:`UnknownAccount` as
    :func:`account_export`."""
    with store._read() as session:
        _open_account(session, account_id)
        rows = session.execute(
            select(HandRecordRow.id, HandRecordRow.events)
            .join(HandSeatRow, HandSeatRow.record_id == HandRecordRow.id)
            .where(HandSeatRow.account_id == account_id, HandRecordRow.id > after)
            .order_by(HandRecordRow.id).limit(max(1, limit)))
        return [(record_id, events if events.endswith("\n") else events + "\n")
                for record_id, events in rows]
