"""The hub: connections, where each account is (queue, room, table), and the tables.

All of it lives on the server's one event loop, so plain dictionaries are
enough: nothing here is touched from another thread.  The store is called
through ``asyncio.to_thread``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
import time
from collections import deque
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel
from sqlalchemy.exc import SQLAlchemyError
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..engine import ActionFormatError, action_from_json
from ..rules import Rules
from ..store import Account, Store, StoreError
from ..store.accounts import hash_token
from ..store.database import error_line, is_transient
from ..store.models import utcnow
from ..store.staff import StaffRole, role_of
from ..store.tournaments import entered
from .admin import refuse_seat
from .admission import OVERLOADED_CLOSE_CODE, Admission
from .chat import ChatRelay, bot_names
from .config import ServerConfig, calendar_zone
from .invite import Invitations
from .lobby import Lobby
from .match_writer import close_match_writer
from .observability import frame_sent
from .placement import Placements, QueuePlace, RoomPlace, StartingPlace, TablePlace
from .protocol import (
    PROTOCOL_VERSION,
    AccountInfo,
    ActionMsg,
    AnnouncementOut,
    AnswerEndMsg,
    AutoMsg,
    ChatMsg,
    CreateRoomMsg,
    ErrorMsg,
    HelloMsg,
    InviteMsg,
    JoinRoomMsg,
    KickMsg,
    LeaveMsg,
    LeftMsg,
    NextHandMsg,
    NoticeMsg,
    PingMsg,
    PongMsg,
    ProposeEndMsg,
    ProtocolError,
    QuickMatchMsg,
    ReadyMsg,
    RoomOptions,
    SnapshotMsg,
    StartMsg,
    TournamentInfo,
    UnwatchMsg,
    WatchMsg,
    WelcomeMsg,
    encode,
    parse_client_message,
)
from .ratelimit import RateLimiter
from .spectate import Spectate
from .table import ResumeError, SeatInfo, Table

if TYPE_CHECKING:
    from .cluster import Cluster
    from .tournaments import TournamentRunner

__all__ = ["Client", "Hub", "QueuePlace", "RoomPlace", "TablePlace", "serve_websocket"]

log = logging.getLogger("wuhan_mahjong.server")


class Client:
    """One authenticated WebSocket connection.  Frames go through a bounded queue to a
    writer task, so a slow client never blocks a table; one that lets too many frames
    pile up is disconnected."""

    def __init__(self, hub: Hub, ws: WebSocket, account: Account) -> None:
        self.hub = hub
        self.ws = ws
        self.account_id = account.id
        self.name = account.username
        self.is_guest = account.is_guest
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(maxsize=hub.config.send_queue)
        self.queued_at: deque[float] = deque()
        """When each queued frame was queued (``time.perf_counter``): the frame latency metric."""
        self.closed = False
        self.close_code = 1000
        self.close_reason = ""
        self.token_hash = ""
        """SHA-256 of the session token this connection logged in with (logout closes it)."""
        self.address = "unknown"
        """The client's address (the TCP peer's, or a trusted proxy's ``X-Forwarded-For``)."""

    def send(self, msg: BaseModel) -> None:
        self.send_text(encode(msg))

    def send_text(self, text: str) -> None:
        if self.closed:
            return
        try:
            self.queue.put_nowait(text)
            self.queued_at.append(time.perf_counter())
        except asyncio.QueueFull:
            self.close(1013, "too slow: frames piled up")

    def close(self, code: int = 1000, reason: str = "") -> None:
        if self.closed:
            return
        self.closed = True
        self.close_code = code
        self.close_reason = reason
        while True:
            try:
                self.queue.put_nowait(None)
                return
            except asyncio.QueueFull:
                self.queue.get_nowait()

    async def writer(self) -> None:
        try:
            while True:
                text = await self.queue.get()
                if text is None:
                    break
                await self.ws.send_text(text)
                if self.queued_at:
                    frame_sent(self.queued_at.popleft())
        except Exception:  # the peer went away
            self.closed = True
        finally:
            with contextlib.suppress(Exception):
                await self.ws.close(self.close_code, self.close_reason)


