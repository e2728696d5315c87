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
from typing import Literal

from ..analysis import NotAWin
from ..meld import Meld, opening_count
from ..rules import Rules
from ..scoring import SeatState, Settlement, WinRecord, settle
from ..shape import is_complete
from ..tiles import GREEN, NUM_KINDS, RED, is_258, is_honour, tile_str
from .actions import (
    ADDED_KONGS,
    CHIS,
    CONCEALED_KONGS,
    DIRECT_KONGS,
    DISCARDS,
    LAIZI_DISCARD,
    PASS,
    PENGS,
    SPECIAL_KONGS,
    SPECIAL_ZH,
    WIN,
    Action,
    Chi,
    Discard,
    IllegalAction,
    Kong,
    LaiziDiscard,
    Pass,
    Peng,
    SpecialKong,
    Win,
)
from .dealing import INDICATOR_POS, check_wall, commitment, deal_positions, new_salt, shuffled_wall

Phase = Literal["turn", "claim", "rob", "final", "ended"]
DrawSource = Literal["wall", "replacement", "final"]
SEAT_NAMES = ("E", "S", "W", "N")
SPECIAL_INDEX = {"red": 0, "green": 1, "laizi": 2, "pi": 3}
LAIZI_DISCARDS = 4  # index in HandState.specials

_SUITED_MASK = (1 << 81) - 1
_NON258_MASK = sum(7 << (3 * t) for t in range(NUM_KINDS) if not is_258(t))
_WIN_BY_DRAW = {"wall": "self_draw", "replacement": "kong_bloom", "final": "last_tile"}
_OTHERS = tuple(((d + 1) % 4, (d + 2) % 4, (d + 3) % 4) for d in range(4))
_PASS_ONLY: tuple[Action, ...] = (PASS,)
_PASS_EVENTS = tuple(tuple(("act", s, PASS) for s in _OTHERS[d]) for d in range(4))

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


def seat_name(seat: int) -> str:
    return f"{SEAT_NAMES[seat]}{seat}"


