"""Win questions (胡不胡, "can he win?"): a position whose tiles make a winning shape, and
the question every Wuhan table asks before a hand is laid down: may it win, and for how
much?

The shape is there, but the rules ask more: a hand must have opened (开口), hold no 红中
(or 发财 where it must be konged), a small hand needs a 2/5/8 pair and at most one laizi,
and the losers must owe the profile's minimum score (起胡分), which counts every seat's own
factors, his melds, kongs and laizi thrown.  The question is a settlement record
(``docs/score.md``) with everything the table shows; the answer is what the settlement
calculator says of it (:func:`wuhan_mahjong.calculator.score_record`): the settlement, or
the rule that stops the win.  Nothing is decided here.

Question ``number`` of a profile is a pure function of (profile, number): four greedy bots
play a deal seeded with both; at every moment a seat's hand and a tile (his draw, or
another's discard) make a winning shape, the position is a candidate, and one of the
candidates whose answer is the one drawn for the number (yes or no, half and half, so that
guessing pays nothing) becomes the question.

>>> q = make_win_question("yuanhang", 1)
>>> q == make_win_question("yuanhang", 1) and q.win == (q.answer.get("valid") is not False)
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from ..analysis import is_winning_shape
from ..calculator import answer_record
from ..engine.dealing import new_salt, shuffled_wall
from ..engine.state import HandState, new_hand
from ..rules import Rules, get_rules
from ..win_record import WinRecord, dump_win_record
from .greedy import GreedyBot
from .puzzles import DEALS, check_puzzle_id
from .view import int_view

__all__ = ["WinQuestion", "make_win_question", "win_question_json"]



@dataclass(frozen=True)
class WinQuestion:
    profile: str
    number: int
    record: dict[str, Any]
    """The settlement record: the question (``docs/score.md``)."""
    win: bool
    answer: dict[str, Any]
    """The calculator's answer: the settlement, or ``{"valid": false, "reason", "refusal"}``."""


def make_win_question(profile: str, number: int) -> WinQuestion:
    """Question ``number`` of ``profile`` (see the module docstring)."""
    check_puzzle_id(profile, number)
    rules = get_rules(profile)
    want = random.Random(f"wuhan-mahjong win question {profile} {number}").random() < 0.5
    for deal in range(DEALS):
        rng = random.Random(f"wuhan-mahjong win question {profile} {number} {deal}")
        found = _from_deal(rules, number, rng, want)
        if found is not None:
            return found
    raise RuntimeError(f"no position for win question {number} of {profile} in {DEALS} deals")


def _from_deal(rules: Rules, number: int, rng: random.Random,
               want: bool) -> WinQuestion | None:
    """Play the deal to its end; one of its candidates whose answer is ``want``, drawn
    with ``rng`` (a question from anywhere in the hand, not only its first winning shape)."""
    state = new_hand(rules, rng.randrange(4), wall=shuffled_wall(rng), salt=new_salt(rng),
                     auto_pass=True)
    bots = [GreedyBot(None) for _ in range(4)]
    found: list[tuple[WinRecord, dict[str, Any]]] = []
    while not state.ended:
        for rec in _candidates(state):
            scored = answer_record(rec)  # the calculator's, as POST /api/score answers
            if scored.settled == want:
                found.append((rec, scored.body))
        s = state.to_act()[0]
        state.apply(s, bots[s].choose(int_view(state, s)))
    if not want:
        # "not opened" is the refusal of most closed shapes and the first a player learns:
        # another reason, where the hand had one, teaches more
        other = [f for f in found if f[1]["refusal"]["code"] != "not_opened"]
        found = other or found
    if not found:
        return None
    rec, answer = found[rng.randrange(len(found))]
    return WinQuestion(rules.profile, number, dump_win_record(rec), want, answer)


def _candidates(state: HandState) -> list[WinRecord]:
    """The winning shapes of this moment, as settlement records: the player to move with
    his draw, or each player who may answer a discard with it."""
    out = []
    laizi = state.laizi
    if state.phase in ("turn", "final") and state.drawn is not None:
        s = state.current
        win_by = state.win_by_now(s)  # the engine's: a self-draw, 杠上花 or 海底捞
        hand = list(state.hand_tiles(s))
        if win_by and is_winning_shape(hand, state.melds[s], laizi, state.rules):
            hand.remove(state.drawn)
            out.append(_record(state, s, win_by, None, state.drawn, tuple(hand)))
    elif state.phase == "claim" and state.pending_tile is not None:
        # every other player, whether or not the engine offers him the win: the question
        # is the rules' (a hand that has not opened is asked about too)
        tile, frm = state.pending_tile, state.pending_from
        for s in range(4):
            held = state.hand_tiles(s)
            if s != frm and is_winning_shape([*held, tile], state.melds[s], laizi, state.rules):
                out.append(_record(state, s, "discard", frm, tile, tuple(held)))
    return out


def _record(state: HandState, winner: int, win_by: str, frm: int | None, tile: int,
            hand: tuple[int, ...]) -> WinRecord:
    seats = tuple(state.seat_state(s, hand if s == winner else None) for s in range(4))
    return WinRecord(state.rules, state.dealer, state.indicator, winner, win_by, frm, tile,
                     seats)


def win_question_json(q: WinQuestion, *, answer: bool) -> dict[str, Any]:
    """The question in the API's JSON form, and with ``answer`` the verdict and the
    calculator's answer."""
    out: dict[str, Any] = {"profile": q.profile, "number": q.number, "record": q.record}
    if answer:
        out["win"] = q.win
        out["result"] = q.answer
    return out