class Hub:
    """Server-wide state; one per application."""

    def __init__(self, config: ServerConfig, store: Store, bot_name: str) -> None:
        self.config = config
        self.store = store
        self.bot_name = bot_name
        self.clients: dict[int, Client] = {}
        self.where = Placements()
        self.tables: dict[str, Table] = {}
        self.table_tasks: dict[str, asyncio.Task[None]] = {}
        self.tasks: set[asyncio.Task[Any]] = set()
        self.free_bots: list[int] = []
        self.bots_in_use: dict[str, list[int]] = {}
        self.lobby = Lobby(self)
        self.spectate = Spectate(self)
        self.chat = ChatRelay(self)
        self.invitations = Invitations(self)
        self.tournaments: TournamentRunner | None = None
        """This node's tournament runner (``server/tournaments.py``), once the app started."""
        self.addresses: dict[int, str] = {}
        """Each account's address at its last connection (the per-address table limit)."""
        self.node_id = f"{socket.gethostname()}:{os.getpid()}"
        """Who runs the tables (the owner of their matches in the store's log)."""
        self.draining = False
        """Set at shutdown (or by an operator's drain): no new table starts."""
        self.announcement: AnnouncementOut | None = None
        """The notice to every player shown now (``server/admin.py`` polls it)."""
        self.shutting_down = False
        """Set at shutdown: the tables stop, their matches go on after a restart or on
        another node."""
        self.cluster: Cluster | None = None
        """This node's part of a cluster (``--redis``, ``server/cluster.py``); ``None``: alone."""
        self.admission = Admission(self)
        """Whether this node takes new tables and connections now (``server/admission.py``)."""

    # ------------------------------------------------------------------ utilities
    @property
    def log_windows(self) -> bool:
        """Whether a window's answers may be logged as one ``window`` event: alone, always;
        in a cluster, while every live node reads them (``Cluster.log_version``), since any
        of them may resume this node's matches."""
        return self.cluster is None or self.cluster.log_version >= 2

    def background(self, task: asyncio.Task[Any]) -> None:
        """Keep a reference to a fire-and-forget task until it ends."""
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def send_to(self, account_id: int, msg: BaseModel) -> None:
        client = self.clients.get(account_id)
        if client is not None:
            client.send(msg)

    def deliver(self, account_id: int, text: str) -> None:
        """Send a frame to the account's connection wherever it is: here, or in a cluster on
        the node holding its socket (an invitation, which concerns no table or room here)."""
        if self.cluster is not None:
            self.cluster.deliver(account_id, text)
            return
        client = self.clients.get(account_id)
        if client is not None:
            client.send_text(text)

    def table_send(self, table: Table, account_id: int, msg: BaseModel) -> None:
        """Send a table's frame only if the account still sits at that table."""
        place = self.where.get(account_id)
        if isinstance(place, TablePlace) and place.table is table:
            self.send_to(account_id, msg)

    def table_send_text(self, table: Table, account_id: int, text: str) -> None:
        """:meth:`table_send` for a frame already encoded (the state frames)."""
        place = self.where.get(account_id)
        if isinstance(place, TablePlace) and place.table is table:
            client = self.clients.get(account_id)
            if client is not None:
                client.send_text(text)

    @staticmethod
    def account_info(account: Account) -> AccountInfo:
        level = account.level
        return AccountInfo(id=account.id, username=account.username, is_guest=account.is_guest,
                           silver=account.silver, points=account.points, level=level.number,
                           title=level.title_zh, title_en=level.title_en, rank=level.rank_zh,
                           rank_en=level.rank_en)

    async def online(self, account_ids: Sequence[int]) -> set[int]:
        """Which of ``account_ids`` are connected: to this process, or in a cluster to any
        node (a node's heartbeat publishes its connections, ``Cluster.online``)."""
        here = {a for a in account_ids if a in self.clients}
        if self.cluster is None:
            return here
        try:
            return here | await self.cluster.online(account_ids)
        except Exception as e:  # Redis away: what this node knows
            log.warning("presence unknown: Redis does not answer (%s)", e)
            return here

    async def seated(self, account_ids: Sequence[int]) -> set[int]:
        """Which of ``account_ids`` sit at a table, or are being seated: on this node, or in
        a cluster on any node (``wm:seat``; what this node knows while Redis is away)."""
        here = {a for a in account_ids
                if isinstance(self.where.get(a), TablePlace | StartingPlace)}
        rest = [a for a in account_ids if a not in here]
        if self.cluster is None or not rest:
            return here
        try:
            return here | await self.cluster.seated_somewhere(rest)
        except Exception as e:  # Redis away
            log.warning("seats elsewhere unknown: Redis does not answer (%s)", e)
            return here

    async def live_tables(self) -> list[dict[str, Any]]:
        """The watchable tables (``Spectating.live`` entries with their ``"accounts"``), most
        watched first: this node's, and in a cluster every live node's (each node publishes
        its own with its heartbeat, ``Cluster.live_elsewhere``)."""
        here = self.spectate.live(accounts=True)
        if self.cluster is None:
            return here
        try:
            elsewhere = await self.cluster.live_elsewhere()
        except Exception as e:  # Redis away: what this node knows
            log.warning("live tables of this node only: Redis does not answer (%s)", e)
            return here
        return sorted(here + elsewhere, key=lambda t: (-int(t["watchers"]), str(t["table_id"])))

    def node_counts(self) -> tuple[int, int]:
        """(connected players, running tables) of this node."""
        return len(self.clients), sum(1 for t in self.tables.values() if not t.finished)

    async def platform_counts(self) -> tuple[int, int]:
        """(connected players, running tables) of the platform: this node's, and in a
        cluster every live node's (each publishes its own with its heartbeat)."""
        if self.cluster is None:
            return self.node_counts()
        try:
            return await self.cluster.counts()
        except Exception as e:  # Redis away: what this node knows
            log.warning("counts of this node only: Redis does not answer (%s)", e)
            return self.node_counts()

    async def playing(self, account_ids: Collection[int]) -> dict[int, dict[str, Any]]:
        """The watchable table each of ``account_ids`` sits at, on any node (entries of
        :meth:`live_tables`); those at none, or at a table nobody may watch, are absent."""
        wanted = set(account_ids)
        if not wanted:
            return {}
        out: dict[int, dict[str, Any]] = {}
        for table in await self.live_tables():
            for account_id in table["accounts"]:
                if account_id in wanted:
                    out.setdefault(account_id, table)
        return out

    async def authenticate(self, token: str) -> Account | None:
        return await asyncio.to_thread(self.store.account_for_token, token)

    async def fresh_account(self, account_id: int) -> Account:
        return await asyncio.to_thread(self.store.account, account_id)

    async def daily_allowance(self, account: Account) -> Account:
        """Grant a registered account its daily allowance on its first connection of the
        day, on the calendar of the ``timezone`` setting (``daily_allowance`` silver; 0, the
        default: none); the account after it."""
        amount = self.config.daily_allowance
        if amount <= 0 or account.is_guest:
            return account
        today = utcnow().astimezone(calendar_zone(self.config.timezone)).date()
        balance = await asyncio.to_thread(self.store.daily_allowance, account.id, amount,
                                          day=today)
        return account if balance is None else await self.fresh_account(account.id)

    def close_sessions(self, account_id: int, token: str | None = None) -> None:
        """Close the account's connection (only if it logged in with ``token``, when given):
        after a logout or a password change the session must stop working at once.  A seat
        at a table is kept, as for any dropped connection."""
        if self.cluster is not None:  # and on every other node
            self.cluster.logout(account_id, None if token is None else hash_token(token))
        client = self.clients.get(account_id)
        if client is None or (token is not None and client.token_hash != hash_token(token)):
            return
        client.send(NoticeMsg(code="logged_out", message="this session has ended (logged out)"))
        client.close(4401, "logged out")

    # ------------------------------------------------------------------ connections
    async def staff_role(self, account: Account) -> StaffRole | None:
        """The account's staff role (``store/staff.py``) for its welcome; a guest has none.
        With the database away, none: the welcome is not worth the connection (the staff
        pages ask again)."""
        if account.is_guest:
            return None
        try:
            return await asyncio.to_thread(role_of, self.store, account.id)
        except Exception as e:
            if not is_transient(e):
                raise
            log.warning("staff role of account %d unknown: %s", account.id, error_line(e))
            return None

    def announcement_now(self) -> AnnouncementOut | None:
        """The notice to send a new connection: the last one the admin poll saw, unless it
        has expired since (the next poll sends everyone its end)."""
        notice = self.announcement
        if notice is not None and notice.expires_at is not None and notice.expires_at <= utcnow():
            return None
        return notice

    def attach(self, client: Client, account: Account, staff: StaffRole | None = None) -> None:
        old = self.clients.get(client.account_id)
        if old is not None and old is not client:
            old.send(NoticeMsg(code="replaced", message="this account connected again elsewhere"))
            old.close(4000, "replaced by a new connection")
        self.clients[client.account_id] = client
        place = self.where.get(client.account_id)
        client.send(WelcomeMsg(account=self.account_info(account),
                               at_table=isinstance(place, TablePlace),
                               announcement=self.announcement_now(), staff=staff))
        if isinstance(place, TablePlace):
            place.table.post("connect", place.seat)
        elif isinstance(place, RoomPlace):  # back within the room's grace
            self.lobby.returned(client.account_id)

    def detach(self, client: Client) -> None:
        if self.cluster is not None:
            self.cluster.detached(client)
        self.spectate.unwatch(client.account_id, tell=False, client=client)  # this connection's
        if self.clients.get(client.account_id) is not client:
            return
        del self.clients[client.account_id]
        place = self.where.get(client.account_id)
        if isinstance(place, TablePlace):
            place.table.post("disconnect", place.seat)
        elif isinstance(place, QueuePlace | RoomPlace):
            self.lobby.disconnected(client.account_id)

    # ------------------------------------------------------------------ messages
    async def dispatch(self, client: Client, msg: Any, *, local_first: bool = True) -> None:
        """Handle one message of ``client``: here, or on the node that holds the account's
        room or queue.  ``local_first=False``: a quick match goes to the cluster's queue at
        once (a player whose wait with this node's players is over, :class:`Lobby`)."""
        try:
            if self.cluster is not None and await self.cluster.forward(client, msg,
                                                                       local_first=local_first):
                return  # the account's room or queue is on another node
            await self._dispatch(client, msg)
        except ProtocolError as e:
            client.send(ErrorMsg(code=e.code, message=str(e), params=e.params, ref=e.ref or msg.ref))
        except StoreError as e:
            log.warning("store error for account %d: %s", client.account_id, e)
            client.send(ErrorMsg(code="server_error", message="the database refused the request",
                                 ref=msg.ref))
        except Exception as e:  # the database away: this request fails, the connection stays
            if not is_transient(e):
                raise
            log.warning("database unavailable for account %d: %s", client.account_id,
                        error_line(e))
            client.send(ErrorMsg(code="server_error", ref=msg.ref,
                                 message="the database is unavailable: try again shortly"))

    async def _dispatch(self, client: Client, msg: Any) -> None:
        acct = client.account_id
        if isinstance(msg, JoinRoomMsg):
            if self.lobby.rejoin(acct, msg.code):
                return  # his own room: he is back in it
            if msg.rejoin:
                raise ProtocolError("not_seated", f"you are not in room {msg.code}",
                                    room=msg.code)
        if isinstance(msg, QuickMatchMsg | CreateRoomMsg | JoinRoomMsg):
            await refuse_seat(self, acct)  # no seat when banned or draining
            tournament = await asyncio.to_thread(entered, self.store, acct)
            if tournament is not None:  # his tournament seats him: nothing else meanwhile
                raise ProtocolError("in_tournament", "you are entered in a tournament: "
                                    "withdraw from it to play elsewhere", tournament=tournament)
        if isinstance(msg, QuickMatchMsg | CreateRoomMsg | JoinRoomMsg | StartMsg):
            self.admission.check_new_table()  # busy (overloaded) when this node is saturated
        if isinstance(msg, PingMsg):
            client.send(PongMsg(ref=msg.ref))
        elif isinstance(msg, HelloMsg):
            raise ProtocolError("already_authenticated", "this connection is already logged in")
        elif isinstance(msg, QuickMatchMsg):
            await self.lobby.quick_match(client, msg.profile, msg.silver)
        elif isinstance(msg, CreateRoomMsg):
            await self.lobby.create_room(client, msg.options)
        elif isinstance(msg, JoinRoomMsg):
            await self.lobby.join_room(client, msg.code)
        elif isinstance(msg, ReadyMsg):
            await self.lobby.set_ready(client, msg.ready)
        elif isinstance(msg, StartMsg):
            await self.lobby.start_room(client)
        elif isinstance(msg, LeaveMsg):
            self._leave(client)
        elif isinstance(msg, ChatMsg):
            self.chat.say(client, msg)
        elif isinstance(msg, InviteMsg):
            await self.invitations.invite(client, msg.username, msg.ref)
        elif isinstance(msg, KickMsg):
            await self.lobby.kick(client, msg.name)
        elif isinstance(msg, WatchMsg):
            await self.spectate.watch(client, msg.table)
        elif isinstance(msg, UnwatchMsg):
            if not self.spectate.unwatch(acct, client=client):
                raise ProtocolError("not_found", "you are not watching a table")
        elif isinstance(msg, ActionMsg | AutoMsg | SnapshotMsg | ProposeEndMsg | AnswerEndMsg
                        | NextHandMsg):
            place = self.where.get(acct)
            if not isinstance(place, TablePlace):
                if isinstance(msg, SnapshotMsg) and isinstance(place, QueuePlace | RoomPlace):
                    self.lobby.resend(acct)
                    return
                raise ProtocolError("not_seated", "you are not at a table")
            if isinstance(msg, ActionMsg):
                try:
                    action = action_from_json(msg.action.model_dump(exclude_none=True))
                except ActionFormatError as e:
                    raise ProtocolError("bad_action", str(e)) from None
                place.table.post("action", place.seat, action, msg.ref, msg.hand_no, msg.decision)
            elif isinstance(msg, AutoMsg):
                place.table.post("auto", place.seat, msg.on, msg.ref)
            elif isinstance(msg, ProposeEndMsg):
                place.table.post("propose_end", place.seat, msg.ref)
            elif isinstance(msg, AnswerEndMsg):
                place.table.post("answer_end", place.seat, msg.agree, msg.ref)
            elif isinstance(msg, NextHandMsg):
                place.table.post("next_hand", place.seat, msg.hand_no)
            else:
                place.table.post("snapshot", place.seat)
        else:  # pragma: no cover - parse_client_message returns only the types above
            raise ProtocolError("unknown_type", f"unhandled message {type(msg).__name__}")

    def _leave(self, client: Client) -> None:
        acct = client.account_id
        place = self.where.get(acct)
        if isinstance(place, QueuePlace):
            self.lobby.leave(acct)
            client.send(LeftMsg(where="queue"))
        elif isinstance(place, RoomPlace):
            self.lobby.leave(acct)
            client.send(LeftMsg(where="room"))
        elif isinstance(place, TablePlace):
            if not place.table.shown:  # he does not know of it yet: no escape before he does
                raise ProtocolError("busy", "your table is starting: it is shown to you in a "
                                    "moment (leaving it then is an escape)", reason="starting")
            if place.table.stopping:  # it would never be applied: the next process resumes
                raise ProtocolError("busy", "the server is restarting: your table goes on "
                                    "after it (leaving it then is an escape)",
                                    reason="restarting")
            self.where.leave(acct)
            if place.table.match.finished:  # the last hand is over: nothing to escape from
                place.table.post("disconnect", place.seat)
                client.send(LeftMsg(where="table"))
                return
            place.table.post("leave", place.seat)
            client.send(LeftMsg(where="table", escaped=True, penalty=place.table.rules.escape))
        elif isinstance(place, StartingPlace) and place.origin is not None:
            self.where.leave(acct)  # not seated yet: the table starts without him (start_table)
            client.send(LeftMsg(where=place.origin))
        elif isinstance(place, StartingPlace):
            raise ProtocolError("busy", "your table is being set up: you sit down in a moment")
        else:
            raise ProtocolError("not_seated", "you are not in a queue, a room or at a table")

    # ------------------------------------------------------------------ tables
    async def _bot_accounts(self, n: int, stake: int, min_silver: int) -> list[Account]:
        """Accounts for ``n`` bot seats.  Bots hold no silver and never get any: they
        sit at free tables only (a silver table seats four players, see the lobby)."""
        if n > 0 and stake > 0:
            raise ProtocolError("not_ready", "a silver table seats four players: bots never "
                                "play for silver")
        out: list[Account] = []
        while len(out) < n:
            if self.free_bots:
                out.append(await self.fresh_account(self.free_bots.pop()))
            else:
                out.append(await asyncio.to_thread(self.store.create_bot))
        return out

    async def start_table(self, humans: Sequence[tuple[int, str]], rules: Rules, *, hands: int,
                          stake: int, watchable: bool = True,
                          room: RoomOptions | None = None,
                          tournament: TournamentInfo | None = None,
                          places: dict[int, StartingPlace] | None = None) -> Table:
        """Seat ``humans`` (account id, name) and bots for the empty seats; start the match.
        ``room``: the options of the private room it comes from (a rematch reopens it);
        ``tournament``: the tournament table it is (``server/tournaments.py``).

        ``places``: each player's place while the lobby seats him (``Placements.starting``).
        A player who left meanwhile (his place is another) is not seated: a bot takes his
        seat at a free table; a silver table does not start (``not_ready``), nor one nobody
        is left at.  When this raises, the lobby's players are where they were (the lobby
        frees them); the others are nowhere again."""
        if self.draining:
            raise ProtocolError("busy", "the server is restarting: try again in a moment")
        mine = places is None
        if places is None:
            places = {acct: self.where.starting(acct) for acct, _ in humans}
        humans = [(a, n) for a, n in humans if self.where.get(a) is places[a]]
        bots: list[Account] = []
        try:
            while True:
                if not humans:
                    raise ProtocolError("not_ready", "the table did not start: its players left",
                                        reason="left")
                bots += await self._bot_accounts(4 - len(humans) - len(bots), stake,
                                                 rules.min_silver)
                here = [(a, n) for a, n in humans if self.where.get(a) is places[a]]
                if len(here) == len(humans):
                    break
                humans = here  # someone left while the bots came: more bots (or none: silver)
        except BaseException:
            self.free_bots.extend(b.id for b in bots)
            if mine:
                for acct, _ in humans:
                    if self.where.get(acct) is places[acct]:
                        self.where.leave(acct)
            raise
        people: list[tuple[int, str, bool]] = [(a, n, False) for a, n in humans]
        names = bot_names(len(bots), taken={n for _, n in humans})
        people += [(b.id, names[k], True) for k, b in enumerate(bots)]
        secrets.SystemRandom().shuffle(people)
        seats = [SeatInfo(seat=i, account_id=a, name=n, is_bot=b,
                          connected=(not b and a in self.clients))
                 for i, (a, n, b) in enumerate(people)]
        cfg = self.config
        table_id = secrets.token_hex(6)
        table = Table(
            self, table_id, seats, rules, hands=hands, stake=stake,
            fee=cfg.fee if cfg.fee is not None else rules.service_fee,
            claim_seconds=cfg.claim_seconds or rules.claim_window_seconds,
            turn_seconds=cfg.turn_seconds or rules.turn_seconds, bot_name=self.bot_name)
        table.watchable = watchable
        table.room = room
        table.tournament = tournament
        self._run_table(table, [b.id for b in bots])
        return table

    def _run_table(self, table: Table, bots: list[int]) -> None:
        self.tables[table.table_id] = table
        self.bots_in_use[table.table_id] = bots
        for s in table.seats:
            if not s.is_bot and not s.escaped:
                self.where.sit(s.account_id, table, s.seat)
                self.spectate.unwatch(s.account_id, reason="seated")  # a player does not watch
        # its players' home is this node, at once
        homes = self.cluster.seated(table) if self.cluster is not None else None
        task = asyncio.get_running_loop().create_task(self._run_when_homed(table, homes),
                                                      name=f"table-{table.table_id}")
        self.table_tasks[table.table_id] = task

    async def _run_when_homed(self, table: Table, homes: asyncio.Task[None] | None) -> None:
        """Run ``table`` once the cluster knows its players' home (``homes``, the task that
        writes it): a player who reconnects to another node as soon as the table's first
        frame reaches him is relayed to it, not welcomed as seated nowhere (seen in a full
        run at a load of 12).  A Redis that does not answer within the heartbeat's life
        holds the table no longer (the next heartbeat writes the homes)."""
        if homes is not None and self.cluster is not None:
            await asyncio.wait({homes}, timeout=self.cluster.ttl_ms / 1000)
        await table.run()

    async def resume_matches(self, match_ids: Sequence[str] | None = None) -> int:
        """Rebuild every match the store has as running and go on with it (at start-up).

        Each is claimed first (a new fencing epoch: a process that still ran it can write
        nothing more), rebuilt by replaying its log, and resumed at the same move with fresh
        timers; its players are back at their seats when they reconnect.  A match whose log
        does not replay is ended as aborted (its finished hands were settled when they
        ended).  Returns how many matches resumed.
        """
        store = self.store
        resumed = 0
        if match_ids is None:  # at start: all of them (a cluster node: those it leased)
            match_ids = await asyncio.to_thread(store.running_matches)
        for match_id in match_ids:
            epoch = 0
            try:
                epoch = await asyncio.to_thread(store.claim_match, match_id, owner=self.node_id)
                logged = await asyncio.to_thread(store.load_match, match_id)
                if logged is None or logged.table_id in self.tables:
                    continue
                table = Table.restore(self, logged, epoch)
            except (ResumeError, StoreError) as e:
                log.error("match %s cannot be resumed: %s", match_id, e)
                if epoch:
                    with contextlib.suppress(StoreError):
                        await asyncio.to_thread(store.end_match, match_id, epoch, "aborted",
                                                f"could not be resumed: {e}")
                continue
            self._run_table(table, [s.account_id for s in table.seats if s.is_bot])
            resumed += 1
            log.info("resumed match %s (table %s) at hand %d", match_id, table.table_id,
                     table.match.hand_no)
        return resumed

    def table_closed(self, table: Table) -> None:
        if table.tournament is not None and self.tournaments is not None:
            self.tournaments.nudge()  # its round may be over
        self.spectate.closed(table)
        for s in table.seats:
            self.where.leave_table(s.account_id, table)
        self.free_bots.extend(self.bots_in_use.pop(table.table_id, []))
        self.tables.pop(table.table_id, None)
        self.table_tasks.pop(table.table_id, None)

    async def shutdown(self, grace: float = 10.0) -> None:
        """Drain: no new table starts; every table stops at its next safe point (what it
        applied is already in the store, so the next start resumes it); tasks still
        running after ``grace`` seconds are cancelled."""
        self.draining = True
        self.shutting_down = True
        self.lobby.close()
        await self.lobby.keeper.flush(grace)  # the rooms open again in the next process
        running = list(self.tables.values())
        tables = list(self.table_tasks.values())
        for table in running:
            table.stop()
        if tables:
            await asyncio.wait(tables, timeout=grace)
        settling = [t for table in running for t in table.escape_tasks if not t.done()]
        if settling:  # escape settlements in flight finish (they are short)
            await asyncio.wait(settling, timeout=grace)
        tasks = list(self.table_tasks.values()) + list(self.tasks)
        for t in tasks:
            t.cancel()
        if tasks:  # bounded: a task that ignores its cancellation must not hold the shutdown
            done, stuck = await asyncio.wait(tasks, timeout=grace)
            for t in done:
                with contextlib.suppress(BaseException):
                    t.result()
            for t in stuck:
                log.warning("task %s did not stop at shutdown: left behind", t.get_name())
        await close_match_writer(self.store)
        for client in list(self.clients.values()):
            client.close(1012, "server restarting: reconnect to resume your match")


