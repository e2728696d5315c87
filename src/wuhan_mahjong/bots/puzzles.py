"""Discard problems (何切, "which tile do you cut?"): the training puzzles of the mahjong apps
and books, drawn from bots' play and answered by the rules core.

Puzzle ``number`` of a profile is one position: a seat's turn, fourteen tiles in hand (the
drawn one among them), his melds, the indicator and the laizi.  The question is the one of
tile efficiency (牌效): which discard leaves the hand closest to ready (向听, shanten) and,
among those, brings it a step closer with the most tiles (进张, tile acceptance)?  The
answer is a fact of the rules, not a bot's opinion: :func:`wuhan_mahjong.analysis.shanten`
(the 2/5/8 pair, 将一色, 风一色, 清一色 and 碰碰胡 included, the laizi wild) decides every
choice, and only positions whose best discard is one kind, with at least two others as
close to ready, become puzzles: a real choice with one right answer.

Tiles are counted as the books count them, from what the solver sees of his own: four of
each kind, less those in his hand, in his melds and the face-up indicator.  The must-kong
tiles (红中, and 发财 where it is one) never stay in a hand, so drawing one is no step.

A puzzle is a pure function of (profile, number): it is found by dealing from a generator
seeded with both, letting four greedy bots play (they are bounded by work and break ties
in a fixed order) and stopping at one seat's turn, from its third to its ninth, whose hand
holds no laizi, no must-kong tile and no 癞子皮 (those turns ask another question: which
special kong). Numbers run from 1 to :data:`PUZZLE_NUMBER_MAX`, so there are puzzles
enough for everybody and none is stored.

>>> p = make_puzzle("yuanhang", 1)
>>> p == make_puzzle("yuanhang", 1) and len(p.hand) + 3 * len(p.melds) == 14
True
>>> best, *rest = p.choices
>>> best.tile == p.answer and best.shanten <= rest[0].shanten
True
>>> sum(c.shanten == best.shanten for c in p.choices) >= 3
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date
from typing import Any

from ..engine.actions import Discard
from ..engine.dealing import new_salt, shuffled_wall
from ..engine.state import HandState, new_hand
from ..meld import Meld
from ..rules import PROFILES, Rules, get_rules
from ..tiles import NUM_KINDS, format_tiles, tile_str
from .greedy import GreedyBot
from .handeval import Evaluator
from .view import int_view

__all__ = ["PUZZLE_NUMBER_MAX", "Choice", "Puzzle", "PuzzleError",
           "check_puzzle_id", "daily_number", "make_puzzle", "puzzle_json"]

PUZZLE_NUMBER_MAX = 999_999_999
"""The highest puzzle number of a profile (numbers start at 1)."""
FIRST_TURN, LAST_TURN = 3, 9
"""The seat's turns a puzzle may stop at: past the opening, before the end game."""
ALTERNATIVES = 2
"""Other discards at least as close to ready as the answer, for a real choice."""
DEALS = 256
"""Deals tried for one puzzle before giving up (about half of all deals give one; a
number whose deals all fail is an error nobody has met)."""


class PuzzleError(ValueError):
    """No such puzzle: an unknown profile, or a number outside 1 to
    :data:`PUZZLE_NUMBER_MAX`."""


@dataclass(frozen=True)
class Choice:
    """One discard: the shanten it leaves and its acceptance."""

    tile: int
    shanten: int
    acceptance: int
    """Tiles (copies not seen by the solver) that, drawn, take the hand a step closer."""
    kinds: tuple[int, ...]
    """The kinds of those tiles, in order."""


@dataclass(frozen=True)
class Puzzle:
    """One discard problem; ``choices`` are every legal discard kind, best first."""

    profile: str
    number: int
    hand: tuple[int, ...]
    """The fourteen (less three per meld) concealed tiles, sorted, the drawn one included."""
    drawn: int | None
    """The tile just drawn (``None`` after a claim: the turn began with a chi or peng)."""
    melds: tuple[Meld, ...]
    indicator: int
    laizi: int
    turn: int
    """The seat's turn in the hand (1 = its first discard)."""
    wall_left: int
    dealer: bool
    choices: tuple[Choice, ...]

    @property
    def answer(self) -> int:
        """The best discard: the lowest shanten, then the most acceptance (one kind)."""
        return self.choices[0].tile


def daily_number(day: date) -> int:
    """The puzzle of the day (每日一题): the same number for everybody on ``day``."""
    return day.toordinal() % PUZZLE_NUMBER_MAX + 1


def check_puzzle_id(profile: str, number: int) -> None:
    """:class:`PuzzleError` unless puzzle ``number`` of ``profile`` exists."""
    if profile not in PROFILES:
        raise PuzzleError(f"unknown profile '{profile}' (choose from {', '.join(PROFILES)})")
    if not 1 <= number <= PUZZLE_NUMBER_MAX:
        raise PuzzleError(f"puzzle numbers run from 1 to {PUZZLE_NUMBER_MAX:,}")


