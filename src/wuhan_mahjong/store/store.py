"""The :class:`Store`: accounts, sessions, the silver ledger, settlements, records.

Every public method runs in its own database transaction (sessions are handled
inside) and is safe to call from many threads at once; the asyncio server
calls it through a thread pool.

Concurrency of balance changes
    Every transaction that changes balances first locks the rows of all the
    accounts it touches, house account included, with ``SELECT ... FOR UPDATE``
    in ascending id order (one fixed order, so two settlements can never
    deadlock), then computes from the locked balances and writes the new
    balances and their ledger rows before committing.  On SQLite the ``FOR
    UPDATE`` is a no-op, and write transactions are serialised by
    ``BEGIN IMMEDIATE`` instead (see :mod:`.engine`).
"""

from __future__ import annotations

import secrets
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from enum import StrEnum

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import Engine, delete, func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from . import matchlog, publish, ratings
from .accounts import (
    check_password_rules,
    hash_token,
    lookup_keys,
    new_guest_name,
    new_token,
    normalize_username,
)
from .admin import AccountBanned, is_banned
from .database import READ_ONLY
from .errors import (
    AlreadySettled,
    AuthenticationFailed,
    InsufficientSilver,
    InvalidSettlement,
    RecordExists,
    UnknownAccount,
    UsernameTaken,
)
from .levels import Level, level_for_points
from .matchlog import LoggedMatch, MatchEvent, hand_game_id
from .models import (
    GAME_ID_MAX,
    AccountRow,
    AuthSessionRow,
    HandRecordRow,
    HandSeatRow,
    LedgerRow,
    MatchResultRow,
    SettlementRow,
    utcnow,
)
from .settlement import Outcome, compute_escape, compute_game

__all__ = [
    "MAX_AMOUNT",
    "SINKS",
    "SOURCES",
    "TRANSFERS",
    "Account",
    "Audit",
    "HandRecord",
    "LedgerEntry",
    "LedgerReason",
    "LedgerSettlement",
    "Login",
    "MatchResult",
    "SettledPlayer",
    "Store",
    "StoreSettings",
]

MAX_AMOUNT = 2**53 - 1
"""Largest stake, fee, penalty, grant or balance accepted (exact in JSON numbers)."""

_GUEST_NAME_TRIES = 8

_Compute = Callable[[Mapping[int, int]], dict[int, Outcome]]
"""Computes the outcomes from the locked balances of the players."""


class LedgerReason(StrEnum):
    """The ``reason`` column of ledger rows.

    Silver enters only through the *sources* (:data:`SOURCES`) and leaves
    only through the *sinks* (:data:`SINKS`); every other row moves silver
    between accounts (:data:`TRANSFERS`).
    """

    SIGNUP_GRANT = "signup_grant"
    """Source: the starting silver of a new account (or guest)."""
    DAILY_ALLOWANCE = "daily_allowance"
    """Source: the optional daily allowance (at most one per account and UTC day)."""
    OPERATOR_GRANT = "operator_grant"
    """Source (positive) or sink (negative): an operator's grant or removal."""
    GRANT = "grant"
    """Source, legacy: databases written before the named sources (starting silver,
    and the bot top-ups the server no longer makes).  Never written now."""
    GAME = "game"
    """Transfer: a player's silver won or lost in a settled game."""
    FEE = "fee"
    """Sink: a player's service fee (it goes to the house account)."""
    FEE_INCOME = "fee_income"
    """The house account's side of the fees: all fees of one settlement."""
    ESCAPE_PENALTY = "escape_penalty"
    """Transfer: the escaper's penalty."""
    ESCAPE_SHARE = "escape_share"
    """Transfer: another player's share of an escape penalty."""


SOURCES = frozenset({LedgerReason.SIGNUP_GRANT, LedgerReason.DAILY_ALLOWANCE,
                     LedgerReason.OPERATOR_GRANT, LedgerReason.GRANT})
"""Reasons of the rows that create silver (an operator's negative grant destroys it)."""
SINKS = frozenset({LedgerReason.FEE})
"""Reasons of the player rows that take silver out of play (into the house account)."""
TRANSFERS = frozenset({LedgerReason.GAME, LedgerReason.ESCAPE_PENALTY, LedgerReason.ESCAPE_SHARE})
"""Reasons of the rows that move silver between players: they sum to 0."""


# --------------------------------------------------------------------------- values


@dataclass(frozen=True, slots=True)
class Account:
    """A player or guest account as the server sees it."""

    id: int
    username: str
    is_guest: bool
    silver: int
    points: int
    created_at: datetime

    @property
    def level(self) -> Level:
        return level_for_points(self.points)