async def _receive_text(ws: WebSocket) -> str | None:
    """The next text frame; ``None`` when the peer closed; ``""`` marks a binary frame."""
    message = await ws.receive()
    if message["type"] == "websocket.disconnect":
        return None
    text = message.get("text")
    if text is None:
        return ""
    assert isinstance(text, str)
    return text


async def _authenticate(hub: Hub, ws: WebSocket, limiter: RateLimiter) -> tuple[Account, str] | None:
    """The account (and token) of the upgrade's ``Authorization: Bearer`` header or of the
    first ``hello`` message.  A token in the URL is refused: URLs end up in access logs."""
    if "token" in ws.query_params:
        await ws.send_text(encode(ErrorMsg(
            code="auth_failed", message="tokens in URLs are refused (they end up in logs): "
            "send a 'hello' message or an Authorization header")))
        return None
    scheme, _, header_token = ws.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and header_token.strip():
        account = await hub.authenticate(header_token.strip())
        if account is None:
            await ws.send_text(encode(ErrorMsg(code="auth_failed", message="unknown or expired token")))
            return None
        return account, header_token.strip()
    loop = asyncio.get_running_loop()
    until = loop.time() + hub.config.auth_timeout
    while True:
        try:
            async with asyncio.timeout_at(until):
                text = await _receive_text(ws)
        except TimeoutError:
            await ws.send_text(encode(ErrorMsg(code="not_authenticated",
                                               message="no hello message in time")))
            return None
        if text is None:
            return None
        if not limiter.allow():
            if limiter.abusive:
                return None
            continue
        if len(text) > hub.config.max_message_bytes:  # as after the hello
            await ws.send_text(encode(ErrorMsg(
                code="too_large", params={"max": hub.config.max_message_bytes},
                message=f"a message may be at most {hub.config.max_message_bytes} bytes")))
            continue
        try:
            msg = parse_client_message(text) if text else None
        except ProtocolError as e:
            await ws.send_text(encode(ErrorMsg(code=e.code, message=str(e), params=e.params, ref=e.ref)))
            continue
        if not isinstance(msg, HelloMsg):
            await ws.send_text(encode(ErrorMsg(
                code="not_authenticated", message="send a 'hello' message with your token first",
                ref=None if msg is None else msg.ref)))
            continue
        if msg.protocol != PROTOCOL_VERSION:  # a client of another version (a cached page
            await ws.send_text(encode(ErrorMsg(   # after an upgrade reloads on this)
                code="invalid_message", ref=msg.ref,
                params={"field": "protocol", "problem": "version", "expected": PROTOCOL_VERSION},
                message=f"this server speaks protocol {PROTOCOL_VERSION}, not {msg.protocol}")))
            return None
        account = await hub.authenticate(msg.token)
        if account is None:
            await ws.send_text(encode(ErrorMsg(code="auth_failed", message="unknown or expired token",
                                               ref=msg.ref)))
            return None
        return account, msg.token