def make_puzzle(profile: str, number: int) -> Puzzle:
    """Puzzle ``number`` of ``profile`` (see the module docstring)."""
    check_puzzle_id(profile, number)
    rules = get_rules(profile)
    for deal in range(DEALS):
        found = _from_deal(rules, number, random.Random(f"wuhan-mahjong puzzle {profile} "
                                                        f"{number} {deal}"))
        if found is not None:
            return found
    raise RuntimeError(f"no position for puzzle {number} of {profile} in {DEALS} deals")


def _from_deal(rules: Rules, number: int, rng: random.Random) -> Puzzle | None:
    dealer = rng.randrange(4)
    state = new_hand(rules, dealer, wall=shuffled_wall(rng), salt=new_salt(rng),
                     auto_pass=True)
    # greedy: fast, and it plays as people do (deterministic, so no seed)
    bots = [GreedyBot(None) for _ in range(4)]
    seat = rng.randrange(4)
    first = rng.randrange(FIRST_TURN, LAST_TURN + 1)
    turn = 0
    while not state.ended:
        s = state.to_act()[0]
        if s == seat and state.phase == "turn":
            turn += 1
            if first <= turn <= LAST_TURN:
                found = _position(state, seat, rules, number, turn)
                if found is not None:
                    return found
            elif turn > LAST_TURN:
                return None
        state.apply(s, bots[s].choose(int_view(state, s)))
    return None


def _position(state: HandState, seat: int, rules: Rules, number: int,
              turn: int) -> Puzzle | None:
    """The puzzle at ``seat``'s turn, if the position makes one."""
    counts = state.counts[seat]
    special = {state.laizi, *state.must}
    if state.pi_tile is not None:
        special.add(state.pi_tile)
    if any(counts[t] for t in special):
        return None
    hand = [t for t in range(NUM_KINDS) for _ in range(counts[t])]
    melds = tuple(state.melds[seat])
    kinds = sorted({a.tile for a in state.legal_actions(seat) if isinstance(a, Discard)})
    seen = list(counts)
    for meld in melds:
        for t in meld.tiles:
            seen[t] += 1
    seen[state.indicator] += 1
    unseen = [4 - n for n in seen]
    # the bots' hand evaluator: shanten exactly as the rules core counts it (the tests hold
    # the two equal), at a fraction of the cost
    whole = Evaluator(counts, 0, melds, state.must, rules.pengpenghu)
    after = {t: whole.with_tile(t, -1) for t in kinds}
    # shanten first (one call a discard): most positions fail here, before the acceptance
    # (thirty-four calls a discard) is counted
    left = {t: ev.shanten_after(-1, 0) for t, ev in after.items()}
    best_shanten = min(left.values())
    close = [t for t in kinds if left[t] == best_shanten]
    if best_shanten < 1 or len(close) <= ALTERNATIVES:
        # ready hands ask about waits and the minimum score, not efficiency; and a cut
        # with too few rivals is no puzzle
        return None

    def choices(among: list[int]) -> list[Choice]:
        return sorted((_choice(after[t], t, left[t], unseen, state.laizi)
                       for t in among), key=lambda c: (c.shanten, -c.acceptance, c.tile))

    best = choices(close)
    if best[1].acceptance == best[0].acceptance:  # a tie has no one answer
        return None
    rivals = best[1:] + choices([t for t in kinds if left[t] != best_shanten])
    return Puzzle(profile=rules.profile, number=number, hand=tuple(hand), drawn=state.drawn,
                  melds=melds, indicator=state.indicator, laizi=state.laizi, turn=turn,
                  wall_left=state.tail - state.head, dealer=seat == state.dealer,
                  choices=(best[0], *rivals))


def _choice(ev13: Evaluator, tile: int, now: int, unseen: list[int], laizi: int) -> Choice:
    """Discarding ``tile`` leaves the hand of ``ev13`` at shanten ``now``: its acceptance."""
    kinds = ev13.acceptance_kinds(unseen, laizi, current=now)
    return Choice(tile, now, sum(unseen[t] for t in kinds), kinds)


def puzzle_json(puzzle: Puzzle, *, answer: bool) -> dict[str, Any]:
    """The puzzle in the API's JSON form: the position, and with ``answer`` every choice
    (best first) and the answer."""
    out: dict[str, Any] = {
        "profile": puzzle.profile,
        "number": puzzle.number,
        "hand": format_tiles(puzzle.hand),
        "drawn": None if puzzle.drawn is None else tile_str(puzzle.drawn),
        "melds": [{"type": m.type, "kind": m.kind, "tiles": format_tiles(m.tiles)}
                  for m in puzzle.melds],
        "indicator": tile_str(puzzle.indicator),
        "laizi": tile_str(puzzle.laizi),
        "turn": puzzle.turn,
        "wall_left": puzzle.wall_left,
        "dealer": puzzle.dealer,
        "discards": [tile_str(c.tile) for c in sorted(puzzle.choices, key=lambda c: c.tile)],
    }
    if answer:
        out["answer"] = tile_str(puzzle.answer)
        out["choices"] = [{"tile": tile_str(c.tile), "shanten": c.shanten,
                           "acceptance": c.acceptance, "kinds": format_tiles(c.kinds)}
                          for c in puzzle.choices]
    return out
