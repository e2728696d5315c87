"""One hand of Wuhan Mahjong as a state machine: ``legal_actions(seat)`` and ``apply(seat, action)``.

The state is mutated in place by :meth:`HandState.apply`, which first checks
the action against :meth:`HandState.legal_actions` and raises
:class:`~wuhan_mahjong.engine.actions.IllegalAction` (naming the rule) before
touching anything, so an illegal action leaves the state unchanged.  Use
:meth:`HandState.copy` or :func:`reduce` for a functional (copy-on-apply) style.

Phases
    ``turn``
        ``current`` holds 3n+2 tiles and must act: discard, 丢癞子, a kong of any
        kind, or win if his turn began with a draw.
    ``claim``
        a discard is on the table; each of the other three seats answers
        (claim or pass) before it is resolved by priority win > peng = 冲杠 > chi.
    ``rob``
        an added kong (蓄杠) was declared; each other seat answers win (抢杠) or pass.
    ``final``
        海底: ``current`` has made one of the final draws and may win or pass; no
        discard, no kong.
    ``ended``
        ``result`` holds the outcome.

Engine decisions (see ``docs/engine.md``): replacement draws come from the far
end of the live wall; the end phase (no kong of any kind) starts when the live
wall is at most ``rules.end_phase_wall`` after any draw; the discard made then,
and any further discard after a chi or peng, may still be won on or chi'd /
peng'd; when one goes unclaimed the ``rules.final_draws`` final draws begin
with the discarder's next player.  A player whose turn in the end phase offers
no discard at all (his concealed tiles are only 红中 / 发财) may still play
them out as special kongs: the only way to go on.

Claim windows collect an answer from every other seat, also from seats whose
only choice is to pass, so nobody can tell that someone else was offered a
claim (docs/RULES.md §19).  ``auto_pass=True`` answers those seats at once: faster
for simulations and bots, but not for a server that hides claim offers.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain, repeat
from operator import attrgetter
from typing import Literal

from ..analysis import NO_SHAPE, NotAWin, holds_must_kong, not_opened
from ..meld import Meld, opening_count
from ..rules import Rules
from ..scoring import Settlement, settle
from ..shape import could_complete, is_complete
from ..tiles import NUM_KINDS, is_258, is_honour
from ..win_record import SeatState, WinRecord
from .actions import (
    PASS,
    SPECIAL_KINDS,
    WIN,
    Action,
    Chi,
    Discard,
    IllegalAction,
    Kong,
    LaiziDiscard,
    Peng,
    SpecialKind,
    SpecialKong,
    Win,
)
from .dealing import INDICATOR_POS, check_wall, commitment, deal_positions, new_salt, shuffled_wall
from .legality import TurnFacts, claim_actions, explain, seat_violation, turn_actions, turn_facts, win_or_pass

Phase = Literal["turn", "claim", "rob", "final", "ended"]
DrawSource = Literal["wall", "replacement", "final"]
SEAT_NAMES = ("E", "S", "W", "N")

_SUITED_MASK = (1 << 81) - 1
_NON258_MASK = sum(7 << (3 * t) for t in range(NUM_KINDS) if not is_258(t))
# claim masks (see HandState._refresh_claims): one bit per kind, at bit 3t as in shape.pack
_BIT3 = tuple(1 << (3 * t) for t in range(NUM_KINDS))
_ONES3 = sum(_BIT3)
_ALL3 = _ONES3
_RANK_GE2 = sum(1 << (3 * t) for t in range(27) if t % 9 >= 2)
_RANK_1_7 = sum(1 << (3 * t) for t in range(27) if 1 <= t % 9 <= 7)
_RANK_LE6 = sum(1 << (3 * t) for t in range(27) if t % 9 <= 6)
_WIN_BY_DRAW = {"wall": "self_draw", "replacement": "kong_bloom", "final": "last_tile"}
_OTHERS = tuple(((d + 1) % 4, (d + 2) % 4, (d + 3) % 4) for d in range(4))
_PASS_ONLY: tuple[Action, ...] = (PASS,)
_DEAL_POSITIONS = tuple(tuple(tuple(p) for p in deal_positions(d)) for d in range(4))
_PASS_EVENTS = tuple(tuple(("act", s, PASS) for s in _OTHERS[d]) for d in range(4))

_FIXED: dict[tuple[int, int], tuple[Rules, int, tuple[int, ...], int | None, TurnFacts]] = {}
"""(id of the rules, indicator) -> what a hand derives from them alone (laizi, must-kong
tiles, 癞子皮杠 tile, turn facts); the rules are kept in the entry, so the id stays theirs."""
_FIXED_LIMIT = 1024

Event = tuple[object, ...]
"""An entry of :attr:`HandState.log`; :mod:`.records` renders them as JSON lines."""


@dataclass(frozen=True)
class HandResult:
    """How a hand ended: ``outcome`` "win" or "exhausted" (荒庄, nobody pays)."""

    outcome: Literal["win", "exhausted"]
    deltas: tuple[int, int, int, int]
    winner: int | None = None
    win_by: str | None = None
    from_seat: int | None = None
    tile: int | None = None
    settlement: Settlement | None = None


@dataclass(slots=True)
class SpecialCounts:
    """What a seat has played out singly (``HandState.specials[seat]``): his special kongs
    by kind (the fields are named as :data:`~.actions.SpecialKind`: 红中杠, 发财杠, 癞子杠,
    癞子皮杠) and his laizi discards (丢癞子)."""

    red: int = 0
    green: int = 0
    laizi: int = 0
    pi: int = 0
    laizi_discards: int = 0

    def kongs(self, kind: SpecialKind) -> int:
        """The special kongs of ``kind``."""
        return int(getattr(self, kind))

    def copy(self) -> SpecialCounts:
        return SpecialCounts(self.red, self.green, self.laizi, self.pi, self.laizi_discards)


def seat_name(seat: int) -> str:
    return f"{SEAT_NAMES[seat]}{seat}"


class HandState:
    """The full (server-side) state of one hand.  See the module docstring."""

    # Slots: attribute loads and stores at fixed offsets.  A plain instance of this many
    # attributes (over CPython's 30 shared keys) keeps them in a dict of its own, looked up
    # by name on every access of the engine's hot paths.
    __slots__ = ("_chi3", "_claim3", "_legal", "_maywin", "_win_at", "_win_why", "_wins",
                 "answers", "auto_pass", "commitment", "counts", "current", "dealer", "decision",
                 "draw_source", "drawn", "end_phase", "facts", "final_left", "hand_no", "head",
                 "indicator", "initial_hands", "laizi", "log", "meld_258", "meld_honour", "melds",
                 "must", "no_self_win", "openings", "options", "packed", "pending_from",
                 "pending_tile", "phase", "pi_tile", "result", "rivers", "rules", "salt",
                 "specials", "tail", "waiting", "wall")

    def __init__(
        self, rules: Rules, dealer: int, wall: Sequence[int], salt: bytes, *,
        hand_no: int = 0, auto_pass: bool = False,
    ) -> None:
        if not 0 <= dealer < 4:
            raise ValueError(f"dealer must be a seat 0-3, got {dealer}")
        self.rules = rules
        self.dealer = dealer
        self.wall: tuple[int, ...] = check_wall(wall)
        self.salt = salt
        self.commitment = commitment(salt, self.wall)
        self.hand_no = hand_no
        self.auto_pass = auto_pass
        self.indicator = indicator = self.wall[INDICATOR_POS]
        fixed = _FIXED.get((id(rules), indicator))
        if fixed is None or fixed[0] is not rules:
            self.laizi = rules.laizi_of(indicator)
            self.must: tuple[int, ...] = tuple(sorted(rules.must_kong_tiles))
            self.pi_tile: int | None = (
                indicator if rules.pi_kong_active and indicator not in self.must else None)
            self.facts: TurnFacts = turn_facts(self)
            if len(_FIXED) >= _FIXED_LIMIT:
                _FIXED.clear()
            _FIXED[(id(rules), indicator)] = (rules, self.laizi, self.must, self.pi_tile, self.facts)
        else:
            _, self.laizi, self.must, self.pi_tile, self.facts = fixed
        self.counts: list[list[int]] = [[0] * NUM_KINDS for _ in range(4)]
        self.packed: list[int] = [0, 0, 0, 0]  # concealed tiles without the laizi, shape.pack form
        self.melds: list[list[Meld]] = [[], [], [], []]
        self.openings = [0, 0, 0, 0]
        self.meld_honour = [True] * 4  # every meld tile an honour (风一色 prefilter)
        self.meld_258 = [True] * 4  # every meld tile a 2/5/8 (将一色 prefilter)
        self.specials = [SpecialCounts() for _ in range(4)]
        self.rivers: list[list[list[int]]] = [[], [], [], []]  # [tile, claimed_by or -1, laizi 0/1]
        wall_ = self.wall
        laizi = self.laizi
        hands = []
        for seat, positions in enumerate(_DEAL_POSITIONS[dealer]):
            tiles = sorted(map(wall_.__getitem__, positions))
            hands.append(tuple(tiles))
            c = self.counts[seat]
            for t in tiles:
                c[t] += 1
            self.packed[seat] = sum(map(_BIT3.__getitem__, tiles)) - c[laizi] * _BIT3[laizi]
        self.initial_hands: tuple[tuple[int, ...], ...] = tuple(hands)
        self._claim3 = [0, 0, 0, 0]
        self._chi3 = [0, 0, 0, 0]
        self._maywin = [False] * 4
        for s in range(4):
            self._refresh_claims(s)
        self.head = INDICATOR_POS + 1
        self.tail = len(self.wall)
        self.phase: Phase = "turn"
        self.current = dealer
        self.drawn: int | None = None
        self.draw_source: DrawSource | None = None
        self.end_phase = False
        self.final_left = 0
        self.pending_tile: int | None = None
        self.pending_from: int | None = None
        self.options: list[tuple[Action, ...]] = [(), (), (), ()]
        self.waiting = [False] * 4
        self.answers: list[Action | None] = [None] * 4
        self.result: HandResult | None = None
        self.log: list[Event] = []
        self._legal: list[tuple[Action, ...] | None] = [None] * 4
        self._wins: list[Settlement | None] = [None] * 4
        self._win_why: list[str] = [""] * 4
        self._win_at = [-1] * 4  # the decision _wins / _win_why were computed for
        self.no_self_win = -1
        """A decision (a turn after a wall draw) in which the current seat cannot win, known
        without asking the analysis (see :meth:`_next_turn`)."""
        self.decision = 0
        """The id of the decision now open (a turn, a claim window, a final draw); it
        changes whenever a new one opens, so an answer to an old one can be told apart."""
        self._check_end_phase()

    # ------------------------------------------------------------------ queries
    @property
    def live(self) -> int:
        """Tiles left in the live wall."""
        return self.tail - self.head

    @property
    def ended(self) -> bool:
        return self.phase == "ended"

    def hand_tiles(self, seat: int) -> tuple[int, ...]:
        """The concealed tiles of ``seat``, sorted."""
        return tuple(chain.from_iterable(map(repeat, range(NUM_KINDS), self.counts[seat])))

    def hand_size(self, seat: int) -> int:
        return sum(self.counts[seat])

    def to_act(self) -> tuple[int, ...]:
        """Seats that must act now (several during a claim window)."""
        if self.phase in ("turn", "final"):
            return (self.current,)
        if self.phase in ("claim", "rob"):
            return tuple(s for s in range(4) if self.waiting[s])
        return ()

    def legal_actions(self, seat: int) -> tuple[Action, ...]:
        """What ``seat`` may do now (empty when it is not his move).  Cached per state."""
        if not 0 <= seat < 4:
            return ()
        cached = self._legal[seat]
        if cached is None:
            # every rule lives in the table of requirements (.legality); its generators
            # (checked against the table by the tests) produce the legal actions, and the
            # options of a claim window or a final draw were made when the decision opened
            phase = self.phase
            if phase == "turn":  # the seat requirements of a turn: his own (turn.own)
                cached = turn_actions(self, seat) if seat == self.current else ()
            elif phase == "claim" or phase == "rob":  # window.not_own and .not_answered:
                cached = self.options[seat] if self.waiting[seat] else ()  # the discarder never waits
            elif seat_violation(self, seat) is not None:
                cached = ()
            else:
                cached = self.options[seat]
            self._legal[seat] = cached
        return cached

    def win_now(self, seat: int) -> Settlement | None:
        """The settlement if ``seat`` may win now, by the analysis and the scoring (else
        ``None``, the reason kept for the explanation); computed once per decision."""
        if self._win_at[seat] != self.decision:
            self._win_at[seat] = self.decision
            self._wins[seat] = None
            if self.phase in ("turn", "final"):
                if seat == self.current:
                    self._self_win(seat)
                else:
                    self._win_why[seat] = f"not seat {seat}'s turn"
            elif self.phase in ("claim", "rob") and self.pending_tile is not None:
                assert self.pending_from is not None
                self._discard_win(seat, self.pending_tile, self.pending_from, rob=self.phase == "rob")
            else:
                self._win_why[seat] = "the hand is over"
        return self._wins[seat]

    def win_by_now(self, seat: int) -> str | None:
        """How ``seat`` would win now if Win is among his legal actions."""
        if self.phase in ("turn", "final") and seat == self.current and self.draw_source:
            return _WIN_BY_DRAW[self.draw_source]
        if self.phase == "claim":
            return "discard"
        if self.phase == "rob":
            return "rob_kong"
        return None

    def seat_state(self, seat: int, hand: tuple[int, ...] | None = None) -> SeatState:
        sp = self.specials[seat]
        return SeatState(
            self.hand_tiles(seat) if hand is None else hand, tuple(self.melds[seat]),
            sp.red, sp.green, sp.laizi, sp.pi, sp.laizi_discards)

    # ------------------------------------------------------------------ apply
    def apply(self, seat: int, action: Action) -> None:
        """Play ``action`` for ``seat``; raises :class:`IllegalAction` and changes nothing if
        it is not legal now."""
        legal = self._legal[seat] if 0 <= seat < 4 else None
        if legal is None:
            legal = self.legal_actions(seat)
        for a in legal:  # the shared instances: an identity check, not a dataclass __eq__ each
            if a is action:
                break
        else:
            if action not in legal:
                v = explain(self, seat, action)
                raise IllegalAction(self.why_illegal(seat, action), rule=v.rule if v else "")
            action = legal[legal.index(action)]  # the shared instance (windows compare by identity)
        self._legal = [None, None, None, None]
        self.log.append(("act", seat, action))
        phase = self.phase
        if phase == "turn":
            if isinstance(action, Discard):  # most actions: the hot path, inline
                t = action.tile  # never the laizi (discard.not_laizi)
                bit = 1 << (3 * t)
                self.counts[seat][t] -= 1
                self.packed[seat] -= bit
                self.rivers[seat].append([t, -1, 0])
                self._refresh_claims(seat)
                o = _OTHERS[seat]
                c3 = self._claim3
                if not self.auto_pass:
                    self._open_window("claim", seat, t, self._claimers(t, seat))
                elif (c3[o[0]] | c3[o[1]] | c3[o[2]] | self._chi3[o[0]]) & bit and (
                        live := self._claimers(t, seat)):  # the bit test of _claimers first
                    self._open_window("claim", seat, t, live)
                else:
                    # Lazy claim window: with auto_pass a discard nobody can use goes straight
                    # to the next draw (its passes still logged, its decision id still taken).
                    self.decision += 1
                    self.log.extend(_PASS_EVENTS[seat])
                    self._next_turn(o[0])
            else:
                self._apply_turn(seat, action)
        elif phase == "claim" or phase == "rob":
            self.answers[seat] = action
            self.waiting[seat] = False
            if not any(self.waiting):
                self._resolve_claim() if phase == "claim" else self._resolve_rob()
        else:  # final
            if isinstance(action, Win):
                self._finish_win(seat, "last_tile", None, self.drawn)
            else:
                self._final_draw((seat + 1) % 4)

    def note_escape(self, seat: int, penalty: int, deltas: Sequence[int]) -> None:
        """Record in the hand's log that ``seat`` escaped (the match settles the penalty)."""
        self.log.append(("escape", seat, penalty, tuple(deltas)))

    def copy(self) -> HandState:
        """An independent copy (the event log is copied too)."""
        new = object.__new__(HandState)
        # the attributes that are never changed in place, shared; the others copied
        (new.rules, new.dealer, new.wall, new.salt, new.commitment, new.hand_no, new.auto_pass,
         new.indicator, new.laizi, new.must, new.pi_tile, new.facts, new.initial_hands, new.head,
         new.tail, new.phase, new.current, new.drawn, new.draw_source, new.end_phase,
         new.final_left, new.pending_tile, new.pending_from, new.result, new.no_self_win,
         new.decision) = _SHARED(self)
        new.counts = [list(c) for c in self.counts]
        new.packed = list(self.packed)
        new.melds = [list(m) for m in self.melds]
        new.openings = list(self.openings)
        new.meld_honour = list(self.meld_honour)
        new.meld_258 = list(self.meld_258)
        new.specials = [sp.copy() for sp in self.specials]
        new.rivers = [[list(e) for e in r] for r in self.rivers]
        new.options = list(self.options)
        new.waiting = list(self.waiting)
        new.answers = list(self.answers)
        new.log = list(self.log)
        new._legal = list(self._legal)
        new._wins = list(self._wins)
        new._win_why = list(self._win_why)
        new._win_at = list(self._win_at)
        new._claim3 = list(self._claim3)
        new._chi3 = list(self._chi3)
        new._maywin = list(self._maywin)
        return new

    # ------------------------------------------------------------------ internals: tiles
    def _add(self, seat: int, t: int) -> None:
        self.counts[seat][t] += 1
        if t != self.laizi:
            self.packed[seat] += 1 << (3 * t)

    def _remove(self, seat: int, t: int, n: int = 1) -> None:
        self.counts[seat][t] -= n
        if t != self.laizi:
            self.packed[seat] -= n << (3 * t)

    def _add_meld(self, seat: int, meld: Meld) -> None:
        self.melds[seat].append(meld)
        if meld.type != "kong" or meld.kind == "direct":
            self.openings[seat] += 1
        for t in meld.tiles:
            if not is_honour(t):
                self.meld_honour[seat] = False
            if not is_258(t):
                self.meld_258[seat] = False

    def _check_end_phase(self) -> None:
        if not self.end_phase and self.tail - self.head <= self.rules.end_phase_wall:
            self.end_phase = True
            self.log.append(("end_phase", self.tail - self.head))

    # ------------------------------------------------------------------ internals: legal actions
    def _eligible(self, seat: int) -> bool:
        """Cheap part of the win checklist: opened, holds no must-kong tile."""
        if not self.openings[seat]:
            self._win_why[seat] = not_opened(self.rules.direct_kong_opens)
            return False
        c = self.counts[seat]
        for t in self.must:
            if c[t]:
                self._win_why[seat] = holds_must_kong(t)
                return False
        return True

    def _shape_ok(self, seat: int, h: int, wilds: int) -> bool:
        """A superset of :func:`~wuhan_mahjong.analysis.is_winning_shape` on packed counts."""
        if could_complete(h, wilds) and is_complete(h, wilds):
            return True
        if not (h & _SUITED_MASK) and self.meld_honour[seat]:
            return True
        if not (h & _NON258_MASK) and self.meld_258[seat]:
            return True
        self._win_why[seat] = NO_SHAPE
        return False

    def _settle(self, seat: int, rec: WinRecord) -> Settlement | None:
        try:
            s = settle(rec)
        except NotAWin as e:
            self._win_why[seat] = str(e)
            self._wins[seat] = None
            return None
        self._wins[seat] = s
        return s

    def _record(self, winner: int, win_by: str, frm: int | None, tile: int,
                hands: dict[int, tuple[int, ...]], melds: dict[int, tuple[Meld, ...]] | None = None
                ) -> WinRecord:
        seats = []
        for s in range(4):
            st = self.seat_state(s, hands.get(s))
            if melds and s in melds:
                st = SeatState(st.hand, melds[s], st.red_kongs, st.green_kongs, st.laizi_kongs,
                               st.pi_kongs, st.laizi_discards)
            seats.append(st)
        return WinRecord(self.rules, self.dealer, self.indicator, winner, win_by, frm, tile,
                         tuple(seats))

    def _self_win(self, s: int) -> Settlement | None:
        self._wins[s] = None
        drawn = self.drawn
        if drawn is None or self.draw_source is None:
            return None
        if not self._eligible(s) or not self._shape_ok(s, self.packed[s], self.counts[s][self.laizi]):
            return None
        hand = list(self.hand_tiles(s))
        hand.remove(drawn)
        rec = self._record(s, _WIN_BY_DRAW[self.draw_source], None, drawn, {s: tuple(hand)})
        return self._settle(s, rec)

    def _discard_win(self, s: int, t: int, d: int, rob: bool) -> bool:
        self._wins[s] = None
        if not self._eligible(s):
            return False
        if not self._shape_ok(s, self.packed[s] + (1 << (3 * t)), self.counts[s][self.laizi]):
            return False
        rec = self._record(s, "rob_kong" if rob else "discard", d, t, {})
        return self._settle(s, rec) is not None

    def _claim_options(self, s: int, t: int, d: int) -> tuple[Action, ...]:
        """The answers of ``s`` to the discard ``t`` of ``d`` on the table (the window is open)."""
        return claim_actions(self, s)

    # ------------------------------------------------------------------ internals: flow
    def _apply_turn(self, s: int, action: Action) -> None:
        """A turn's action other than a discard (:meth:`apply` plays those)."""
        if isinstance(action, Win):
            assert self.draw_source is not None
            self._finish_win(s, _WIN_BY_DRAW[self.draw_source], None, self.drawn)
        elif isinstance(action, LaiziDiscard):
            self._remove(s, self.laizi)
            self.rivers[s].append([self.laizi, -1, 1])
            self.specials[s].laizi_discards += 1
            self._refresh_claims(s)
            self._next_turn((s + 1) % 4)
        elif isinstance(action, SpecialKong):
            kind = action.kind
            tile = self.rules.special_kong_tile(kind, self.indicator)
            self._remove(s, tile)
            sp = self.specials[s]
            setattr(sp, kind, sp.kongs(kind) + 1)
            self._replacement(s)
        elif isinstance(action, Kong):
            t = action.tile
            if action.kind == "concealed":
                self._remove(s, t, 4)
                self._add_meld(s, Meld("kong", (t,) * 4, None, "concealed"))
                self._replacement(s)
            else:  # added: the robbing window opens first
                self._remove(s, t)
                self._open_window("rob", s, t)
        else:  # pragma: no cover - legal_actions offers nothing else in a turn
            raise AssertionError(action)

    def _may_claim(self, s: int, t: int, d: int) -> bool:
        """Could ``s`` do anything but pass on the discard ``t`` of ``d``?  See :meth:`_claimers`."""
        return s in self._claimers(t, d)

    def _claimers(self, t: int, d: int) -> tuple[int, ...]:
        """The seats that could do anything but pass on the discard ``t`` of ``d``: a cheap
        superset of :meth:`_claim_options` on the packed counts (which leave out the laizi,
        as claims do): two or more of ``t`` (peng, 冲杠), a chi pair for the next player, or
        an opened hand without a must-kong tile whose shape the tile could complete.  It runs
        for every discard: a discard nobody can use costs one bit test on the claim masks
        (:meth:`_refresh_claims`)."""
        bit = 1 << (3 * t)
        o = _OTHERS[d]
        c3 = self._claim3
        if not (c3[o[0]] | c3[o[1]] | c3[o[2]] | self._chi3[o[0]]) & bit:
            return ()
        packed = self.packed
        out: list[int] = []
        for s in o:
            p = packed[s]
            # peng or 冲杠, a chi, or the win prefilter of _discard_win (if he may win at all)
            if ((p >> (3 * t)) & 6 or (s == o[0] and self._chi3[s] & bit)
                    or (self._maywin[s] and self._shape_ok(s, p + bit, self.counts[s][self.laizi]))):
                out.append(s)
        return tuple(out) if out else ()

    def _refresh_claims(self, s: int) -> None:
        """Recompute the claim masks of ``s`` after his hand changed (at the deal and after
        each of his discards: it then stays as it is until he acts again).

        ``_chi3[s]``: bit 3t when ``s`` holds two other tiles of a run with ``t`` (a chi if
        he is the discarder's next player).  ``_maywin[s]``: the hand is opened, holds no
        must-kong tile and one more tile could complete it (one more laizi does, a necessary
        condition of any tile doing so, or the 风一色 / 将一色 prefilters of
        :meth:`_shape_ok` could hold).  ``_claim3[s]``: bit 3t when he holds two or more of
        ``t``; every bit when ``_maywin[s]``."""
        p = self.packed[s]
        two = p >> 1 | p >> 2  # bit 3t: two or more of t
        pres = (p | two) & _ONES3  # bit 3t: one or more
        below = pres << 3  # bit 3t: holds t-1
        above = pres >> 3  # bit 3t: holds t+1
        self._chi3[s] = (below & ((pres << 6) & _RANK_GE2 | above & _RANK_1_7)
                         | above & (pres >> 6) & _RANK_LE6)
        may = False
        if self.openings[s]:
            c = self.counts[s]
            for t in self.must:
                if c[t]:
                    break
            else:
                w = c[self.laizi] + 1
                may = ((could_complete(p, w) and is_complete(p, w))
                       or (not p & _SUITED_MASK and self.meld_honour[s])
                       or (not p & _NON258_MASK and self.meld_258[s]))
        self._maywin[s] = may
        self._claim3[s] = _ALL3 if may else two & _ONES3

    def _open_window(self, phase: Literal["claim", "rob"], frm: int, t: int,
                     live: tuple[int, ...] = ()) -> None:
        """Open a claim window on the discard ``t`` of ``frm`` (``live``: the seats that may
        do more than pass, :meth:`_claimers`; the others get the shared ``(PASS,)``), or the
        robbing window of his added kong."""
        self.phase = phase
        self.pending_tile = t
        self.pending_from = frm
        self.decision += 1
        opts: list[tuple[Action, ...]] = [(), (), (), ()]
        answers: list[Action | None] = [None, None, None, None]
        waiting = [False, False, False, False]
        auto = self.auto_pass
        for s in _OTHERS[frm]:
            if phase == "rob":
                o = win_or_pass(self, s)
            elif s in live:  # a hand that could not win on any tile skips the win check
                o = claim_actions(self, s, self._maywin[s])
            else:
                o = _PASS_ONLY
            opts[s] = o
            if auto and len(o) == 1:
                answers[s] = PASS
                self.log.append(("act", s, PASS))
            else:
                waiting[s] = True
        self.options = opts
        self.answers = answers
        self.waiting = waiting
        if not (waiting[0] or waiting[1] or waiting[2] or waiting[3]):  # all passed (auto_pass)
            self._resolve_claim() if phase == "claim" else self._resolve_rob()

    def _win_order(self, frm: int) -> list[int]:
        start = self.dealer if self.rules.winner_order == "from_dealer" else frm
        return [(start + k) % 4 for k in range(4) if (start + k) % 4 != frm]

    def _resolve_claim(self) -> None:
        d = self.pending_from
        t = self.pending_tile
        assert d is not None and t is not None
        answers = self.answers
        c = (d + 1) % 4
        # the answers are the options' shared instances (apply): most are the one PASS
        takers = [s for s in _OTHERS[d] if answers[s] is not PASS]
        if not takers:
            self._clear_window()
            self._next_turn(c)
            return
        for s in takers:
            if isinstance(answers[s], Win):
                for w in self._win_order(d):
                    if isinstance(answers[w], Win):
                        self._finish_win(w, "discard", d, t)
                        return
        for s in takers:  # one seat at most can peng or kong (four of a kind, one discarded)
            a = answers[s]
            if isinstance(a, Peng):
                self._take(s, d, t, 2)
                self._add_meld(s, Meld("peng", (t, t, t), d))
                self.log.append(("claim", s, a, d))
                self._begin_turn(s, None, None)
                return
            if isinstance(a, Kong):
                self._take(s, d, t, 3)
                self._add_meld(s, Meld("kong", (t,) * 4, d, "direct"))
                if not self.rules.direct_kong_opens:
                    self.openings[s] -= 1
                self.log.append(("claim", s, a, d))
                self._replacement(s)
                return
        a = answers[c]
        if isinstance(a, Chi):
            for x in a.tiles:
                if x != t:
                    self._remove(c, x)
            self.rivers[d][-1][1] = c
            self._add_meld(c, Meld("chi", a.tiles, d))
            self.log.append(("claim", c, a, d))
            self._begin_turn(c, None, None)
            return
        self._clear_window()
        self._next_turn(c)

    def _take(self, s: int, d: int, t: int, n: int) -> None:
        self._remove(s, t, n)
        self.rivers[d][-1][1] = s

    def _resolve_rob(self) -> None:
        k = self.pending_from
        t = self.pending_tile
        assert k is not None and t is not None
        for s in self._win_order(k):
            if isinstance(self.answers[s], Win):
                self._finish_win(s, "rob_kong", k, t)
                return
        melds = self.melds[k]
        for i, m in enumerate(melds):
            if m.type == "peng" and m.tiles[0] == t:
                melds[i] = Meld("kong", (t,) * 4, m.from_seat, "added")
                break
        self.log.append(("kong", k, t))
        self._clear_window()
        self._replacement(k)

    def _clear_window(self) -> None:
        if self.phase == "turn":  # a turn never opens a window: it is clear already
            return
        self.pending_tile = None
        self.pending_from = None
        self.options = [(), (), (), ()]
        self.waiting = [False] * 4
        self.answers = [None] * 4

    def _begin_turn(self, s: int, tile: int | None, source: DrawSource | None) -> None:
        self._clear_window()
        self.phase = "turn"
        self.current = s
        self.drawn = tile
        self.draw_source = source
        self.decision += 1

    def _next_turn(self, s: int) -> None:
        if self.end_phase:
            self.final_left = min(self.rules.final_draws, self.live)
            self._final_draw(s)
            return
        head = self.head
        if head >= self.tail:
            self._exhaust()
            return
        # _add, _begin_turn and _check_end_phase inline: this runs for every draw
        t = self.wall[head]
        self.head = head = head + 1
        self.counts[s][t] += 1
        if t != self.laizi:
            self.packed[s] += 1 << (3 * t)
        live = self.tail - head
        self.log.append(("draw", s, t, "wall", live))
        if self.phase != "turn":
            self._clear_window()
            self.phase = "turn"
        self.current = s
        self.drawn = t
        self.draw_source = "wall"
        self.decision += 1
        if not self._maywin[s]:
            # his hand is the one of his last discard plus this tile: as no tile could have
            # completed that one (_refresh_claims), this one does not either
            self.no_self_win = self.decision
        if not self.end_phase and live <= self.rules.end_phase_wall:
            self.end_phase = True
            self.log.append(("end_phase", live))

    def _replacement(self, s: int) -> None:
        if self.head >= self.tail:
            self._exhaust()
            return
        self.tail -= 1
        t = self.wall[self.tail]
        self._add(s, t)
        self.log.append(("draw", s, t, "replacement", self.tail - self.head))
        self._begin_turn(s, t, "replacement")
        self._check_end_phase()

    def _final_draw(self, s: int) -> None:
        """海底: draw one of the final tiles; loops while seats can only pass (auto_pass)."""
        while True:
            if self.final_left <= 0 or self.head >= self.tail:
                self._exhaust()
                return
            self.final_left -= 1
            t = self.wall[self.head]
            self.head += 1
            self._add(s, t)
            self.log.append(("draw", s, t, "final", self.tail - self.head))
            self._begin_turn(s, t, "final")
            self.phase = "final"
            # with at most four final draws each seat makes one, on the hand of his last
            # discard (no kong in the end phase): if no tile could complete that, none does
            opts = (win_or_pass(self, s) if self._maywin[s] or self.rules.final_draws > 4
                    else _PASS_ONLY)
            self.options[s] = opts
            if opts[0] is WIN or not self.auto_pass:
                return
            self.log.append(("act", s, PASS))
            s = (s + 1) % 4

    def _finish_win(self, s: int, win_by: str, frm: int | None, t: int | None) -> None:
        settlement = self._wins[s]
        assert settlement is not None and t is not None
        if win_by == "discard":
            assert frm is not None
            self.rivers[frm][-1][1] = s
            self._add(s, t)
        elif win_by == "rob_kong":
            self._add(s, t)
        deltas = settlement.deltas
        self.result = HandResult("win", (deltas[0], deltas[1], deltas[2], deltas[3]), s, win_by, frm,
                                 t, settlement)
        self.log.append(("win", s, win_by, frm, t))
        self._end()

    def _exhaust(self) -> None:
        self.result = HandResult("exhausted", (0, 0, 0, 0))
        self.log.append(("exhausted",))
        self._end()

    def _end(self) -> None:
        self._clear_window()
        self.phase = "ended"
        self.decision += 1
        self.drawn = None
        self.draw_source = None
        self._legal = [(), (), (), ()]

    # ------------------------------------------------------------------ errors
    def why_illegal(self, seat: int, action: Action) -> str:
        """The rule that ``action`` by ``seat`` breaks now (a readable sentence); see
        :func:`.legality.explain` for the requirement's name."""
        v = explain(self, seat, action)
        if v is None:
            return f"{action} is legal now"
        return v.message


