"""Hand records (a finished hand's commitment, wall, salt and events), their
publication as shareable replays (:mod:`.publish`), and the durable log of running
matches (:mod:`.matchlog`) whose hands are saved and settled in one transaction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from . import clubs, matchlog, publish, ratings, stats, tournaments
from .core import check_id, check_int
from .errors import InvalidSettlement, RecordExists, UnknownAccount
from .ledger_store import LedgerSettlement, LedgerStore
from .matchlog import (
    LoggedMatch,
    MatchAppend,
    MatchEvent,
    MatchLogError,
    fee_game_id,
    hand_game_id,
)
from .models import AccountRow, HandRecordRow, HandSeatRow, SettlementRow, utcnow

__all__ = ["HandRecord", "RecordStore"]


@dataclass(frozen=True, slots=True)
class HandRecord:
    """The audit record of one finished hand.

    ``commitment`` is the hash published before the deal; ``wall`` and
    ``salt`` are revealed afterwards so players can check it; ``events`` is the
    hand's JSON-lines event log; ``seats`` maps seat (0 = East … 3 = North) to
    account id.  ``finished_at`` defaults to the time of saving.
    """

    match_id: str
    hand_no: int
    commitment: str
    wall: str
    salt: str
    events: str
    seats: Mapping[int, int]
    finished_at: datetime | None = None


def _record_from_row(row: HandRecordRow, seats: dict[int, int]) -> HandRecord:
    return HandRecord(
        match_id=row.match_id,
        hand_no=row.hand_no,
        commitment=row.commitment,
        wall=row.wall,
        salt=row.salt,
        events=row.events,
        seats=seats,
        finished_at=row.finished_at,
    )


def _seated_row(session: Session, match_id: str, hand_no: int, viewer: int) -> HandRecordRow | None:
    """The row of a hand's record, if account ``viewer`` sat at it."""
    return session.scalar(
        select(HandRecordRow)
        .join(HandSeatRow, HandSeatRow.record_id == HandRecordRow.id)
        .where(
            HandRecordRow.match_id == match_id,
            HandRecordRow.hand_no == hand_no,
            HandSeatRow.account_id == viewer,
        )
    )


