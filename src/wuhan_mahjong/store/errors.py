"""Exceptions raised by :mod:`wuhan_mahjong.store`.

Every error is a :class:`StoreError`; the ones caused by bad input are also
:class:`ValueError`, so a server can map them to a 4xx answer wholesale.
"""

from __future__ import annotations

__all__ = [
    "AccountInMatch",
    "AlreadySettled",
    "AuthenticationFailed",
    "ForeignDatabase",
    "InsufficientSilver",
    "InvalidPassword",
    "InvalidSettlement",
    "InvalidUsername",
    "RecordExists",
    "StoreError",
    "UnknownAccount",
    "UsernameTaken",
]


class StoreError(Exception):
    """Base class of every error of the store."""


class ForeignDatabase(StoreError):
    """The database is not one this version may migrate: it holds another program's tables,
    or it is at a schema revision this version does not ship (a newer version's)."""


class InvalidUsername(StoreError, ValueError):
    """The username breaks the username rules; the message says which one."""


class UsernameTaken(StoreError, ValueError):
    """Another account already has this username (compared case-insensitively)."""

    def __init__(self, username: str) -> None:
        super().__init__(f"username {username!r} is already taken")
        self.username = username


class InvalidPassword(StoreError, ValueError):
    """The new password breaks the password rules (length)."""


class AuthenticationFailed(StoreError):
    """Wrong username or password.

    Deliberately does not say which of the two, so that a client cannot probe
    which usernames exist.
    """

    def __init__(self) -> None:
        super().__init__("wrong username or password")


class UnknownAccount(StoreError, LookupError):
    """No account has this id (or it is the house account where a player is needed)."""

    def __init__(self, account_id: int) -> None:
        super().__init__(f"no player account with id {account_id}")
        self.account_id = account_id


class InvalidSettlement(StoreError, ValueError):
    """The arguments of a settlement are inconsistent (the message says how)."""


class AlreadySettled(StoreError):
    """This game id was settled before; settlements are idempotent per game id."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"game {game_id!r} is already settled")
        self.game_id = game_id


class InsufficientSilver(StoreError, ValueError):
    """A manual debit (negative grant) would take a balance below zero."""


class RecordExists(StoreError, ValueError):
    """A hand record for this (match id, hand number) was saved before; records are immutable."""

    def __init__(self, match_id: str, hand_no: int) -> None:
        super().__init__(f"hand {hand_no} of match {match_id!r} is already recorded")
        self.match_id = match_id
        self.hand_no = hand_no


class AccountInMatch(StoreError):
    """The account sits in a running match: it can be closed once the match is over
    (``store/closing.py``)."""
