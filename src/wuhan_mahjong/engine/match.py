"""A match: several hands with dealer rotation, running totals and escapes.

Dealer rotation (Project decision 8): the dealer keeps the deal after his own
win or a 荒庄 (option ``dealer_keeps_after_draw``); otherwise it passes to the
dealer's next player.  The first
dealer is drawn from the injected random source.

Escape (decision 17): the escaper pays ``rules.escape`` points, split equally
among the other three; when it does not divide by three, the remainder goes
one point each to the escaper's next players in turn order, so the payment is
exactly ``rules.escape`` and the sum is zero.  From then on the seat is played
by :func:`simple_policy`.  (The platform fee of decision 17 is the store's
business, not the engine's.)

Policies are plain functions ``(state, seat) -> action``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..analysis import shanten
from ..meld import Meld
from ..rules import Rules
from ..tiles import is_honour
from .actions import PASS, WIN, Action, Chi, Discard, LaiziDiscard, Peng, SpecialKong
from .dealing import default_rng
from .state import HandResult, HandState, new_hand

Policy = Callable[[HandState, int], Action]


class MatchError(ValueError):
    """A match-level misuse: starting a hand while one is on, escaping twice ..."""


def random_policy(rng: random.Random) -> Policy:
    """Uniformly random legal actions, except that a win is always taken."""

    def play(state: HandState, seat: int) -> Action:
        acts = state.legal_actions(seat)
        if acts[0] is WIN:
            return WIN
        return acts[int(rng.random() * len(acts))]

    return play


def simple_policy(state: HandState, seat: int) -> Action:
    """The built-in player for escaped seats: win when it can; peng or chi (a Wuhan hand
    must open to win); play 红中 / 发财 out at once; otherwise discard the tile that
    leaves the best shanten (honours and edge tiles first on ties).  Never kongs
    otherwise, never 丢癞子."""
    acts = state.legal_actions(seat)
    if not acts:
        raise MatchError(f"seat {seat} has nothing to do")
    if WIN in acts:
        return WIN
    if state.phase != "turn":
        return next((a for a in acts if isinstance(a, (Peng, Chi))), PASS)
    for a in acts:
        if isinstance(a, SpecialKong) and a.kind in ("red", "green"):
            return a
    discards = [a for a in acts if isinstance(a, Discard)]
    if not discards:
        return next((a for a in acts if isinstance(a, LaiziDiscard)), acts[0])
    hand = list(state.hand_tiles(seat))
    melds: list[Meld] = state.melds[seat]
    best: tuple[tuple[int, int, int], Action] | None = None
    for a in discards:
        rest = list(hand)
        rest.remove(a.tile)
        t = a.tile
        edge = 0 if is_honour(t) else (1 if t % 9 in (0, 8) else 2)
        key = (shanten(rest, melds, state.laizi, state.rules), edge, -t)
        if best is None or key < best[0]:
            best = (key, a)
    assert best is not None
    return best[1]


@dataclass(frozen=True)
class HandSummary:
    """One finished hand of a match."""

    hand_no: int
    dealer: int
    result: HandResult
    records: tuple[str, ...] = field(repr=False)


def escape_deltas(escaper: int, penalty: int) -> tuple[int, int, int, int]:
    """Point changes of an escape: the escaper pays ``penalty``, split among the others.

    >>> escape_deltas(1, 400), escape_deltas(3, 500)
    ((133, -400, 134, 133), (167, 167, 166, -500))
    """
    share, rem = divmod(penalty, 3)
    deltas = [share] * 4
    deltas[escaper] = -penalty
    for k in range(1, rem + 1):
        deltas[(escaper + k) % 4] += 1
    return (deltas[0], deltas[1], deltas[2], deltas[3])


class Match:
    """``hands`` hands played one after the other.

    Drive it with :meth:`start_hand` and :meth:`apply` (a server), or with
    :meth:`run` and one policy per seat (simulations).  ``walls`` supplies
    explicit walls for scripted tests (one per hand); otherwise walls and salts
    come from ``rng`` (default: the OS CSPRNG).
    """

    def __init__(
        self, rules: Rules, hands: int, *, rng: random.Random | None = None,
        walls: Sequence[Sequence[int]] | None = None, first_dealer: int | None = None,
        auto_pass: bool = False,
    ) -> None:
        if hands < 1:
            raise MatchError("a match needs at least one hand")
        self.rules = rules
        self.hands = hands
        self.rng = rng if rng is not None else default_rng()
        self.walls = list(walls) if walls is not None else None
        self.dealer = first_dealer if first_dealer is not None else self.rng.randrange(4)
        self.auto_pass = auto_pass
        self.totals = [0, 0, 0, 0]
        self.escaped: set[int] = set()
        self.escapes: list[tuple[int, int, tuple[int, int, int, int]]] = []  # (hand_no, seat, deltas)
        self.history: list[HandSummary] = []
        self.hand: HandState | None = None

    @property
    def hand_no(self) -> int:
        return len(self.history)

    @property
    def finished(self) -> bool:
        return len(self.history) >= self.hands

    def start_hand(self) -> HandState:
        if self.finished:
            raise MatchError("the match is over")
        if self.hand is not None and not self.hand.ended:
            raise MatchError("a hand is in progress")
        wall = None
        if self.walls is not None:
            if self.hand_no >= len(self.walls):
                raise MatchError(f"no wall given for hand {self.hand_no}")
            wall = self.walls[self.hand_no]
        self.hand = new_hand(self.rules, self.dealer, rng=self.rng, wall=wall,
                             hand_no=self.hand_no, auto_pass=self.auto_pass)
        self._autoplay()
        return self.hand

    def apply(self, seat: int, action: Action) -> None:
        """Play an action in the current hand; escaped seats then play themselves."""
        if self.hand is None or self.hand.ended:
            raise MatchError("no hand in progress: start one first")
        if seat in self.escaped:
            raise MatchError(f"seat {seat} has escaped; the built-in player plays it")
        self.hand.apply(seat, action)
        self._autoplay()

    def escape(self, seat: int) -> tuple[int, int, int, int]:
        """``seat`` leaves: he pays the escape penalty now; a bot plays his seat."""
        if not 0 <= seat < 4:
            raise MatchError(f"no seat {seat}")
        if seat in self.escaped:
            raise MatchError(f"seat {seat} has already escaped")
        deltas = escape_deltas(seat, self.rules.escape)
        self.escaped.add(seat)
        for s in range(4):
            self.totals[s] += deltas[s]
        self.escapes.append((self.hand_no, seat, deltas))
        if self.hand is not None and not self.hand.ended:
            self.hand.note_escape(seat, self.rules.escape, deltas)
            self._autoplay()
        return deltas

    def _autoplay(self) -> None:
        hand = self.hand
        assert hand is not None
        while not hand.ended:
            bots = [s for s in hand.to_act() if s in self.escaped]
            if not bots:
                break
            for s in bots:
                hand.apply(s, simple_policy(hand, s))
                if hand.ended:
                    break
        if hand.ended and (not self.history or self.history[-1].hand_no != hand.hand_no):
            self._finish(hand)

    def _finish(self, hand: HandState) -> None:
        from .records import record_lines

        result = hand.result
        assert result is not None
        for s in range(4):
            self.totals[s] += result.deltas[s]
        self.history.append(HandSummary(hand.hand_no, hand.dealer, result, tuple(record_lines(hand))))
        keeps = (result.winner == self.dealer if result.outcome == "win"
                 else self.rules.dealer_keeps_after_draw)
        if not keeps:
            self.dealer = (self.dealer + 1) % 4

    def run(self, policies: Policy | Sequence[Policy]) -> list[int]:
        """Play every remaining hand with the given policy (or one per seat); the totals."""
        per_seat = list(policies) if isinstance(policies, Sequence) else [policies] * 4
        while not self.finished:
            hand = self.start_hand() if self.hand is None or self.hand.ended else self.hand
            while not hand.ended:
                s = hand.to_act()[0]  # _autoplay leaves no escaped seat to act
                self.apply(s, per_seat[s](hand, s))
        return list(self.totals)


def play_hand(state: HandState, policies: Policy | Sequence[Policy]) -> HandState:
    """Play ``state`` to the end with the policies (no match bookkeeping)."""
    per_seat = list(policies) if isinstance(policies, Sequence) else [policies] * 4
    apply = state.apply
    while True:  # state.to_act()[0], without the tuple
        phase = state.phase
        if phase == "turn" or phase == "final":
            s = state.current
        elif phase == "ended":
            return state
        else:
            s = state.waiting.index(True)
        apply(s, per_seat[s](state, s))


__all__ = ["HandSummary", "Match", "MatchError", "Policy", "escape_deltas",
           "play_hand", "random_policy", "simple_policy"]
