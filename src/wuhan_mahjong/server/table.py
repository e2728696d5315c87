"""One table: an asyncio task that owns a :class:`~wuhan_mahjong.engine.Match`.

Everything that changes the game happens inside :meth:`Table.run`; connections
only :meth:`Table.post` events (an action, a leave, a reconnection ...) into its
inbox.  The task applies them in order, runs the server-side timers and sends
each human seat a frame built from that seat's :func:`seat_view` whenever that
view changes.

Decisions and timers
    A *decision* is what the engine waits for: a turn (one seat), a claim or
    robbing window (the three other seats), or a 海底 final draw (one seat).
    Turns time out after ``turn_seconds``, windows after the claim window.

    Answers to a window are collected by the server and kept secret: a seat
    whose only legal answer is ``pass`` is answered at once, the others'
    answers are buffered, and all of them reach the engine together when the
    window closes: once every seat has answered **and** ``claim_hold`` seconds
    have passed, or at the deadline.  So a window lasts the same whether or not
    anyone could claim (docs/RULES.md §19); only a player who thinks longer than the
    hold makes it longer.

Timeouts and auto-play (托管)
    On a timeout the server plays for the seat (:func:`timeout_action`).  Two
    timeouts in a row put the seat on auto-play: the server's bot plays it
    (after ``bot_delay``) until its player sends an action or ``auto off``.

Escapes
    A player who leaves during the match escapes: :meth:`Match.escape` charges
    the profile's penalty and the engine's built-in player finishes the seat;
    the store settles the penalty at once (``settle_escape``) and the rest of
    the match with everybody else at the end (``settle_game``).

Ending early
    An abandoned table (``server/limits.py``) and a table whose players have all
    escaped end after the hand in progress: an ``end`` event in the match log (the
    match's new number of hands), written with the escapes in one transaction, so a
    match resumed after a crash ends at the same hand and settles the same.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel, ValidationError
from sqlalchemy.exc import SQLAlchemyError

from ..bots import Bot, get_bot
from ..engine import (
    PASS,
    Action,
    Discard,
    HandState,
    LaiziDiscard,
    Match,
    MatchError,
    SeatView,
    SeededRandom,
    SpecialKong,
    action_from_json,
    seat_view,
)
from ..rules import Rules, get_rules
from ..store import (
    AlreadySettled,
    HandRecord,
    LoggedMatch,
    MatchEvent,
    MatchFenced,
    StoreError,
    window_answers,
    window_data,
)
from ..store.tournaments import ClaimLost
from ..tiles import tile_str
from .bot_worker import BotWorker, shared_worker
from .end_vote import EndVote, VoteResult
from .frames import MoveViews
from .match_writer import match_writer
from .observability import BOT_CAP_HITS, BOT_DECISION_SECONDS, BOT_DECISIONS, emit
from .outage import ride_out
from .protocol import (
    EndVoteMsg,
    ErrorCode,
    ErrorMsg,
    HandEndMsg,
    MatchEndMsg,
    MatchResultLine,
    NoticeMsg,
    PlayerInfo,
    RoomOptions,
    TableMsg,
    TournamentInfo,
    state_frame,
    state_frame_parts,
)

if TYPE_CHECKING:
    from .hub import Hub

__all__ = ["Decision", "ResumeError", "SeatInfo", "Table", "replay_log", "timeout_action"]

log = logging.getLogger("wuhan_mahjong.server.table")


def _room_options(stored: Any) -> RoomOptions | None:
    """The room options a match log's configuration kept, or ``None`` (a quick match, a log
    written before they were kept, or options this version no longer reads: no rematch)."""
    if stored is None:
        return None
    try:
        return RoomOptions.model_validate(stored)
    except ValidationError:
        return None

T = TypeVar("T")

DecisionKind = Literal["turn", "claim", "rob", "final"]
Source = Literal["player", "timeout", "auto", "bot"]
"""Who chose an action: its player, the timeout rule, auto-play (托管) for a human, a bot seat."""

AUTO_SWITCHES = 4
AUTO_SWITCH_SECONDS = 10.0
"""A player switches his auto-play (托管) at most ``AUTO_SWITCHES`` times in that many
seconds (``rate_limited``, reason ``auto``, beyond): each switch is logged and shown to all."""

ABORT_MESSAGE = ("the table stopped on a server error: the finished hands are settled, "
                 "the unfinished hand does not count")


class ResumeError(RuntimeError):
    """A stored match that cannot be rebuilt (its log does not replay)."""


def replay_log(match: Match, events: Sequence[MatchEvent]) -> dict[int, bool]:
    """Apply a match log's events to a fresh :class:`Match` built from the same key.

    The engine is deterministic, so the match comes out exactly as the table left
    it.  Returns each seat's last auto-play switch (seats never switched are absent).
    Raises :class:`ResumeError` when the log does not replay (a different engine
    version, a damaged log).
    """
    autos: dict[int, bool] = {}
    for ev in events:
        try:
            if ev.kind == "window":  # a claim window's answers, in the order applied
                try:
                    answers = window_answers(ev)
                except ValueError as e:
                    raise ResumeError(str(e)) from e
                for seat, action, _source in answers:
                    match.apply(seat, action_from_json(action))
            elif ev.kind == "deal":
                hand = match.start_hand()
                if hand.hand_no != ev.hand_no or (ev.data and hand.commitment != ev.data):
                    raise ResumeError(f"event {ev.seq}: hand {ev.hand_no} does not deal as stored")
            elif ev.kind == "act":
                assert ev.seat is not None and ev.data is not None
                match.apply(ev.seat, action_from_json(json.loads(ev.data)))
            elif ev.kind == "escape":
                assert ev.seat is not None
                match.escape(ev.seat)
            elif ev.kind == "auto":
                assert ev.seat is not None
                autos[ev.seat] = ev.data == "on"
            elif ev.kind == "end":
                hands = int(ev.data or "")
                if not 0 <= hands <= match.hands:
                    raise ResumeError(f"event {ev.seq}: a match of {match.hands} hands cannot "
                                      f"end after {hands}")
                match.hands = hands
            else:
                raise ResumeError(f"event {ev.seq}: unknown kind {ev.kind!r}")
        except ResumeError:
            raise
        except Exception as e:  # an illegal action, a malformed entry ...
            raise ResumeError(f"event {ev.seq} ({ev.kind}) does not replay: {e}") from e
    return autos


def _action_data(action: Action) -> str:
    """An ``act`` event's data: the action's JSON."""
    return json.dumps(action.to_json(), separators=(",", ":"))


def timeout_action(state: HandState, seat: int) -> Action:
    """What the server plays for a seat whose time ran out.

    A window or a final draw: pass.  A turn: discard the tile just drawn, or
    else the last tile of the hand (the highest kind); if no normal discard is
    legal (only laizi / 红中 / 发财 in hand), 丢癞子, else a special kong, else
    the engine's first legal action.
    """
    legal = state.legal_actions(seat)
    if not legal:
        raise MatchError(f"seat {seat} has nothing to do")
    if PASS in legal:
        return PASS
    drawn = state.drawn
    if drawn is not None and Discard(drawn) in legal:
        return Discard(drawn)
    discards = [a for a in legal if isinstance(a, Discard)]
    if discards:
        return max(discards, key=lambda a: a.tile)
    for a in legal:
        if isinstance(a, LaiziDiscard):
            return a
    for a in legal:
        if isinstance(a, SpecialKong):
            return a
    return legal[0]


@dataclass
class SeatInfo:
    """One seat of a table and who plays it."""

    seat: int
    account_id: int
    name: str
    is_bot: bool
    connected: bool = False
    auto: bool = False
    escaped: bool = False
    timeouts: int = 0
    policy: Bot | None = None
    last: tuple[Any, ...] | None = field(default=None, repr=False)
    seen: int = -1
    """The table's ``version`` when this seat's frame was last considered."""
    dirty: bool = False
    """This seat's own frame changed (its claim answer was taken) without a new version."""
    silver: int = 0
    """Silver won (+) or paid (−) in this match's settlements so far (escape penalties)."""
    fee: int = 0
    switches: deque[float] = field(default_factory=deque, repr=False)
    """Loop times of this seat's latest auto-play switches asked by its player (bounded)."""


