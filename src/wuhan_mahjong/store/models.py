"""SQLAlchemy ORM models of the store (the schema of ``docs/store.md``).

The migrations in ``migrations/versions`` create exactly this schema; a test
compares the two on both databases, so a change here needs a new migration.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

__all__ = [
    "AccountRow",
    "AdminActionRow",
    "AnnouncementRow",
    "AuthSessionRow",
    "BanRow",
    "Base",
    "FollowRow",
    "HandRecordRow",
    "HandSeatRow",
    "HandStatRow",
    "LedgerRow",
    "MatchEventRow",
    "MatchResultRow",
    "MatchRow",
    "RatedResultRow",
    "RatingRow",
    "ServerFlagRow",
    "SettlementRow",
    "StaffRow",
    "TournamentPlayerRow",
    "TournamentRow",
    "TournamentTableRow",
    "UTCDateTime",
    "utcnow",
]

# Stable constraint names, the same on SQLite and PostgreSQL, so that later
# migrations can name the constraints they alter.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

USERNAME_MAX = 32
GAME_ID_MAX = 128


def storable_game_id(text: str) -> bool:
    """Whether ``text`` could name a stored match: at most :data:`GAME_ID_MAX` characters
    and no NUL, which PostgreSQL's text columns refuse outright (a lookup with one is an
    error there, not a miss).

    >>> storable_game_id("20261203-0a1b2c3d4e5f"), storable_game_id("a" + chr(0) + "b")
    (True, False)
    """
    return len(text) <= GAME_ID_MAX and "\x00" not in text


def utcnow() -> datetime:
    """The current time, timezone-aware in UTC."""
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC datetime on both databases.

    PostgreSQL stores ``timestamptz``; SQLite has no time zones, so the value
    is stored as naive UTC and marked UTC again when read.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to the store; use an aware datetime")
        value = value.astimezone(UTC)
        if dialect.name == "sqlite":
            return value.replace(tzinfo=None)
        return value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


# An autoincrementing 64-bit id; SQLite only autoincrements INTEGER PRIMARY KEY.
BigId = BigInteger().with_variant(Integer, "sqlite")


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class AccountRow(Base):
    """A player account, a guest account, or the single house account (fees)."""

    __tablename__ = "accounts"
    __table_args__ = (
        CheckConstraint("silver >= 0", name="silver_not_negative"),
        UniqueConstraint("username_key"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[str] = mapped_column(String(USERNAME_MAX))
    # NFKC + casefold of the username: unique, so "Alice" and "alice" clash.
    username_key: Mapped[str] = mapped_column(String(USERNAME_MAX))
    password_hash: Mapped[str | None] = mapped_column(String(255))
    is_guest: Mapped[bool] = mapped_column(Boolean, default=False)
    is_house: Mapped[bool] = mapped_column(Boolean, default=False)
    # a bot's account (a guest name, never a session, never silver): migration v0012
    is_bot: Mapped[bool] = mapped_column(Boolean, server_default=false())
    silver: Mapped[int] = mapped_column(BigInteger, default=0)
    points: Mapped[int] = mapped_column(BigInteger, default=0)
    # indexed: the staff pages count today's new players (migration v0019)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)
    # set when the account was closed (注销, store/closing.py): its name is a tombstone,
    # it has no password, no session, no public page and no silver
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class AuthSessionRow(Base):
    """A login session; only the SHA-256 of the opaque token is stored."""

    __tablename__ = "auth_sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class LedgerRow(Base):
    """One change of one silver balance. Per account: sum(delta) == balance."""

    __tablename__ = "ledger"
    __table_args__ = (
        CheckConstraint("balance_after >= 0", name="balance_after_not_negative"),
        Index("ix_ledger_account_id_id", "account_id", "id"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"))
    delta: Mapped[int] = mapped_column(BigInteger)
    balance_after: Mapped[int] = mapped_column(BigInteger)
    reason: Mapped[str] = mapped_column(String(32))
    reference: Mapped[str | None] = mapped_column(String(GAME_ID_MAX))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class SettlementRow(Base):
    """One settled game or escape; the primary key makes settling idempotent."""

    __tablename__ = "settlements"

    game_id: Mapped[str] = mapped_column(String(GAME_ID_MAX), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))  # "game" | "escape"
    profile: Mapped[str] = mapped_column(String(32))
    stake: Mapped[int | None] = mapped_column(BigInteger)
    fee: Mapped[int] = mapped_column(BigInteger)
    fees_collected: Mapped[int] = mapped_column(BigInteger)
    # indexed: the staff pages count today's matches (migration v0019)
    settled_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)


class MatchResultRow(Base):
    """One account's result in one settlement: the match history."""

    __tablename__ = "match_results"
    __table_args__ = (Index("ix_match_results_account_id_finished_at", "account_id", "finished_at"),)

    game_id: Mapped[str] = mapped_column(
        ForeignKey("settlements.game_id", ondelete="CASCADE"), primary_key=True
    )
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), primary_key=True)
    profile: Mapped[str] = mapped_column(String(32))
    points_delta: Mapped[int] = mapped_column(BigInteger)
    silver_delta: Mapped[int] = mapped_column(BigInteger)
    fee: Mapped[int] = mapped_column(BigInteger)
    escaped: Mapped[bool] = mapped_column(Boolean, default=False)
    finished_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class HandRecordRow(Base):
    """The audit record of one hand: commitment, revealed wall + salt, event log."""

    __tablename__ = "hand_records"
    __table_args__ = (UniqueConstraint("match_id", "hand_no"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    match_id: Mapped[str] = mapped_column(String(GAME_ID_MAX))
    hand_no: Mapped[int] = mapped_column(Integer)
    commitment: Mapped[str] = mapped_column(String(128))
    wall: Mapped[str] = mapped_column(Text)
    salt: Mapped[str] = mapped_column(String(256))
    events: Mapped[str] = mapped_column(Text)  # JSON lines
    finished_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    # a player of the hand made it public (shareable replay); private by default
    published: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class HandSeatRow(Base):
    """Seat → account of one hand record; also the index of who may read it."""

    __tablename__ = "hand_seats"
    __table_args__ = (UniqueConstraint("record_id", "account_id"),)

    record_id: Mapped[int] = mapped_column(
        ForeignKey("hand_records.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)


class HandStatRow(Base):
    """How one seat fared in one recorded hand (``engine.records.record_outcome``): the rows
    a player's statistics (战绩, ``store/stats.py``) add up.  Written with the record."""

    __tablename__ = "hand_stats"
    __table_args__ = (Index("ix_hand_stats_account_id_profile", "account_id", "profile"),)

    record_id: Mapped[int] = mapped_column(
        ForeignKey("hand_records.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"))
    profile: Mapped[str] = mapped_column(String(32))
    points: Mapped[int] = mapped_column(BigInteger)
    won: Mapped[bool] = mapped_column(Boolean)
    self_drawn: Mapped[bool] = mapped_column(Boolean)
    dealt_in: Mapped[bool] = mapped_column(Boolean)
    claimed: Mapped[bool] = mapped_column(Boolean)
    escaped: Mapped[bool] = mapped_column(Boolean)
    exhausted: Mapped[bool] = mapped_column(Boolean)
    big_hands: Mapped[str] = mapped_column(String(160))  # ids, space-separated; "" for none


class MatchRow(Base):
    """A match a table runs: what it needs to go on after a crash (durable matches).

    ``seed`` derives the walls, salts and first dealer (server-side only, never sent);
    ``config`` is JSON (rules, room options, seats).  ``status`` is ``running`` until
    the match ends (``finished``) or stops on an error (``aborted``).  ``epoch`` is
    the fencing token of the process running it: raised by every resume, checked by
    every append, so a process that lost the match can write nothing more.
    """

    __tablename__ = "matches"

    match_id: Mapped[str] = mapped_column(String(GAME_ID_MAX), primary_key=True)
    table_id: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16), index=True)
    seed: Mapped[str] = mapped_column(String(128))
    config: Mapped[str] = mapped_column(Text)
    hands_done: Mapped[int] = mapped_column(Integer, default=0)
    totals: Mapped[str] = mapped_column(String(256))
    next_seq: Mapped[int] = mapped_column(Integer, default=0)
    epoch: Mapped[int] = mapped_column(Integer, default=0)
    owner: Mapped[str | None] = mapped_column(String(128))
    reason: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class MatchEventRow(Base):
    """One entry of a match's write-ahead log: an applied action, an escape, a switch."""

    __tablename__ = "match_events"

    match_id: Mapped[str] = mapped_column(
        ForeignKey("matches.match_id", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    hand_no: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(16))
    seat: Mapped[int | None] = mapped_column(Integer)
    data: Mapped[str | None] = mapped_column(Text)
    source: Mapped[str | None] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class RatingRow(Base):
    """A player's skill rating in one profile (openskill's Plackett-Luce ``mu`` and ``sigma``).

    ``ordinal`` (``mu - 3 sigma``, what is shown and ranked) is kept beside them so that
    the leaderboard is one indexed query.  See :mod:`.ratings`.
    """

    __tablename__ = "ratings"
    __table_args__ = (Index("ix_ratings_profile_ordinal", "profile", "ordinal"),)

    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    profile: Mapped[str] = mapped_column(String(32), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    ordinal: Mapped[float] = mapped_column(Float)
    matches: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class RatedResultRow(Base):
    """One player's rating change from one rated match; the key makes rating a match idempotent."""

    __tablename__ = "rated_results"
    __table_args__ = (Index("ix_rated_results_profile_rated_at", "profile", "rated_at"),)

    match_id: Mapped[str] = mapped_column(String(GAME_ID_MAX), primary_key=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    profile: Mapped[str] = mapped_column(String(32))
    place: Mapped[int] = mapped_column(Integer)
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu_after: Mapped[float] = mapped_column(Float)
    sigma_after: Mapped[float] = mapped_column(Float)
    rated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class BanRow(Base):
    """A banned account: it cannot log in, authenticate a session or sit (``admin ban``)."""

    __tablename__ = "account_bans"

    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    reason: Mapped[str | None] = mapped_column(Text)
    actor: Mapped[str] = mapped_column(String(128))
    banned_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class FollowRow(Base):
    """One player following another (关注): the follower sees whether he is online and at
    which table (``store/social.py``)."""

    __tablename__ = "follows"

    follower_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    followee_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class AdminActionRow(Base):
    """The event log of operator actions (``wuhan-mahjong admin ...``); never rewritten.

    ``account_id`` has no foreign key on purpose: the log outlives what it names.
    ``detail`` is JSON.  A running server polls the newest rows (bans close sockets).
    """

    __tablename__ = "admin_actions"

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    actor: Mapped[str] = mapped_column(String(128))
    action: Mapped[str] = mapped_column(String(32))
    account_id: Mapped[int | None] = mapped_column(Integer)
    detail: Mapped[str | None] = mapped_column(Text)


class ServerFlagRow(Base):
    """A switch an operator sets for the running servers (``drain``), polled by them."""

    __tablename__ = "server_flags"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[str] = mapped_column(String(256))
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class TournamentRow(Base):
    """A tournament (比赛): several rounds of matches, the players re-seated each round by
    their standing (``store/tournaments.py``)."""

    __tablename__ = "tournaments"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    profile: Mapped[str] = mapped_column(String(32))
    hands: Mapped[int] = mapped_column(Integer)
    """Hands of each match."""
    rounds: Mapped[int] = mapped_column(Integer)
    capacity: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), index=True)
    """``open`` (players join), ``running``, ``finished`` or ``cancelled``."""
    round: Mapped[int] = mapped_column(Integer, default=0)
    """The round being played (0 while open)."""
    seed: Mapped[str] = mapped_column(String(64))
    """Secret: the first round's seating draw."""
    creator_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    starts_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    """When it starts by itself (定时开赛; migration v0014), or ``None``: when its creator
    starts it."""


class TournamentPlayerRow(Base):
    """A player entered in a tournament; ``withdrawn`` ones are seated no more."""

    __tablename__ = "tournament_players"

    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), primary_key=True,
                                            index=True)
    joined_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    withdrawn: Mapped[bool] = mapped_column(Boolean, default=False)


class TournamentTableRow(Base):
    """One table of one round: its players (account ids, seating order; bots fill the rest)
    and its match once a node started it.  ``pending`` → ``starting`` (claimed by ``owner``
    at ``claimed_at``) → ``running`` (``match_id`` set in the transaction that opens the
    match) → ``finished`` or ``aborted`` (in the one that ends it)."""

    __tablename__ = "tournament_tables"

    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    round: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_no: Mapped[int] = mapped_column(Integer, primary_key=True)
    players: Mapped[str] = mapped_column(String(256))  # JSON list of account ids
    status: Mapped[str] = mapped_column(String(16), index=True)
    owner: Mapped[str | None] = mapped_column(String(128))
    claimed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    match_id: Mapped[str | None] = mapped_column(String(GAME_ID_MAX), unique=True)


class ReportRow(Base):
    """A player's report of another (举报, ``store/reports.py``): ``open`` until an operator
    closes it with a ``note``.  ``match_id`` and ``seat`` name where it happened (``None``
    for a report of a name)."""

    __tablename__ = "reports"
    __table_args__ = (Index("ix_reports_reporter_id_created_at", "reporter_id", "created_at"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    reporter_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"))
    reported_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    reason: Mapped[str] = mapped_column(String(16))
    match_id: Mapped[str | None] = mapped_column(String(GAME_ID_MAX))
    seat: Mapped[int | None] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), index=True)
    note: Mapped[str | None] = mapped_column(String(256))
    closed_by: Mapped[str | None] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class BlockRow(Base):
    """One player blocking another (屏蔽, ``store/social.py``): no follow either way (so no
    invitation), and the blocker's client hides his quick chat."""

    __tablename__ = "blocks"

    blocker_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    blocked_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class PuzzleAttemptRow(Base):
    """An account's first answer to a puzzle (``store/puzzles.py``): ``kind`` ``discard`` (何切,
    ``answer`` the tile) or ``win`` (胡不胡, ``answer`` ``yes`` or ``no``).  Later answers to
    the same puzzle are shown the answer but not recorded."""

    __tablename__ = "puzzle_attempts"
    __table_args__ = (Index("ix_puzzle_attempts_account_id_created_at", "account_id",
                            "created_at"),)

    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    profile: Mapped[str] = mapped_column(String(16), primary_key=True)
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    answer: Mapped[str] = mapped_column(String(4))
    correct: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class PuzzleStatsRow(Base):
    """An account's record in one kind of puzzle, kept beside the attempts so that answering
    costs one row whatever the history: first answers, right ones, the current and the best
    run of right answers."""

    __tablename__ = "puzzle_stats"

    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    attempted: Mapped[int] = mapped_column(Integer)
    solved: Mapped[int] = mapped_column(Integer)
    streak: Mapped[int] = mapped_column(Integer)
    best_streak: Mapped[int] = mapped_column(Integer)


class ClubRow(Base):
    """A club (亲友圈, ``store/clubs.py``): a group of players under an owner, known by its
    6-digit ``number``, whose members open tables with the club's rules (``preset``, the
    room options as JSON) and see the club's standings."""

    __tablename__ = "clubs"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    number: Mapped[int] = mapped_column(Integer, unique=True)
    name: Mapped[str] = mapped_column(String(80))
    owner_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    profile: Mapped[str] = mapped_column(String(32))
    preset: Mapped[str] = mapped_column(Text)
    notice: Mapped[str] = mapped_column(String(800))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class ClubMemberRow(Base):
    """An account's place in a club: ``owner``, ``admin``, ``member``, or ``pending`` (he
    asked to join and an owner or admin has not answered yet)."""

    __tablename__ = "club_members"

    club_id: Mapped[int] = mapped_column(
        ForeignKey("clubs.id", ondelete="CASCADE"), primary_key=True
    )
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    role: Mapped[str] = mapped_column(String(16))
    since: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class ClubMatchRow(Base):
    """A match played at one of a club's tables (written in the transaction that opens it):
    what the club's standings and its list of matches are made of."""

    __tablename__ = "club_matches"
    __table_args__ = (Index("ix_club_matches_club_id_created_at", "club_id", "created_at"),)

    match_id: Mapped[str] = mapped_column(String(GAME_ID_MAX), primary_key=True)
    club_id: Mapped[int] = mapped_column(ForeignKey("clubs.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class StaffRow(Base):
    """A player the operator trusts with the staff pages (``store/staff.py``): ``moderator``
    or ``admin``, who named him and when."""

    __tablename__ = "staff"

    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    role: Mapped[str] = mapped_column(String(16))
    granted_by: Mapped[str] = mapped_column(String(128))
    granted_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class AnnouncementRow(Base):
    """A notice to every player (系统公告: a maintenance window, an event), shown by each
    client until it ends or expires (``store/announcements.py``)."""

    __tablename__ = "announcements"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    text: Mapped[str] = mapped_column(String(800))
    actor: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class RoomRow(Base):
    """A private room waiting for its players (房间), kept so that a server restart or a
    kill -9 does not lose it (``store/rooms.py``): its code, the node process that holds
    it, and its state as the lobby wrote it (JSON: host, options, members, who was asked
    to leave)."""

    __tablename__ = "rooms"

    code: Mapped[str] = mapped_column(String(16), primary_key=True)
    owner: Mapped[str] = mapped_column(String(255))
    state: Mapped[str] = mapped_column(Text)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
