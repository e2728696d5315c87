"""Accounts and their login sessions: registration, guests and bots, passwords,
session tokens.  The rules of names, passwords and tokens are :mod:`.accounts`
(no database); a new account's starting silver is a ledger row (:func:`.ledger_store.move_silver`).
"""

from __future__ import annotations

import secrets
import unicodedata
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime, timedelta

from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.orm import Session

from .accounts import (
    check_password_rules,
    hash_token,
    lookup_keys,
    new_guest_name,
    new_token,
    normalize_username,
    password_forms,
)
from .admin import AccountBanned, is_banned
from .closing import close_account
from .core import StoreCore
from .database import is_transient
from .errors import AuthenticationFailed, InvalidSettlement, UnknownAccount, UsernameTaken
from .ledger_store import LedgerReason, move_silver
from .levels import Level, level_for_points
from .models import AccountRow, AuthSessionRow, utcnow

__all__ = ["Account", "AccountStore", "Login"]

_GUEST_NAME_TRIES = 8

SESSION_RENEW_EVERY = timedelta(days=1)
"""A session in use is slid to a full ``session_ttl`` again at most this often (one write
a day per session, not one per request)."""


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


def _account(row: AccountRow) -> Account:
    return Account(
        id=row.id,
        username=row.username,
        is_guest=row.is_guest,
        silver=row.silver,
        points=row.points,
        created_at=row.created_at,
    )


class AccountStore(StoreCore):
    """Accounts (players, guests, bots) and their login sessions."""

    _dummy_hash: str | None = None
    """A hash to verify against for an unknown user (the same time as a known one)."""

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
        move_silver(session, row, starting_silver, LedgerReason.SIGNUP_GRANT, "starting silver", now)
        return row

    def register(self, username: str, password: str) -> Account:
        """Create an account with a password and the starting silver.

        Raises :class:`InvalidUsername`, :class:`InvalidPassword` or
        :class:`UsernameTaken` (also when two registrations race).
        """
        name, key = normalize_username(username)
        prepared = check_password_rules(password)
        with self._read() as session:
            if session.scalar(select(AccountRow.id).where(AccountRow.username_key == key)):
                raise UsernameTaken(name)
        password_hash = self._hash_password(prepared)  # slow: outside any transaction
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
            with suppress(AuthenticationFailed):
                self._matching_form(self._dummy_hash, password)
            raise AuthenticationFailed()
        forms = password_forms(password)
        form = self._matching_form(stored, password, forms)
        prepared = forms[0]
        new_hash = (self._hash_password(prepared)
                    if form != prepared or hasher.check_needs_rehash(stored) else None)
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

    def _matching_form(self, stored: str, password: str,
                       forms: tuple[str, ...] | None = None) -> str:
        """The form of ``password`` (:func:`password_forms`, or ``forms`` when the caller
        prepared them already) that ``stored`` is the hash of; :class:`AuthenticationFailed`
        if none.  Every form is tried, so a wrong password takes the same time for a known
        user as the dummy hash takes."""
        hasher = self.settings.password_hasher
        matched = None
        for form in forms if forms is not None else password_forms(password):
            try:
                hasher.verify(stored, form)
            except (VerificationError, InvalidHashError):
                continue
            matched = matched or form
        if matched is None:
            raise AuthenticationFailed()
        return matched

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
        password_hash = self._hash_password(check_password_rules(password))
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
        prepared = check_password_rules(new_password)
        with self._read() as session:
            row = session.get(AccountRow, account_id)
            stored = None if row is None else row.password_hash
        if stored is None:
            raise AuthenticationFailed()
        self._matching_form(stored, old_password)
        new_hash = self._hash_password(prepared)
        with self._write() as session:
            write_row = session.get(AccountRow, account_id)
            if write_row is None:
                raise AuthenticationFailed()
            write_row.password_hash = new_hash

    def close_account(self, account_id: int, password: str | None, *,
                      operator: str | None = None, reason: str | None = None) -> int:
        """The player closes his account (:func:`.closing.close_account`), after his
        password is checked (:class:`AuthenticationFailed`; a guest has none, his session
        is his credential), or an ``operator`` does (no password; ``reason`` is logged);
        the silver that went to the house."""
        if operator is not None:
            return close_account(self, account_id, actor=operator, reason=reason)
        with self._read() as session:
            row = session.get(AccountRow, account_id)
            stored = None if row is None else row.password_hash
            guest = row is not None and row.is_guest
        if not guest:
            if stored is None or password is None:
                raise AuthenticationFailed()
            self._matching_form(stored, password)
        return close_account(self, account_id, actor="player")

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
        self._renew_session(token, expires, now)
        return _account(row)

    def _renew_session(self, token: str, expires: datetime | None, now: datetime) -> None:
        """Slide a session in use to a full ``session_ttl`` again, at most once every
        :data:`SESSION_RENEW_EVERY`: a session ends after ``session_ttl`` of disuse, not of
        use.  A guest has no password, so a fixed end would take his account from him
        however often he played.  Best effort: if the database refuses the write, the
        session is still good until its old end, and the next use tries again."""
        ttl = self.settings.session_ttl
        if ttl is None or expires is None or expires - now >= ttl - SESSION_RENEW_EVERY:
            return  # a session without an end, or one renewed within the last day
        try:
            with self._write() as session:
                session.execute(update(AuthSessionRow).where(
                    AuthSessionRow.token_hash == hash_token(token),
                    AuthSessionRow.expires_at == expires).values(expires_at=now + ttl))
        except SQLAlchemyError as e:  # the database away for a moment: the next use renews it
            if not is_transient(e):
                raise

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
            result = session.execute(delete(AuthSessionRow).where(AuthSessionRow.account_id == account_id))
            return int(getattr(result, "rowcount", 0))

    def purge_expired_sessions(self) -> int:
        """Delete expired sessions (housekeeping); returns how many."""
        with self._write() as session:
            result = session.execute(delete(AuthSessionRow).where(AuthSessionRow.expires_at <= utcnow()))
            return int(getattr(result, "rowcount", 0))

    def create_bot(self) -> Account:
        """A bot's account: a guest name, no session, no password and no silver.

        Bots only sit at free tables, so they never need silver: no source
        ever credits a bot (see ``docs/server.md``).
        """
        for _ in range(_GUEST_NAME_TRIES):
            name = new_guest_name()
            try:
                with self._write() as session:
                    row = self._new_account(session, name, name, None, True, 0)
                    row.is_bot = True
                    return _account(row)
            except IntegrityError:  # a name clash; try another
                continue
        raise RuntimeError("could not find a free guest name")  # pragma: no cover
