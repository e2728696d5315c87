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
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ..bots import Bot, get_bot
from ..engine import (
    PASS,
    Action,
    Discard,
    HandState,
    LaiziDiscard,
    Match,
    MatchError,
    SpecialKong,
    seat_view,
)
from ..rules import Rules
from ..store import HandRecord, StoreError
from ..tiles import tile_str
from .protocol import (
    ErrorCode,
    ErrorMsg,
    HandEndMsg,
    MatchEndMsg,
    MatchResultLine,
    NoticeMsg,
    PlayerInfo,
    TableMsg,
    encode_view,
    state_frame,
    state_frame_parts,
)

if TYPE_CHECKING:
    from .hub import Hub

__all__ = ["Decision", "SeatInfo", "Table", "timeout_action"]

log = logging.getLogger("wuhan_mahjong.server.table")

DecisionKind = Literal["turn", "claim", "rob", "final"]


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

    @property
    def window(self) -> bool:
        return self.kind != "turn"


Event = tuple[Any, ...]


class Table:
    """A running match.  Build it, then ``asyncio.create_task(table.run())``."""

    def __init__(
        self, hub: Hub, table_id: str, seats: Sequence[SeatInfo], rules: Rules, *, hands: int,
        stake: int, fee: int, claim_seconds: float, turn_seconds: float, bot_name: str,
    ) -> None:
        if len(seats) != 4:
            raise ValueError("a table has four seats")
        self.hub = hub
        self.config = hub.config
        self.table_id = table_id
        self.match_id = f"{time.strftime('%Y%m%d')}-{secrets.token_hex(6)}"
        self.seats = list(seats)
        self.rules = rules
        self.hands = hands
        self.stake = stake
        self.fee = fee
        self.claim_seconds = claim_seconds
        self.turn_seconds = turn_seconds
        self.bot_name = bot_name
        self.match = Match(rules, hands)
        self.inbox: deque[Event] = deque()
        self.wake = asyncio.Event()
        self.decision: Decision | None = None
        self.version = 0
        """Bumped by every change of the game or of the players' status: a broadcast
        without a change skips the seat views (most loop turns only buffer an answer)."""
        self.finished = False
        self.escape_points = [0, 0, 0, 0]
        self.escape_tasks: list[asyncio.Task[None]] = []
        self.loop = asyncio.get_running_loop()

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

    def _send(self, seat: int, msg: Any) -> None:
        info = self.seats[seat]
        if info.is_bot or info.escaped:
            return
        self.hub.table_send(self, info.account_id, msg)

    def _send_text(self, seat: int, text: str) -> None:
        info = self.seats[seat]
        if not info.is_bot and not info.escaped:
            self.hub.table_send_text(self, info.account_id, text)

    def _error(self, seat: int, code: ErrorCode, message: str, ref: str | None) -> None:
        self._send(seat, ErrorMsg(code=code, message=message, ref=ref))

    def _players(self) -> list[PlayerInfo]:
        return [PlayerInfo(seat=s.seat, name=s.name, bot=s.is_bot, connected=s.is_bot or s.connected,
                           auto=s.auto, escaped=s.escaped) for s in self.seats]

    def table_msg(self, seat: int) -> TableMsg:
        return TableMsg(
            table_id=self.table_id, match_id=self.match_id, seat=seat, profile=self.rules.profile,
            rules=self.rules.to_dict(), hands=self.hands, stake=self.stake, fee=self.fee,
            claim_seconds=self.claim_seconds, turn_seconds=self.turn_seconds,
            players=self._players())

    def _policy(self, seat: int) -> Bot:
        info = self.seats[seat]
        if info.policy is None:
            info.policy = get_bot(self.bot_name, secrets.randbits(32))
        return info.policy

    # ------------------------------------------------------------------ frames
    def _broadcast(self, force: int | None = None) -> None:
        """Send every connected human seat its state frame if it changed."""
        hand = self.hand
        if hand is None:
            return
        players = [p.model_dump() for p in self._players()]
        players_key = tuple((p["connected"], p["auto"], p["escaped"]) for p in players)
        totals = list(self.match.totals)
        d = self.decision
        timer = None
        if d is not None and not hand.ended:
            timer = {"kind": d.kind, "seconds": round(max(0.0, d.deadline - self._now()), 3)}
        parts: tuple[str, str] | None = None
        for info in self.seats:
            if info.is_bot or info.escaped or not info.connected:
                continue
            s = info.seat
            if info.seen == self.version and not info.dirty and force != s:
                continue
            info.seen = self.version
            info.dirty = False
            view: dict[str, Any] = dict(seat_view(hand, s))
            answered = bool(d is not None and d.window and s in d.answers and not hand.ended)
            if answered:
                view["legal_actions"] = []
            # The last frame's key holds the view as text: no view dicts stay alive between
            # moves (a thousand of them made the garbage collector's full passes slow).
            text = encode_view(view)
            key = (text, players_key, tuple(totals), answered, info.auto,
                   None if d is None else d.signature)
            if key == info.last and force != s:
                continue
            info.last = key
            if parts is None:
                parts = state_frame_parts(self.match_id, hand.hand_no, totals, players, timer)
            self._send_text(s, state_frame(parts, text, answered, info.auto))

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

    def _apply(self, seat: int, action: Action) -> None:
        self.match.apply(seat, action)
        self._sync()

    def _flush(self) -> None:
        """Close a window: hand every buffered answer to the engine (it resolves by priority)."""
        d = self.decision
        assert d is not None
        for s in sorted(d.answers):
            hand = self.hand
            if hand is None or hand.ended or s not in hand.to_act():
                continue
            self.match.apply(s, d.answers[s])
        self._sync()

    def _is_auto(self, seat: int) -> bool:
        info = self.seats[seat]
        return info.is_bot or info.auto

    def _bot_action(self, seat: int) -> Action:
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

    def _timed_out(self, seat: int) -> Action:
        hand = self.hand
        assert hand is not None
        info = self.seats[seat]
        info.timeouts += 1
        info.dirty = True
        if info.timeouts >= 2 and not info.auto and not info.is_bot:
            info.auto = True
            self.version += 1
            self._send(seat, NoticeMsg(code="auto_on", seat=seat,
                                       message="two timeouts in a row: auto-play (托管) is on; "
                                       "send an action or 'auto off' to play again"))
        return timeout_action(hand, seat)

    def _due(self) -> float:
        d = self.decision
        assert d is not None
        due = d.deadline
        if any(self._is_auto(s) and s not in d.answers for s in d.seats):
            due = min(due, d.bot_due)
        if d.window and all(s in d.answers for s in d.seats):
            due = min(due, d.hold_until)
        return due

    def _tick(self) -> None:
        """Run whatever timer is due: bot moves, timeouts, the end of a window."""
        d = self.decision
        if d is None:
            return
        now = self._now()
        if now >= d.bot_due:
            for s in list(d.seats):
                if self._is_auto(s) and s not in d.answers:
                    action = self._bot_action(s)
                    if d.kind == "turn":
                        self._apply(s, action)
                        return
                    d.answers[s] = action
                    self.seats[s].dirty = True
        if now >= d.deadline:
            for s in list(d.seats):
                if s not in d.answers:
                    action = self._timed_out(s)
                    if d.kind == "turn":
                        self._apply(s, action)
                        return
                    d.answers[s] = action
        if d.window and now >= d.hold_until and all(s in d.answers for s in d.seats):
            self._flush()

    # ------------------------------------------------------------------ events
    def _handle(self, event: Event) -> None:
        kind = event[0]
        if kind != "action":
            self.version += 1
        if kind == "action":
            _, seat, action, ref, hand_no, decision = event
            self._on_action(seat, action, ref, hand_no, decision)
        elif kind == "auto":
            _, seat, on = event
            info = self.seats[seat]
            if info.auto != on:
                info.auto = on
                info.timeouts = 0
                self._send(seat, NoticeMsg(code="auto_on" if on else "auto_off", seat=seat,
                                           message=f"auto-play (托管) {'on' if on else 'off'}"))
        elif kind == "leave":
            self._on_leave(event[1])
        elif kind == "connect":
            seat = event[1]
            self.seats[seat].connected = True
            self.seats[seat].last = None
            self._send(seat, self.table_msg(seat))
            self._broadcast(force=seat)
        elif kind == "disconnect":
            self.seats[event[1]].connected = False
        elif kind == "snapshot":
            seat = event[1]
            self._send(seat, self.table_msg(seat))
            self.seats[seat].last = None
            self._broadcast(force=seat)

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
            self.version += 1
            self._send(seat, NoticeMsg(code="auto_off", seat=seat,
                                       message="you played: auto-play (托管) is off"))
        if d.kind == "turn":
            self._apply(seat, action)
        else:
            d.answers[seat] = action
            info.dirty = True

    def _on_leave(self, seat: int) -> None:
        info = self.seats[seat]
        if info.escaped or self.finished:
            return
        try:
            deltas = self.match.escape(seat)
        except MatchError:
            return
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
        task = self.loop.create_task(self._settle_escape(seat))
        self.escape_tasks.append(task)
        self.hub.background(task)

    async def _settle_escape(self, seat: int) -> None:
        info = self.seats[seat]
        others = [self.seats[(seat + k) % 4].account_id for k in (1, 2, 3)]
        penalty = self.rules.escape
        try:
            result = await asyncio.to_thread(
                self.hub.store.settle_escape, f"{self.match_id}#escape{seat}", info.account_id,
                penalty * self.stake, others, 0, penalty_points=penalty, profile=self.rules.profile)
        except StoreError:
            log.exception("escape settlement failed (table %s seat %d)", self.table_id, seat)
            return
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

    async def _idle(self, seconds: float) -> None:
        """Between hands: handle events (reconnections, leaves) while the result shows."""
        until = self._now() + seconds
        while True:
            self._drain()
            if self._now() >= until:
                return
            await self._wait(until)

    async def run(self) -> None:
        try:
            for info in self.seats:
                if not info.is_bot and info.connected:
                    self._send(info.seat, self.table_msg(info.seat))
            while not self.match.finished:
                hand = self.match.start_hand()
                self._sync()
                self._broadcast()
                while not hand.ended:
                    self._drain()
                    if hand.ended:
                        break
                    self._tick()
                    self._broadcast()
                    if hand.ended:
                        break
                    await self._wait(self._due())
                self.decision = None
                self._broadcast()
                await self._hand_over(hand)
                if not self.match.finished:
                    await self._idle(self.config.hand_pause if self._humans_present() else 0.0)
            await self._match_over()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("table %s crashed", self.table_id)
            for info in self.seats:
                self._send(info.seat, ErrorMsg(code="server_error",
                                               message="the table stopped on a server error"))
        finally:
            self.finished = True
            self.hub.table_closed(self)

    async def _hand_over(self, hand: HandState) -> None:
        summary = self.match.history[-1]
        record = HandRecord(
            match_id=self.match_id, hand_no=hand.hand_no, commitment=hand.commitment,
            wall="".join(tile_str(t) for t in hand.wall), salt=hand.salt.hex(),
            events="\n".join(summary.records),
            seats={s.seat: s.account_id for s in self.seats})
        try:
            await asyncio.to_thread(self.hub.store.save_hand_record, record)
        except StoreError:
            log.exception("could not save the record of hand %d of %s", hand.hand_no, self.match_id)
        result = summary.result
        pause = self.config.hand_pause if not self.match.finished else None
        for info in self.seats:
            self._send(info.seat, HandEndMsg(
                match_id=self.match_id, hand_no=hand.hand_no, outcome=result.outcome,
                winner=result.winner, deltas=list(result.deltas), totals=list(self.match.totals),
                next_hand_in=pause))

    async def _match_over(self) -> None:
        store = self.hub.store
        if self.escape_tasks:  # the escapes' own settlements first (their silver is reported)
            await asyncio.gather(*self.escape_tasks, return_exceptions=True)
        points = {s.account_id: self.match.totals[s.seat] - self.escape_points[s.seat]
                  for s in self.seats}
        fee = self.fee if self.stake > 0 else 0
        try:
            result = await asyncio.to_thread(
                store.settle_game, self.match_id, self.stake, points, fee,
                profile=self.rules.profile)
            for s in self.seats:
                p = result.players[s.account_id]
                s.silver += p.silver_delta
                s.fee += p.fee
        except StoreError:
            log.exception("settlement of match %s failed", self.match_id)
        results = [MatchResultLine(seat=s.seat, name=s.name, points=self.match.totals[s.seat],
                                   silver=s.silver, fee=s.fee) for s in self.seats]
        for info in self.seats:
            if info.is_bot or info.escaped:
                continue
            account = None
            with contextlib.suppress(StoreError):
                acct = await asyncio.to_thread(store.account, info.account_id)
                account = self.hub.account_info(acct)
            self._send(info.seat, MatchEndMsg(match_id=self.match_id, totals=list(self.match.totals),
                                              stake=self.stake, results=results, account=account))