class HandState:
    """The full (server-side) state of one hand.  See the module docstring."""

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
        self.indicator = self.wall[INDICATOR_POS]
        self.laizi = rules.laizi_of(self.indicator)
        self.must: tuple[int, ...] = tuple(sorted(rules.must_kong_tiles))
        self.pi_tile: int | None = (
            self.indicator if rules.pi_kong_active and self.indicator not in self.must else None)
        self.counts: list[list[int]] = [[0] * NUM_KINDS for _ in range(4)]
        self.packed: list[int] = [0, 0, 0, 0]  # concealed tiles without the laizi, shape.pack form
        self.melds: list[list[Meld]] = [[], [], [], []]
        self.openings = [0, 0, 0, 0]
        self.meld_honour = [True] * 4  # every meld tile an honour (风一色 prefilter)
        self.meld_258 = [True] * 4  # every meld tile a 2/5/8 (将一色 prefilter)
        self.specials: list[list[int]] = [[0] * 5 for _ in range(4)]  # red green laizi pi, 丢癞子
        self.rivers: list[list[list[int]]] = [[], [], [], []]  # [tile, claimed_by or -1, laizi 0/1]
        for seat, positions in enumerate(deal_positions(dealer)):
            for p in positions:
                self._add(seat, self.wall[p])
        self.initial_hands: tuple[tuple[int, ...], ...] = tuple(
            self.hand_tiles(s) for s in range(4))
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
        c = self.counts[seat]
        return tuple(t for t in range(NUM_KINDS) for _ in range(c[t]))

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
            phase = self.phase
            if phase == "turn":
                cached = self._turn_actions() if seat == self.current else ()
            elif phase == "claim" or phase == "rob":
                cached = self.options[seat] if self.waiting[seat] else ()
            elif phase == "final":
                cached = self.options[seat] if seat == self.current else ()
            else:
                cached = ()
            self._legal[seat] = cached
        return cached

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
            sp[0], sp[1], sp[2], sp[3], sp[4])

    # ------------------------------------------------------------------ apply
    def apply(self, seat: int, action: Action) -> None:
        """Play ``action`` for ``seat``; raises :class:`IllegalAction` and changes nothing if
        it is not legal now."""
        if action not in self.legal_actions(seat):
            raise IllegalAction(self.why_illegal(seat, action))
        self._legal = [None, None, None, None]
        self.log.append(("act", seat, action))
        phase = self.phase
        if phase == "turn":
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
        new.__dict__.update(self.__dict__)
        new.counts = [list(c) for c in self.counts]
        new.packed = list(self.packed)
        new.melds = [list(m) for m in self.melds]
        new.openings = list(self.openings)
        new.meld_honour = list(self.meld_honour)
        new.meld_258 = list(self.meld_258)
        new.specials = [list(s) for s in self.specials]
        new.rivers = [[list(e) for e in r] for r in self.rivers]
        new.options = list(self.options)
        new.waiting = list(self.waiting)
        new.answers = list(self.answers)
        new.log = list(self.log)
        new._legal = list(self._legal)
        new._wins = list(self._wins)
        new._win_why = list(self._win_why)
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
    def _turn_actions(self) -> tuple[Action, ...]:
        s = self.current
        c = self.counts[s]
        acts: list[Action] = []
        if self.drawn is not None and self._self_win(s) is not None:
            acts.append(WIN)
        laizi = self.laizi
        must = self.must
        for t in range(NUM_KINDS):
            if c[t] and t != laizi and t not in must:
                acts.append(DISCARDS[t])
        if c[laizi]:
            acts.append(LAIZI_DISCARD)
        plays = len(acts) - (1 if acts and acts[0] is WIN else 0)
        if not self.end_phase or plays == 0:
            for t in must:
                if c[t]:
                    acts.append(SPECIAL_KONGS["red" if t == RED else "green"])
        if not self.end_phase:
            if c[laizi]:
                acts.append(SPECIAL_KONGS["laizi"])
            pi = self.pi_tile
            if pi is not None and c[pi]:
                acts.append(SPECIAL_KONGS["pi"])
            for t in range(NUM_KINDS):
                if c[t] == 4 and t != laizi and t not in must:
                    acts.append(CONCEALED_KONGS[t])
            for m in self.melds[s]:
                if m.type == "peng" and c[m.tiles[0]]:
                    acts.append(ADDED_KONGS[m.tiles[0]])
        return tuple(acts)

    def _eligible(self, seat: int) -> bool:
        """Cheap part of the win checklist: opened, holds no must-kong tile."""
        if not self.openings[seat]:
            self._win_why[seat] = "has not opened (开口): a win needs a chi, peng or 冲杠 first"
            return False
        c = self.counts[seat]
        for t in self.must:
            if c[t]:
                self._win_why[seat] = (f"holds {tile_str(t)} ({'红中' if t == RED else '发财'}), "
                                       "which must be konged before a win")
                return False
        return True

    def _shape_ok(self, seat: int, h: int, wilds: int) -> bool:
        """A superset of :func:`~wuhan_mahjong.analysis.is_winning_shape` on packed counts."""
        if is_complete(h, wilds):
            return True
        if not (h & _SUITED_MASK) and self.meld_honour[seat]:
            return True
        if not (h & _NON258_MASK) and self.meld_258[seat]:
            return True
        self._win_why[seat] = "not a winning shape"
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
        c = self.counts[s]
        acts: list[Action] = []
        if self._discard_win(s, t, d, rob=False):
            acts.append(WIN)
        n = c[t]
        if n >= 2:
            acts.append(PENGS[t])
            if n == 3 and not self.end_phase:
                acts.append(DIRECT_KONGS[t])
        if t < 27 and s == (d + 1) % 4:
            r = t % 9
            laizi = self.laizi
            for low_r in (r - 2, r - 1, r):
                if 0 <= low_r <= 6:
                    low = t - r + low_r
                    a, b = [x for x in (low, low + 1, low + 2) if x != t]
                    if c[a] and c[b] and a != laizi and b != laizi:
                        acts.append(CHIS[low])
        acts.append(PASS)
        return tuple(acts)

    # ------------------------------------------------------------------ internals: flow
    def _apply_turn(self, s: int, action: Action) -> None:
        if isinstance(action, Discard):
            t = action.tile
            self._remove(s, t)
            self.rivers[s].append([t, -1, 0])
            self._open_window("claim", s, t)
        elif isinstance(action, Win):
            assert self.draw_source is not None
            self._finish_win(s, _WIN_BY_DRAW[self.draw_source], None, self.drawn)
        elif isinstance(action, LaiziDiscard):
            self._remove(s, self.laizi)
            self.rivers[s].append([self.laizi, -1, 1])
            self.specials[s][LAIZI_DISCARDS] += 1
            self._next_turn((s + 1) % 4)
        elif isinstance(action, SpecialKong):
            kind = action.kind
            tile = {"red": RED, "green": GREEN, "laizi": self.laizi}.get(kind, self.indicator)
            self._remove(s, tile)
            self.specials[s][SPECIAL_INDEX[kind]] += 1
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
        """Could ``s`` do anything but pass on the discard ``t`` of ``d``?  A cheap superset of
        :meth:`_claim_options` on the packed counts (which leave out the laizi, as claims
        do): two or more of ``t`` (peng, 冲杠), a chi pair for the next player, or an opened
        hand without a must-kong tile whose shape the tile could complete."""
        p = self.packed[s]
        sh = 3 * t
        if (p >> sh) & 6:
            return True
        if t < 27 and s == (d + 1) % 4:
            r = t % 9
            if (r >= 2 and (p >> (sh - 3)) & 7 and (p >> (sh - 6)) & 7) or (
                    1 <= r <= 7 and (p >> (sh - 3)) & 7 and (p >> (sh + 3)) & 7) or (
                    r <= 6 and (p >> (sh + 3)) & 7 and (p >> (sh + 6)) & 7):
                return True
        # the win prefilter of _discard_win (which also notes why there is no win)
        return self._eligible(s) and self._shape_ok(s, p + (1 << sh), self.counts[s][self.laizi])

    def _open_window(self, phase: Literal["claim", "rob"], frm: int, t: int) -> None:
        live: tuple[int, ...] = ()
        if phase == "claim":
            # Lazy claim window: seats that can only pass get the shared (PASS,); with auto_pass
            # a discard nobody can use goes straight to the next draw (its passes still logged).
            live = tuple(s for s in _OTHERS[frm] if self._may_claim(s, t, frm))
            if not live and self.auto_pass:
                self.log.extend(_PASS_EVENTS[frm])
                self._next_turn((frm + 1) % 4)
                return
        self.phase = phase
        self.pending_tile = t
        self.pending_from = frm
        opts: list[tuple[Action, ...]] = [(), (), (), ()]
        for k in (1, 2, 3):
            s = (frm + k) % 4
            if phase == "claim":
                opts[s] = self._claim_options(s, t, frm) if s in live else _PASS_ONLY
            else:
                opts[s] = (WIN, PASS) if self._discard_win(s, t, frm, rob=True) else (PASS,)
        self.options = opts
        self.answers = [None] * 4
        self.waiting = [s != frm for s in range(4)]
        if self.auto_pass:
            for k in (1, 2, 3):
                s = (frm + k) % 4
                if len(opts[s]) == 1:
                    self.answers[s] = PASS
                    self.waiting[s] = False
                    self.log.append(("act", s, PASS))
            if not any(self.waiting):
                self._resolve_claim() if phase == "claim" else self._resolve_rob()

    def _win_order(self, frm: int) -> list[int]:
        start = self.dealer if self.rules.winner_order == "from_dealer" else frm
        return [(start + k) % 4 for k in range(4) if (start + k) % 4 != frm]

    def _resolve_claim(self) -> None:
        d = self.pending_from
        t = self.pending_tile
        assert d is not None and t is not None
        answers = self.answers
        for s in self._win_order(d):
            if isinstance(answers[s], Win):
                self._finish_win(s, "discard", d, t)
                return
        for s in range(4):
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
        c = (d + 1) % 4
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

    def _next_turn(self, s: int) -> None:
        if self.end_phase:
            self.final_left = min(self.rules.final_draws, self.live)
            self._final_draw(s)
            return
        if self.head >= self.tail:
            self._exhaust()
            return
        t = self.wall[self.head]
        self.head += 1
        self._add(s, t)
        self.log.append(("draw", s, t, "wall", self.tail - self.head))
        self._begin_turn(s, t, "wall")
        self._check_end_phase()

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
            win = self._self_win(s) is not None
            self.options[s] = (WIN, PASS) if win else (PASS,)
            if win or not self.auto_pass:
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
        self.drawn = None
        self.draw_source = None
        self._legal = [(), (), (), ()]

    # ------------------------------------------------------------------ errors
    def why_illegal(self, seat: int, action: Action) -> str:
        """The rule that ``action`` by ``seat`` breaks now (a readable sentence)."""
        if not 0 <= seat < 4:
            return f"no seat {seat}: seats are 0-3"
        if self.phase == "ended":
            return "the hand is over"
        who = f"seat {seat}"
        if self.phase in ("claim", "rob"):
            frm = self.pending_from
            if seat == frm:
                if self.phase == "claim":
                    return f"{who} cannot claim his own discard; the others are answering"
                return f"{who} declared the added kong; the others are answering (抢杠 window)"
            if not self.waiting[seat]:
                return f"{who} has already answered this {'discard' if self.phase == 'claim' else 'kong'}"
            return self._why_claim(seat, action)
        if seat != self.current:
            if self.phase == "final":
                return f"not {who}'s draw: seat {self.current} is making a final draw (海底)"
            return f"not {who}'s turn: seat {self.current} is to play"
        if self.phase == "final":
            if isinstance(action, Win):
                return f"no win on this final draw: {self._win_why[seat]}"
            return "in the final draws (海底) a player may only win or pass: no discard, no kong"
        return self._why_turn(seat, action)

    def _why_claim(self, seat: int, action: Action) -> str:
        t = self.pending_tile
        assert t is not None
        c = self.counts[seat]
        ts = tile_str(t)
        if self.phase == "rob":
            if isinstance(action, Win):
                return f"no win robbing the kong of {ts}: {self._win_why[seat]}"
            return "an added kong (蓄杠) can only be robbed (win) or let pass"
        if isinstance(action, Win):
            return f"no win on {ts}: {self._win_why[seat]}"
        if isinstance(action, (Peng, Kong)) and action.tile != t:
            return f"the discard on the table is {ts}, not {tile_str(action.tile)}"
        if isinstance(action, Peng):
            return f"peng {ts} needs two {ts} in hand (laizi never take part in claims)"
        if isinstance(action, Kong):
            if action.kind != "direct":
                return f"only a 冲杠 (direct kong) can be made on a discard, not a {action.kind} kong"
            if self.end_phase:
                return "no kong of any kind in the end phase (海底)"
            return f"冲杠 of {ts} needs three {ts} in hand"
        if isinstance(action, Chi):
            nxt = (self.pending_from or 0) + 1
            if seat != nxt % 4:
                return f"only the discarder's next player (seat {nxt % 4}) may chi"
            if t not in action.tiles:
                return f"chi {action} does not use the discard {ts}"
            need = [x for x in action.tiles if x != t]
            if self.laizi in need:
                return f"the laizi {tile_str(self.laizi)} never takes part in a chi"
            missing = [tile_str(x) for x in need if not c[x]]
            return f"chi {action} needs {' and '.join(missing)} in hand"
        return f"{action} is not an answer to a discard: claim (win, peng, kong direct, chi) or pass"

    def _why_turn(self, seat: int, action: Action) -> str:
        c = self.counts[seat]
        if isinstance(action, Pass):
            return "a player cannot pass his own turn: he must discard (or kong, or win)"
        if isinstance(action, (Chi, Peng)):
            return f"{action.__class__.__name__.lower()} claims a discard; there is none to claim"
        if isinstance(action, Win):
            if self.drawn is None:
                return "a win in one's own turn must follow a draw (self-draw); there was none"
            return f"no win: {self._win_why[seat]}"
        if isinstance(action, Discard):
            t = action.tile
            if t in self.must:
                return (f"{tile_str(t)} can never be discarded normally; playing it is a "
                        f"{'红中杠' if t == RED else '发财杠'} (special_kong)")
            if t == self.laizi:
                return (f"the laizi {tile_str(t)} is not discarded normally: use laizi_discard "
                        "(丢癞子) or special_kong laizi (癞子杠)")
            return f"{tile_str(t)} is not in seat {seat}'s hand"
        if isinstance(action, LaiziDiscard):
            return f"seat {seat} holds no laizi ({tile_str(self.laizi)})"
        if self.end_phase and isinstance(action, (Kong, SpecialKong)):
            return "no kong of any kind in the end phase (海底)"
        if isinstance(action, SpecialKong):
            kind = action.kind
            if kind == "green" and GREEN not in self.must:
                return "发财杠 is only played when 发财 is a must-kong tile (laizishanzhuang)"
            if kind == "pi" and self.pi_tile is None:
                return "癞子皮杠 is not played under these rules"
            tile = {"red": RED, "green": GREEN, "laizi": self.laizi}.get(kind, self.indicator)
            return f"{SPECIAL_ZH[kind]} needs a {tile_str(tile)} in hand"
        if isinstance(action, Kong):
            t = action.tile
            if t == self.laizi:
                return f"the laizi {tile_str(t)} never takes part in a kong (use special_kong laizi)"
            if t in self.must:
                return f"{tile_str(t)} is only ever konged singly (special_kong)"
            if action.kind == "direct":
                return "a 冲杠 (direct kong) claims a discard; there is none to claim"
            if action.kind == "concealed":
                return f"暗杠 of {tile_str(t)} needs all four in hand (has {c[t]})"
            if not any(m.type == "peng" and m.tiles[0] == t for m in self.melds[seat]):
                return f"蓄杠 of {tile_str(t)} needs a peng of {tile_str(t)}"
            return f"蓄杠 of {tile_str(t)} needs the fourth {tile_str(t)} in hand"
        return f"{action} is not legal now"  # pragma: no cover


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
        out[RED] += sp[0]
        out[GREEN] += sp[1]
        out[state.laizi] += sp[2]
        out[state.indicator] += sp[3]
        for t, claimed, lz in state.rivers[s]:
            if claimed < 0 and not lz:
                out[t] += 1
        out[state.laizi] += sp[LAIZI_DISCARDS]
    if state.phase == "rob" and state.pending_tile is not None:
        out[state.pending_tile] += 1
    return out


def opening_total(state: HandState, seat: int) -> int:
    """Openings (口) of ``seat`` as the settlement counts them."""
    return opening_count(state.melds[seat], state.rules.direct_kong_opens)