class RecordStore(LedgerStore):
    """Hand records, shareable replays and durable matches (a finished hand is settled
    on the ledger in the transaction that saves its record)."""

    def save_hand_record(self, record: HandRecord, *, session: Session | None = None) -> HandRecord:
        """Store a finished hand's record; returns it with ``finished_at`` filled in.

        Records are immutable: saving the same (match id, hand number) twice
        raises :class:`RecordExists`.  Every seated account must exist.  The hand's
        statistics rows (:mod:`.stats`) are written with it.
        """
        check_id("match_id", record.match_id)
        check_int("hand_no", record.hand_no, high=2**31 - 1)
        if not record.seats:
            raise InvalidSettlement("a hand record needs the seat → account mapping")
        for seat in record.seats:
            check_int("seat", seat, high=3)
        if len(set(record.seats.values())) != len(record.seats):
            raise InvalidSettlement("an account sits in two seats")
        for name, value, longest in (
            ("commitment", record.commitment, 128),
            ("salt", record.salt, 256),
        ):
            if not isinstance(value, str) or len(value) > longest:
                raise InvalidSettlement(f"{name} must be a string of at most {longest} characters")
        if not isinstance(record.wall, str) or not isinstance(record.events, str):
            raise InvalidSettlement("wall and events must be strings")
        finished = record.finished_at or utcnow()
        with self._write_in(session) as session:
            rows = self._lock_accounts(session, record.seats.values())
            if any(row.is_house for row in rows.values()):
                raise UnknownAccount(self.house_account_id)
            exists = session.scalar(
                select(HandRecordRow.id).where(
                    HandRecordRow.match_id == record.match_id,
                    HandRecordRow.hand_no == record.hand_no,
                )
            )
            if exists is not None:
                raise RecordExists(record.match_id, record.hand_no)
            row = HandRecordRow(
                match_id=record.match_id,
                hand_no=record.hand_no,
                commitment=record.commitment,
                wall=record.wall,
                salt=record.salt,
                events=record.events,
                finished_at=finished,
            )
            session.add(row)
            try:
                session.flush()
            except IntegrityError as exc:
                raise RecordExists(record.match_id, record.hand_no) from exc
            for seat, account_id in sorted(record.seats.items()):
                session.add(HandSeatRow(record_id=row.id, seat=seat, account_id=account_id))
            stats.add_hand(session, row.id, record.seats, record.events)
        return replace(record, seats=dict(sorted(record.seats.items())), finished_at=finished)

    def hand_record(self, match_id: str, hand_no: int, *, viewer: int) -> HandRecord | None:
        """The record of a hand, only if account ``viewer`` sat at it; else ``None``.

        ``None`` also for a hand that does not exist: a non-participant cannot
        tell the two apart.
        """
        with self._read() as session:
            row = _seated_row(session, match_id, hand_no, viewer)
            if row is None:
                return None
            return _record_from_row(row, publish.record_seats(session, row.id))

    def hand_numbers(self, match_id: str, *, viewer: int) -> list[int]:
        """The hand numbers of a match that account ``viewer`` sat at, ascending."""
        with self._read() as session:
            return list(
                session.scalars(
                    select(HandRecordRow.hand_no)
                    .join(HandSeatRow, HandSeatRow.record_id == HandRecordRow.id)
                    .where(HandRecordRow.match_id == match_id, HandSeatRow.account_id == viewer)
                    .order_by(HandRecordRow.hand_no)
                )
            )

    def hand_players(self, match_id: str, hand_no: int) -> list[str | None]:
        """Who sat where in one stored hand: the accounts' names by seat (``None`` for a
        seat with no stored account).  The replay viewer names the seats with them."""
        names: list[str | None] = [None] * 4
        with self._read() as session:
            for seat, name in session.execute(
                    select(HandSeatRow.seat, AccountRow.username)
                    .join(HandRecordRow, HandRecordRow.id == HandSeatRow.record_id)
                    .join(AccountRow, AccountRow.id == HandSeatRow.account_id)
                    .where(HandRecordRow.match_id == match_id, HandRecordRow.hand_no == hand_no)):
                if 0 <= seat < 4:
                    names[seat] = name
        return names

    def hand_seat(self, match_id: str, hand_no: int, *, viewer: int) -> int | None:
        """The seat account ``viewer`` had in a stored hand, ``None`` if he had none."""
        with self._read() as session:
            return session.scalar(
                select(HandSeatRow.seat)
                .join(HandRecordRow, HandRecordRow.id == HandSeatRow.record_id)
                .where(HandRecordRow.match_id == match_id, HandRecordRow.hand_no == hand_no,
                       HandSeatRow.account_id == viewer))

    def staff_hand_numbers(self, match_id: str) -> list[int]:
        """The finished hand numbers of any match, ascending, for the staff reading a report
        (the caller has checked the role: ``store.staff.check``, action ``replays``)."""
        with self._read() as session:
            return list(session.scalars(select(HandRecordRow.hand_no)
                                        .where(HandRecordRow.match_id == match_id)
                                        .order_by(HandRecordRow.hand_no)))

    def staff_hand_record(self, match_id: str, hand_no: int) -> HandRecord | None:
        """Any finished hand's record, for the staff (as :meth:`staff_hand_numbers`)."""
        with self._read() as session:
            row = session.scalar(select(HandRecordRow).where(
                HandRecordRow.match_id == match_id, HandRecordRow.hand_no == hand_no))
            if row is None:
                return None
            return _record_from_row(row, publish.record_seats(session, row.id))

    # -- shareable replays (see .publish) ----------------------------------------------

    def set_hand_published(
        self, match_id: str, hand_no: int, *, account_id: int, published: bool
    ) -> bool | None:
        """Publish or unpublish a hand the account sat at; ``None`` if it did not (or no hand)."""
        with self._write() as session:
            return publish.set_published(session, match_id, hand_no, account_id, published)

    def hand_published(self, match_id: str, hand_no: int, *, viewer: int) -> bool | None:
        """Whether a hand the viewer sat at is published; ``None`` if he did not sit at it."""
        with self._read() as session:
            row = _seated_row(session, match_id, hand_no, viewer)
            return None if row is None else bool(row.published)

    def public_hand_record(self, match_id: str, hand_no: int) -> HandRecord | None:
        """A published hand's record, for anyone; ``None`` when absent or private."""
        with self._read() as session:
            row = publish.public_record_row(session, match_id, hand_no)
            if row is None:
                return None
            return _record_from_row(row, publish.record_seats(session, row.id))

    # -- durable matches (see .matchlog) ---------------------------------------------

    def open_match(
        self,
        match_id: str,
        table_id: str,
        seed: str,
        config: Mapping[str, object],
        *,
        owner: str | None = None,
    ) -> int:
        """Start a match's log (status ``running``); returns its fencing epoch.

        :class:`UnknownAccount` if a seat's account is closed: an operator's close
        (``admin close``, out of the server) may land while the server seats the player,
        before the match is opened, and the match would settle into the closed account.
        The seated accounts are locked here, as closing locks its account, so one of the
        two waits for the other and sees what it did (closing refuses an account in a
        running match)."""
        with self._write() as session:
            epoch = matchlog.open_match(session, match_id, table_id, seed, config, owner)
            seats = config.get("seats")
            seated = sorted({int(s["account_id"]) for s in seats if isinstance(s, dict)
                             and isinstance(s.get("account_id"), int)} if isinstance(seats, list)
                            else set())
            for row in session.scalars(select(AccountRow).where(AccountRow.id.in_(seated))
                                       .order_by(AccountRow.id).with_for_update()
                                       .execution_options(populate_existing=True)):
                if row.closed_at is not None:
                    raise UnknownAccount(row.id)
            tournaments.match_opened(session, match_id, config, owner)  # a tournament's table
            clubs.match_opened(session, match_id, config)  # a club's table
            return epoch

    def append_match_events(self, match_id: str, epoch: int, events: Sequence[MatchEvent]) -> int:
        """Write events to a running match's log in one transaction (write-ahead)."""
        with self._write() as session:
            return matchlog.append_events(session, match_id, epoch, events)

    def append_many_match_events(self, appends: Sequence[MatchAppend]) -> list[int | MatchLogError]:
        """Write the events of several matches in one transaction (a node's group commit):
        for each append, in order, its match's new ``next_seq`` or why it was refused
        (:class:`~.matchlog.MatchFenced`, :class:`~.matchlog.MatchLogError`; the others are
        written all the same).  A database error raises and writes none of them."""
        with self._write() as session:
            return matchlog.append_many(session, appends)

    def finish_hand(
        self,
        match_id: str,
        epoch: int,
        record: HandRecord,
        point_deltas: Mapping[int, int],
        *,
        stake: int,
        fee: int,
        profile: str,
        totals: Sequence[int],
    ) -> LedgerSettlement | None:
        """Save a finished hand's record and settle it, in one transaction, exactly once.

        The settlement's game id is ``"<match id>/<hand no>"``.  If the hand was settled
        already (a resumed match replays the hand a crash interrupted), nothing changes
        and ``None`` is returned.  The match's ``hands_done`` and ``totals`` move on.
        """
        game_id = hand_game_id(match_id, record.hand_no)
        with self._write() as session:
            row = matchlog.lock_running(session, match_id, epoch)
            # Every account of the hand, in the one global lock order (the house is locked
            # last, by the settlement, and only when it collects a fee).
            self._lock_accounts(session, record.seats.values())
            settled = None
            if session.get(SettlementRow, game_id) is None:
                has_record = session.scalar(
                    select(HandRecordRow.id).where(
                        HandRecordRow.match_id == match_id,
                        HandRecordRow.hand_no == record.hand_no,
                    )
                )
                if has_record is None:
                    self.save_hand_record(record, session=session)
                settled = self.settle_game(
                    game_id, stake, point_deltas, fee, profile=profile, session=session
                )
            matchlog.set_progress(row, record.hand_no + 1, totals)
            return settled

    def settle_match_fee(
        self,
        match_id: str,
        epoch: int,
        players: Sequence[int],
        *,
        stake: int,
        fee: int,
        profile: str,
    ) -> LedgerSettlement | None:
        """Charge the service fee of a match that ended early, exactly once.

        Every one of ``players`` (the match's seats) pays ``fee``, floored at his balance,
        to the house, in a settlement of its own (game id ``"<match id>/fee"``: no points,
        no silver between players), in one transaction with a check of the match's fencing
        epoch.  A match resumed after a crash calls it again: if the fee was charged
        already, nothing changes and ``None`` is returned.
        """
        game_id = fee_game_id(match_id)
        with self._write() as session:
            matchlog.lock_running(session, match_id, epoch)
            self._lock_accounts(session, players)  # the house last (the settlement)
            if session.get(SettlementRow, game_id) is not None:
                return None
            return self.settle_game(
                game_id, stake, dict.fromkeys(players, 0), fee, profile=profile, session=session
            )

    def end_match(self, match_id: str, epoch: int, status: str, reason: str | None = None) -> None:
        """Mark a running match ``finished`` or ``aborted``; it is never resumed again.

        A finished match of four humans updates their skill ratings in the same
        transaction: exactly once per match (:func:`.ratings.rate_match`)."""
        with self._write() as session:
            matchlog.end_match(session, match_id, epoch, status, reason)
            tournaments.match_ended(session, match_id, status)
            if status == "finished":
                ratings.rate_match(session, match_id)

    def running_matches(self) -> list[str]:
        """The ids of the matches still ``running`` (to resume at start), oldest first."""
        with self._read() as session:
            return matchlog.running_match_ids(session)

    def running_match_owners(self) -> list[tuple[str, str | None]]:
        """(match id, owner node) of the matches still ``running`` (cluster failover)."""
        with self._read() as session:
            return matchlog.running_match_owners(session)

    def claim_match(self, match_id: str, *, owner: str | None = None) -> int:
        """Take over a running match (a new fencing epoch); returns the epoch."""
        with self._write() as session:
            return matchlog.claim_match(session, match_id, owner)

    def match_epoch(self, match_id: str) -> int | None:
        """A match's current fencing epoch (``None`` if unknown): a runner whose epoch is
        older was taken over."""
        with self._read() as session:
            return matchlog.match_epoch(session, match_id)

    def load_match(self, match_id: str) -> LoggedMatch | None:
        """A match's log: its row and its events in order."""
        with self._read() as session:
            return matchlog.load_match(session, match_id)
