"""Closing an account (注销账号), as app stores and privacy law ask of a platform: the
player (``POST /api/account/close``, with his password) or an operator (``wuhan-mahjong
admin close``) closes it, and from then on nothing can use it or find it by its name.

In one transaction, :func:`close_account`:

* renames it to a tombstone, ``已注销#<id>`` (a ``#`` no registered name has, so it can
  never clash, and the old name is free to register again), drops its password and
  every session, and stamps ``closed_at``;
* moves its silver to the house account (ledger rows ``account_closed`` and
  ``closure_income``: a sink, as fees are; no silver is destroyed, and the audit holds);
* removes every follow and block from or to it, and its puzzle answers and record;
* takes it out of every club (亲友圈): a club it owned goes to its longest-standing admin,
  else member, and is dissolved if it had none (``store/clubs.py``);
* takes it out of the tournaments it entered (withdrawn from a running one, its entry gone
  from an open one) and calls off the open ones it created (nobody else may start them);
* writes the tombstone over its name in the stored configuration of its finished
  matches, where the seats' names were kept;
* logs the closing in the admin event log.

What others need stays, under the tombstone: the hand records and their seats (the
other players' replays), the settlements and the ledger (the audit), the rated results
(the other players' rating histories).  A closed account has no public page, is on no
leaderboard and cannot be followed.  An account seated in a running match cannot be
closed (:class:`AccountInMatch`): the match would settle into it after.  Nor can a match
open with a closed account (``RecordStore.open_match`` locks the seated accounts as this
locks its account, so an operator's close racing the server's seating is one or the other).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta

from sqlalchemy import delete, or_, select, update
from sqlalchemy.orm import Session

from .admin import log_action
from .clubs import leave_all
from .core import StoreCore
from .errors import AccountInMatch, UnknownAccount
from .ledger_store import LedgerReason, move_silver
from .models import (
    AccountRow,
    AuthSessionRow,
    BlockRow,
    FollowRow,
    HandRecordRow,
    HandSeatRow,
    MatchResultRow,
    MatchRow,
    PuzzleAttemptRow,
    PuzzleStatsRow,
    StaffRow,
    TournamentPlayerRow,
    TournamentRow,
    utcnow,
)

__all__ = ["ABANDONED_BATCH", "GUEST_GRACE", "AccountInMatch", "close_abandoned_guests",
           "close_account", "closed_name"]

GUEST_GRACE = timedelta(days=1)
"""A guest account younger than this is never closed as abandoned."""
ABANDONED_BATCH = 100
"""Abandoned guest accounts closed per housekeeping round (each is one transaction)."""


def closed_name(account_id: int) -> str:
    """The tombstone name of a closed account (no registered or guest name has a ``#``).

    >>> closed_name(12)
    '已注销#12'
    """
    return f"已注销#{account_id}"


def _seated(config: str, account_id: int) -> bool:
    seats = json.loads(config).get("seats", [])
    return any(isinstance(s, dict) and s.get("account_id") == account_id for s in seats)


def _rename_in_configs(session: Session, account_id: int, name: str) -> int:
    """Write ``name`` over the account's seat names in its matches' stored configuration;
    how many matches changed.  Its matches are found through its hand records and its
    settled games (a match ended before its first hand has neither, and no record of him
    but its configuration: that one is found by reading the finished matches' seats)."""
    ids = set(session.scalars(
        select(HandRecordRow.match_id).join(HandSeatRow, HandSeatRow.record_id == HandRecordRow.id)
        .where(HandSeatRow.account_id == account_id)))
    for game_id in session.scalars(select(MatchResultRow.game_id)
                                   .where(MatchResultRow.account_id == account_id)):
        ids.add(game_id.rsplit("/", 1)[0])
    changed = 0
    rows = session.scalars(select(MatchRow).where(or_(MatchRow.match_id.in_(sorted(ids)),
                                                      MatchRow.hands_done == 0)))
    for row in rows:
        config = json.loads(row.config)
        seats = config.get("seats", [])
        mine = [s for s in seats if isinstance(s, dict) and s.get("account_id") == account_id]
        if not mine:
            continue
        for seat in mine:
            seat["name"] = name
        row.config = json.dumps(config, ensure_ascii=False)
        changed += 1
    return changed


def close_account(store: StoreCore, account_id: int, *, actor: str,
                  reason: str | None = None) -> int:
    """Close the account (see the module's doc); the silver moved to the house.

    :class:`UnknownAccount` for no such account, the house or one closed already;
    :class:`AccountInMatch` while it sits in a running match.  The caller checks who
    may close it (the player's password, or an operator)."""
    with store._write() as session:
        row = store._lock_accounts(session, [account_id])[account_id]
        if row.is_house or row.closed_at is not None:
            raise UnknownAccount(account_id)
        running = session.scalars(select(MatchRow.config).where(MatchRow.status == "running"))
        if any(_seated(config, account_id) for config in running):
            raise AccountInMatch("the account sits in a running match: close it once the "
                                 "match is over")
        now = utcnow()
        silver = row.silver
        reference = f"closed {closed_name(account_id)}"
        move_silver(session, row, -silver, LedgerReason.ACCOUNT_CLOSED, reference, now)
        if silver:  # the house last, alone (the store's one lock order)
            house = store._lock_accounts(session, [store.house_account_id])
            move_silver(session, house[store.house_account_id], silver,
                        LedgerReason.CLOSURE_INCOME, reference, now)
        name = closed_name(account_id)
        row.username = row.username_key = name
        row.password_hash = None
        row.closed_at = now
        sessions = session.execute(delete(AuthSessionRow)
                                   .where(AuthSessionRow.account_id == account_id))
        follows = session.execute(delete(FollowRow).where(or_(
            FollowRow.follower_id == account_id, FollowRow.followee_id == account_id)))
        session.execute(delete(BlockRow).where(or_(
            BlockRow.blocker_id == account_id, BlockRow.blocked_id == account_id)))
        # his puzzle answers are his alone and say nothing to anyone else
        session.execute(delete(PuzzleAttemptRow).where(PuzzleAttemptRow.account_id == account_id))
        session.execute(delete(PuzzleStatsRow).where(PuzzleStatsRow.account_id == account_id))
        clubs_dissolved = leave_all(session, account_id)
        session.execute(delete(StaffRow).where(StaffRow.account_id == account_id))
        open_ids = select(TournamentRow.id).where(TournamentRow.status == "open")
        session.execute(delete(TournamentPlayerRow).where(
            TournamentPlayerRow.account_id == account_id,
            TournamentPlayerRow.tournament_id.in_(open_ids)))
        session.execute(update(TournamentPlayerRow).where(
            TournamentPlayerRow.account_id == account_id,
            TournamentPlayerRow.tournament_id.in_(
                select(TournamentRow.id).where(TournamentRow.status == "running")))
            .values(withdrawn=True))
        session.execute(update(TournamentRow).where(
            TournamentRow.creator_id == account_id, TournamentRow.status == "open")
            .values(status="cancelled", updated_at=now))
        session.flush()
        matches = _rename_in_configs(session, account_id, name)
        log_action(session, actor, "close_account", account_id, {
            "reason": reason, "silver": silver, "matches_renamed": matches,
            "sessions_ended": int(getattr(sessions, "rowcount", 0)),
            "follows_removed": int(getattr(follows, "rowcount", 0)),
            "clubs_dissolved": clubs_dissolved})
        return silver


def close_abandoned_guests(store: StoreCore, *, now: datetime | None = None,
                           limit: int = ABANDONED_BATCH) -> list[int]:
    """Close (as :func:`close_account` does) up to ``limit`` guest accounts that nobody can
    use any more: a guest has no password, his session token is his only way in, and every
    session of these has ended (30 days unused, or logged out).  Bots (``is_bot``), the
    house and guests younger than :data:`GUEST_GRACE` are left alone, and so is one seated
    at a running match.  Their silver goes to the house as any closed account's does, their
    hand records stay for the other players.  The ids closed, oldest first."""
    at = now or utcnow()
    live = select(AuthSessionRow.account_id).where(or_(AuthSessionRow.expires_at.is_(None),
                                                       AuthSessionRow.expires_at > at))
    with store._read() as session:
        found = list(session.scalars(
            select(AccountRow.id).where(
                AccountRow.is_guest, ~AccountRow.is_bot, ~AccountRow.is_house,
                AccountRow.closed_at.is_(None), AccountRow.created_at < at - GUEST_GRACE,
                AccountRow.id.not_in(live))
            .order_by(AccountRow.id).limit(max(0, limit))))
    closed = []
    for account_id in found:
        try:
            close_account(store, account_id, actor="housekeeping",
                          reason="a guest account with no session left")
        except (AccountInMatch, UnknownAccount):  # seated now, or closed meanwhile
            continue
        closed.append(account_id)
    return closed