@dataclass(frozen=True, slots=True)
class Login:
    """A new session: hand ``token`` to the client, it is shown only once."""

    token: str
    account: Account
    expires_at: datetime | None


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    id: int
    account_id: int
    delta: int
    balance_after: int
    reason: str
    reference: str | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class SettledPlayer:
    """One player's part of a settlement, with his balance and points after it."""

    account_id: int
    points_delta: int
    silver_delta: int
    """Silver won (+) or paid (−) in the game or escape itself."""
    fee: int
    silver_after: int
    points_after: int

    @property
    def silver_net(self) -> int:
        return self.silver_delta - self.fee


@dataclass(frozen=True, slots=True)
class LedgerSettlement:
    """What a settlement wrote to the silver ledger: each player's outcome and the fees
    (not :class:`wuhan_mahjong.scoring.Settlement`, the points of a won hand)."""

    game_id: str
    kind: str
    """``"game"`` or ``"escape"``."""
    players: Mapping[int, SettledPlayer]
    fees_collected: int
    settled_at: datetime


@dataclass(frozen=True, slots=True)
class MatchResult:
    """One line of an account's match history."""

    match_id: str
    profile: str
    kind: str
    finished_at: datetime
    points_delta: int
    silver_delta: int
    fee: int
    escaped: bool

    @property
    def silver_net(self) -> int:
        return self.silver_delta - self.fee


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


@dataclass(frozen=True, slots=True)
class Audit:
    """Result of :meth:`Store.audit`; ``ok`` when every invariant holds.

    Silver has named sources and sinks (:class:`LedgerReason`): the players'
    silver is the sources minus the sinks, the house account holds exactly the
    sinks (the fees), and the transfers (games, escapes) sum to zero.
    """

    total_balances: int
    """All balances, the house included."""
    player_balances: int
    """All balances but the house's."""
    house_balance: int
    sources: Mapping[str, int]
    """Sum of the ledger rows of each source reason (operator removals included)."""
    sinks: int
    """Silver taken out of play: the fees the players paid."""
    fee_income: int
    """What the house's ledger says it received."""
    transfers: int
    """Sum of the transfer rows (0 when nothing was created or lost in settlements)."""
    unknown_reasons: tuple[str, ...]
    mismatched_accounts: tuple[int, ...]
    """Accounts whose ledger rows do not sum to their balance."""
    negative_accounts: tuple[int, ...]

    @property
    def total_sources(self) -> int:
        return sum(self.sources.values())

    @property
    def ok(self) -> bool:
        return (
            self.player_balances == self.total_sources - self.sinks
            and self.house_balance == self.sinks == self.fee_income
            and self.total_balances == self.total_sources
            and self.transfers == 0
            and not self.unknown_reasons
            and not self.mismatched_accounts
            and not self.negative_accounts
        )


@dataclass(frozen=True, slots=True)
class StoreSettings:
    starting_silver: int = 1000
    """Silver granted to a newly registered account."""
    guest_starting_silver: int = 1000
    """Silver granted to a new guest account."""
    session_ttl: timedelta | None = timedelta(days=30)
    """Lifetime of a login session; ``None``: until logout."""
    password_hasher: PasswordHasher = field(default_factory=PasswordHasher)
    """argon2id hasher; tests pass a cheap one."""


# --------------------------------------------------------------------------- helpers


def _account(row: AccountRow) -> Account:
    return Account(
        id=row.id,
        username=row.username,
        is_guest=row.is_guest,
        silver=row.silver,
        points=row.points,
        created_at=row.created_at,
    )


def _check_int(name: str, value: int, *, low: int = 0, high: int = MAX_AMOUNT) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidSettlement(f"{name} must be an int, got {value!r}")
    if not low <= value <= high:
        raise InvalidSettlement(f"{name} must be between {low} and {high}, got {value}")


def _check_id(name: str, value: str) -> None:
    if not isinstance(value, str) or not 1 <= len(value) <= GAME_ID_MAX:
        raise InvalidSettlement(f"{name} must be a string of 1 to {GAME_ID_MAX} characters")


def _check_profile(profile: str) -> None:
    if not isinstance(profile, str) or not 1 <= len(profile) <= 32:
        raise InvalidSettlement("profile must be a string of 1 to 32 characters")


# --------------------------------------------------------------------------- the store


