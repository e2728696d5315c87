"""What the parts of the :class:`~wuhan_mahjong.store.store.Store` share: the SQLAlchemy
engine, its transactions, the lock order of account rows, and the checks of amounts.

Concurrency of balance changes
    Every transaction that changes balances first locks the rows of all the
    accounts it touches, house account included, with ``SELECT ... FOR UPDATE``
    in ascending id order (:meth:`StoreCore._lock_accounts`: one fixed order, so
    two settlements can never deadlock), then computes from the locked balances
    and writes the new balances and their ledger rows before committing.  On
    SQLite the ``FOR UPDATE`` is a no-op, and write transactions are serialised by
    ``BEGIN IMMEDIATE`` instead (see :mod:`.database`).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Self

from argon2 import PasswordHasher
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from .database import READ_ONLY
from .errors import InvalidSettlement, UnknownAccount
from .models import GAME_ID_MAX, AccountRow, storable_game_id

__all__ = ["MAX_AMOUNT", "StoreCore", "StoreSettings", "check_id", "check_int", "check_profile",
           "shown_name"]

MAX_AMOUNT = 2**53 - 1
"""Largest stake, fee, penalty, grant or balance accepted (exact in JSON numbers)."""


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


def check_int(name: str, value: int, *, low: int = 0, high: int = MAX_AMOUNT) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidSettlement(f"{name} must be an int, got {value!r}")
    if not low <= value <= high:
        raise InvalidSettlement(f"{name} must be between {low} and {high}, got {value}")


def check_id(name: str, value: str) -> None:
    if not isinstance(value, str) or not value or not storable_game_id(value):
        raise InvalidSettlement(f"{name} must be a string of 1 to {GAME_ID_MAX} characters "
                                "and no NUL")


def shown_name(value: object, longest: int) -> str | None:
    """A name players give a thing (a club, a tournament) as it is kept: NFC, runs of
    white space one space, 1 to ``longest`` characters; ``None`` for anything else (not
    text, empty, too long, a control or format character).

    NFC, not NFKC: such a name is shown, never compared, and NFKC would turn its full-width
    punctuation (，！) into ASCII.

    >>> shown_name("  汉口  老友！ ", 20), shown_name("a\u200bb", 20), shown_name("", 20)
    ('汉口 老友！', None, None)
    """
    if not isinstance(value, str):
        return None
    text = " ".join(unicodedata.normalize("NFC", value).split())
    if not 1 <= len(text) <= longest or any(unicodedata.category(c).startswith("C")
                                            for c in text):
        return None
    return text


def check_profile(profile: str) -> None:
    if not isinstance(profile, str) or not 1 <= len(profile) <= 32:
        raise InvalidSettlement("profile must be a string of 1 to 32 characters")


class StoreCore:
    """The engine and the transactions every part of the store runs in."""

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
        check_int("starting_silver", self.settings.starting_silver)
        check_int("guest_starting_silver", self.settings.guest_starting_silver)
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

    def __enter__(self) -> Self:
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
        """Lock the account rows (ascending id: one global lock order, no deadlocks).  The
        house account is the exception: locked last, alone, by a settlement that pays it
        fees (``LedgerStore._settle``), and never before any other account."""
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
