"""The shape reading of the opponents' waits and the expert's safe swap (issue 16).

``OpponentModel(waits="shapes")`` counts the ready shapes an opponent could hold with the
tiles this seat has not seen, instead of sampling his hand; ``ExpertBot(swap_slack=k)``
plays, among the discards as fast as its choice, the one those shapes make cheapest to
deal in with.  Measured on real deals (``bench/bots_dealin_study.py``, docs/bots-log.md)."""

from __future__ import annotations

import random

import pytest
from handmade import make_view, meld

from wuhan_mahjong.bots.arena import _seed_for, deal
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.greedy import GreedyBot, evaluator
from wuhan_mahjong.bots.opponents import OpponentModel
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine import new_hand, seat_view
from wuhan_mahjong.engine.actions import Discard
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.tiles import parse_tile

ONE_CHI = {1: [meld("chi", "123s", 0)]}
HAND = "234m456m55s78s9p1m6p7p"


def _waits(view: object, seat: int = 1) -> list[float]:
    t = SeatReading(view)  # type: ignore[arg-type]
    return OpponentModel(t, random.Random(0), waits="shapes").reads[seat].waits


def test_an_unknown_wait_model_is_refused() -> None:
    t = SeatReading(make_view(HAND, melds=ONE_CHI))
    with pytest.raises(ValueError, match="waits"):
        OpponentModel(t, random.Random(0), waits="guess")


def test_the_shape_reading_samples_nothing() -> None:
    view = make_view(HAND, melds=ONE_CHI, discards={1: "9m1z"})
    t = SeatReading(view)
    a = OpponentModel(t, random.Random(1), waits="shapes")
    b = OpponentModel(t, random.Random(2), waits="shapes")
    assert a.reads[1].waits == b.reads[1].waits and a.work == b.work == 0


def test_a_kind_he_threw_is_waited_on_less() -> None:
    plain = _waits(make_view(HAND, melds=ONE_CHI, discards={1: "1z2z"}))
    threw = _waits(make_view(HAND, melds=ONE_CHI, discards={1: "1z3p"}))
    three_p = parse_tile("3p")
    assert threw[three_p] < 0.5 * plain[three_p]


def test_a_run_whose_tiles_are_all_in_sight_waits_on_nothing() -> None:
    """With every 4p and 5p in sight the 45p 两面 is impossible: 3p and 6p are waited on
    less than when those tiles are live (the same hand with 4444s5555s instead)."""
    dead = _waits(make_view("4444p5555p678m99m1z", melds=ONE_CHI))
    live = _waits(make_view("4444s5555s678m99m1z", melds=ONE_CHI))
    for tile in ("3p", "6p"):
        assert dead[parse_tile(tile)] < 0.8 * live[parse_tile(tile)], tile


def test_a_single_held_tile_waits_only_to_pair_a_258() -> None:
    """Four melds and one tile held (全求人): a small hand waits on a 2/5/8 to pair, never
    on a run, and never on an honour."""
    four = {1: [meld("chi", "123s", 0), meld("chi", "456s", 0), meld("peng", "777m", 2),
                meld("chi", "678p", 0)]}
    w = _waits(make_view(HAND, melds=four))
    for tile in ("1m", "3p", "4m", "9s", "1z", "3m"):
        assert w[parse_tile(tile)] == 0.0, tile
    assert all(w[parse_tile(x)] > 0 for x in ("2m", "5p", "8s"))


def test_swaps_are_off_by_default() -> None:
    bot = ExpertBot(1)
    assert bot.swap_slack < 0
    view = make_view(HAND, melds=ONE_CHI, discards={1: "1z2z"})
    bot.choose(view)
    assert bot.swapped == 0


@pytest.mark.parametrize("profile", ["yuanhang", "laizishanzhuang"])
@pytest.mark.parametrize("slack", [0, 2])
def test_a_swap_is_as_fast_and_cheaper(profile: str, slack: int) -> None:
    """On real positions (expert against three greedy, tuning seed 5): wherever the swap
    changes the discard, the new tile keeps the shanten, gives up at most ``slack``
    improving tiles, and costs at least ``swap_gain`` less by the shape reading."""
    rules = get_rules(profile)
    swaps = 0
    for g in range(12):
        if swaps >= 3:
            break
        wall, salt = deal(5, g)
        state = new_hand(rules, 0, wall=wall, salt=salt, hand_no=g, auto_pass=True)
        bots = [ExpertBot(_seed_for(5, g, 0, 0))] + [GreedyBot(_seed_for(5, g, 0, i))
                                                     for i in (1, 2, 3)]
        while not state.ended:
            s = state.to_act()[0]
            view = seat_view(state, s)
            action = bots[s].choose(view)
            if s == 0 and view["phase"] == "turn" and isinstance(action, Discard):
                swapper = ExpertBot(_seed_for(5, g, 0, 0), swap_slack=slack)
                swapped = swapper.choose(view)
                if swapped != action:
                    assert swapper.swapped == 1 and isinstance(swapped, Discard)
                    t = SeatReading(view)
                    ev = evaluator(t.hand, t.melds, t)
                    old, new = action.tile, swapped.tile
                    sh = ev.shanten_after(old, -1)
                    assert ev.shanten_after(new, -1) == sh
                    assert (ev.with_tile(new, -1).acceptance(t.unseen, t.laizi, current=sh)[0]
                            >= ev.with_tile(old, -1).acceptance(t.unseen, t.laizi,
                                                                current=sh)[0] - slack)
                    model = OpponentModel(t, random.Random(0), waits="shapes")
                    cost = {d: sum(model.risk(d, sh)[1:]) for d in (old, new)}
                    assert cost[new] <= cost[old] - swapper.swap_gain
                    swaps += 1
            state.apply(s, action)
    assert swaps > 0


def test_the_expert_reads_waits_by_shapes_on_request() -> None:
    with pytest.raises(ValueError, match="waits"):
        ExpertBot(1, waits="guess")
    view = make_view(HAND, melds=ONE_CHI, discards={1: "1z2z"}, wall=20)
    bot = ExpertBot(1, waits="shapes")
    action = bot.choose(view)
    assert bot.model().wait_model == "shapes" and bot.model().work == 0
    assert ExpertBot(2, waits="shapes").choose(view) == action  # nothing sampled
