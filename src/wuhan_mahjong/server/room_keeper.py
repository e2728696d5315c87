"""Rooms kept over a restart: the lobby's private rooms written to the store as they
change, and opened again by the next process (``store/rooms.py``).

A room waiting for its players is something its players did (the host chose its options
and shared its code, his friends joined), so a restart of the server, or kill -9 of it,
must not lose it.  :class:`RoomKeeper` writes behind the lobby (within milliseconds of a
change: a kill -9 in that window loses the last change, as it loses a message in
flight; a match, by contrast, is written ahead of its frames): each change marks the
room (its latest state, or that it is gone: started, or left by its last member), and
one task writes the marks in order, a batch per transaction, off the event loop; a
failed write is tried again a second later (a newer mark of the same room wins).  The
shutdown waits for the writes in flight (:meth:`RoomKeeper.flush`).

At start-up (:meth:`Lobby.restore_rooms`): a process alone opens every kept room again;
a cluster node opens those of dead nodes whose code it reserves (with the matches it
takes over).  Each member is *away* (离线) in it, not ready, for the server's
``room_grace_seconds``, as after a dropped connection: he reconnects (his client asks
for the room by its code) and is back in it; after the grace he leaves it.  A member who
sits at a resumed table meanwhile is not put back in the room.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from ..store.database import error_line
from ..store.rooms import write_rooms

if TYPE_CHECKING:
    from .hub import Hub
    from .lobby import Room

__all__ = ["RETRY_SECONDS", "RoomKeeper", "room_state"]

log = logging.getLogger("wuhan_mahjong.server.rooms")

RETRY_SECONDS = 1.0
"""The wait before a failed write of the rooms is tried again."""


def room_state(room: Room) -> dict[str, Any]:
    """What the store keeps of a room: enough to open it again (the ready flags are not
    kept: a member opened again is away, and an away member is not ready)."""
    return {"host": room.host, "options": room.options.model_dump(mode="json"),
            "members": [[account_id, name] for account_id, name in room.members],
            "kicked": sorted(room.kicked), "club_name": room.club_name}


class RoomKeeper:
    """Writes the lobby's rooms to the store, behind it and in order (see the module)."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.marks: dict[str, dict[str, Any] | None] = {}
        self.task: asyncio.Task[None] | None = None
        self.writes = 0
        """Batches written (for tests and the log)."""

    def keep(self, room: Room) -> None:
        """The room changed: write its state."""
        self._mark(room.code, room_state(room))

    def forget(self, code: str) -> None:
        """The room is gone (its match started, its last member left): delete it."""
        self._mark(code, None)

    def _mark(self, code: str, state: dict[str, Any] | None) -> None:
        self.marks.pop(code, None)  # the newest mark last: batches keep the order of change
        self.marks[code] = state
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._write(), name="room-keeper")

    async def _write(self) -> None:
        while self.marks:
            batch, self.marks = self.marks, {}
            try:
                await asyncio.to_thread(write_rooms, self.hub.store, self.hub.node_id, batch)
                self.writes += 1
            except Exception as e:  # the database is away: try again; newer marks win
                log.warning("rooms not written, trying again: %s", error_line(e))
                self.marks = {**batch, **self.marks}
                await asyncio.sleep(RETRY_SECONDS)

    async def flush(self, timeout: float) -> bool:
        """Wait (at most ``timeout`` seconds) until every mark is written; whether it was."""
        task = self.task
        if task is None or task.done():
            return not self.marks
        done, _ = await asyncio.wait([task], timeout=timeout)
        if not done:
            task.cancel()
            log.warning("rooms not written at shutdown: %d room(s) may be lost", len(self.marks))
            return False
        return not self.marks
