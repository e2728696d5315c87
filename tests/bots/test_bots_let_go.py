"""The kinds an opponent let go by since his last discard (``SeatReading.discard_order``,
``OpponentModel(let_go=True)``): his hand has not changed since, and nobody passes a win,
so none of them can win for him now; a strong player throws them first."""

from __future__ import annotations

import random

import pytest
from handmade import make_view, meld

from wuhan_mahjong.bots.arena import deal
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.greedy import GreedyBot
from wuhan_mahjong.bots.opponents import OpponentModel
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine import new_hand, seat_view
from wuhan_mahjong.engine.actions import Discard, LaiziDiscard
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.tiles import parse_tile

PROFILES = ("yuanhang", "bianfeng", "laizishanzhuang")


def _played(profile: str, seed: int, hands: int):  # type: ignore[no-untyped-def]
    """Greedy self-play on the arena's deals: (state, seat to act) at every decision."""
    rules = get_rules(profile)
    for hand_no in range(hands):
        wall, salt = deal(seed, hand_no // 4)
        state = new_hand(rules, hand_no % 4, wall=wall, salt=salt, hand_no=hand_no,
                         auto_pass=True)
        bots = [GreedyBot(10 * hand_no + i) for i in range(4)]
        while not state.ended:
            seat = state.to_act()[0]
            yield state, seat
            state.apply(seat, bots[seat].choose(seat_view(state, seat)))


@pytest.mark.parametrize("profile", PROFILES)
def test_the_discard_order_is_rebuilt_from_the_rivers(profile: str) -> None:
    checked = 0
    for state, seat in _played(profile, 3, 8):
        made = [(s, a.tile if isinstance(a, Discard) else state.laizi)
                for kind, s, a, *_ in state.log
                if kind == "act" and isinstance(a, Discard | LaiziDiscard)]
        assert SeatReading(seat_view(state, seat)).discard_order() == made
        checked += bool(made)
    assert checked > 100


@pytest.mark.parametrize("profile", PROFILES)
def test_no_kind_let_go_wins_for_him(profile: str) -> None:
    """Against the engine: at every decision of greedy self-play (turns and claim
    windows, where the discard on the table is still being answered), no kind the model
    takes out as let go by an opened opponent is one he may win on from this seat."""
    taken = 0
    for state, seat in _played(profile, 4, 16):
        t = SeatReading(seat_view(state, seat))
        with_pass = OpponentModel(t, random.Random(0), waits="shapes", let_go=True)
        without = OpponentModel(t, random.Random(0), waits="shapes", let_go=False)
        probe = state.copy()
        for o, read in with_pass.reads.items():
            for k in range(34):
                if read.waits[k] == 0.0 < without.reads[o].waits[k]:
                    taken += 1
                    assert not probe._discard_win(o, k, seat, rob=False), (o, k)
    assert taken > 50


PINS = [meld("chi", "123p", 0), meld("peng", "555p", 2), meld("chi", "789p", 0)]


def test_the_pin_the_flush_let_go_is_thrown() -> None:
    """远航, wall 14: seat 1 (the dealer) shows three melds of 筒, two of them chis of this
    seat's discards; after his last discard (8m) seat 2 threw 9s and seat 3 threw 6p, and
    he won on neither.  This seat, one step from ready,
    keeps its shape and throws the 6p he let go by; read without the pass, 6p is the
    most dangerous tile in the hand and the expert breaks its shape to hold it."""
    view = make_view("123m456s789s24m55m6p", wall=14, melds={1: PINS}, dealer=1,
                     discards={0: "3p>1 9p>1 2m", 1: "1s9m4z7s8m", 2: "1z5p>1 3m9s9s",
                               3: "3z4z1p6p"})
    t = SeatReading(view)
    assert t.offered_since_discard(1) == [(2, parse_tile("9s")), (3, parse_tile("6p"))]
    read = OpponentModel(t, random.Random(1), waits="shapes", let_go=True).reads[1]
    assert read.focus == "qys1" and read.p_ready > 0.5 and read.waits[parse_tile("6p")] == 0
    assert ExpertBot(1, let_go=True).choose(view) == Discard(parse_tile("6p"))
    assert ExpertBot(1, let_go=False).choose(view) != Discard(parse_tile("6p"))
