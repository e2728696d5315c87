"""The lobby: quick-match queues and private rooms, until a table starts.

Quick match
    One queue per (profile, stake).  Four waiting players start a table at
    once.  In a free queue (stake 0, the only ones open to guests), bots fill
    the empty seats ``bot_wait`` seconds after the first player joined.  A
    silver queue (the server's ``quick_stake``) waits for four players: bots
    never play for silver.  In a cluster the queue of each (profile, stake) is
    held by one node, and players connected elsewhere are relayed to it; but a
    player's node first keeps him with its own players for ``quick_affinity``
    seconds (a *local* queue): four of them start a table on their own node,
    where nothing is relayed, and whoever is still waiting then joins the
    cluster's queue.
Private rooms
    A host creates a room with options (profile, rule overrides, hands, stake)
    and gets a 6-digit code; others join with it.  Members ready up; four ready
    members start at once, or the host of a free room starts earlier and bots
    fill it.  Leaving before the start is free; the host may ask a member to
    leave (``kick``), who may not join that room again.  When a room's match is played
    to its end, a new room with the same options waits for its players (the
    code is in their ``match_end``: *再来一场*); the first to come back hosts
    it, and it closes if nobody comes within :data:`REMATCH_SECONDS`.
Club tables (亲友圈)
    A room whose options name a club (``club``) is that club's table: only its members
    open or join it, it is played by the club's rules (the lobby replaces the options by the
    club's, :func:`club_options`), and the club's page lists it while it waits for players
    (:meth:`Lobby.club_rooms`; in a cluster every node's, from Redis).

Silver: bots never hold silver, so a silver table seats four registered
players; each needs :func:`~.economy.min_to_sit` (checked on joining and again
at the start), the most the table's rules can ask of him in one hand.
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from ..rules import OPTION_BOUNDS, Rules, RulesError, get_rules
from ..store import clubs
from ..store.database import error_line, is_transient
from ..store.rooms import SavedRoom, claim_room, saved_rooms
from .economy import min_to_sit
from .limits import tables_at_address, tables_elsewhere
from .placement import QueuePlace, RoomPlace, StartingPlace
from .protocol import (
    ErrorMsg,
    LeftMsg,
    ProtocolError,
    QueuedMsg,
    QuickMatchMsg,
    RoomMember,
    RoomMsg,
    RoomOptions,
)
from .room_keeper import RoomKeeper

if TYPE_CHECKING:
    from .hub import Client, Hub

__all__ = ["REMATCH_SECONDS", "SERVER_OPTIONS", "ClubRoom", "Lobby", "Room",
           "checked_rules", "club_options", "room_rules", "seat_silver"]

log = logging.getLogger("wuhan_mahjong.server.lobby")

REMATCH_SECONDS = 300.0
"""How long the room offered for a rematch waits for its first player (the summary of the
match stays on the players' screens; five minutes is a chat about it and a decision)."""

SERVER_OPTIONS = frozenset({"service_fee", "min_silver"})
"""Rule options that only the server sets (a room could otherwise waive its fee)."""


def room_rules(options: RoomOptions) -> Rules:
    """The rules of a room: the profile, the ``rules`` overrides, then the named fields.

    >>> room_rules(RoomOptions(profile="bianfeng", opening_scoring="per_opening", cap=200)).caps()[0]
    200
    """
    overrides = dict(options.rules)
    for name in overrides:
        if name in SERVER_OPTIONS:
            raise RulesError(f"option '{name}' is set by the server, not by a room")
    if options.opening_scoring is not None:
        overrides["opening_scoring"] = options.opening_scoring
    if options.claim_window_seconds is not None:
        overrides["claim_window_seconds"] = options.claim_window_seconds
    if options.turn_seconds is not None:
        overrides["turn_seconds"] = options.turn_seconds
    if options.cap is not None:
        overrides["cap"] = options.cap
        overrides["cap_per_opening"] = options.cap
    return get_rules(options.profile, overrides)


def seat_silver(stake: int, rules: Rules) -> int:
    """The silver a seat needs (:func:`min_to_sit`); refuses uncapped silver rules."""
    need = min_to_sit(rules, stake)
    if need is None:
        raise ProtocolError("bad_options", "a silver table needs capped rules: the cap and "
                            "the contract cap must be above 0 (or play a free table)",
                            option="cap")
    return need


def checked_rules(options: RoomOptions) -> Rules:
    """The rules of a room's options, refused as ``bad_options`` (naming the option, and its
    range when it has one) when they cannot be: a room's, and a club's rules for its tables."""
    try:
        rules = room_rules(options)
    except RulesError as e:
        named = re.search(r"option '(\w+)'", str(e))
        option = named.group(1) if named else ""
        bounds = OPTION_BOUNDS.get(option)
        if bounds is not None:  # the player is told the allowed range
            raise ProtocolError("bad_options", str(e), low=bounds[0], high=bounds[1],
                                option=option) from None
        raise ProtocolError("bad_options", str(e), option=option) from None
    seat_silver(options.stake, rules)
    return rules


def club_options(club: clubs.Club) -> RoomOptions:
    """The options of a table of ``club``: its rules (``preset``), naming it."""
    try:
        return RoomOptions.model_validate({**club.preset, "club": club.number})
    except ValidationError as e:
        raise ProtocolError("bad_options", f"the rules of club {club.number} are not valid "
                            f"any more ({e.error_count()} errors): its owner sets them again",
                            club=club.number) from None


@dataclass(frozen=True)
class ClubRoom:
    """A club's table waiting for players, as its page lists it."""

    code: str
    host: str
    players: tuple[str, ...]
    hands: int
    stake: int


@dataclass
class QuickQueue:
    key: tuple[str, int]
    members: list[tuple[int, str, float]] = field(default_factory=list)
    """(account id, name, loop time of joining), first come first."""
    timer: asyncio.TimerHandle | None = None
    local: bool = False
    """A cluster node's queue of its own players, while another node holds the cluster's
    queue of this key: it starts a table of four, never fills one with bots, and sends
    whoever still waits after ``quick_affinity`` seconds to the cluster's queue."""


@dataclass
class Room:
    code: str
    host: int
    """The host's account id; 0 in a rematch's room nobody has come back to yet."""
    options: RoomOptions
    rules: Rules
    members: list[tuple[int, str]] = field(default_factory=list)
    ready: dict[int, bool] = field(default_factory=dict)
    starting: bool = False
    kicked: set[int] = field(default_factory=set)
    """Accounts the host asked to leave: they may not join this room again."""
    club_name: str | None = None
    """The name of the club whose table this is, as it was when the room opened."""
    away: dict[int, asyncio.TimerHandle] = field(default_factory=dict)
    """Members whose connection dropped (离线), each with the timer that lets him go when
    the server's ``room_grace_seconds`` have passed (:meth:`Lobby.disconnected`)."""


class Lobby:
    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.queues: dict[tuple[str, int], QuickQueue] = {}
        self.rooms: dict[str, Room] = {}
        self.keeper = RoomKeeper(hub)
        """Writes the rooms to the store as they change (``server/room_keeper.py``)."""

    # ------------------------------------------------------------------ checks
    def _free(self, client: Client, elsewhere: int = 0) -> None:
        """Refuse an account that has a place already, or an address that runs its share
        of tables (here, and ``elsewhere``: on the cluster's other nodes)."""
        if client.account_id in self.hub.where:
            raise ProtocolError("busy", "you are already in a queue, a room or at a table; "
                                "send 'leave' first")
        limit = self.hub.config.tables_per_address
        if tables_at_address(self.hub, client.address) + elsewhere >= limit:
            raise ProtocolError("busy", f"your address already has {limit} tables running: "
                                "wait until one of them ends")

    @staticmethod
    def _short(stake: int, need: int, have: int) -> ProtocolError:
        """The refusal of a player short of the silver to sit (``insufficient_silver``)."""
        return ProtocolError("insufficient_silver",
                             f"a seat at stake {stake} needs at least {need} silver "
                             f"(the most one hand can cost); you have {have}",
                             need=need, have=have)

    def _tell(self, account_id: int, error: ProtocolError) -> None:
        """Send a player an error that is not the answer to one of his messages."""
        self.hub.send_to(account_id, ErrorMsg(code=error.code, message=str(error),
                                              params=error.params))

    async def _check_silver(self, client: Client, stake: int, rules: Rules) -> None:
        need = seat_silver(stake, rules)
        if stake <= 0:
            return
        if client.is_guest:
            raise ProtocolError("guest_not_allowed",
                                "guests play free tables only: register to play for silver")
        account = await self.hub.fresh_account(client.account_id)
        if account.silver < need:
            raise self._short(stake, need, account.silver)

    # ------------------------------------------------------------------ quick match
    async def quick_match(self, client: Client, profile: str | None, silver: bool) -> None:
        self._free(client)
        cfg = self.hub.config
        profile = profile or cfg.quick_profile
        stake = cfg.quick_stake if silver else 0
        rules = get_rules(profile)
        await self._check_silver(client, stake, rules)
        self._free(client, await tables_elsewhere(self.hub, client.address))  # again: awaited
        key = (profile, stake)
        local = False
        if not self._waiting(key) and self.hub.cluster is not None and cfg.quick_affinity > 0:
            local = not await self.hub.cluster.hold_queue(key)
        queue = self.queues.setdefault(key, QuickQueue(key))
        if not queue.members:
            queue.local = local
        loop = asyncio.get_running_loop()
        queue.members.append((client.account_id, client.name, loop.time()))
        self.hub.where.join_queue(client.account_id, key)
        four = self._four(queue)
        if four is not None:
            self._start_quick(queue, four)
        else:
            self._arm(queue)
        self._announce(queue)

    def _four(self, queue: QuickQueue) -> list[int] | None:
        """Which waiting players sit down together now (their places in the queue), if four
        can: the first four; at a silver table the first four of four different addresses
        (``quick_silver_distinct_addresses``, 同IP不同桌), so that one person's accounts, or
        players at one address, never play each other for silver at a quick table."""
        if len(queue.members) < 4:
            return None
        if queue.key[1] <= 0 or not self.hub.config.quick_silver_distinct_addresses:
            return [0, 1, 2, 3]
        chosen: list[int] = []
        seen: set[str] = set()
        for i, (account_id, _, _) in enumerate(queue.members):
            address = self.hub.addresses.get(account_id)
            if address is not None:
                if address in seen:
                    continue
                seen.add(address)
            chosen.append(i)
            if len(chosen) == 4:
                return chosen
        return None

    def _waiting(self, key: tuple[str, int]) -> bool:
        queue = self.queues.get(key)
        return queue is not None and bool(queue.members)

    def _arm(self, queue: QuickQueue) -> None:
        if queue.timer is not None:
            queue.timer.cancel()
            queue.timer = None
        if not queue.members:
            return
        loop = asyncio.get_running_loop()
        if queue.local:
            when = queue.members[0][2] + self.hub.config.quick_affinity
            queue.timer = loop.call_at(when, self._to_cluster, queue.key)
            return
        if queue.key[1] > 0:  # silver queues wait for four players
            return
        when = queue.members[0][2] + self.hub.config.bot_wait
        queue.timer = loop.call_at(when, self._fill, queue.key)

    def _to_cluster(self, key: tuple[str, int]) -> None:
        queue = self.queues.get(key)
        if queue is None or not queue.local:
            return
        queue.timer = None
        self.hub.background(asyncio.get_running_loop().create_task(self._join_cluster(queue)))

    async def _join_cluster(self, queue: QuickQueue) -> None:
        """The wait of a local queue is over: its players join the cluster's queue on the
        node that holds it, first come first (or, if no live node holds it any more, this
        queue becomes the cluster's)."""
        cluster = self.hub.cluster
        held_here = cluster is None or await cluster.hold_queue(queue.key)
        if self.queues.get(queue.key) is not queue or not queue.members:
            return  # emptied, or its four sat down, meanwhile
        if held_here:
            queue.local = False
            self._arm(queue)
            self._announce(queue)
            return
        moving, queue.members = queue.members, []
        self.queues.pop(queue.key, None)
        for a, _, _ in moving:
            self.hub.where.leave(a)
        profile, stake = queue.key
        again = QuickMatchMsg.model_validate({"type": "quick_match", "profile": profile,
                                              "silver": stake > 0})
        for a, _, _ in moving:
            client = self.hub.clients.get(a)
            if client is not None:
                await self.hub.dispatch(client, again, local_first=False)

    def _fill(self, key: tuple[str, int]) -> None:
        queue = self.queues.get(key)
        if queue is None:
            return
        queue.timer = None
        if queue.members:  # a free table: bots take the empty seats
            self._start_quick(queue, list(range(min(4, len(queue.members)))))

    def _start_quick(self, queue: QuickQueue, chosen: list[int]) -> None:
        people = [queue.members[i] for i in chosen]
        queue.members = [m for i, m in enumerate(queue.members) if i not in chosen]
        self._arm(queue)
        self._announce(queue)
        if not queue.members and queue.timer is None:
            self.queues.pop(queue.key, None)
        profile, stake = queue.key
        humans = [(a, n) for a, n, _ in people]
        places = {a: self.hub.where.starting(a, "queue") for a, _ in humans}
        task = asyncio.get_running_loop().create_task(self._launch(
            humans, places, get_rules(profile), self.hub.config.quick_hands, stake))
        self.hub.background(task)

    async def _short_of_silver(self, humans: list[tuple[int, str]], rules: Rules,
                               stake: int) -> dict[int, int]:
        """The players who no longer have the silver to sit, with their balances (checked
        again at the start: a balance may have changed since joining)."""
        if stake <= 0:
            return {}
        need = seat_silver(stake, rules)
        short = {}
        for a, _ in humans:
            account = await self.hub.fresh_account(a)
            if account.silver < need:
                short[a] = account.silver
        return short

    async def _launch(self, humans: list[tuple[int, str]], places: dict[int, StartingPlace],
                      rules: Rules, hands: int, stake: int, watchable: bool = True,
                      room: RoomOptions | None = None, silver_checked: bool = False) -> None:
        """Start the table of ``humans`` (``places``: each one's place while he is seated; one
        who left meanwhile, ``leave``, has another and is no longer told anything here).
        ``silver_checked``: their silver was read just now (a room's, :meth:`_may_start`),
        so a silver room's players sit at once, with no moment to leave it in between."""
        def present() -> list[tuple[int, str]]:
            return [(a, n) for a, n in humans if self.hub.where.get(a) is places[a]]

        try:
            short = {} if silver_checked else await self._short_of_silver(present(), rules, stake)
            if short or (stake > 0 and len(present()) < 4):
                await self._not_seated(present(), short, rules, stake, quick=room is None)
                return
            await self.hub.start_table(present(), rules, hands=hands, stake=stake,
                                       watchable=watchable, room=room, places=places)
        except ProtocolError as e:  # the server began to drain meanwhile (busy), or one left
            still = present()
            if room is None and stake > 0 and len(still) < len(humans) and not self.hub.draining:
                await self._not_seated(still, {}, rules, stake, quick=True)  # they queue again
                return
            self._not_started(still)
            for a, _ in still:
                self._tell(a, e)
        except Exception as e:
            if is_transient(e):  # the database away (a restart, a full disk): one line
                log.warning("could not start a table: the database is unavailable (%s)",
                            error_line(e))
            else:
                log.exception("could not start a table")
            still = present()
            self._not_started(still)
            for a, _ in still:
                self.hub.send_to(a, ErrorMsg(code="server_error", message="could not start the table"))

    async def _not_seated(self, humans: list[tuple[int, str]], short: dict[int, int],
                          rules: Rules, stake: int, quick: bool) -> None:
        """A silver table that cannot start: a player no longer has the silver to sit
        (``short``: his balance), or fewer than four are left.  Whoever is short is told
        what he needs and has (and leaves the quick-match queue); at a quick match the others
        queue again, first come first, for the next player to seat them; anyone else is told
        why the table did not start."""
        need = seat_silver(stake, rules)
        for a, _ in humans:
            self.hub.where.leave(a)
        for a, have in short.items():
            self._tell(a, self._short(stake, need, have))
            if quick:
                self.hub.send_to(a, LeftMsg(where="queue"))
        others = [a for a, _ in humans if a not in short]
        if quick:
            again = QuickMatchMsg.model_validate({"type": "quick_match", "profile": rules.profile,
                                                  "silver": True})
            for a in others:
                client = self.hub.clients.get(a)
                if client is not None and a not in self.hub.where:
                    await self.hub.dispatch(client, again)
            return
        for a in others:
            self.hub.send_to(a, ErrorMsg(
                code="insufficient_silver" if short else "not_ready",
                message="the table did not start: a player no longer has the silver to sit"
                if short else "a silver table seats four players"))

    def _not_started(self, humans: list[tuple[int, str]]) -> None:
        """Players whose table did not start (each still being seated for it) are nowhere
        again, free to queue or join a room (they stayed "being seated", and every later
        request of theirs was answered busy)."""
        for a, _ in humans:
            if isinstance(self.hub.where.get(a), StartingPlace):
                self.hub.where.leave(a)

    def _announce(self, queue: QuickQueue) -> None:
        profile, stake = queue.key
        cfg = self.hub.config
        bots_after = None if stake > 0 else cfg.bot_wait + (cfg.quick_affinity if queue.local else 0)
        for a, _, _ in queue.members:
            self.hub.send_to(a, QueuedMsg(profile=profile, stake=stake, waiting=len(queue.members),
                                          bots_after=bots_after))

    # ------------------------------------------------------------------ rooms
    def _new_code(self) -> str:
        while True:
            code = f"{secrets.randbelow(1_000_000):06d}"
            if code not in self.rooms:
                return code

    async def _club_seat(self, client: Client, number: int) -> clubs.Club:
        """The club, if ``client`` may sit at its tables (a member); refuses anyone else."""
        try:
            role, club = await asyncio.to_thread(clubs.member_role, self.hub.store, number,
                                                 client.account_id)
        except clubs.ClubError:
            raise ProtocolError("not_found", f"no club {number}", club=number) from None
        if role not in clubs.MEMBER_ROLES:
            raise ProtocolError("not_member", f"only the members of club {number} sit at its "
                                "tables", club=number)
        return club

    async def create_room(self, client: Client, options: RoomOptions) -> None:
        self._free(client)
        club_name = None
        if options.club is not None:  # a club's table: its members only, by its rules
            club = await self._club_seat(client, options.club)
            options, club_name = club_options(club), club.name
        rules = checked_rules(options)
        await self._check_silver(client, options.stake, rules)
        code = self._new_code()
        if self.hub.cluster is not None:  # unique across the cluster's nodes
            code = await self.hub.cluster.room_code(code, self._new_code)
        self._free(client, await tables_elsewhere(self.hub, client.address))
        room = Room(code=code, host=client.account_id, options=options, rules=rules,
                    club_name=club_name)
        room.members.append((client.account_id, client.name))
        room.ready[client.account_id] = False
        self.rooms[room.code] = room
        self.hub.where.join_room(client.account_id, room)
        self._room_update(room)

    async def join_room(self, client: Client, code: str) -> None:
        self._free(client)
        room = self.rooms.get(code)
        if room is None or room.starting:
            raise ProtocolError("not_found", f"no room {code}", room=code)
        if len(room.members) >= 4:
            raise ProtocolError("room_full", f"room {code} is full", room=code)
        if client.account_id in room.kicked:
            raise ProtocolError("kicked", f"the host of room {code} asked you to leave it",
                                room=code)
        if room.options.club is not None:
            await self._club_seat(client, room.options.club)
        self._check_address(room, client)
        await self._check_silver(client, room.options.stake, room.rules)
        self._free(client, await tables_elsewhere(self.hub, client.address))
        if self.rooms.get(code) is not room or room.starting:
            raise ProtocolError("not_found", f"no room {code}", room=code)
        if len(room.members) >= 4:
            raise ProtocolError("room_full", f"room {code} is full", room=code)
        self._check_address(room, client)
        if not room.members:  # a rematch's room: the first to come back hosts it
            room.host = client.account_id
        room.members.append((client.account_id, client.name))
        room.ready[client.account_id] = False
        self.hub.where.join_room(client.account_id, room)
        self._room_update(room)

    def _check_address(self, room: Room, client: Client) -> None:
        """A room for members of different addresses (``distinct_addresses``, 同IP禁止进入)
        refuses a player connected from a member's address."""
        if room.options.distinct_addresses and client.address in {
                self.hub.addresses.get(a) for a, _ in room.members}:
            raise ProtocolError("same_address", f"room {room.code} seats players of different "
                                "addresses only, and a member connects from yours",
                                room=room.code, reason="yours")

    def _check_addresses_apart(self, room: Room) -> None:
        """Refuse to start a ``distinct_addresses`` room two of whose members share an
        address now (one may have reconnected from another's since he joined)."""
        if room.options.distinct_addresses and self._address_groups(
                [a for a, _ in room.members]):
            raise ProtocolError("same_address", "two members of the room connect from one "
                                "address: it seats players of different addresses only",
                                room=room.code, reason="members")

    async def rematch_room(self, options: RoomOptions) -> str | None:
        """Open a room with ``options`` for the players of a room whose match was played to
        its end, and return its code (``None`` while the server drains: nothing starts).
        Nobody is in it: each player decides (``join_room``); it closes if nobody comes
        within :data:`REMATCH_SECONDS`."""
        if self.hub.draining:
            return None
        code = self._new_code()
        if self.hub.cluster is not None:  # unique across the cluster's nodes
            code = await self.hub.cluster.room_code(code, self._new_code)
        room = Room(code=code, host=0, options=options, rules=room_rules(options))
        self.rooms[code] = room
        asyncio.get_running_loop().call_later(REMATCH_SECONDS, self._close_if_empty, room)
        return code

    def _close_if_empty(self, room: Room) -> None:
        if self.rooms.get(room.code) is room and not room.members and not room.starting:
            del self.rooms[room.code]
            self._club_listing(room)

    def _room_of(self, client: Client) -> Room:
        place = self.hub.where.get(client.account_id)
        if not isinstance(place, RoomPlace):
            raise ProtocolError("not_seated", "you are not in a room")
        return place.room

    async def set_ready(self, client: Client, ready: bool) -> None:
        room = self._room_of(client)
        room.ready[client.account_id] = ready
        self._room_update(room)
        if len(room.members) == 4 and all(room.ready.values()):
            self._check_addresses_apart(room)
            if await self._may_start(room):
                self._start_room(room)

    async def start_room(self, client: Client) -> None:
        room = self._room_of(client)
        if room.host != client.account_id:
            raise ProtocolError("not_host", "only the host starts the room")
        if not all(room.ready.values()):
            raise ProtocolError("not_ready", "every member must be ready first", reason="members")
        if len(room.members) < 4 and room.options.stake > 0:
            raise ProtocolError("not_ready", "a silver room needs four players: bots never play "
                                "for silver (set stake 0 to play with bots)", reason="silver_four")
        if len(room.members) < 4 and not room.options.fill_bots:
            raise ProtocolError("not_ready", "the room needs four players (fill_bots is off)",
                                reason="four_players")
        self._check_addresses_apart(room)
        if await self._may_start(room):
            self._start_room(room)

    async def _may_start(self, room: Room) -> bool:
        """Whether the room may start as it is, asked of the store just before it starts: a
        club's table only with the club's members, a silver room only with members who still
        have the silver to sit (a balance may have fallen since joining: a table one escaped
        from goes on settling one's seat, an operator debits it).

        Whoever was removed from the club (or left it) while he waited at its table leaves
        the table, and every member does when the club was dissolved (each is told: ``left``
        naming the club); a member short of silver is no longer ready and is told
        (``insufficient_silver`` with ``need`` and ``have``, :meth:`_short_of_silver`), the
        room and the others stay.
        Then it does not start: the host starts again, or the members ready again.  Nor does
        a room that changed while the store answered (a member left, came, or is no longer
        ready): it starts as its members see it or not at all, and the change that completes
        it asks again.  Any other room may start."""
        members, ready = list(room.members), dict(room.ready)
        number = room.options.club
        gone = []
        if number is not None:
            for account_id, _ in members:
                try:
                    role, _ = await asyncio.to_thread(clubs.member_role, self.hub.store, number,
                                                      account_id)
                except clubs.ClubError:  # dissolved
                    role = None
                if role not in clubs.MEMBER_ROLES:
                    gone.append(account_id)
        stake = room.options.stake
        short = await self._short_of_silver(members, room.rules, stake)
        if (self.rooms.get(room.code) is not room or room.starting or room.members != members
                or room.ready != ready):
            return False  # it changed while the store answered: the next start asks again
        for account_id in gone:
            if any(a == account_id for a, _ in room.members):
                self.leave(account_id)
                self.hub.send_to(account_id, LeftMsg(where="room", club=number))
        short = {a: have for a, have in short.items() if a not in gone}
        for account_id, have in short.items():
            room.ready[account_id] = False
            self._tell(account_id, self._short(stake, seat_silver(stake, room.rules), have))
        if short:
            self._room_update(room)
        return not gone and not short

    def _start_room(self, room: Room) -> None:
        if room.starting:
            return
        room.starting = True
        self.rooms.pop(room.code, None)
        self.keeper.forget(room.code)
        self._club_listing(room)
        humans = list(room.members)
        places = {a: self.hub.where.starting(a, "room") for a, _ in humans}
        task = asyncio.get_running_loop().create_task(
            self._launch(humans, places, room.rules, room.options.hands, room.options.stake,
                         room.options.spectators, room.options, silver_checked=True))
        self.hub.background(task)

    def _room_update(self, room: Room) -> None:
        for a, _ in room.members:
            self.hub.send_to(a, self._room_msg(room, a))
        if self._room_waits(room):
            self.keeper.keep(room)
        self._club_listing(room)

    @staticmethod
    def _club_room(room: Room) -> ClubRoom:
        host = next((n for a, n in room.members if a == room.host), "")
        return ClubRoom(code=room.code, host=host, players=tuple(n for _, n in room.members),
                        hands=room.options.hands, stake=room.options.stake)

    def _room_waits(self, room: Room) -> bool:
        """Whether a room is open here and waits for players (a club's page lists it)."""
        return self.rooms.get(room.code) is room and bool(room.members) and not room.starting

    def _club_listing(self, room: Room) -> None:
        """In a cluster, tell the other nodes how a club's table waits (or that it is gone)."""
        cluster = self.hub.cluster
        number = room.options.club
        if cluster is None or number is None:
            return
        task = asyncio.get_running_loop().create_task(
            cluster.list_club_room(number, room.code,
                                   self._club_room(room) if self._room_waits(room) else None))
        self.hub.background(task)

    async def club_rooms(self, number: int) -> list[ClubRoom]:
        """The club's tables waiting for players, the fullest first (the next to start):
        this node's own as its memory has them (at once: its Redis listing is written behind
        each change), and in a cluster the other nodes' from the Redis listing (none while
        Redis does not answer)."""
        found = [self._club_room(r) for r in list(self.rooms.values())
                 if r.options.club == number and self._room_waits(r)]
        if self.hub.cluster is not None:
            try:
                found += await self.hub.cluster.others_club_rooms(number)
            except Exception as e:  # Redis away: this node's own tables
                log.warning("club %d: other nodes' tables unknown, Redis does not answer (%s)",
                            number, error_line(e))
        return sorted(found, key=lambda r: (-len(r.players), r.code))

    def _room_msg(self, room: Room, viewer: int) -> RoomMsg:
        groups = self._address_groups([a for a, _ in room.members])
        return RoomMsg(code=room.code, options=room.options,
                       min_silver=min_to_sit(room.rules, room.options.stake) or 0,
                       overrides=room.rules.overrides(), club_name=room.club_name,
                       members=[RoomMember(name=n, ready=room.ready.get(a, False),
                                           host=a == room.host, you=a == viewer,
                                           same_address=groups.get(a),
                                           away=a in room.away)
                                for a, n in room.members])

    def _address_groups(self, accounts: list[int]) -> dict[int, int]:
        """Account -> a number shared by the accounts connected from one address (numbered
        1, 2 in the order of their first member); accounts alone at theirs are absent."""
        by_address: dict[str, list[int]] = {}
        for account_id in accounts:
            address = self.hub.addresses.get(account_id)
            if address is not None:
                by_address.setdefault(address, []).append(account_id)
        shared = [ids for ids in by_address.values() if len(ids) > 1]
        return {a: number for number, ids in enumerate(shared, 1) for a in ids}

    async def kick(self, client: Client, name: str) -> None:
        """The host asks the member called ``name`` to leave (he may not join again)."""
        room = self._room_of(client)
        if room.host != client.account_id:
            raise ProtocolError("not_host", "only the host asks a member to leave")
        member = next((a for a, n in room.members if n == name and a != client.account_id), None)
        if member is None:
            raise ProtocolError("not_found", f"no other member {name!r} in the room",
                                room=room.code)
        room.kicked.add(member)
        self.leave(member)
        self.hub.send_to(member, LeftMsg(where="room", kicked=True))

    # ------------------------------------------------------------------ connections
    def disconnected(self, account_id: int) -> None:
        """The account's connection closed.  A queue lets him go at once (joining it again
        costs nothing).  A room holds his place for ``room_grace_seconds`` as the apps do, so
        that a reload or a phone moving from Wi-Fi to mobile data does not throw him out: he
        is shown away and not ready (the room cannot start without him), and back within
        the grace he is in the room again (:meth:`returned`); then he leaves it."""
        place = self.hub.where.get(account_id)
        grace = self.hub.config.room_grace_seconds
        if not isinstance(place, RoomPlace) or grace <= 0:
            self.leave(account_id)
            return
        room = place.room
        self._back_from_away(room, account_id)  # a second drop: the grace starts again
        room.away[account_id] = asyncio.get_running_loop().call_later(
            grace, self._let_go, room, account_id)
        room.ready[account_id] = False
        self._room_update(room)

    def _let_go(self, room: Room, account_id: int) -> None:
        """The grace of an away member is over: he leaves the room (if still away in it)."""
        place = self.hub.where.get(account_id)
        if isinstance(place, RoomPlace) and place.room is room and account_id in room.away:
            self.leave(account_id)

    def returned(self, account_id: int) -> None:
        """An away member connected again: his place in the room is his again."""
        place = self.hub.where.get(account_id)
        if isinstance(place, RoomPlace) and self._back_from_away(place.room, account_id):
            self._room_update(place.room)

    @staticmethod
    def _back_from_away(room: Room, account_id: int) -> bool:
        """No longer away in ``room``: his grace's timer cancelled.  Whether he was away."""
        timer = room.away.pop(account_id, None)
        if timer is not None:
            timer.cancel()
        return timer is not None

    def rejoin(self, account_id: int, code: str) -> bool:
        """``join_room`` of the room the account is in already (a reconnection through
        another node of a cluster, which does not know his room; a second tab): he is back
        in it and gets the room again.  False: he is not in that room."""
        place = self.hub.where.get(account_id)
        if not isinstance(place, RoomPlace) or place.room.code != code:
            return False
        self.returned(account_id)
        self.hub.send_to(account_id, self._room_msg(place.room, account_id))
        return True

    # ------------------------------------------------------------------ leaving
    def leave(self, account_id: int) -> None:
        """Leave a queue or a room (before the start: no penalty)."""
        place = self.hub.where.get(account_id)
        if isinstance(place, QueuePlace):
            self.hub.where.leave(account_id)
            queue = self.queues.get(place.key)
            if queue is not None:
                queue.members = [m for m in queue.members if m[0] != account_id]
                self._arm(queue)
                self._announce(queue)
                if not queue.members:
                    self.queues.pop(place.key, None)
        elif isinstance(place, RoomPlace):
            self.hub.where.leave(account_id)
            room = place.room
            room.members = [m for m in room.members if m[0] != account_id]
            room.ready.pop(account_id, None)
            self._back_from_away(room, account_id)
            if not room.members:
                self.rooms.pop(room.code, None)
                self.keeper.forget(room.code)
                self._club_listing(room)
                return
            if room.host == account_id:
                room.host = room.members[0][0]
            self._room_update(room)

    # ------------------------------------------------------------------ a restart
    async def restore_rooms(self, kept: list[SavedRoom] | None = None) -> int:
        """Open again the rooms a previous process kept (``server/room_keeper.py``): every
        kept room (a process alone, at start-up), or ``kept`` (a cluster node: the dead
        nodes' rooms whose codes it reserved).  Each is claimed for this process first (one
        node wins a room).  Returns how many rooms opened."""
        store = self.hub.store
        if kept is None:
            kept = await asyncio.to_thread(saved_rooms, store)
        opened = 0
        for saved in kept:
            if saved.code in self.rooms or not await asyncio.to_thread(
                    claim_room, store, saved.code, saved.owner, self.hub.node_id):
                continue
            room = self._reopened(saved.code, saved.state)
            if room is None:
                self.keeper.forget(saved.code)
                continue
            opened += 1
            log.info("room %s open again, its %d member(s) away until they reconnect",
                     room.code, len(room.members))
        return opened

    def _reopened(self, code: str, state: dict[str, Any]) -> Room | None:
        """A kept room opened here with its members away, or ``None``: it cannot be (its
        options are no longer valid, its members sit at a resumed table, rooms do not wait
        for a dropped member here: ``room_grace_seconds`` 0)."""
        grace = self.hub.config.room_grace_seconds
        try:
            options = RoomOptions.model_validate(state["options"])
            rules = room_rules(options)
            members = [(int(a), str(n)) for a, n in state["members"]]
            host, kicked = int(state["host"]), {int(k) for k in state.get("kicked", [])}
            club_name = state.get("club_name")
        except (KeyError, TypeError, ValueError, ValidationError, RulesError) as e:
            log.warning("room %s cannot be opened again: %s", code, e)
            return None
        members = [(a, n) for a, n in members if a not in self.hub.where][:4]
        if grace <= 0 or not members:
            return None
        room = Room(code=code, host=host if any(a == host for a, _ in members) else members[0][0],
                    options=options, rules=rules, members=members,
                    ready={a: False for a, _ in members}, kicked=kicked,
                    club_name=club_name if isinstance(club_name, str) else None)
        self.rooms[code] = room
        loop = asyncio.get_running_loop()
        for account_id, _ in members:
            self.hub.where.join_room(account_id, room)
            room.away[account_id] = loop.call_later(grace, self._let_go, room, account_id)
        self.keeper.keep(room)
        self._club_listing(room)
        return room

    def resend(self, account_id: int) -> None:
        place = self.hub.where.get(account_id)
        if isinstance(place, QueuePlace) and place.key in self.queues:
            self._announce(self.queues[place.key])
        elif isinstance(place, RoomPlace):
            self.hub.send_to(account_id, self._room_msg(place.room, account_id))

    def close(self) -> None:
        for queue in self.queues.values():
            if queue.timer is not None:
                queue.timer.cancel()
        self.queues.clear()
        for room in self.rooms.values():
            for timer in room.away.values():
                timer.cancel()
        self.rooms.clear()
