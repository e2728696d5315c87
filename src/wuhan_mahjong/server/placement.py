"""Where each account is on the server: nowhere, in a quick-match queue, in a room,
being seated, or at a table.

The hub, the lobby, the quick chat and the watch of abandoned tables read and move the
same placements, so they live here once.  :class:`Placements` answers the reads
(``get``, ``in``, :meth:`~Placements.at_table`) and moves an account only by a named
transition, each of which refuses a move the server's flow never makes
(:class:`PlacementError`: a bug in the server, not bad input)::

    nowhere --join_queue--> queue --+
    nowhere --join_room---> room  --+--starting--> starting --sit--> table
    nowhere -------------------starting / sit (a resumed match) ------^
    any --leave--> nowhere;  table --leave_table(t)--> nowhere, if at table t

This module imports nothing of the server at run time, so every module the hub uses can
import it without a cycle.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from .lobby import Room
    from .table import Table

__all__ = ["Place", "PlacementError", "Placements", "QueuePlace", "RoomPlace", "StartingPlace", "TablePlace"]


@dataclass(frozen=True)
class QueuePlace:
    """In the quick-match queue of ``key`` (profile, stake)."""

    key: tuple[str, int]


@dataclass(frozen=True)
class RoomPlace:
    room: Room


@dataclass(frozen=True)
class TablePlace:
    table: Table
    seat: int


@dataclass(frozen=True)
class StartingPlace:
    """Between leaving a queue or room and sitting down (bots are being fetched).

    Each move to it makes a new one, so that whoever set up a table knows, by identity,
    whether a player is still the one it is seating (he may ``leave`` meanwhile, and even
    queue again)."""

    origin: Literal["queue", "room"] | None = field(default=None, compare=False)
    """Where the player was, who may still leave (``leave``) before he sits; ``None``: a
    table the server made (a tournament's), which he may not leave before it starts."""


Place = QueuePlace | RoomPlace | TablePlace | StartingPlace


class PlacementError(RuntimeError):
    """A move between places that the server's flow never makes."""


class Placements:
    """Every account's place (an account that is nowhere has none)."""

    def __init__(self) -> None:
        self._where: dict[int, Place] = {}

    # ------------------------------------------------------------------ reads
    def get(self, account_id: int) -> Place | None:
        return self._where.get(account_id)

    def __contains__(self, account_id: object) -> bool:
        return account_id in self._where

    def __len__(self) -> int:
        return len(self._where)

    def at_table(self, account_id: int, table: Table | None = None) -> TablePlace | None:
        """The account's seat, if it is at a table (at ``table``, if given)."""
        place = self._where.get(account_id)
        if isinstance(place, TablePlace) and (table is None or place.table is table):
            return place
        return None

    # ------------------------------------------------------------------ transitions
    def _move(self, account_id: int, to: Place, allowed: tuple[type, ...]) -> None:
        """Move from nowhere or from a place of the ``allowed`` kinds."""
        place = self._where.get(account_id)
        if place is not None and not isinstance(place, allowed):
            raise PlacementError(f"account {account_id} cannot go from {_name(place)} to {_name(to)}")
        self._where[account_id] = to

    def join_queue(self, account_id: int, key: tuple[str, int]) -> None:
        self._move(account_id, QueuePlace(key), ())

    def join_room(self, account_id: int, room: Room) -> None:
        self._move(account_id, RoomPlace(room), ())

    def starting(self, account_id: int,
                 origin: Literal["queue", "room"] | None = None) -> StartingPlace:
        """Taken from a queue or a room (or a server-made table) to be seated; returns the
        place (the same one when the account is being seated already)."""
        place = self._where.get(account_id)
        if isinstance(place, StartingPlace):
            return place
        to = StartingPlace(origin)
        self._move(account_id, to, (QueuePlace, RoomPlace))
        return to

    def sit(self, account_id: int, table: Table, seat: int) -> None:
        """Seated at ``table``: after ``starting``, or straight from nowhere when a match
        is resumed after a restart."""
        self._move(account_id, TablePlace(table, seat), (StartingPlace,))

    def leave(self, account_id: int) -> Place | None:
        """Back to nowhere; returns the place left (``None`` if there was none)."""
        return self._where.pop(account_id, None)

    def leave_table(self, account_id: int, table: Table) -> bool:
        """Back to nowhere if the account is at ``table`` (not at another one it sat
        down at since); whether it was."""
        if self.at_table(account_id, table) is None:
            return False
        del self._where[account_id]
        return True


def _name(place: Place | None) -> str:
    return {None: "nowhere", QueuePlace: "a queue", RoomPlace: "a room", StartingPlace: "being seated",
            TablePlace: "a table"}[None if place is None else type(place)]
