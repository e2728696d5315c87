"""The bots read the caps as the settlement applies them (``scoring.cap_amounts``): 金顶 and
光明顶, and caps counted in hand bases (``cap_unit = hand_base``, a table option).

Before, every bot estimate capped each loser's share at the plain 封顶 in table stakes: a
win that reaches 金顶 looked worth three caps (900 in 远航) instead of three golden caps
(1,200), and at a table whose caps count in hand bases a big hand (base 10, caps ×10)
looked worth no more than a small one's cap, and a deal-in to one cost no more either.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import pytest
from handmade import make_view, meld

from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.greedy import evaluator
from wuhan_mahjong.bots.opponents import OpponentModel
from wuhan_mahjong.bots.search import _most_collected
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.scoring import cap_amounts, loser_caps
from wuhan_mahjong.tiles import parse_tile

THREE_CHIS = [meld("chi", "123m", 3), meld("chi", "456p", 3), meld("chi", "345s", 3)]
PINS = [meld("chi", "123p", 0), meld("peng", "555p", 2), meld("chi", "789p", 0)]
DISCARDS = {1: "1s9m4z7s2m3z8m", 2: "1z2z9s", 3: "3z4z1p"}


def _with_options(view: Any, **options: Any) -> Any:
    view["options"] = options
    return view


def _golden_view(profile: str, red: int = 2) -> Any:
    """远航 (口口翻): this seat has three chis (×8), two 红中 kongs (×4) and is the dealer
    (×2), every other seat three openings of his own (×8): each raw share of a small win
    is 512 ≥ 300, the cap, for all three: 金顶."""
    melds = {0: [meld("chi", "789m", 3), meld("chi", "678p", 3), meld("chi", "678s", 3)],
             1: [meld("peng", "111m", 2), meld("peng", "999p", 2), meld("peng", "111s", 2)],
             2: [meld("peng", "222m", 1), meld("peng", "888p", 1), meld("peng", "999s", 1)],
             3: [meld("peng", "333m", 1), meld("peng", "777p", 1), meld("peng", "222s", 1)]}
    return make_view("55m23s9p", profile=profile, indicator="9s", dealer=0, melds=melds,
                     red_kongs={0: red})


def test_a_golden_win_is_worth_three_golden_caps() -> None:
    t = SeatReading(_golden_view("yuanhang"))
    mw = t.my_multiplier(big=False, hard=False, self_drawn=False)
    raws = t.win_amounts(1, mw, None)
    assert all(r >= 300 for r in raws)
    assert t.collected(1, mw, None) == 3 * 400  # 金顶 (yuanhang: reach 300, pay 400)
    ev = evaluator(t.hand, t.melds, t)
    assert ExpertBot(1).my_win_value(t, ev, big=False) == 1200


def test_a_never_opened_loser_pays_the_bright_cap() -> None:
    """赖子山庄: 金顶 when every loser's share exceeds 400 (500 each), and one who never
    opened pays 光明顶 (600).  This seat (opened, dealer, a 红中 and a 发财 kong, hard and
    self-drawn: ×64) wins; seats 1 and 2 opened and hold a 发财 and a laizi kong (×8);
    seat 3 opened nothing, but his three 红中 kongs (×8) carry his share past 400 too."""
    view = _golden_view("laizishanzhuang", red=1)
    view["seats"][3]["melds"] = []
    view["seats"][3]["concealed"] = 13
    view["seats"][3]["special_kongs"]["red"] = 3
    for s in (0, 1, 2):
        view["seats"][s]["special_kongs"]["green"] = 1
    for s in (1, 2):
        view["seats"][s]["special_kongs"]["laizi"] = 1
    t = SeatReading(view)
    mw = t.my_multiplier(big=False, hard=True, self_drawn=True)
    raws = t.win_amounts(1, mw, None)
    assert all(r > 400 for r in raws)
    assert t.collected(1, mw, None) == 500 + 500 + 600


def test_the_caps_step_is_the_settlement_s() -> None:
    """``cap_amounts`` is the step ``settle`` applies (its worked examples, 金顶 and 光明顶
    among them, pass through it); the bots' ``collected`` is its sum, so one rule lives in
    one place."""
    r = get_rules("laizishanzhuang")
    raws = {1: Fraction(512), 2: Fraction(401), 3: Fraction(640)}
    out = cap_amounts(raws, {1: False, 2: True, 3: False}, r, 1)
    assert out == {1: (Fraction(500), "golden"), 2: (Fraction(600), "bright"),
                   3: (Fraction(500), "golden")}
    raws[2] = Fraction(400)  # 赖子山庄's 金顶 needs every share to exceed the cap
    out = cap_amounts(raws, {1: False, 2: True, 3: False}, r, 1)
    assert out == {1: (Fraction(400), "cap"), 2: (Fraction(400), "none"), 3: (Fraction(400), "cap")}


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng", "laizishanzhuang"])
def test_caps_in_hand_bases_scale_a_big_hand(profile: str) -> None:
    stake = get_rules(profile)
    hand_base = get_rules(profile, {"cap_unit": "hand_base"})
    assert loser_caps(stake, 10) == loser_caps(stake, 1) == stake.caps()
    assert loser_caps(hand_base, 10) == tuple(10 * c for c in stake.caps())
    assert _most_collected(hand_base, 10) == 10 * _most_collected(stake, 10)


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng"])
def test_a_big_target_is_worth_more_where_caps_count_in_hand_bases(profile: str) -> None:
    """Four claimed melds shown by this seat, two of them 冲杠, and three 红中 kongs (碰碰胡
    is its target, base 10; ×2 for each kong, and the openings): each loser's raw share
    of its win is past the stake cap.  In table stakes the estimate is held at three golden caps (1,200);
    in hand bases the caps are ten times higher and it is not."""
    four = {0: [meld("kong", "1111m", 3), meld("peng", "777p", 2), meld("kong", "3333s", 3),
                meld("peng", "999m", 1)]}
    values = {}
    for unit in ("stake", "hand_base"):
        view = make_view("9s5p", profile=profile, melds=four, red_kongs={0: 3})
        t = SeatReading(_with_options(view, cap_unit=unit))
        mw = t.my_multiplier(big=True, hard=False, self_drawn=False)
        assert all(r >= 300 for r in t.win_amounts(10, mw, None))
        ev = evaluator(t.hand, t.melds, t)
        values[unit] = ExpertBot(1).my_win_value(t, ev, big=True)
    assert values["stake"] == 3 * 400
    assert values["hand_base"] > 3 * 400


def test_a_deal_in_to_a_big_hand_costs_more_where_caps_count_in_hand_bases() -> None:
    """Against three melds of pins (a 清一色 read), the 9p's deal-in is a big hand's: in
    table stakes it is held under the 300 cap, in hand bases under 3,000."""
    costs = {}
    for unit in ("stake", "hand_base"):
        view = _with_options(make_view("234m456m55s23s78s9p1m", wall=15, melds={1: PINS},
                                       discards=DISCARDS, dealer=2), cap_unit=unit)
        model = OpponentModel(SeatReading(view), random.Random(1), samples=50)
        assert model.big_win_on(1, parse_tile("9p"))
        costs[unit] = model.deal_in_cost(1, parse_tile("9p"))
    assert costs["stake"] <= 300 < costs["hand_base"] <= 3000