async def serve_websocket(ws: WebSocket) -> None:
    """The ``/ws`` endpoint: authenticate, then read, validate and dispatch messages."""
    hub: Hub = ws.app.state.hub
    cfg = hub.config
    await ws.accept()
    limiter = RateLimiter(cfg.msg_rate, cfg.msg_burst, cfg.abuse_limit, cfg.abuse_window)
    try:
        found = await _authenticate(hub, ws, limiter)
        if found is not None:
            found = (await hub.daily_allowance(found[0]), found[1])
    except (WebSocketDisconnect, RuntimeError):
        return
    except SQLAlchemyError as e:  # the database is away (a restart): the client retries
        if not is_transient(e):
            raise
        log.warning("a connection could not log in: the database is unavailable (%s)",
                    error_line(e))
        with contextlib.suppress(Exception):
            await ws.send_text(encode(ErrorMsg(
                code="server_error", message="the server cannot reach its database: "
                "try again in a moment")))
            await ws.close(1013, "database unavailable")
        return
    if found is None:
        with contextlib.suppress(Exception):
            await ws.close(4401, "authentication failed")
        return
    account, token = found
    refused = hub.admission.refusal() if hub.admission.refuses_connection(account.id) else None
    if refused is not None:  # saturated: at once, so that the client tries another node
        with contextlib.suppress(Exception):
            await ws.send_text(encode(ErrorMsg(code=refused.code, message=str(refused),
                                               params=refused.params)))
            await ws.close(OVERLOADED_CLOSE_CODE, "server busy")
        return
    address = ws.client.host if ws.client else "unknown"
    if hub.cluster is not None and await hub.cluster.serve_elsewhere(  # its table is on another node
            ws, account, hash_token(token), limiter, address):
        return
    client = Client(hub, ws, account)
    client.token_hash = hash_token(token)
    client.address = address
    hub.addresses[account.id] = client.address
    staff = await hub.staff_role(account)
    writer = asyncio.get_running_loop().create_task(client.writer())
    hub.attach(client, account, staff)
    try:
        while not client.closed:
            text = await _receive_text(ws)
            if text is None:
                break
            if not limiter.allow():
                if limiter.abusive:
                    client.send(ErrorMsg(code="rate_limited", message="too many messages: closing"))
                    client.close(1008, "rate limit exceeded")
                    break
                client.send(ErrorMsg(code="rate_limited", params={"rate": cfg.msg_rate},
                                     message=f"too many messages (at most {cfg.msg_rate:g} a second)"))
                continue
            if not text:
                client.send(ErrorMsg(code="binary_frame", message="send JSON text frames"))
                continue
            if len(text) > cfg.max_message_bytes:
                client.send(ErrorMsg(code="too_large", params={"max": cfg.max_message_bytes},
                                     message=f"a message may be at most {cfg.max_message_bytes} bytes"))
                continue
            try:
                msg = parse_client_message(text)
            except ProtocolError as e:
                client.send(ErrorMsg(code=e.code, message=str(e), params=e.params, ref=e.ref))
                continue
            await hub.dispatch(client, msg)
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        hub.detach(client)
        client.close(client.close_code if client.closed else 1000, client.close_reason)
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(writer, 5)
