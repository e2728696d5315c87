"""Players report players (举报), and operators work through the reports.

A player reports another for one of :data:`REASONS`:

* ``collusion`` (通牌, 伙牌: two players at a table feeding each other), ``cheating``
  (outside help, a second account at the same table), ``stalling`` (挂机, 拖时间: playing
  out the clock, leaving a table hanging) and ``escaping`` (逃跑) concern a match: the
  report names the match and the reported player's seat in it, and both must have sat in
  it as players (a bot's seat cannot be reported);
* ``name`` (不当昵称, an offensive name) concerns a registered player's name: the report
  names him, by the name his public page has.

A report is a row of ``reports``, ``open`` until an operator closes it (``wuhan-mahjong
admin reports``, ``admin report-close``), with a note of what was done; the closing is in
the admin event log.  Reporting the same player for the same reason and match again, while
the first report is open, changes nothing (the answer names the open report).  The
reporter reads his own reports' state (:func:`reports_by`, ``GET /api/reports``): open, or
closed and when, never the operator's note.  A player
files at most :data:`REPORTS_PER_DAY` reports in any 24 hours, so that reporting cannot
flood the operators.  The reported player is never told who reported him; nothing of a
report is public.

The collusion screen (:mod:`.fairplay`) finds pairs from the hands alone; the reports are
what the players saw.  An operator reads both (``admin fairplay`` shows the collusion
reports beside each pair).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Literal, get_args

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from .admin import log_action
from .core import shown_name
from .errors import StoreError
from .models import AccountRow, MatchRow, ReportRow, storable_game_id, utcnow
from .ratings import public_account

if TYPE_CHECKING:
    from .store import Store

__all__ = ["MATCH_REASONS", "REASONS", "REPORTS_PER_DAY", "Report", "ReportError",
           "ReportReason", "close_report", "file_report", "open_reports", "reported_in",
           "reports_about", "reports_about_names", "reports_by"]

ReportReason = Literal["collusion", "cheating", "stalling", "escaping", "name"]
REASONS: tuple[ReportReason, ...] = get_args(ReportReason)
MATCH_REASONS: tuple[ReportReason, ...] = ("collusion", "cheating", "stalling", "escaping")
"""The reasons a report names a match (and the seat) for; ``name`` names a player."""

REPORTS_PER_DAY = 10
"""The most reports one account files in any 24 hours."""

NOTE_MAX = 256

ReportErrorCode = Literal["invalid", "not_found", "self", "too_many", "closed"]


class ReportError(StoreError, ValueError):
    """A report that cannot be filed or closed; ``code`` says why (the API's error code:
    ``invalid`` → 400, ``not_found`` → 404, ``self`` → 400, ``too_many`` → 429,
    ``closed`` → 409)."""

    def __init__(self, message: str, code: ReportErrorCode) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, slots=True)
class Report:
    """A report as an operator reads it."""

    id: int
    created_at: datetime
    reporter: str
    reported: str
    reported_id: int
    reason: str
    match_id: str | None
    seat: int | None
    status: str
    note: str | None
    closed_by: str | None
    closed_at: datetime | None


def _seated_humans(session: Session, match_id: str) -> dict[int, int]:
    """The match's seats held by players (seat → account id), bots left out; empty for no
    such match."""
    config = session.scalar(select(MatchRow.config).where(MatchRow.match_id == match_id))
    if config is None:
        return {}
    seats = json.loads(config).get("seats", [])
    return {k: s["account_id"] for k, s in enumerate(seats)
            if isinstance(s, dict) and not s.get("is_bot") and isinstance(s.get("account_id"), int)}


def _reported(store: Store, session: Session, reporter_id: int, reason: str,
              username: str | None, match_id: str | None, seat: int | None
              ) -> tuple[int, str | None, int | None]:
    """The reported account, and the match and seat the report keeps."""
    if reason not in REASONS:
        raise ReportError(f"the reason is one of {', '.join(REASONS)}", "invalid")
    if reason in MATCH_REASONS:
        if match_id is None or seat is None:
            raise ReportError(f"a report of {reason} names the match and the seat", "invalid")
        humans = _seated_humans(session, match_id) if storable_game_id(match_id) else {}
        if reporter_id not in humans.values() or seat not in humans:
            raise ReportError("no such player in a match you sat in", "not_found")
        return humans[seat], match_id, seat
    if username is None:
        raise ReportError("a report of a name names the player", "invalid")
    target = public_account(store, session, username)
    if target is None:
        raise ReportError("no such player", "not_found")
    return target.id, None, None


def file_report(store: Store, reporter_id: int, reason: str, *, username: str | None = None,
                match_id: str | None = None, seat: int | None = None,
                now: datetime | None = None) -> tuple[int, bool]:
    """File a report (see the module's doc); its id and whether it is new (``False``: the
    same report is open already).  :class:`ReportError` when it cannot be filed."""
    at = now or utcnow()
    with store._write() as session:
        # the reporter's row locked: two reports of his at once are counted one after the other
        reporter = store._lock_accounts(session, [reporter_id])[reporter_id]
        if reporter.closed_at is not None or reporter.is_house:
            raise ReportError("no such account", "not_found")
        reported, match, at_seat = _reported(store, session, reporter_id, reason, username,
                                             match_id, seat)
        if reported == reporter_id:
            raise ReportError("one cannot report oneself", "self")
        same = session.scalar(select(ReportRow.id).where(
            ReportRow.reporter_id == reporter_id, ReportRow.reported_id == reported,
            ReportRow.reason == reason, ReportRow.status == "open",
            ReportRow.match_id.is_(None) if match is None else ReportRow.match_id == match))
        if same is not None:
            return same, False
        recent = session.scalar(select(func.count()).select_from(ReportRow).where(
            ReportRow.reporter_id == reporter_id,
            ReportRow.created_at > at - timedelta(days=1))) or 0
        if recent >= REPORTS_PER_DAY:
            raise ReportError(f"at most {REPORTS_PER_DAY} reports a day", "too_many")
        row = ReportRow(reporter_id=reporter_id, reported_id=reported, reason=reason,
                        match_id=match, seat=at_seat, status="open", created_at=at)
        session.add(row)
        session.flush()
        return row.id, True


def _listing(session: Session, query: Select[ReportRow]) -> list[Report]:
    rows = list(session.scalars(query))
    ids = {r.reporter_id for r in rows} | {r.reported_id for r in rows}
    named: dict[int, str] = {account: name for account, name in session.execute(
        select(AccountRow.id, AccountRow.username).where(AccountRow.id.in_(sorted(ids))))}
    return [Report(id=r.id, created_at=r.created_at, reporter=named.get(r.reporter_id, "?"),
                   reported=named.get(r.reported_id, "?"), reported_id=r.reported_id,
                   reason=r.reason, match_id=r.match_id, seat=r.seat, status=r.status,
                   note=r.note, closed_by=r.closed_by, closed_at=r.closed_at) for r in rows]


def open_reports(store: Store, *, everything: bool = False, limit: int = 500) -> list[Report]:
    """The open reports (every report with ``everything``), newest first."""
    query = select(ReportRow).order_by(ReportRow.id.desc()).limit(limit)
    if not everything:
        query = query.where(ReportRow.status == "open")
    with store._read() as session:
        return _listing(session, query)


def reports_by(store: Store, reporter_id: int, *, limit: int = 50) -> list[Report]:
    """The reports ``reporter_id`` filed, newest first: what he may read of them is their
    subject, reason, status and when it changed (not the operator's note or name)."""
    query = (select(ReportRow).where(ReportRow.reporter_id == reporter_id)
             .order_by(ReportRow.id.desc()).limit(limit))
    with store._read() as session:
        return _listing(session, query)


def reports_about(store: Store, account_ids: Sequence[int], reason: str | None = None
                  ) -> dict[int, int]:
    """How many reports (open or closed) name each of ``account_ids``, of ``reason`` if
    given (accounts with none left out)."""
    query = (select(ReportRow.reported_id, func.count())
             .where(ReportRow.reported_id.in_(sorted(set(account_ids))))
             .group_by(ReportRow.reported_id))
    if reason is not None:
        query = query.where(ReportRow.reason == reason)
    with store._read() as session:
        return {account: int(n) for account, n in session.execute(query)}


def reports_about_names(store: Store, names: Iterable[str], reason: str | None = None
                        ) -> dict[str, int]:
    """:func:`reports_about` by player name (the fair-play screen's pairs name them)."""
    ids = {name: found.id for name in set(names)
           if (found := store.account_by_username(name)) is not None}
    reported = reports_about(store, list(ids.values()), reason)
    return {name: reported.get(account_id, 0) for name, account_id in ids.items()}


def reported_in(store: Store, report_id: int) -> int | None:
    """The account a report is about (``None`` for no such report): who closes it acts on
    him, so the staff pages check their rank rule against him first (``store/staff.py``)."""
    with store._read() as session:
        return session.scalar(select(ReportRow.reported_id).where(ReportRow.id == report_id))


def close_report(store: Store, report_id: int, actor: str, note: str | None = None) -> Report:
    """Close an open report with a note of what was done (logged); the report as closed."""
    text = None if note is None or not note.strip() else shown_name(note, NOTE_MAX)
    if note is not None and note.strip() and text is None:
        raise ReportError(f"a note is one line of at most {NOTE_MAX} visible characters",
                          "invalid")
    with store._write() as session:
        row = session.get(ReportRow, report_id, with_for_update=True)
        if row is None:
            raise ReportError(f"no report {report_id}", "not_found")
        if row.status != "open":
            raise ReportError(f"report {report_id} is closed already", "closed")
        row.status, row.note, row.closed_by, row.closed_at = "closed", text, actor[:128], utcnow()
        log_action(session, actor, "close_report", row.reported_id,
                   {"report": report_id, "reason": row.reason, "note": text})
        session.flush()
        (closed,) = _listing(session, select(ReportRow).where(ReportRow.id == report_id))
        return closed
