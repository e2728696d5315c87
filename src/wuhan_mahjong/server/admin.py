"""How a running server hears the operator (``wuhan-mahjong admin``, ``docs/operations.md``).

The admin commands work on the database only, so they reach every server
process sharing it, running or not.  Each server polls the database every
:data:`POLL_SECONDS` (:func:`watch_admin`, for the server's lifetime):

* every action logged since the last poll goes to the server's event log
  (``admin_action``, with its ids);
* a ``ban`` logged since the last poll closes the account's connection (close
  code 4403), and so do a ``close_account`` and a ``reset_password`` (4401: its
  sessions are gone); the store refuses the account's sessions and logins from the ban
  on, and the hub refuses it a queue or a room (:func:`refuse_seat`);
* the ``drain`` flag: while it is on, no new match starts (a queue, a room or a
  join is answered ``busy``: :func:`refuse_seat`) and the running ones play to
  their end; ``admin drain --off`` reopens.  The server itself keeps running
  (stop it when ``admin tables`` shows nothing left: ``admin drain --wait``).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from ..store import StoreError
from ..store.admin import account_banned, last_action_id, poll_server_state
from ..store.announcements import Announcement
from ..store.closing import close_abandoned_guests
from ..store.database import error_line, is_transient
from .observability import emit
from .protocol import AnnouncementMsg, AnnouncementOut, ProtocolError

if TYPE_CHECKING:
    from .hub import Hub

__all__ = ["BANNED_CLOSE_CODE", "HOUSEKEEPING_SECONDS", "POLL_SECONDS", "keep_house", "refuse_seat",
           "watch_admin"]

log = logging.getLogger("wuhan_mahjong.server")

POLL_SECONDS = 2.0
"""Seconds between two polls of the admin log and flags (a ban takes effect within this)."""

BANNED_CLOSE_CODE = 4403

HOUSEKEEPING_SECONDS = 3600.0
"""Seconds between two rounds of :func:`keep_house` (the first runs at start)."""


async def refuse_seat(hub: Hub, account_id: int) -> None:
    """Before an account takes a queue or a room: ``busy`` while the server drains (or shuts
    down), ``auth_failed`` if the account is banned."""
    if hub.draining:
        raise ProtocolError("busy", "the server starts no new match now: try again later")
    if await asyncio.to_thread(account_banned, hub.store, account_id):
        raise ProtocolError("auth_failed", "this account is banned")


def _apply(hub: Hub, banned: tuple[int, ...], draining: bool | None,
           closed: tuple[int, ...] = (), logged_out: tuple[int, ...] = ()) -> None:
    closing = ((banned, BANNED_CLOSE_CODE, "account banned"),
               (closed, 4401, "account closed"),  # its sessions are gone
               (logged_out, 4401, "password reset: log in again"))
    for accounts, code, reason in closing:
        for account_id in accounts:
            client = hub.clients.get(account_id)
            if client is not None:
                log.info("account %d: %s by an operator: closing its connection", account_id,
                         reason.split(":")[0])
                client.close(code, reason)
    if draining is not None:
        hub.draining = draining
        log.info("admin drain is %s: %s", "on" if draining else "off",
                 "no new match starts" if draining else "new matches start again")


def _announce(hub: Hub, shown: Announcement | None) -> None:
    """Send every connected player the notice shown now when it changed (a new one, or
    none any more)."""
    notice = None if shown is None else AnnouncementOut(id=shown.id, text=shown.text,
                                                        expires_at=shown.expires_at)
    if notice == hub.announcement:
        return
    hub.announcement = notice
    frame = AnnouncementMsg(announcement=notice)
    for client in list(hub.clients.values()):
        client.send(frame)
    log.info("announcement %s", "taken down" if notice is None else f"{notice.id} shown")


async def watch_admin(hub: Hub, poll: float | None = None) -> None:
    """Poll the admin log and flags for the server's lifetime (cancelled at shutdown).

    The drain flag is applied when it changes (and at start if it is on), so a
    server that is shutting down is never reopened by a poll."""
    seconds = POLL_SECONDS if poll is None else poll
    last = await asyncio.to_thread(last_action_id, hub.store)
    seen: bool | None = None
    while True:
        if hub.draining and not seen:  # the server is shutting down: nothing more to watch
            return
        try:
            state = await asyncio.to_thread(poll_server_state, hub.store, last)
        except StoreError as e:
            log.warning("admin poll failed: %s", e)
        except Exception as e:  # the database is away: try again at the next poll
            if is_transient(e):
                log.warning("admin poll failed: the database is unavailable (%s)",
                            error_line(e))
            else:
                log.exception("admin poll failed")
        else:
            last = state.last_id
            change = None if state.draining == seen else state.draining
            if seen is None and not state.draining:
                change = None
            seen = state.draining
            for action in state.actions:
                emit("admin_action", action=action.action, actor=action.actor,
                     account_id=action.account_id, admin_action_id=action.id)
            _apply(hub, state.banned, change, state.closed, state.logged_out)
            _announce(hub, state.announcement)
        await asyncio.sleep(seconds)


async def keep_house(hub: Hub, every: float | None = None) -> None:
    """For the server's lifetime, at start and every :data:`HOUSEKEEPING_SECONDS`: delete
    the login sessions that have expired (an expired session logs nobody in, but its row
    stayed for good: one per login), then close the guest accounts nobody can use any more
    (``store.closing.close_abandoned_guests``: every session of theirs has ended, and a
    guest has no other way in), :data:`~wuhan_mahjong.store.closing.ABANDONED_BATCH` a
    round.  Every node of a cluster does it; what one node did, the next finds done."""
    seconds = HOUSEKEEPING_SECONDS if every is None else every
    while True:
        try:
            purged = await asyncio.to_thread(hub.store.purge_expired_sessions)
            guests = await asyncio.to_thread(close_abandoned_guests, hub.store)
        except Exception as e:  # the database is away: the next round will do
            if is_transient(e):
                log.warning("housekeeping failed: the database is unavailable (%s)",
                            error_line(e))
            else:
                log.exception("housekeeping failed")
        else:
            if purged:
                emit("sessions_purged", count=purged)
            if guests:
                emit("guests_closed", count=len(guests))
        await asyncio.sleep(seconds)
