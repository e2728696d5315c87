"""The :class:`Store`: one object for the server, three concerns behind it.

=============================  ============================================================
:class:`.AccountStore`         accounts (players, guests, bots) and login sessions
:class:`.LedgerStore`          the silver ledger: grants, settlements, audit, match history
:class:`.RecordStore`          hand records, shareable replays and durable matches
=============================  ============================================================

Each part is a class of its own module over :class:`.StoreCore` (the engine, the
transactions and the lock order of account rows); :class:`Store` combines them, so
the server holds one object and calls ``store.login(...)``,
``store.settle_game(...)``, ``store.finish_hand(...)``.  Finishing a hand saves its
record and settles it in one transaction, so :class:`.RecordStore` builds on
:class:`.LedgerStore`; the accounts need only the ledger's :func:`.move_silver` for
the starting silver.

Every public method runs in its own database transaction (sessions are handled
inside) and is safe to call from many threads at once; the asyncio server
calls it through a thread pool.
"""

from __future__ import annotations

from .account_store import Account, AccountStore, Login
from .core import MAX_AMOUNT, StoreSettings
from .ledger_store import (
    SINKS,
    SOURCES,
    TRANSFERS,
    Audit,
    LedgerEntry,
    LedgerReason,
    LedgerSettlement,
    MatchResult,
    SettledPlayer,
)
from .record_store import HandRecord, RecordStore

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


class Store(AccountStore, RecordStore):
    """The persistence layer.  Create it with :func:`wuhan_mahjong.store.open_store`.

    Its methods are those of :class:`.AccountStore`, :class:`.LedgerStore` and
    :class:`.RecordStore` (see the module docstring)."""
