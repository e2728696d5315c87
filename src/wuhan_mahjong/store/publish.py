"""Shareable replays: a hand's players may publish its record (private by default).

A published hand record is readable by anyone, without an account: its replay
and its JSON-lines record (``docs/records.md``), which ``wuhan-mahjong verify``
checks.  Only the accounts that sat at the hand may publish or unpublish it; to
anybody else a hand that exists and one that does not look the same (``None``),
as for :meth:`Store.hand_record`.

The functions take the caller's session (:class:`~.store.Store` opens the
transaction); the facade methods are :meth:`Store.set_hand_published` and
:meth:`Store.public_hand_record`.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from .models import HandRecordRow, HandSeatRow

__all__ = ["public_record_row", "record_seats", "set_published"]


def set_published(session: Session, match_id: str, hand_no: int, account_id: int,
                  published: bool) -> bool | None:
    """Publish (or unpublish) a hand for account ``account_id``, who must have sat at it.

    Returns the hand's new ``published`` flag, or ``None`` when there is no such hand
    or the account did not sit at it (then nothing changes).  Idempotent.
    """
    row = session.scalar(
        select(HandRecordRow)
        .join(HandSeatRow, HandSeatRow.record_id == HandRecordRow.id)
        .where(HandRecordRow.match_id == match_id, HandRecordRow.hand_no == hand_no,
               HandSeatRow.account_id == account_id)
        .with_for_update(of=HandRecordRow)
    )
    if row is None:
        return None
    row.published = published
    return published


def public_record_row(session: Session, match_id: str, hand_no: int) -> HandRecordRow | None:
    """The row of a published hand, or ``None`` (no such hand, or not published)."""
    return session.scalar(
        select(HandRecordRow).where(HandRecordRow.match_id == match_id,
                                    HandRecordRow.hand_no == hand_no,
                                    HandRecordRow.published.is_(True)))


def record_seats(session: Session, record_id: int) -> dict[int, int]:
    """Seat → account id of one hand record."""
    return {seat: account for seat, account in session.execute(
        select(HandSeatRow.seat, HandSeatRow.account_id)
        .where(HandSeatRow.record_id == record_id).order_by(HandSeatRow.seat))}
