"""Private rooms kept over a restart (房间): a room waiting for its players is written here
whenever it changes, so that a server restarted (or killed with kill -9) opens it again
with its code, host, options and members; each member is away until he reconnects, as
after a dropped connection (``server/lobby.py``).

Each room is held by one node process (``owner``, the hub's node id).  A process writes
only the rooms it holds: once another node took a room over (a cluster node adopts the
rooms of a dead one, :func:`claim_room`), the old holder's late writes change nothing.
A room that starts its match, or that its last member leaves, is deleted.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select, update

from .core import StoreCore
from .models import RoomRow, utcnow

__all__ = ["SavedRoom", "claim_room", "kept_room_owner", "kept_room_owners", "saved_rooms",
           "write_rooms"]


@dataclass(frozen=True, slots=True)
class SavedRoom:
    code: str
    owner: str
    state: dict[str, Any]
    updated_at: datetime


def write_rooms(store: StoreCore, owner: str, changes: Mapping[str, dict[str, Any] | None]) -> int:
    """Write the rooms ``owner`` holds, in one transaction: each code's new state, or
    ``None`` for a room that is gone.  A room held by another node is left as it is.
    Returns how many rows changed."""
    changed = 0
    now = utcnow()
    with store._write() as session:
        for code, state in changes.items():
            row = session.get(RoomRow, code, with_for_update=True)
            if row is not None and row.owner != owner:
                continue  # another node took it over
            if state is None:
                if row is not None:
                    session.delete(row)
                    changed += 1
                continue
            text = json.dumps(state, ensure_ascii=False, separators=(",", ":"))
            if row is None:
                session.add(RoomRow(code=code, owner=owner, state=text, updated_at=now))
            else:
                row.state, row.updated_at = text, now
            changed += 1
    return changed


def saved_rooms(store: StoreCore, codes: Collection[str] | None = None) -> list[SavedRoom]:
    """Every kept room (or those of ``codes`` still kept), oldest change first."""
    query = select(RoomRow).order_by(RoomRow.updated_at, RoomRow.code)
    if codes is not None:
        if not codes:
            return []
        query = query.where(RoomRow.code.in_(list(codes)))
    with store._read() as session:
        return [SavedRoom(code=r.code, owner=r.owner, state=dict(json.loads(r.state)),
                          updated_at=r.updated_at)
                for r in session.scalars(query)]


def kept_room_owners(store: StoreCore) -> list[tuple[str, str]]:
    """(code, holder) of every kept room, oldest change first, without their states: what
    each cluster node reads at every heartbeat to find a dead node's rooms (their states are
    read only for the rooms it then takes over)."""
    with store._read() as session:
        return [(code, owner) for code, owner in session.execute(
            select(RoomRow.code, RoomRow.owner).order_by(RoomRow.updated_at, RoomRow.code))]


def kept_room_owner(store: StoreCore, code: str) -> str | None:
    """The node process holding kept room ``code`` (``None``: no such room is kept)."""
    with store._read() as session:
        return session.scalar(select(RoomRow.owner).where(RoomRow.code == code))


def claim_room(store: StoreCore, code: str, holder: str, owner: str) -> bool:
    """Make ``owner`` the room's holder if ``holder`` still holds it (one node wins a
    dead node's room); whether it did."""
    with store._write() as session:
        result = session.execute(update(RoomRow).where(RoomRow.code == code,
                                                       RoomRow.owner == holder)
                                 .values(owner=owner, updated_at=utcnow()))
        return bool(getattr(result, "rowcount", 0))
