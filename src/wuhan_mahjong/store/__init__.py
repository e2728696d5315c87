"""Persistence for the game server: accounts, sessions, silver ledger, records.

Open a store with :func:`open_store`; it migrates the database to the newest
schema first.  SQLite (a file) and PostgreSQL (``postgresql+psycopg://``) are
supported.  The store is synchronous and thread-safe: an asyncio server calls
it through a thread pool (``await asyncio.to_thread(store.login, name, pw)``).
See ``docs/store.md`` for the schema, the ledger invariants and the decisions.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from argon2 import PasswordHasher
from sqlalchemy.engine import URL

from .admin import AccountBanned
from .database import create_store_engine
from .errors import (
    AccountInMatch,
    AlreadySettled,
    AuthenticationFailed,
    InsufficientSilver,
    InvalidPassword,
    InvalidSettlement,
    InvalidUsername,
    RecordExists,
    StoreError,
    UnknownAccount,
    UsernameTaken,
)
from .levels import LEVELS, TOP_LEVEL, Level, level_for_points, points_to_next_level
from .matchlog import (
    LoggedMatch,
    MatchEvent,
    MatchFenced,
    MatchLogError,
    applied_actions,
    fee_game_id,
    hand_game_id,
    window_answers,
    window_data,
)
from .migrate import upgrade
from .settlement import Outcome, compute_escape, compute_game
from .store import (
    MAX_AMOUNT,
    Account,
    Audit,
    HandRecord,
    LedgerEntry,
    LedgerReason,
    LedgerSettlement,
    Login,
    MatchResult,
    SettledPlayer,
    Store,
    StoreSettings,
)

__all__ = [
    "DEFAULT_URL",
    "LEVELS",
    "MAX_AMOUNT",
    "TOP_LEVEL",
    "Account",
    "AccountBanned",
    "AccountInMatch",
    "AlreadySettled",
    "Audit",
    "AuthenticationFailed",
    "HandRecord",
    "InsufficientSilver",
    "InvalidPassword",
    "InvalidSettlement",
    "InvalidUsername",
    "LedgerEntry",
    "LedgerReason",
    "LedgerSettlement",
    "Level",
    "LoggedMatch",
    "Login",
    "MatchEvent",
    "MatchFenced",
    "MatchLogError",
    "MatchResult",
    "Outcome",
    "RecordExists",
    "SettledPlayer",
    "Store",
    "StoreError",
    "StoreSettings",
    "UnknownAccount",
    "UsernameTaken",
    "applied_actions",
    "compute_escape",
    "compute_game",
    "fee_game_id",
    "hand_game_id",
    "level_for_points",
    "open_store",
    "points_to_next_level",
    "window_answers",
    "window_data",
]

DEFAULT_URL = "sqlite:///data/wuhan_mahjong.db"
"""The default database: an SQLite file under ``data/`` of the working directory."""


def open_store(
    url: str | URL = DEFAULT_URL,
    *,
    starting_silver: int = 1000,
    guest_starting_silver: int | None = None,
    session_ttl: timedelta | None = timedelta(days=30),
    password_hasher: PasswordHasher | None = None,
    engine_options: Mapping[str, Any] | None = None,
) -> Store:
    """Open the database at ``url``, migrate it to the newest schema, return the store.

    For SQLite the file's folder is created if needed.  ``starting_silver`` is
    granted to each newly registered account, ``guest_starting_silver`` (same
    by default) to each guest.  ``engine_options`` go to
    :func:`sqlalchemy.create_engine` (e.g. ``pool_size``).
    """
    engine = create_store_engine(url, **dict(engine_options or {}))
    try:
        upgrade(engine)
        settings = StoreSettings(
            starting_silver=starting_silver,
            guest_starting_silver=(
                starting_silver if guest_starting_silver is None else guest_starting_silver
            ),
            session_ttl=session_ttl,
            password_hasher=password_hasher or PasswordHasher(),
        )
        return Store(engine, settings)
    except BaseException:
        engine.dispose()
        raise
