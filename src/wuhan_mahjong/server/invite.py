"""Inviting a followed player into one's room (邀请): the invitation reaches his connection
on whichever node holds it, and he joins with the room's code (``join_room``).

Only friends can be invited, players who follow each other (``store/social.py``: following
someone alone gives no way to send him anything), only from a room one is in,
only while they are connected, and at most :data:`INVITE_BURST` at once then one every
``1 / INVITE_RATE`` seconds per inviter: an invitation is a message to someone's screen,
so it must not become a way to flood it.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ..store.social import followers_among
from .calculator import AddressLimiter
from .placement import RoomPlace
from .protocol import InvitedMsg, InviteSentMsg, ProtocolError, encode

if TYPE_CHECKING:
    from .hub import Client, Hub

__all__ = ["INVITE_BURST", "INVITE_RATE", "Invitations"]

INVITE_RATE = 0.2
"""Invitations per second an inviter may send on average."""
INVITE_BURST = 5


class Invitations:
    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.limiter = AddressLimiter(INVITE_RATE, INVITE_BURST)

    async def invite(self, client: Client, username: str, ref: str | None) -> None:
        """Send ``username`` an invitation into ``client``'s room."""
        hub = self.hub
        place = hub.where.get(client.account_id)
        if not isinstance(place, RoomPlace):
            raise ProtocolError("not_seated", "invite from a room you are in")
        if await self.limiter.check(str(client.account_id)) > 0:
            raise ProtocolError("rate_limited", "too many invitations: wait a moment",
                                rate=INVITE_RATE)
        me = client.account_id
        target = await asyncio.to_thread(hub.store.account_by_username, username)
        if target is None or not await asyncio.to_thread(followers_among, hub.store,
                                                         target.id, [me]):
            raise ProtocolError("not_found", "you invite only players you follow",
                                username=username)  # at most 64: InviteMsg
        if not await asyncio.to_thread(followers_among, hub.store, me, [target.id]):
            raise ProtocolError("not_friends", f"{target.username} does not follow you",
                                username=target.username)
        if not await hub.online([target.id]):
            raise ProtocolError("offline", f"{target.username} is not connected",
                                username=target.username)
        room = place.room
        now = hub.where.get(me)
        if not isinstance(now, RoomPlace) or now.room is not room:  # he left it meanwhile
            raise ProtocolError("not_seated", "you are no longer in the room you invite to")
        hub.deliver(target.id, encode(InvitedMsg(by=client.name, code=room.code,
                                                 options=room.options)))
        client.send(InviteSentMsg(username=target.username, ref=ref))