@dataclass
class Decision:
    kind: DecisionKind
    signature: tuple[Any, ...]
    start: float
    deadline: float
    hold_until: float
    bot_due: float
    seats: list[int]
    answers: dict[int, Action] = field(default_factory=dict)
    sources: dict[int, Source] = field(default_factory=dict)

    @property
    def window(self) -> bool:
        return self.kind != "turn"


@dataclass
class BotJob:
    """One bot decision running in the bot worker (``server/bot_worker.py``)."""

    decision: Decision
    """The decision it answers: a result for any other is stale."""
    view: SeatView
    future: asyncio.Future[Action]
    asked: float
    """Loop time when it was asked."""
    cap_at: float
    """Loop time past which the safety net plays greedy instead (``bot_cap``)."""


InboxEvent = tuple[Any, ...]
"""One message in a table's inbox: its kind first, then its arguments (see ``Table._handle``)."""


class Table:
    """A running match.  Build it, then ``asyncio.create_task(table.run())``."""

    def __init__(
        self, hub: Hub, table_id: str, seats: Sequence[SeatInfo], rules: Rules, *, hands: int,
        stake: int, fee: int, claim_seconds: float, turn_seconds: float, bot_name: str,
        match_id: str | None = None, seed: bytes | None = None,
    ) -> None:
        if len(seats) != 4:
            raise ValueError("a table has four seats")
        self.hub = hub
        self.config = hub.config
        self.table_id = table_id
        self.match_id = match_id or f"{time.strftime('%Y%m%d')}-{secrets.token_hex(6)}"
        self.seed = seed if seed is not None else secrets.token_bytes(32)
        """The secret key of the match's walls, salts and first dealer (server-side only)."""
        self.seats = list(seats)
        self.rules = rules
        self.hands = hands
        self.stake = stake
        self.fee = fee
        self.claim_seconds = claim_seconds
        self.turn_seconds = turn_seconds
        self.bot_name = bot_name
        self.match = Match(rules, hands, rng=SeededRandom(self.seed))
        self.epoch = 0
        """The match log's fencing epoch (0: not yet stored)."""
        self.seq = 0
        self.pending: list[MatchEvent] = []
        """Events applied to the engine but not yet written to the store."""
        self.outbox: list[tuple[int, BaseModel | str]] = []
        """Frames held back until the pending events are written (write-ahead)."""
        self.hands_settled = 0
        self.resumed = False
        self.stopping = False
        """Set by a draining server: stop at the next safe point (the store has it all)."""
        self.taken_over = False
        """Another process runs this match now (its epoch is newer): this copy stops, writes
        nothing more, and sends its players to reconnect (to the new owner)."""
        self.inbox: deque[InboxEvent] = deque()
        self.ready_for_next: dict[int, int] = {}
        """Seat -> the last ended hand after which it said it is ready for the next one
        (``next_hand``, 继续)."""
        self.wake = asyncio.Event()
        self.decision: Decision | None = None
        self.unseen: Decision | None = None
        """A decision opened since the last write (its timers start after the write)."""
        self.version = 0
        """Bumped by every change of the game or of the players' status: a broadcast
        without a change skips the seat views (most loop turns only buffer an answer)."""
        self.finished = False
        self.escape_points = [0, 0, 0, 0]
        self.escape_tasks: list[asyncio.Task[None]] = []
        self.escapes_to_settle: list[int] = []
        self.loop = asyncio.get_running_loop()
        self.watchable = True
        """Others may watch (``server/spectate.py``): quick match, or a room allowing it."""
        self.room: RoomOptions | None = None
        self.tournament: TournamentInfo | None = None
        """The tournament table this match is, if any: kept in the match's configuration,
        whose opening and end mark the table (``store/tournaments.py``)."""
        """The options of the private room this match comes from (``None``: a quick match);
        kept in the match log's configuration, so a resumed match offers its rematch too."""
        self._players_key: tuple[Any, ...] | None = None
        self._players_json: list[dict[str, Any]] = []
        """The players' entries of the state frames, rebuilt only when one's status changes."""
        self.bot_worker: BotWorker = shared_worker(self.config.bot_worker, self.config.bot_workers)
        self.bot_jobs: dict[int, BotJob] = {}
        """Seat -> its bot decision running in the worker (bot seats and auto-play)."""
        self._bot_seeds: dict[int, int] = {}
        self._bot_locks = [threading.Lock() for _ in range(4)]
        """One seat's decisions run one at a time (a stale one still running goes first)."""
        self.end_vote: EndVote | None = None
        """The open request to end the match early (申请解散, ``server/end_vote.py``)."""
        self.end_asked: dict[int, int] = {}
        """Seat -> the hand in which it last asked to end the match (once a hand)."""
        self.shown = False
        """The match is open and its players were sent the ``table`` frame: until then a
        player does not know he sits here, and his ``leave`` is no escape (``busy``)."""

    # ------------------------------------------------------------------ outside interface
    def post(self, *event: Any) -> None:
        """Queue an event for the table's task (the only way in)."""
        self.inbox.append(event)
        self.wake.set()

    def seat_of(self, account_id: int) -> int | None:
        for s in self.seats:
            if s.account_id == account_id and not s.escaped:
                return s.seat
        return None

    # ------------------------------------------------------------------ helpers
    @property
    def hand(self) -> HandState | None:
        return self.match.hand

    def _now(self) -> float:
        return self.loop.time()

    def _humans_present(self) -> bool:
        return any(not s.is_bot and not s.escaped for s in self.seats)

    def _bot_delay(self) -> float:
        return self.config.bot_delay if self._humans_present() else 0.0

    def _hold(self) -> float:
        return self.config.claim_hold if self._humans_present() else 0.0

    def _send(self, seat: int, msg: BaseModel | str) -> None:
        """Send a frame to a human seat; held in the outbox while events are unwritten."""
        info = self.seats[seat]
        if info.is_bot or info.escaped:
            return
        if self.pending:
            self.outbox.append((info.account_id, msg))
        else:
            self._deliver(info.account_id, msg)

    def _deliver(self, account_id: int, msg: BaseModel | str) -> None:
        if isinstance(msg, str):
            self.hub.table_send_text(self, account_id, msg)
        else:
            self.hub.table_send(self, account_id, msg)

    def _send_text(self, seat: int, text: str) -> None:
        self._send(seat, text)

    # ------------------------------------------------------------------ the store
    async def _ride_out(self, call: Callable[[], Awaitable[T]], what: str) -> T:
        """``call()``, tried again through a short database outage (``server/outage.py``)."""
        return await ride_out(call, seconds=self.config.db_outage_seconds,
                              what=f"match {self.match_id}: {what}")

    async def _store_call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """A store method run in a worker thread, through a short database outage."""
        return await self._ride_out(lambda: asyncio.to_thread(fn, *args, **kwargs),
                                    getattr(fn, "__name__", "store call"))

    # ------------------------------------------------------------------ the match log
    def _log(self, kind: str, seat: int | None = None, data: str | None = None,
             source: Source | None = None) -> None:
        hand = self.match.hand
        hand_no = hand.hand_no if hand is not None else self.match.hand_no
        self.pending.append(MatchEvent(seq=self.seq, hand_no=hand_no, kind=kind, seat=seat,
                                       data=data, source=source))
        self.seq += 1

    async def _persist(self) -> None:
        """Write the pending events (committed with other tables' in the node's group commit,
        ``server/match_writer.py``), then release the held frames."""
        if self.pending:
            events = list(self.pending)
            writer = match_writer(self.hub.store)
            await self._ride_out(lambda: writer.append(self.match_id, self.epoch, events),
                                 "match-log append")
            del self.pending[:len(events)]
        if self.pending:
            return
        d = self.unseen
        if d is not None:  # its timers start when the players can see it: after the write
            self.unseen = None
            shift = self._now() - d.start
            d.start += shift
            d.deadline += shift
            d.hold_until += shift
            d.bot_due += shift
        while self.escapes_to_settle:
            self._start_escape_settlement(self.escapes_to_settle.pop(0))
        if self.outbox:
            out, self.outbox = self.outbox, []
            for account_id, msg in out:
                self._deliver(account_id, msg)

    def config_json(self) -> dict[str, Any]:
        """What a process needs besides the log to rebuild this table (:meth:`restore`)."""
        return {"profile": self.rules.profile, "rules": self.rules.to_dict(), "hands": self.hands,
                "stake": self.stake, "fee": self.fee, "claim_seconds": self.claim_seconds,
                "turn_seconds": self.turn_seconds, "bot_name": self.bot_name,
                "watchable": self.watchable,
                "room": None if self.room is None else self.room.model_dump(mode="json"),
                **({} if self.tournament is None
                   else {"tournament": self.tournament.model_dump(mode="json")}),
                "seats": [{"account_id": s.account_id, "name": s.name, "is_bot": s.is_bot}
                          for s in self.seats]}

    @classmethod
    def restore(cls, hub: Hub, logged: LoggedMatch, epoch: int) -> Table:
        """Rebuild a stored match at the move it had reached (seats start disconnected)."""
        cfg = logged.config
        try:
            rules = get_rules(str(cfg["profile"]),
                              {k: v for k, v in dict(cfg["rules"]).items() if k != "profile"})
            seats = [SeatInfo(seat=i, account_id=int(p["account_id"]), name=str(p["name"]),
                              is_bot=bool(p["is_bot"]))
                     for i, p in enumerate(cfg["seats"])]
            table = cls(hub, logged.table_id, seats, rules, hands=int(cfg["hands"]),
                        stake=int(cfg["stake"]), fee=int(cfg["fee"]),
                        claim_seconds=float(cfg["claim_seconds"]),
                        turn_seconds=float(cfg["turn_seconds"]), bot_name=str(cfg["bot_name"]),
                        match_id=logged.match_id, seed=bytes.fromhex(logged.seed))
        except (KeyError, TypeError, ValueError) as e:
            raise ResumeError(f"match {logged.match_id}: bad stored configuration: {e}") from e
        autos = replay_log(table.match, logged.events)
        table.epoch = epoch
        table.seq = logged.next_seq
        table.hands_settled = logged.hands_done
        table.resumed = True
        table.watchable = bool(cfg.get("watchable", True))
        table.room = _room_options(cfg.get("room"))
        if cfg.get("tournament") is not None:
            try:
                table.tournament = TournamentInfo.model_validate(cfg["tournament"])
            except ValidationError as e:
                raise ResumeError(f"match {logged.match_id}: bad tournament: {e}") from e
        for _hand_no, seat, deltas in table.match.escapes:
            table.seats[seat].escaped = True
            for s in range(4):
                table.escape_points[s] += deltas[s]
        for seat, on in autos.items():
            table.seats[seat].auto = on and not table.seats[seat].escaped
        return table

    def _error(self, seat: int, code: ErrorCode, message: str, ref: str | None,
               **params: str | int | float) -> None:
        self._send(seat, ErrorMsg(code=code, message=message, ref=ref, params=params))

    def _players(self) -> list[PlayerInfo]:
        return [PlayerInfo(seat=s.seat, name=s.name, bot=s.is_bot, connected=s.is_bot or s.connected,
                           auto=s.auto, escaped=s.escaped) for s in self.seats]

    def table_msg(self, seat: int) -> TableMsg:
        return TableMsg(
            table_id=self.table_id, match_id=self.match_id, seat=seat, profile=self.rules.profile,
            rules=self.rules.to_dict(), hands=self.hands, stake=self.stake, fee=self.fee,
            claim_seconds=self.claim_seconds, turn_seconds=self.turn_seconds,
            players=self._players(), watchers=self.hub.spectate.count(self.table_id),
            tournament=self.tournament,
            hands_now=self.match.hands if self.match.hands < self.hands else None)

    def _policy(self, seat: int) -> Bot:
        info = self.seats[seat]
        if info.policy is None:
            seed = secrets.randbits(32)
            info.policy = get_bot(self.bot_name, seed)
            self._bot_seeds[seat] = seed
        return info.policy

    # ------------------------------------------------------------------ frames
    def _broadcast(self, force: int | None = None) -> None:
        """Send every connected human seat its state frame if it changed."""
        hand = self.hand
        if hand is None:
            return
        players_key = tuple((s.is_bot or s.connected, s.auto, s.escaped) for s in self.seats)
        if players_key != self._players_key:  # no pydantic models on every broadcast
            self._players_key = players_key
            self._players_json = [p.model_dump() for p in self._players()]
        players = self._players_json
        totals = list(self.match.totals)
        d = self.decision
        timer = None
        if d is not None and not hand.ended:
            timer = {"kind": d.kind, "seconds": round(max(0.0, d.deadline - self._now()), 3)}
        parts: tuple[str, str] | None = None
        views: MoveViews | None = None  # the public part of the views: built once, shared
        for info in self.seats:
            if info.is_bot or info.escaped or not info.connected:
                continue
            s = info.seat
            if info.seen == self.version and not info.dirty and force != s:
                continue
            info.seen = self.version
            info.dirty = False
            answered = bool(d is not None and d.window and s in d.answers and not hand.ended)
            if views is None:
                views = MoveViews(hand)
            # The last frame's key holds the view as text: no view dicts stay alive between
            # moves (a thousand of them made the garbage collector's full passes slow).
            text = views.text(s, answered)
            key = (text, players_key, tuple(totals), answered, info.auto,
                   None if d is None else d.signature)
            if key == info.last and force != s:
                continue
            info.last = key
            if parts is None:
                parts = state_frame_parts(self.match_id, hand.hand_no, totals, players, timer)
            self._send_text(s, state_frame(parts, text, answered, info.auto))
        self.hub.spectate.moved(self)  # spectators: the move ``spectator_delay_moves`` back

    # ------------------------------------------------------------------ decisions
    def _signature(self, hand: HandState) -> tuple[Any, ...]:
        return (hand.hand_no, hand.phase, hand.current, hand.pending_from, hand.pending_tile,
                hand.head, hand.tail, sum(len(r) for r in hand.rivers))

    def _sync(self) -> None:
        """Open a new decision if the engine moved on since the current one."""
        self.version += 1
        hand = self.hand
        if hand is None or hand.ended:
            self.decision = None
            return
        sig = self._signature(hand)
        d = self.decision
        if d is not None and d.signature == sig:
            d.seats = [s for s in d.seats if not self.seats[s].escaped]
            for s in list(d.answers):
                if self.seats[s].escaped:
                    del d.answers[s]
            return
        now = self._now()
        phase = hand.phase
        kind: DecisionKind = phase if phase in ("claim", "rob", "final") else "turn"
        length = self.turn_seconds if kind == "turn" else self.claim_seconds
        seats = [s for s in hand.to_act() if s not in self.match.escaped]
        # A window is held at least as long as a bot takes to answer: otherwise windows
        # in which a bot was offered a claim would last longer than the others.
        hold = max(self._hold(), self._bot_delay()) if kind != "turn" else 0.0
        d = Decision(kind=kind, signature=sig, start=now, deadline=now + length,
                     hold_until=now + hold, bot_due=now + self._bot_delay(), seats=seats)
        if d.window:
            for s in seats:
                if hand.legal_actions(s) == (PASS,):
                    d.answers[s] = PASS
        self.decision = d
        self.unseen = d

    def _engine_apply(self, seat: int, action: Action, source: Source) -> None:
        self.match.apply(seat, action)
        self._log("act", seat, _action_data(action), source)

    def _apply(self, seat: int, action: Action, source: Source) -> None:
        self._engine_apply(seat, action, source)
        self._sync()

    def _flush(self) -> None:
        """Close a window: hand every buffered answer to the engine (it resolves by priority).

        The answers are logged as one ``window`` event, not an ``act`` each: they reach the
        engine together, and a window is most of a hand's answers (three per discard, nearly
        all passes), so one row instead of three halves the match log's rows per discard.

        An answer the engine refuses (a fault: each was legal when it came) raises out of
        here, and the table aborts the match (:meth:`run`, :meth:`_abort`): the events not
        yet written are dropped, so the stored log ends before this window and the unfinished
        hand is void, as every player is told.
        """
        d = self.decision
        assert d is not None
        applied: list[tuple[int, Action, Source]] = []
        for s in sorted(d.answers):
            hand = self.hand
            if hand is None or hand.ended or s not in hand.to_act():
                continue
            self.match.apply(s, d.answers[s])
            applied.append((s, d.answers[s], d.sources.get(s, "player")))
        if not self.hub.log_windows:  # a node that reads no window events may resume this
            for s, action, source in applied:
                self._log("act", s, _action_data(action), source)
        elif applied:
            self._log("window",
                      data=window_data([(s, a.to_json(), src) for s, a, src in applied]))
        self._sync()

    def _is_auto(self, seat: int) -> bool:
        info = self.seats[seat]
        return info.is_bot or info.auto

    def _bot_action(self, seat: int) -> Action:
        """The bot's decision for ``seat``, inside the event loop (``--bot-worker inline``)."""
        hand = self.hand
        assert hand is not None
        try:
            action = self._policy(seat).choose(seat_view(hand, seat))
        except Exception:  # a bot must never stop a table
            log.exception("bot %s failed at table %s seat %d", self.bot_name, self.table_id, seat)
            return timeout_action(hand, seat)
        if action not in hand.legal_actions(seat):
            log.warning("bot %s chose an illegal action %s; playing the timeout action",
                        self.bot_name, action)
            return timeout_action(hand, seat)
        return action

    def _ask_bot(self, seat: int, d: Decision, now: float) -> BotJob:
        """Start the bot's decision for ``seat`` in the worker (the view is built here, in the
        loop: the engine is only read by the table's task)."""
        hand = self.hand
        assert hand is not None
        view = seat_view(hand, seat)
        bot = self._policy(seat)
        future = self.bot_worker.submit(self.loop, self.bot_name, self._bot_seeds.get(seat, 0),
                                        bot, self._bot_locks[seat], view)
        asked = now

        def done(f: asyncio.Future[Action]) -> None:
            if not f.cancelled():  # a cancelled one never ran (it was stale in the queue)
                BOT_DECISION_SECONDS.observe(max(0.0, self.loop.time() - asked))
            self.wake.set()  # the table's task takes it at its next turn (or finds it stale)

        future.add_done_callback(done)
        job = BotJob(decision=d, view=view, future=future, asked=now,
                     cap_at=max(d.bot_due, now + self.config.bot_cap))
        self.bot_jobs[seat] = job
        return job

    def _drop_bot_job(self, seat: int) -> None:
        """Forget a job whose result can no longer be played (it finishes unseen)."""
        job = self.bot_jobs.pop(seat)
        job.future.cancel()  # only stops one still waiting for a worker
        BOT_DECISIONS.labels("stale").inc()

    def _bot_result(self, seat: int, job: BotJob) -> Action:
        """The finished job's action, checked as the inline path checks it."""
        hand = self.hand
        assert hand is not None
        try:
            action = job.future.result()
        except Exception:  # a bot must never stop a table
            log.exception("bot %s failed at table %s seat %d", self.bot_name, self.table_id, seat)
            BOT_DECISIONS.labels("error").inc()
            return timeout_action(hand, seat)
        if action not in hand.legal_actions(seat):
            log.warning("bot %s chose an illegal action %s; playing the timeout action",
                        self.bot_name, action)
            BOT_DECISIONS.labels("illegal").inc()
            return timeout_action(hand, seat)
        BOT_DECISIONS.labels("played").inc()
        return action

    def _bot_fallback(self, seat: int, job: BotJob) -> Action:
        """The safety net fired: a greedy decision on the same view (about a millisecond)."""
        hand = self.hand
        assert hand is not None
        BOT_CAP_HITS.inc()
        BOT_DECISIONS.labels("cap").inc()
        log.warning("bot %s overran the %.3f s cap at table %s seat %d: playing greedy",
                    self.bot_name, self.config.bot_cap, self.table_id, seat)
        job.future.cancel()
        try:
            action = get_bot("greedy", 0).choose(job.view)
        except Exception:
            log.exception("the greedy fallback failed at table %s seat %d", self.table_id, seat)
            return timeout_action(hand, seat)
        return action if action in hand.legal_actions(seat) else timeout_action(hand, seat)

    def _bot_moves(self, d: Decision, now: float) -> bool:
        """Bot seats and auto-played seats of decision ``d`` through the worker: drop stale
        jobs, ask the bot for every auto seat still to answer, play (or buffer, in a window)
        each result once it is in and the bot's delay has passed, and play greedy for a job
        past its cap.  Returns whether a turn was played (``d`` is over)."""
        for seat in list(self.bot_jobs):
            job = self.bot_jobs[seat]
            if job.decision is not d or not self._is_auto(seat) or seat in d.answers \
                    or seat not in d.seats:
                self._drop_bot_job(seat)
        for s in list(d.seats):
            if not self._is_auto(s) or s in d.answers:
                continue
            job = self.bot_jobs.get(s) or self._ask_bot(s, d, now)
            if job.future.done():
                if now < d.bot_due:
                    continue
                action = self._bot_result(s, job)
            elif now >= max(job.cap_at, d.bot_due):
                action = self._bot_fallback(s, job)
            else:
                continue
            del self.bot_jobs[s]
            source: Source = "bot" if self.seats[s].is_bot else "auto"
            if d.kind == "turn":
                self._apply(s, action, source)
                return True
            d.answers[s] = action
            d.sources[s] = source
            self.seats[s].dirty = True
        return False

    def _timed_out(self, seat: int) -> Action:
        hand = self.hand
        assert hand is not None
        info = self.seats[seat]
        info.timeouts += 1
        info.dirty = True
        if info.timeouts >= 2 and not info.auto and not info.is_bot:
            info.auto = True
            self._log("auto", seat, "on")
            self.version += 1
            self._send(seat, NoticeMsg(code="auto_on", seat=seat,
                                       message="two timeouts in a row: auto-play (托管) is on; "
                                       "send an action or 'auto off' to play again"))
        return timeout_action(hand, seat)

    def _due(self) -> float:
        d = self.decision
        assert d is not None
        due = d.deadline
        for s in d.seats:
            if self._is_auto(s) and s not in d.answers:
                job = self.bot_jobs.get(s)
                if self.bot_worker.inline or (job is not None and job.future.done()):
                    due = min(due, d.bot_due)
                elif job is None or job.decision is not d:
                    due = min(due, self._now())  # ask the bot at once: it thinks during its delay
                else:  # running: its result wakes the table, or the safety net does
                    due = min(due, max(job.cap_at, d.bot_due))
        if d.window and all(s in d.answers for s in d.seats):
            due = min(due, d.hold_until)
        return due

    def _tick(self) -> None:
        """Run whatever timer is due: bot moves, timeouts, the end of a window."""
        d = self.decision
        if d is None:
            return
        now = self._now()
        if not self.bot_worker.inline:
            if self._bot_moves(d, now):
                return
        elif now >= d.bot_due:
            for s in list(d.seats):
                if self._is_auto(s) and s not in d.answers:
                    action = self._bot_action(s)
                    source: Source = "bot" if self.seats[s].is_bot else "auto"
                    if d.kind == "turn":
                        self._apply(s, action, source)
                        return
                    d.answers[s] = action
                    d.sources[s] = source
                    self.seats[s].dirty = True
        if now >= d.deadline:
            for s in list(d.seats):
                if s not in d.answers:
                    action = self._timed_out(s)
                    if d.kind == "turn":
                        self._apply(s, action, "timeout")
                        return
                    d.answers[s] = action
                    d.sources[s] = "timeout"
        if d.window and now >= d.hold_until and all(s in d.answers for s in d.seats):
            self._flush()

    # ------------------------------------------------------------------ events
    def _handle(self, event: InboxEvent) -> None:
        kind = event[0]
        if kind != "action":
            self.version += 1
        if kind == "action":
            _, seat, action, ref, hand_no, decision = event
            self._on_action(seat, action, ref, hand_no, decision)
        elif kind == "auto":
            _, seat, on, ref = event
            info = self.seats[seat]
            if info.auto != on and not info.escaped:
                if not self._may_switch(info):
                    self._error(seat, "rate_limited", "auto-play (托管) switched too often: "
                                "wait a moment", ref, reason="auto")
                    return
                info.auto = on
                info.timeouts = 0
                self._log("auto", seat, "on" if on else "off")
                self._send(seat, NoticeMsg(code="auto_on" if on else "auto_off", seat=seat,
                                           message=f"auto-play (托管) {'on' if on else 'off'}"))
        elif kind == "next_hand":
            _, seat, hand_no = event
            hand = self.match.hand
            if hand is not None and hand.ended and hand_no in (None, hand.hand_no):
                self.ready_for_next[seat] = hand.hand_no
        elif kind == "leave":
            self._on_leave(event[1])
        elif kind == "end":
            self._end_after_this_hand()
        elif kind == "propose_end":
            self._propose_end(event[1], event[2])
        elif kind == "answer_end":
            self._answer_end(event[1], event[2], event[3])
        elif kind == "connect":
            seat = event[1]
            self.seats[seat].connected = True
            self.seats[seat].last = None
            self._send(seat, self.table_msg(seat))
            self._broadcast(force=seat)
            self._resend_vote(seat)
        elif kind == "disconnect":
            self.seats[event[1]].connected = False
        elif kind == "snapshot":
            seat = event[1]
            self._send(seat, self.table_msg(seat))
            self.seats[seat].last = None
            self._broadcast(force=seat)
            self._resend_vote(seat)

    def _may_switch(self, info: SeatInfo) -> bool:
        """Whether the player may switch his auto-play now: each switch is a match-log event
        and a state frame to every other player, so at most :data:`AUTO_SWITCHES` in
        :data:`AUTO_SWITCH_SECONDS` (a player sets it and changes his mind, not more)."""
        now = self._now()
        while info.switches and info.switches[0] <= now - AUTO_SWITCH_SECONDS:
            info.switches.popleft()
        if len(info.switches) >= AUTO_SWITCHES:
            return False
        info.switches.append(now)
        return True

    def _on_action(self, seat: int, action: Action, ref: str | None, hand_no: int | None,
                   decision: int) -> None:
        hand = self.hand
        info = self.seats[seat]
        if info.escaped:
            self._error(seat, "escaped", "you have left this match", ref)
            return
        if hand is None or hand.ended or self.decision is None:
            self._error(seat, "no_decision", "no hand is in progress", ref)
            return
        if hand_no is not None and hand_no != hand.hand_no:
            self._error(seat, "no_decision", f"hand {hand_no} is not in progress "
                        f"(hand {hand.hand_no} is)", ref)
            return
        if decision != hand.decision:
            self._error(seat, "stale_decision", f"that answer was for decision {decision}, which is "
                        f"over; decision {hand.decision} is open now", ref)
            return
        d = self.decision
        if d.window and seat in d.answers and seat in d.seats:
            self._error(seat, "already_answered",
                        f"seat {seat} has already answered this "
                        f"{'kong' if d.kind == 'rob' else 'draw' if d.kind == 'final' else 'discard'}",
                        ref)
            return
        if seat not in d.seats or action not in hand.legal_actions(seat):
            self._error(seat, "illegal_action", hand.why_illegal(seat, action), ref)
            return
        info.timeouts = 0
        if info.auto:
            info.auto = False
            self._log("auto", seat, "off")
            self.version += 1
            self._send(seat, NoticeMsg(code="auto_off", seat=seat,
                                       message="you played: auto-play (托管) is off"))
        if d.kind == "turn":
            self._apply(seat, action, "player")
        else:
            d.answers[seat] = action
            d.sources[seat] = "player"
            info.dirty = True

    def _on_leave(self, seat: int) -> None:
        info = self.seats[seat]
        if info.escaped or self.finished:
            return
        try:
            deltas = self.match.escape(seat)
        except MatchError:
            return
        self._log("escape", seat)
        info.escaped = True
        info.connected = False
        info.auto = False
        for s in range(4):
            self.escape_points[s] += deltas[s]
        for s in range(4):
            if s != seat:
                self._send(s, NoticeMsg(code="escape", seat=seat,
                                        message=f"{info.name} left the match (逃跑); the server "
                                        "plays the seat"))
        self._sync()
        self.escapes_to_settle.append(seat)  # once the escape is written (see _persist)
        if self.end_vote is not None:  # he has no say any more: the others decide
            self.end_vote.leave(seat)
            self._settle_vote(changed=True)
        if not self._humans_present():  # nobody is left to play for
            self._end_after_this_hand()

    def _hands_ending_now(self) -> int:
        """The match's number of hands if it ended after the hand in progress (between
        hands: the hands played), never more than it has."""
        match = self.match
        in_progress = match.hand is not None and not match.hand.ended
        return min(match.hands, match.hand_no + (1 if in_progress else 0))

    def _end_after_this_hand(self) -> None:
        """End the match after the hand in progress (at once, between hands): logged as
        ``end`` with the new number of hands, so a resumed match ends at the same hand."""
        match = self.match
        hands = self._hands_ending_now()
        if self.finished or hands == match.hands:
            return
        match.hands = hands
        self._log("end", data=str(hands))
        self.version += 1

    # ------------------------------------------------------------------ ending by agreement
    def _ends_early_already(self) -> bool:
        """Whether the match ends after the hand in progress anyway (its last, or an early
        end was decided), so a request to end it would change nothing."""
        return self.finished or self._hands_ending_now() == self.match.hands

    def _propose_end(self, seat: int, ref: str | None) -> None:
        """A player asks to end the match after the hand in progress (申请解散)."""
        if self.seats[seat].escaped:
            self._error(seat, "escaped", "you have left this match", ref)
            return
        hand = self.hand
        turn = hand.hand_no if hand is not None else -1
        refusal = ("tournament" if self.tournament is not None
                   else "ending" if self._ends_early_already()
                   else "voting" if self.end_vote is not None
                   else "asked" if self.end_asked.get(seat) == turn else None)
        if refusal is not None:
            self._error(seat, "cannot_end", {
                "tournament": "a tournament's match is played to its end",
                "ending": "the match ends after this hand already",
                "voting": "a request to end the match is open: answer it",
                "asked": "you asked to end the match in this hand already",
            }[refusal], ref, reason=refusal)
            return
        self.end_asked[seat] = turn
        voters = [s.seat for s in self.seats if not s.is_bot and not s.escaped]
        self.end_vote = EndVote.open(seat, voters, self._now(), self.config.end_vote_seconds)
        self._log_vote("asked", seat)
        self._settle_vote(changed=True)

    def _answer_end(self, seat: int, agree: bool, ref: str | None) -> None:
        vote = self.end_vote
        if vote is None:
            self._error(seat, "cannot_end", "nobody asked to end the match", ref,
                        reason="no_vote")
            return
        try:
            vote.answer(seat, agree)
        except ValueError as e:
            self._error(seat, "cannot_end", str(e), ref, reason="answered")
            return
        self._log_vote("agreed" if agree else "refused", seat)
        self._settle_vote(changed=True)

    def _log_vote(self, what: str, seat: int) -> None:
        log.info("match %s: seat %d %s to end the match early", self.match_id, seat, what)

    def _settle_vote(self, changed: bool = False) -> None:
        """Close the vote once it is decided (everyone agreed, someone refused, or the time
        is up): a passed vote ends the match after the hand in progress.  Everyone at the
        table is told when it is decided, or ``changed`` (asked, answered, a voter left)."""
        vote = self.end_vote
        if vote is None:
            return
        result = vote.result(self._now())
        if result == "passed":
            self._end_after_this_hand()
        if result != "open":
            self.end_vote = None
            emit("end_vote", match_id=self.match_id, result=result, proposer=vote.proposer)
        elif not changed:
            return
        self._tell_vote(vote, result)

    def _tell_vote(self, vote: EndVote, result: VoteResult | Literal["closed"]) -> None:
        """Tell everyone at the table how the request stands (``closed``: the match ended,
        its last hand, before the request was decided). One frame for all: each seat reads
        the same seconds left."""
        msg = self._vote_msg(vote, result)
        for info in self.seats:
            self._send(info.seat, msg)

    def _vote_msg(self, vote: EndVote, result: VoteResult | Literal["closed"]) -> EndVoteMsg:
        return EndVoteMsg(
            proposer=vote.proposer, voters=sorted(vote.voters), agreed=sorted(vote.agreed),
            refused=vote.refused, seconds=round(max(0.0, vote.deadline - self._now()), 3),
            result=result, hands=self.match.hands if result == "passed" else None)

    def _resend_vote(self, seat: int) -> None:
        if self.end_vote is not None:
            self._send(seat, self._vote_msg(self.end_vote, "open"))

    def _start_escape_settlement(self, seat: int) -> None:
        task = self.loop.create_task(self._settle_escape(seat))
        self.escape_tasks.append(task)
        self.hub.background(task)

    async def _settle_escape(self, seat: int) -> None:
        """Settle an escape's penalty (idempotent: a resumed table settles any it finds)."""
        info = self.seats[seat]
        others = [self.seats[(seat + k) % 4].account_id for k in (1, 2, 3)]
        penalty = self.rules.escape
        try:
            result = await self._store_call(
                self.hub.store.settle_escape, f"{self.match_id}#escape{seat}", info.account_id,
                penalty * self.stake, others, 0, penalty_points=penalty, profile=self.rules.profile)
        except AlreadySettled:
            return
        except StoreError:
            log.exception("escape settlement failed (match %s seat %d)", self.match_id, seat)
            emit("settlement_error", logging.ERROR, kind="escape", match_id=self.match_id,
                 account_id=info.account_id)
            return
        emit("settlement", kind="escape", match_id=self.match_id, account_id=info.account_id,
             profile=self.rules.profile)
        for s in self.seats:
            p = result.players.get(s.account_id)
            if p is not None:
                s.silver += p.silver_delta
                s.fee += p.fee

    # ------------------------------------------------------------------ the task
    async def _wait(self, until: float) -> None:
        """Sleep until ``until`` (loop time) or the next event, whichever comes first."""
        if self.inbox:
            return
        self.wake.clear()
        if self.end_vote is not None:  # its deadline is a timer too
            until = min(until, self.end_vote.deadline)
        delay = until - self._now()
        if delay <= 0:
            await asyncio.sleep(0)
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(delay):
                await self.wake.wait()

    def _drain(self) -> None:
        while self.inbox:
            self._handle(self.inbox.popleft())
        self._settle_vote()

    async def _idle(self, seconds: float, after: int | None = None) -> None:
        """Between hands: handle events (reconnections, leaves) while the result shows.
        After hand ``after``, the pause ends early once every player who reads it has said
        he is ready for the next hand (``next_hand``, 继续; :meth:`_all_ready_for_next`)."""
        until = self._now() + seconds
        while not self.stopping:
            self._drain()
            await self._persist()
            if self._now() >= until or (after is not None and self._all_ready_for_next(after)):
                return
            await self._wait(until)

    def _all_ready_for_next(self, after: int) -> bool:
        """Whether a player said he is ready for the hand after ``after`` and every other
        player connected to the table did too or is on 托管 (nobody waits for a bot, an
        escaped seat or a player away).  Until a player says so the pause runs its course,
        as it always did: a table of 托管 alone does not hurry."""
        present = [s for s in self.seats if not (s.is_bot or s.escaped) and s.connected]
        said = {s.seat for s in present if self.ready_for_next.get(s.seat) == after}
        return bool(said) and all(s.auto or s.seat in said for s in present)

    def stop(self) -> None:
        """Stop at the next safe point, leaving the match ``running`` in the store (a draining
        server): everything applied is already written, the next process resumes it."""
        self.stopping = True
        self.wake.set()

    def lost(self) -> None:
        """Another node holds this match's lease (it took the match over while this node was
        cut off or frozen): stop, and send the players here to reconnect."""
        self.taken_over = True
        self.stop()

    async def _was_taken_over(self) -> bool:
        """Whether the match's stored epoch is newer than this table's (``False`` when the
        store cannot say)."""
        try:
            epoch = await asyncio.to_thread(self.hub.store.match_epoch, self.match_id)
        except Exception:
            return False
        return epoch is not None and epoch > self.epoch > 0

    def _send_players_away(self) -> None:
        """Close the sockets of the players seated here (on this node or relayed to it) with
        1012: they reconnect, and land at the table where it runs now."""
        for info in self.seats:
            client = self.hub.clients.get(info.account_id)
            if info.is_bot or client is None or not self.hub.where.at_table(info.account_id, self):
                continue
            client.close(1012, "server restarting: reconnect to resume your match")

    async def run(self) -> None:
        try:
            if self.epoch == 0:
                self.epoch = await self._store_call(
                    self.hub.store.open_match, self.match_id, self.table_id, self.seed.hex(),
                    self.config_json(), owner=self.hub.node_id)
                emit("match_start", match_id=self.match_id, table_id=self.table_id,
                     profile=self.rules.profile, accounts=[s.account_id for s in self.seats])
            else:  # resumed: settle any escape a crash left unsettled (idempotent)
                for info in self.seats:
                    if info.escaped:
                        self._start_escape_settlement(info.seat)
            for info in self.seats:
                if not info.is_bot and info.connected:
                    self._send(info.seat, self.table_msg(info.seat))
            self.shown = True
            await self._play()
            if not self.stopping:
                await self._match_over()
        except asyncio.CancelledError:
            raise
        except MatchFenced:  # another process resumed this match: it is theirs now
            self.taken_over = True
        except ClaimLost:  # a tournament table another node took over: its match is theirs
            self.taken_over = True
        except Exception:
            # A process frozen mid-write finds its database session ended under it: if the
            # match was taken over meanwhile, that is why, and nothing is to be aborted.
            if await self._was_taken_over():
                self.taken_over = True
            else:
                log.exception("match %s (table %s) stopped on an unexpected error",
                              self.match_id, self.table_id)
                emit("table_error", logging.ERROR, match_id=self.match_id,
                     table_id=self.table_id)
                await self._abort()
        finally:
            if self.taken_over:
                log.warning("match %s was taken over by another process; this table stops",
                            self.match_id)
                self._send_players_away()
            self.finished = True
            self.hub.table_closed(self)

    async def _play(self) -> None:
        """Deal and play hands until the match is over (or the server drains)."""
        while True:
            hand = self.match.hand
            if hand is not None and hand.ended and self.hands_settled <= hand.hand_no:
                self.decision = None
                await self._persist()
                self._broadcast()
                await self._hand_over(hand)
                if not self.match.finished:
                    await self._idle(self.config.hand_pause if self._humans_present() else 0.0,
                                     after=hand.hand_no)
                continue
            if self.match.finished or self.stopping:
                return
            if hand is None or hand.ended:
                hand = self.match.start_hand()
                self._log("deal", data=hand.commitment)
            self._sync()
            await self._persist()
            self._broadcast()
            while not hand.ended and not self.stopping:
                self._drain()
                if not hand.ended:
                    self._tick()
                await self._persist()
                self._broadcast()
                if hand.ended:
                    break
                await self._wait(self._due())
            if self.stopping and not hand.ended:
                return

    async def _hand_over(self, hand: HandState) -> None:
        """Record and settle a finished hand (one transaction, exactly once), then tell."""
        summary = next(h for h in self.match.history if h.hand_no == hand.hand_no)
        record = HandRecord(
            match_id=self.match_id, hand_no=hand.hand_no, commitment=hand.commitment,
            wall="".join(tile_str(t) for t in hand.wall), salt=hand.salt.hex(),
            events="\n".join(summary.records),
            seats={s.seat: s.account_id for s in self.seats})
        result = summary.result
        last = hand.hand_no == self.hands - 1
        # The service fee is charged once per match: with the last hand of a match played to
        # its end; a match that ended early pays it on its own at the end (_early_end_fee).
        fee = self.fee if self.stake > 0 and last else 0
        await self._store_call(
            self.hub.store.finish_hand, self.match_id, self.epoch, record,
            {s.account_id: result.deltas[s.seat] for s in self.seats}, stake=self.stake,
            fee=fee, profile=self.rules.profile, totals=list(self.match.totals))
        emit("settlement", kind="hand", match_id=self.match_id, hand_no=hand.hand_no,
             profile=self.rules.profile, outcome=result.outcome, winner_seat=result.winner,
             deltas={s.account_id: result.deltas[s.seat] for s in self.seats}, stake=self.stake,
             fee=fee)
        self.hands_settled = hand.hand_no + 1
        pause = self.config.hand_pause if not self.match.finished else None
        for info in self.seats:
            self._send(info.seat, HandEndMsg(
                match_id=self.match_id, hand_no=hand.hand_no, outcome=result.outcome,
                winner=result.winner, deltas=list(result.deltas), totals=list(self.match.totals),
                next_hand_in=pause))

    async def _results(self) -> list[MatchResultLine]:
        """Each seat's points and silver over the whole match, from the store's settlements
        (so a resumed match reports what was settled before the crash too)."""
        if self.escape_tasks:  # the escapes' own settlements first (their silver is reported)
            await asyncio.gather(*self.escape_tasks, return_exceptions=True)
        silver: dict[int, tuple[int, int]] = {}
        try:
            silver = await self._store_call(self.hub.store.match_silver, self.match_id)
        except StoreError:
            log.exception("could not read the settlements of match %s", self.match_id)
        return [MatchResultLine(seat=s.seat, name=s.name, points=self.match.totals[s.seat],
                                silver=silver.get(s.account_id, (0, 0))[0],
                                fee=silver.get(s.account_id, (0, 0))[1]) for s in self.seats]

    async def _tell_match_end(self, results: list[MatchResultLine],
                              reason: Literal["server_error"] | None,
                              rematch: str | None = None) -> None:
        store = self.hub.store
        for info in self.seats:
            if info.is_bot or info.escaped:
                continue
            account = None
            with contextlib.suppress(StoreError, SQLAlchemyError):  # account info only
                acct = await self._store_call(store.account, info.account_id)
                account = self.hub.account_info(acct)
            self._send(info.seat, MatchEndMsg(
                match_id=self.match_id, totals=list(self.match.totals), stake=self.stake,
                results=results, hands=[list(h.result.deltas) for h in self.match.history],
                escape_points=list(self.escape_points),
                account=account, reason=reason, rematch=rematch,
                tournament=None if self.tournament is None else self.tournament.id))

    async def _early_end_fee(self) -> None:
        """Charge the service fee of a match that ended early (its ``end`` event lowered the
        number of hands), if at least one hand was settled: once, like a match played to its
        end, in a settlement of its own (``store.settle_match_fee``, game id ``<match>/fee``:
        a match resumed after a crash finds it charged and charges nothing more).  None of
        its hands paid it, since none was the last of the full match (``_hand_over``)."""
        played = self.match.hands  # every one of them is settled by now
        if self.stake <= 0 or self.fee <= 0 or played == 0 or played >= self.hands:
            return
        settled = await self._store_call(
            self.hub.store.settle_match_fee, self.match_id, self.epoch,
            [s.account_id for s in self.seats], stake=self.stake, fee=self.fee,
            profile=self.rules.profile)
        if settled is not None:
            emit("settlement", kind="fee", match_id=self.match_id, profile=self.rules.profile,
                 hands=played, stake=self.stake, fee=self.fee)

    async def _match_over(self) -> None:
        if self.end_vote is not None:  # the match ended first: the request is moot
            self._tell_vote(self.end_vote, "closed")
            self.end_vote = None
        await self._early_end_fee()
        results = await self._results()
        await self._store_call(self.hub.store.end_match, self.match_id, self.epoch, "finished")
        emit("match_end", how="finished", match_id=self.match_id, table_id=self.table_id,
             totals=list(self.match.totals))
        await self._tell_match_end(results, None, await self._rematch())

    async def _rematch(self) -> str | None:
        """The code of the room reopened for a rematch, if this match came from a room; a
        fault there costs the players that offer, never the match's end."""
        if self.room is None:
            return None
        try:
            return await self.hub.lobby.rematch_room(self.room)
        except Exception as e:  # Redis away (a cluster's room code), say
            log.warning("no rematch room for match %s: %s", self.match_id, e)
            return None

    async def _abort(self) -> None:
        """End the match after an unexpected error: settle what finished, void the rest, tell."""
        self.pending.clear()  # unwritten: nobody saw them, and they may be the cause
        self.outbox.clear()
        self.decision = None
        hand = self.match.hand
        try:
            if hand is not None and hand.ended and self.hands_settled <= hand.hand_no:
                await self._hand_over(hand)
        except Exception:
            log.exception("match %s: could not settle hand %d", self.match_id, hand.hand_no
                          if hand is not None else -1)
            emit("settlement_error", logging.ERROR, kind="hand", match_id=self.match_id,
                 hand_no=hand.hand_no if hand is not None else None)
        try:
            if self.epoch:
                await asyncio.to_thread(self.hub.store.end_match, self.match_id, self.epoch,
                                        "aborted", ABORT_MESSAGE)
                emit("match_end", logging.WARNING, how="aborted", match_id=self.match_id,
                     table_id=self.table_id, totals=list(self.match.totals))
        except Exception:  # the store is down: the match stays running and resumes later
            log.exception("match %s: could not mark it aborted", self.match_id)
        try:
            results = await self._results()
        except Exception:
            log.exception("match %s: could not report its results", self.match_id)
            results = []
        for info in self.seats:
            self._send(info.seat, ErrorMsg(code="server_error", message=ABORT_MESSAGE))
        with contextlib.suppress(Exception):
            await self._tell_match_end(results, "server_error")