_SHARED = attrgetter("rules", "dealer", "wall", "salt", "commitment", "hand_no", "auto_pass",
                     "indicator", "laizi", "must", "pi_tile", "facts", "initial_hands", "head",
                     "tail", "phase", "current", "drawn", "draw_source", "end_phase", "final_left",
                     "pending_tile", "pending_from", "result", "no_self_win", "decision")
"""The attributes of a state that :meth:`HandState.copy` shares (immutable values)."""


def new_hand(
    rules: Rules, dealer: int, *, rng: random.Random | None = None,
    wall: Sequence[int] | None = None, salt: bytes | None = None, hand_no: int = 0,
    auto_pass: bool = False,
) -> HandState:
    """Deal a hand: the wall from ``wall`` or shuffled by ``rng`` (default: the OS CSPRNG);
    the commitment salt from ``salt`` or ``rng``."""
    if wall is None:
        wall = shuffled_wall(rng)
    if salt is None:
        salt = new_salt(rng)
    return HandState(rules, dealer, wall, salt, hand_no=hand_no, auto_pass=auto_pass)


def reduce(state: HandState, seat: int, action: Action) -> HandState:
    """Copy-on-apply: the state after ``action``, leaving ``state`` itself untouched."""
    new = state.copy()
    new.apply(seat, action)
    return new


def tile_census(state: HandState) -> list[int]:
    """How many of each kind the state accounts for: the live wall, the indicator, hands,
    melds, special kongs, unclaimed discards (laizi discards included) and a pending
    added-kong tile.  Always four of each (a test invariant)."""
    out = [0] * NUM_KINDS
    for t in state.wall[state.head:state.tail]:
        out[t] += 1
    out[state.indicator] += 1
    for s in range(4):
        for t, n in enumerate(state.counts[s]):
            out[t] += n
        for m in state.melds[s]:
            for t in m.tiles:
                out[t] += 1
        sp = state.specials[s]
        for kind in SPECIAL_KINDS:
            out[state.rules.special_kong_tile(kind, state.indicator)] += sp.kongs(kind)
        for t, claimed, lz in state.rivers[s]:
            if claimed < 0 and not lz:
                out[t] += 1
        out[state.laizi] += sp.laizi_discards
    if state.phase == "rob" and state.pending_tile is not None:
        out[state.pending_tile] += 1
    return out


def opening_total(state: HandState, seat: int) -> int:
    """Openings (口) of ``seat`` as the settlement counts them."""
    return opening_count(state.melds[seat], state.rules.direct_kong_opens)
