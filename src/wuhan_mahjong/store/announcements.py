"""Announcements (系统公告): one notice to every player from the operator or an admin, such
as "the server restarts at 23:00 for ten minutes" or "this weekend's tournament opens at
20:00".

At most one is shown at a time: the newest that has neither been taken down nor expired
(:func:`current`).  A new one takes the place of the one before.  The servers read it with
the admin log on each poll (``server/admin.py``) and send it to every connected player at
once, and with the ``welcome`` of every new connection.  Who gave which notice, and when
it ended, stays in the table.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from .core import shown_name
from .errors import StoreError
from .models import AnnouncementRow, utcnow

__all__ = ["ANNOUNCEMENT_MAX", "LONGEST_HOURS", "Announcement", "AnnouncementError",
           "announce", "current", "end_announcement", "recent"]

ANNOUNCEMENT_MAX = 200
"""The longest notice, in characters (one line: the clients show it as a banner)."""
LONGEST_HOURS = 24 * 30
"""The longest a notice may be set to last; without an end it lasts until taken down."""


class AnnouncementError(StoreError, ValueError):
    """A notice that cannot be given: empty, too long, control characters, a bad duration."""


@dataclass(frozen=True, slots=True)
class Announcement:
    id: int
    text: str
    actor: str
    created_at: datetime
    expires_at: datetime | None
    ended_at: datetime | None


def _announcement(row: AnnouncementRow) -> Announcement:
    return Announcement(id=row.id, text=row.text, actor=row.actor, created_at=row.created_at,
                        expires_at=row.expires_at, ended_at=row.ended_at)


def current(session: Session, now: datetime | None = None) -> Announcement | None:
    """The notice shown now: the newest neither taken down nor expired, if any."""
    at = now or utcnow()
    row = session.scalar(
        select(AnnouncementRow).where(AnnouncementRow.ended_at.is_(None))
        .order_by(AnnouncementRow.id.desc()).limit(1))
    if row is None or (row.expires_at is not None and row.expires_at <= at):
        return None
    return _announcement(row)


def announce(session: Session, text: object, actor: str, hours: float | None = None,
             now: datetime | None = None) -> Announcement:
    """Show ``text`` to every player (for ``hours``, else until taken down), in place of the
    notice before; in ``session``'s transaction."""
    cleaned = shown_name(text, ANNOUNCEMENT_MAX)
    if cleaned is None:
        raise AnnouncementError(f"a notice has 1 to {ANNOUNCEMENT_MAX} visible characters "
                                "on one line")
    if hours is not None and not 0 < hours <= LONGEST_HOURS:
        raise AnnouncementError(f"a notice lasts more than 0 and at most {LONGEST_HOURS} hours")
    at = now or utcnow()
    session.execute(update(AnnouncementRow).where(AnnouncementRow.ended_at.is_(None))
                    .values(ended_at=at))
    row = AnnouncementRow(text=cleaned, actor=actor[:128], created_at=at,
                          expires_at=None if hours is None else at + timedelta(hours=hours))
    session.add(row)
    session.flush()
    return _announcement(row)


def end_announcement(session: Session, now: datetime | None = None) -> Announcement | None:
    """Take the notice shown now down; the notice, or ``None`` if none was shown."""
    shown = current(session, now)
    if shown is None:
        return None
    at = now or utcnow()
    session.execute(update(AnnouncementRow).where(AnnouncementRow.ended_at.is_(None))
                    .values(ended_at=at))
    return Announcement(id=shown.id, text=shown.text, actor=shown.actor,
                        created_at=shown.created_at, expires_at=shown.expires_at, ended_at=at)


def recent(session: Session, limit: int = 20) -> list[Announcement]:
    """The newest ``limit`` notices, newest first, shown or not."""
    return [_announcement(r) for r in session.scalars(
        select(AnnouncementRow).order_by(AnnouncementRow.id.desc()).limit(limit))]