class Store:
    """The persistence layer.  Create it with :func:`wuhan_mahjong.store.open_store`."""

    def __init__(self, engine: Engine, settings: StoreSettings | None = None) -> None:
        self._engine = engine
        self._read_engine = engine.execution_options(**{READ_ONLY: True})
        # Reads of several statements that must agree (the audit): on PostgreSQL
        # one snapshot for the whole transaction; SQLite transactions always are.
        self._snapshot_engine = (
            self._read_engine.execution_options(isolation_level="REPEATABLE READ")
            if engine.dialect.name == "postgresql"
            else self._read_engine
        )
        self.settings = settings or StoreSettings()
        _check_int("starting_silver", self.settings.starting_silver)
        _check_int("guest_starting_silver", self.settings.guest_starting_silver)
        self._dummy_hash: str | None = None
        with self._read() as session:
            house = session.scalar(select(AccountRow.id).where(AccountRow.is_house))
        if house is None:
            raise RuntimeError("the database has no house account; run the migrations")
        self.house_account_id: int = house

    @property
    def engine(self) -> Engine:
        return self._engine

    def close(self) -> None:
        """Close every pooled connection."""
        self._engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # -- transactions ---------------------------------------------------------------

    @contextmanager
    def _write(self) -> Iterator[Session]:
        with Session(self._engine, expire_on_commit=False) as session, session.begin():
            yield session

    @contextmanager
    def _write_in(self, session: Session | None) -> Iterator[Session]:
        """``session`` when given (its caller's transaction), else a new write transaction."""
        if session is not None:
            yield session
            return
        with self._write() as own:
            yield own

    @contextmanager
    def _read(self, *, snapshot: bool = False) -> Iterator[Session]:
        bind = self._snapshot_engine if snapshot else self._read_engine
        with Session(bind, expire_on_commit=False) as session, session.begin():
            yield session

    def _lock_accounts(self, session: Session, ids: Iterable[int]) -> dict[int, AccountRow]:
        """Lock the account rows (ascending id: one global lock order, no deadlocks)."""
        wanted = sorted(set(ids))
        rows = session.scalars(
            select(AccountRow)
            .where(AccountRow.id.in_(wanted))
            .order_by(AccountRow.id)
            .with_for_update()
            .execution_options(populate_existing=True)
        ).all()
        found = {row.id: row for row in rows}
        for account_id in wanted:
            if account_id not in found:
                raise UnknownAccount(account_id)
        return found

    @staticmethod
    def _move(
        session: Session,
        row: AccountRow,
        delta: int,
        reason: LedgerReason,
        reference: str | None,
        now: datetime,
    ) -> None:
        """Change a locked balance and write its ledger row (nothing for 0)."""
        if delta == 0:
            return
        new_balance = row.silver + delta
        if new_balance < 0:  # the callers floor every debit; this is a safety net
            raise AssertionError(f"balance of account {row.id} would become {new_balance}")
        row.silver = new_balance
        session.add(
            LedgerRow(
                account_id=row.id,
                delta=delta,
                balance_after=new_balance,
                reason=str(reason),
                reference=reference,
                created_at=now,
            )
        )

    # -- accounts -----------------------------------------------------------------

    def _hash_password(self, password: str) -> str:
        return self.settings.password_hasher.hash(password)

    def _new_account(
        self,
        session: Session,
        username: str,
        key: str,
        password_hash: str | None,
        is_guest: bool,
        starting_silver: int,
    ) -> AccountRow:
        now = utcnow()
        row = AccountRow(
            username=username,
            username_key=key,
            password_hash=password_hash,
            is_guest=is_guest,
            is_house=False,
            silver=0,
            points=0,
            created_at=now,
        )
        session.add(row)
        session.flush()  # assigns the id; raises IntegrityError on a duplicate name
        self._move(session, row, starting_silver, LedgerReason.SIGNUP_GRANT, "starting silver", now)
        return row

    def register(self, username: str, password: str) -> Account:
        """Create an account with a password and the starting silver.

        Raises :class:`InvalidUsername`, :class:`InvalidPassword` or
        :class:`UsernameTaken` (also when two registrations race).
        """
        name, key = normalize_username(username)
        check_password_rules(password)
        with self._read() as session:
            if session.scalar(select(AccountRow.id).where(AccountRow.username_key == key)):
                raise UsernameTaken(name)
        password_hash = self._hash_password(password)  # slow: outside any transaction
        try:
            with self._write() as session:
                row = self._new_account(
                    session, name, key, password_hash, False, self.settings.starting_silver
                )
                return _account(row)
        except IntegrityError as exc:
            raise UsernameTaken(name) from exc

    def _open_session(self, session: Session, account_id: int) -> tuple[str, datetime | None]:
        token = new_token()
        now = utcnow()
        ttl = self.settings.session_ttl
        expires = None if ttl is None else now + ttl
        session.add(
            AuthSessionRow(
                token_hash=hash_token(token),
                account_id=account_id,
                created_at=now,
                expires_at=expires,
            )
        )
        return token, expires

    def login(self, username: str, password: str) -> Login:
        """Check the password and open a session.

        Raises :class:`AuthenticationFailed` for an unknown user or a wrong
        password alike (and spends the same hashing time on both).
        """
        row_id: int | None = None
        stored: str | None = None
        with self._read() as session:
            found = self._by_name(session, username)
            if found is not None:
                row_id, stored = found.id, found.password_hash
        hasher = self.settings.password_hasher
        if row_id is None or stored is None:  # unknown user, or a guest: no password
            if self._dummy_hash is None:
                self._dummy_hash = hasher.hash(secrets.token_hex(16))
            with suppress(VerificationError, InvalidHashError):
                hasher.verify(self._dummy_hash, password)
            raise AuthenticationFailed()
        try:
            hasher.verify(stored, password)
        except (VerificationError, InvalidHashError) as exc:
            raise AuthenticationFailed() from exc
        new_hash = self._hash_password(password) if hasher.check_needs_rehash(stored) else None
        with self._write() as session:
            row = session.get(AccountRow, row_id)
            if row is None:  # deleted meanwhile
                raise AuthenticationFailed()
            if is_banned(session, row.id):
                raise AccountBanned()
            if new_hash is not None and row.password_hash == stored:
                row.password_hash = new_hash
            token, expires = self._open_session(session, row.id)
            return Login(token=token, account=_account(row), expires_at=expires)

    def create_guest(self) -> Login:
        """Create a guest account (no password, guest starting silver) and log it in.

        The token is the guest's only credential; :meth:`upgrade_guest` turns
        the guest into a normal account that keeps its silver and points.
        """
        for _ in range(_GUEST_NAME_TRIES):
            name = new_guest_name()
            try:
                with self._write() as session:
                    row = self._new_account(
                        session, name, name, None, True, self.settings.guest_starting_silver
                    )
                    token, expires = self._open_session(session, row.id)
                    return Login(token=token, account=_account(row), expires_at=expires)
            except IntegrityError:  # 1 in 4 billion: a name clash; try another
                continue
        raise RuntimeError("could not find a free guest name")  # pragma: no cover

    def upgrade_guest(self, account_id: int, username: str, password: str) -> Account:
        """Give a guest account a username and password; it keeps its silver and points."""
        name, key = normalize_username(username)
        check_password_rules(password)
        password_hash = self._hash_password(password)
        try:
            with self._write() as session:
                row = self._lock_accounts(session, [account_id])[account_id]
                if not row.is_guest:
                    raise InvalidSettlement(f"account {account_id} is not a guest account")
                row.username, row.username_key = name, key
                row.password_hash = password_hash
                row.is_guest = False
                session.flush()
                return _account(row)
        except IntegrityError as exc:
            raise UsernameTaken(name) from exc

    def change_password(self, account_id: int, old_password: str, new_password: str) -> None:
        """Set a new password after checking the old one (:class:`AuthenticationFailed`)."""
        check_password_rules(new_password)
        with self._read() as session:
            row = session.get(AccountRow, account_id)
            stored = None if row is None else row.password_hash
        if stored is None:
            raise AuthenticationFailed()
        try:
            self.settings.password_hasher.verify(stored, old_password)
        except (VerificationError, InvalidHashError) as exc:
            raise AuthenticationFailed() from exc
        new_hash = self._hash_password(new_password)
        with self._write() as session:
            write_row = session.get(AccountRow, account_id)
            if write_row is None:
                raise AuthenticationFailed()
            write_row.password_hash = new_hash

    def account(self, account_id: int) -> Account:
        """The account with this id; :class:`UnknownAccount` if none (or the house)."""
        with self._read() as session:
            row = session.get(AccountRow, account_id)
            if row is None or row.is_house:
                raise UnknownAccount(account_id)
            return _account(row)

    def account_by_username(self, username: str) -> Account | None:
        """Look an account up by name (case-insensitive, look-alikes folded)."""
        with self._read() as session:
            row = self._by_name(session, username)
            return None if row is None else _account(row)

    @staticmethod
    def _by_name(session: Session, username: str) -> AccountRow | None:
        """The account a typed name means: the one stored under its skeleton, unless an
        account registered before skeletons has exactly this name (:func:`lookup_keys`)."""
        keys = lookup_keys(username)
        if not keys:
            return None
        rows = session.scalars(
            select(AccountRow)
            .where(AccountRow.username_key.in_(keys), AccountRow.is_house.is_(False))
            .order_by(AccountRow.id)
        ).all()
        typed = unicodedata.normalize("NFKC", username).casefold()
        exact = [r for r in rows if unicodedata.normalize("NFKC", r.username).casefold() == typed]
        if exact:
            return exact[0]
        return rows[0] if rows else None

    def account_for_token(self, token: str) -> Account | None:
        """The account of a live session token; ``None`` if unknown, logged out or expired."""
        if not isinstance(token, str) or not token:
            return None
        now = utcnow()
        with self._read() as session:
            found = session.execute(
                select(AccountRow, AuthSessionRow.expires_at)
                .join(AuthSessionRow, AuthSessionRow.account_id == AccountRow.id)
                .where(AuthSessionRow.token_hash == hash_token(token))
            ).first()
            if found is None:
                return None
            row, expires = found
            if expires is not None and expires <= now:
                return None
            if is_banned(session, row.id):  # a ban makes every session of the account void
                return None
            return _account(row)

    def logout(self, token: str) -> bool:
        """End the session of ``token``; ``False`` if there was none."""
        if not isinstance(token, str) or not token:
            return False
        with self._write() as session:
            result = session.execute(
                delete(AuthSessionRow).where(AuthSessionRow.token_hash == hash_token(token))
            )
            return bool(getattr(result, "rowcount", 0))

    def logout_everywhere(self, account_id: int) -> int:
        """End every session of an account; returns how many."""
        with self._write() as session:
            result = session.execute(
                delete(AuthSessionRow).where(AuthSessionRow.account_id == account_id)
            )
            return int(getattr(result, "rowcount", 0))

    def purge_expired_sessions(self) -> int:
        """Delete expired sessions (housekeeping); returns how many."""
        with self._write() as session:
            result = session.execute(
                delete(AuthSessionRow).where(AuthSessionRow.expires_at <= utcnow())
            )
            return int(getattr(result, "rowcount", 0))

    # -- silver -------------------------------------------------------------------

    def grant(self, account_id: int, amount: int, *, reference: str | None = None) -> int:
        """An operator's grant: create (``amount`` > 0) or remove (< 0) silver; returns the balance.

        The one way for an operator to change a balance by hand (the admin
        command calls it).  The ledger row's reason is ``operator_grant``, a
        named source (a negative amount is a sink); ``reference`` says why
        (e.g. ``"refund of match 20261201-ab12"``).  A debit below zero raises
        :class:`InsufficientSilver`; the house account cannot be granted to.
        """
        return self._source(account_id, amount, LedgerReason.OPERATOR_GRANT, reference)

    def _source(self, account_id: int, amount: int, reason: LedgerReason,
                reference: str | None, *, once: bool = False) -> int:
        _check_int("amount", amount, low=-MAX_AMOUNT)
        if reference is not None and len(reference) > GAME_ID_MAX:
            raise InvalidSettlement(f"reference longer than {GAME_ID_MAX} characters")
        with self._write() as session:
            row = self._lock_accounts(session, [account_id])[account_id]
            if row.is_house:
                raise UnknownAccount(account_id)
            if once and session.scalar(
                select(LedgerRow.id).where(
                    LedgerRow.account_id == account_id,
                    LedgerRow.reason == str(reason),
                    LedgerRow.reference == reference,
                ).limit(1)
            ) is not None:
                raise AlreadySettled(f"{reason} {reference}")
            if row.silver + amount < 0:
                raise InsufficientSilver(
                    f"account {account_id} has {row.silver} silver, cannot take {-amount}"
                )
            if row.silver + amount > MAX_AMOUNT:
                raise InvalidSettlement("balance would exceed the largest amount")
            self._move(session, row, amount, reason, reference, utcnow())
            return row.silver

    def daily_allowance(self, account_id: int, amount: int, *, day: date | None = None) -> int | None:
        """Grant the daily allowance once per account and UTC day; the new balance, or
        ``None`` if this account already had that day's allowance (or ``amount`` is 0).

        The check and the grant happen under the account's row lock, so two
        connections at once cannot both collect it.
        """
        _check_int("amount", amount)
        if amount == 0:
            return None
        when = day or utcnow().date()
        try:
            return self._source(account_id, amount, LedgerReason.DAILY_ALLOWANCE,
                                f"daily {when.isoformat()}", once=True)
        except AlreadySettled:
            return None

    def create_bot(self) -> Account:
        """A bot's account: a guest name, no session, no password and no silver.

        Bots only sit at free tables, so they never need silver: no source
        ever credits a bot (see ``docs/server.md``).
        """
        for _ in range(_GUEST_NAME_TRIES):
            name = new_guest_name()
            try:
                with self._write() as session:
                    return _account(self._new_account(session, name, name, None, True, 0))
            except IntegrityError:  # a name clash; try another
                continue
        raise RuntimeError("could not find a free guest name")  # pragma: no cover

    def settle_game(
        self,
        game_id: str,
        stake: int,
        point_deltas: Mapping[int, int],
        fee: int,
        *,
        profile: str = "bianfeng",
        session: Session | None = None,
    ) -> LedgerSettlement:
        """Settle a finished game: points, silver at ``stake`` per point, then fees.

        ``point_deltas`` maps every player (account id) to his points result,
        summing to 0.  See :mod:`.settlement` for the rules.  All balances,
        points, ledger rows, match-history rows and the fee income of the house
        change in one transaction.  A second settlement of the same
        ``game_id`` raises :class:`AlreadySettled` and changes nothing.
        """
        _check_id("game_id", game_id)
        _check_profile(profile)
        _check_int("stake", stake)
        _check_int("fee", fee)
        for account_id, delta in point_deltas.items():
            _check_int(f"point delta of {account_id}", delta, low=-MAX_AMOUNT)
            if stake * abs(delta) > MAX_AMOUNT:
                raise InvalidSettlement("stake × points exceeds the largest amount")

        def compute(balances: Mapping[int, int]) -> dict[int, Outcome]:
            return compute_game(balances, stake, point_deltas, fee)

        return self._settle(
            game_id, "game", profile, stake, fee, list(point_deltas), compute, escaper=None,
            session=session,
        )

    def settle_escape(
        self,
        game_id: str,
        escaper: int,
        penalty_silver: int,
        others: Sequence[int],
        fee: int,
        *,
        penalty_points: int = 0,
        profile: str = "bianfeng",
    ) -> LedgerSettlement:
        """Settle an escape: the escaper pays the penalty (at most his balance) to the others.

        The penalty is split equally among ``others`` (remainder: one unit each
        to the first of them in the given order, so list them in play order);
        then the escaper alone pays ``fee`` (floored at his balance).  The
        escaper also loses ``penalty_points`` points, shared the same way.
        Idempotent per ``game_id`` like :meth:`settle_game`.
        """
        _check_id("game_id", game_id)
        _check_profile(profile)
        _check_int("penalty_silver", penalty_silver)
        _check_int("penalty_points", penalty_points)
        _check_int("fee", fee)
        others = list(others)

        def compute(balances: Mapping[int, int]) -> dict[int, Outcome]:
            return compute_escape(balances, escaper, others, penalty_silver, fee, penalty_points)

        return self._settle(
            game_id, "escape", profile, None, fee, [escaper, *others], compute, escaper=escaper
        )

    def _settle(
        self,
        game_id: str,
        kind: str,
        profile: str,
        stake: int | None,
        fee: int,
        players: list[int],
        compute: _Compute,
        *,
        escaper: int | None,
        session: Session | None = None,
    ) -> LedgerSettlement:
        """Settle in a transaction of its own, or in ``session``'s (the match log's)."""
        if len(set(players)) != len(players):
            raise InvalidSettlement("a player is listed twice")
        if self.house_account_id in players:
            raise UnknownAccount(self.house_account_id)
        try:
            with self._write_in(session) as session:
                rows = self._lock_accounts(session, [*players, self.house_account_id])
                if session.get(SettlementRow, game_id) is not None:
                    raise AlreadySettled(game_id)
                outcomes = compute({account_id: rows[account_id].silver for account_id in players})
                now = utcnow()
                total_fees = sum(outcome.fee for outcome in outcomes.values())
                session.add(
                    SettlementRow(
                        game_id=game_id,
                        kind=kind,
                        profile=profile,
                        stake=stake,
                        fee=fee,
                        fees_collected=total_fees,
                        settled_at=now,
                    )
                )
                # The settlement row first: a racing duplicate fails here, before
                # any balance is touched.
                session.flush()
                settled: dict[int, SettledPlayer] = {}
                for account_id, outcome in outcomes.items():
                    row = rows[account_id]
                    if kind == "game":
                        reason = LedgerReason.GAME
                    elif account_id == escaper:
                        reason = LedgerReason.ESCAPE_PENALTY
                    else:
                        reason = LedgerReason.ESCAPE_SHARE
                    self._move(session, row, outcome.silver, reason, game_id, now)
                    self._move(session, row, -outcome.fee, LedgerReason.FEE, game_id, now)
                    row.points += outcome.points
                    session.add(
                        MatchResultRow(
                            game_id=game_id,
                            account_id=account_id,
                            profile=profile,
                            points_delta=outcome.points,
                            silver_delta=outcome.silver,
                            fee=outcome.fee,
                            escaped=account_id == escaper,
                            finished_at=now,
                        )
                    )
                    settled[account_id] = SettledPlayer(
                        account_id=account_id,
                        points_delta=outcome.points,
                        silver_delta=outcome.silver,
                        fee=outcome.fee,
                        silver_after=row.silver,
                        points_after=row.points,
                    )
                house = rows[self.house_account_id]
                self._move(session, house, total_fees, LedgerReason.FEE_INCOME, game_id, now)
                return LedgerSettlement(
                    game_id=game_id,
                    kind=kind,
                    players=settled,
                    fees_collected=total_fees,
                    settled_at=now,
                )
        except IntegrityError as exc:
            # The only unique key written here is the game id (accounts were locked).
            raise AlreadySettled(game_id) from exc

    def is_settled(self, game_id: str) -> bool:
        with self._read() as session:
            return session.get(SettlementRow, game_id) is not None

    def ledger(self, account_id: int, *, limit: int | None = 100) -> list[LedgerEntry]:
        """The newest ``limit`` ledger rows of an account (all if ``None``), newest first."""
        query = (
            select(LedgerRow)
            .where(LedgerRow.account_id == account_id)
            .order_by(LedgerRow.id.desc())
        )
        if limit is not None:
            query = query.limit(limit)
        with self._read() as session:
            return [
                LedgerEntry(
                    id=row.id,
                    account_id=row.account_id,
                    delta=row.delta,
                    balance_after=row.balance_after,
                    reason=row.reason,
                    reference=row.reference,
                    created_at=row.created_at,
                )
                for row in session.scalars(query)
            ]

    def audit(self) -> Audit:
        """Check the ledger invariants over the whole database (one consistent read)."""
        ledger_sums = (
            select(LedgerRow.account_id, func.sum(LedgerRow.delta).label("total"))
            .group_by(LedgerRow.account_id)
            .subquery()
        )
        with self._read(snapshot=True) as session:
            rows = session.execute(
                select(AccountRow.id, AccountRow.silver, func.coalesce(ledger_sums.c.total, 0))
                .outerjoin(ledger_sums, ledger_sums.c.account_id == AccountRow.id)
                .order_by(AccountRow.id)
            ).all()
            by_reason = {
                str(reason): int(total or 0)
                for reason, total in session.execute(
                    select(LedgerRow.reason, func.sum(LedgerRow.delta)).group_by(LedgerRow.reason)
                )
            }
        balances = {account_id: int(silver) for account_id, silver, _total in rows}
        house = balances.get(self.house_account_id, 0)
        known = {str(r) for r in LedgerReason}
        return Audit(
            total_balances=sum(balances.values()),
            player_balances=sum(balances.values()) - house,
            house_balance=house,
            sources={str(r): by_reason.get(str(r), 0) for r in sorted(SOURCES)},
            sinks=-sum(by_reason.get(str(r), 0) for r in SINKS),
            fee_income=by_reason.get(str(LedgerReason.FEE_INCOME), 0),
            transfers=sum(by_reason.get(str(r), 0) for r in TRANSFERS),
            unknown_reasons=tuple(sorted(set(by_reason) - known)),
            mismatched_accounts=tuple(
                account_id for account_id, silver, total in rows if int(total) != int(silver)
            ),
            negative_accounts=tuple(
                account_id for account_id, silver in balances.items() if silver < 0
            ),
        )

    def match_history(
        self, account_id: int, *, limit: int = 50, before: datetime | None = None
    ) -> list[MatchResult]:
        """An account's settled games and escapes, newest first (page with ``before``).

        The hands of a match are settled one by one (game ids ``"<match id>/<hand no>"``,
        see :meth:`finish_hand`); the history shows the match as one line, their sums.
        """
        query = (
            select(MatchResultRow, SettlementRow.kind)
            .join(SettlementRow, SettlementRow.game_id == MatchResultRow.game_id)
            .where(MatchResultRow.account_id == account_id)
            .order_by(MatchResultRow.finished_at.desc(), MatchResultRow.game_id.desc())
            .limit(limit * 66)  # at most 64 hands and their escapes per match
        )
        if before is not None:
            query = query.where(MatchResultRow.finished_at < before)
        out: dict[tuple[str, str], MatchResult] = {}
        with self._read() as session:
            for row, kind in session.execute(query):
                match_id = row.game_id
                if kind == "game" and "/" in match_id:
                    match_id = match_id.rsplit("/", 1)[0]
                key = (match_id, kind)
                seen = out.get(key)
                if seen is None:
                    if len(out) == limit:
                        break
                    out[key] = MatchResult(
                        match_id=match_id,
                        profile=row.profile,
                        kind=kind,
                        finished_at=row.finished_at,
                        points_delta=row.points_delta,
                        silver_delta=row.silver_delta,
                        fee=row.fee,
                        escaped=row.escaped,
                    )
                else:
                    out[key] = replace(
                        seen,
                        points_delta=seen.points_delta + row.points_delta,
                        silver_delta=seen.silver_delta + row.silver_delta,
                        fee=seen.fee + row.fee,
                        escaped=seen.escaped or row.escaped,
                    )
        return list(out.values())

    # -- hand records ---------------------------------------------------------------

    def save_hand_record(
        self, record: HandRecord, *, session: Session | None = None
    ) -> HandRecord:
        """Store a finished hand's record; returns it with ``finished_at`` filled in.

        Records are immutable: saving the same (match id, hand number) twice
        raises :class:`RecordExists`.  Every seated account must exist.
        """
        _check_id("match_id", record.match_id)
        _check_int("hand_no", record.hand_no, high=2**31 - 1)
        if not record.seats:
            raise InvalidSettlement("a hand record needs the seat → account mapping")
        for seat in record.seats:
            _check_int("seat", seat, high=3)
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
        return HandRecord(
            match_id=record.match_id,
            hand_no=record.hand_no,
            commitment=record.commitment,
            wall=record.wall,
            salt=record.salt,
            events=record.events,
            seats=dict(sorted(record.seats.items())),
            finished_at=finished,
        )

    def hand_record(self, match_id: str, hand_no: int, *, viewer: int) -> HandRecord | None:
        """The record of a hand, only if account ``viewer`` sat at it; else ``None``.

        ``None`` also for a hand that does not exist: a non-participant cannot
        tell the two apart.
        """
        with self._read() as session:
            row = session.scalar(
                select(HandRecordRow)
                .join(HandSeatRow, HandSeatRow.record_id == HandRecordRow.id)
                .where(
                    HandRecordRow.match_id == match_id,
                    HandRecordRow.hand_no == hand_no,
                    HandSeatRow.account_id == viewer,
                )
            )
            if row is None:
                return None
            seats = {
                seat: account_id
                for seat, account_id in session.execute(
                    select(HandSeatRow.seat, HandSeatRow.account_id)
                    .where(HandSeatRow.record_id == row.id)
                    .order_by(HandSeatRow.seat)
                )
            }
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

    # -- shareable replays (see .publish) ----------------------------------------------

    def set_hand_published(self, match_id: str, hand_no: int, *, account_id: int,
                           published: bool) -> bool | None:
        """Publish or unpublish a hand the account sat at; ``None`` if it did not (or no hand)."""
        with self._write() as session:
            return publish.set_published(session, match_id, hand_no, account_id, published)

    def hand_published(self, match_id: str, hand_no: int, *, viewer: int) -> bool | None:
        """Whether a hand the viewer sat at is published; ``None`` if he did not sit at it."""
        with self._read() as session:
            row = session.scalar(
                select(HandRecordRow)
                .join(HandSeatRow, HandSeatRow.record_id == HandRecordRow.id)
                .where(HandRecordRow.match_id == match_id, HandRecordRow.hand_no == hand_no,
                       HandSeatRow.account_id == viewer))
            return None if row is None else bool(row.published)

    def public_hand_record(self, match_id: str, hand_no: int) -> HandRecord | None:
        """A published hand's record, for anyone; ``None`` when absent or private."""
        with self._read() as session:
            row = publish.public_record_row(session, match_id, hand_no)
            if row is None:
                return None
            return HandRecord(match_id=row.match_id, hand_no=row.hand_no,
                              commitment=row.commitment, wall=row.wall, salt=row.salt,
                              events=row.events, seats=publish.record_seats(session, row.id),
                              finished_at=row.finished_at)

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
        """Start a match's log (status ``running``); returns its fencing epoch."""
        with self._write() as session:
            return matchlog.open_match(session, match_id, table_id, seed, config, owner)

    def append_match_events(self, match_id: str, epoch: int, events: Sequence[MatchEvent]) -> int:
        """Write events to a running match's log in one transaction (write-ahead)."""
        with self._write() as session:
            return matchlog.append_events(session, match_id, epoch, events)

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
            # Every account of the hand and the house, in the one global lock order.
            self._lock_accounts(session, [*record.seats.values(), self.house_account_id])
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

    def end_match(
        self, match_id: str, epoch: int, status: str, reason: str | None = None
    ) -> None:
        """Mark a running match ``finished`` or ``aborted``; it is never resumed again.

        A finished match of four humans updates their skill ratings in the same
        transaction: exactly once per match (:func:`.ratings.rate_match`)."""
        with self._write() as session:
            matchlog.end_match(session, match_id, epoch, status, reason)
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

    def load_match(self, match_id: str) -> LoggedMatch | None:
        """A match's log: its row and its events in order."""
        with self._read() as session:
            return matchlog.load_match(session, match_id)

    def match_silver(self, match_id: str) -> dict[int, tuple[int, int]]:
        """Per account, (silver won or paid, fees) over the settlements of one match so far
        (its hands ``"<id>/<n>"`` and its escapes ``"<id>#escape<seat>"``)."""
        with self._read() as session:
            rows = session.execute(
                select(
                    MatchResultRow.account_id,
                    func.sum(MatchResultRow.silver_delta),
                    func.sum(MatchResultRow.fee),
                )
                .where(
                    or_(
                        MatchResultRow.game_id.startswith(match_id + "/", autoescape=True),
                        MatchResultRow.game_id.startswith(match_id + "#", autoescape=True),
                    )
                )
                .group_by(MatchResultRow.account_id)
            ).all()
        return {int(a): (int(s or 0), int(f or 0)) for a, s, f in rows}
