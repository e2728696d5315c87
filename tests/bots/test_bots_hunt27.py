"""Decision problems of the twenty-seventh hunt (6 December 2026, late night): what a
deal-in costs by the settlement in ``laizishanzhuang`` (赖子山庄), beyond the share this
seat would pay anyway had the winner won another way.

The opponent model priced that share at a fixed ratio of the typical shares
(``PLAIN_SHARE / DEAL_IN_SHARE``, 0.62 of the deal-in) in every profile.  By the
settlement (``scoring.settle``) the ratio holds for a small hand under the caps (the
discarder's 放冲 ×2 is a self-draw's 自摸 ×2; another seat's discard costs half), but
not for a big hand (放冲 and 自摸 are both ×1.5: 0.75) nor at the caps, where
``laizishanzhuang``'s 金顶 (500) and 光明顶 (600, a loser who never opened) make his
self-draw cost a closed seat *more* than its own deal-in (capped at 400).  The fault
(the tests fail on the code before the fix): beside seat 1's 清一色 with four 红中 kongs
the model priced a deal-in it would mostly pay anyway at 0.38 of its amount; with
``ExpertBot.settled_later`` (on, in ``laizishanzhuang`` only) the model prices that
share by the settlement's amounts (``OpponentModel.later_ratio``).

Guards: a small hand's price is the fixed ratio in every profile (the switch changes
nothing there), and the twenty-sixth hunt's safe 8m still goes beside the same 清一色
whatever 红中 kongs he shows (a tenth of the speed for most of the risk: the price
falls, but not below what the swap saves).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from handmade import make_view, meld

from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.opponents import (
    DEAL_IN_SHARE,
    LATER_SELF_DRAW,
    PLAIN_SHARE,
    OpponentModel,
)
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.engine.actions import Discard
from wuhan_mahjong.scoring import settle
from wuhan_mahjong.tiles import parse_tile
from wuhan_mahjong.win_record import parse_win_record

#: seat 1: a pin 清一色 in the making, three melds shown (the twenty-sixth hunt's threat)
PINS = [meld("chi", "123p", 0), meld("peng", "555p", 2), meld("chi", "789p", 0)]
RIVERS = {1: "1s9m4z7s2m3z8m", 2: "1z2z9s", 3: "3z4z1p"}
HAND = "234m456m55s34s78s4p8m"
INDICATOR = "1z"  # the laizi is 南 (2z)
FOUR_P = parse_tile("4p")


def _view(profile: str, wall: int, reds: int, melds: list[dict[str, Any]] | None = None
          ) -> SeatView:
    return make_view(HAND, profile=profile, indicator=INDICATOR, wall=wall,
                     melds={1: PINS if melds is None else melds}, discards=RIVERS, dealer=2,
                     red_kongs={1: reds})


def _pays(win_by: str, frm: int | None, reds: int) -> int:
    """This closed seat's (0) share of seat 1's soft 清一色 (23p, 6p and a laizi as the
    other 6p, beside his melds, with ``reds`` 红中 kongs) won on the 4p: what it owes as
    a loser (who feeds his third opening pays the others' shares as well, 承包: the
    model prices that apart)."""
    seats: list[dict[str, Any]] = [
        {"hand": "23p6p2z" if s == 1 else "", "kongs": {"red": reds} if s == 1 else {},
         "melds": [{"type": m["type"], "tiles": m["tiles"], "from": m["from_seat"]}
                   for m in (PINS if s == 1 else [])]} for s in range(4)]
    rec: dict[str, Any] = {"profile": "laizishanzhuang", "dealer": 2, "indicator": INDICATOR,
                           "winner": 1, "win_by": win_by, "winning_tile": "4p", "seats": seats,
                           **({} if frm is None else {"from": frm})}
    return {int(p.loser): int(p.amount) for p in settle(parse_win_record(rec)).payments}[0]


def test_at_the_caps_his_self_draw_costs_a_closed_seat_more_than_its_deal_in() -> None:
    """The settlement's side: with four 红中 kongs (×16) his 清一色 costs this closed seat
    400 on its own discard (the cap), 320 on another seat's (under it) and 600 on his
    self-draw (every loser past 400: 金顶, and 光明顶 for a seat that never opened).
    Without the kongs the deal-in costs 30, the others 20 and 30 (×1.5 either way)."""
    assert (_pays("discard", 0, 4), _pays("discard", 3, 4), _pays("self_draw", None, 4)) \
        == (400, 320, 600)
    assert (_pays("discard", 0, 0), _pays("discard", 3, 0), _pays("self_draw", None, 0)) \
        == (30, 20, 30)


def _settled(reds: int) -> float:
    """What this seat pays anyway over its deal-in, by the settlement's amounts."""
    later = (LATER_SELF_DRAW * _pays("self_draw", None, reds)
             + (1 - LATER_SELF_DRAW) * _pays("discard", 3, reds))
    return later / _pays("discard", 0, reds)


def _model(view: SeatView, on: bool) -> OpponentModel:
    return OpponentModel(SeatReading(view), random.Random(1), settled_later=on)


def test_the_fixed_ratio_is_the_small_hands_self_draw_share() -> None:
    """``LATER_SELF_DRAW`` is the share of his later wins that are self-draws which
    makes a small hand's settled ratio (s × 1 + (1 − s) × ½) the fixed one."""
    s = LATER_SELF_DRAW
    assert s + (1 - s) / 2 == pytest.approx(PLAIN_SHARE / DEAL_IN_SHARE)


@pytest.mark.parametrize("reds", [0, 4])
def test_the_model_prices_what_is_paid_anyway_by_the_settlement(reds: int) -> None:
    """The fault: beside the four-kong 清一色 the share paid anyway is 0.96 of the deal-in
    by the settlement (0.75 without the kongs: ×1.5 both ways); the model used 0.62.
    With the switch its ratio is the settlement's, and the expected deal-in cost of the
    4p, had he surely won anyway, falls to what the settlement leaves."""
    view = _view("laizishanzhuang", 24, reds)
    on, off = _model(view, True), _model(view, False)
    pay = on.deal_in_cost(1, FOUR_P)
    assert on.later_ratio(1, FOUR_P, pay) == pytest.approx(_settled(reds))
    p, cost, _ = on.risk(FOUR_P, 1, anyway=1.0)
    assert p > 0.05
    assert cost == pytest.approx(p * pay * (1 - _settled(reds)))
    assert off.risk(FOUR_P, 1, anyway=1.0)[1] == pytest.approx(
        p * pay * (1 - PLAIN_SHARE / DEAL_IN_SHARE))


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng", "laizishanzhuang"])
def test_guard_a_small_hand_keeps_the_fixed_ratio(profile: str) -> None:
    """Guard: beside a small hand (seat 1's 999s and 678m, no suit read) under the caps
    the settled ratio is the fixed one in every profile."""
    view = _view(profile, 24, 0, [meld("peng", "999s", 3), meld("chi", "678m", 0)])
    on = _model(view, True)
    tile = parse_tile("5p")
    assert not on.big_win_on(1, tile)
    assert on.later_ratio(1, tile, on.deal_in_cost(1, tile)) == pytest.approx(
        PLAIN_SHARE / DEAL_IN_SHARE)


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng", "laizishanzhuang"])
def test_the_expert_settles_the_price_in_laizishanzhuang_only(profile: str) -> None:
    """The switch: the expert's model prices by the settlement in ``laizishanzhuang``,
    where it was measured; the other profiles keep the fixed ratio."""
    bot = ExpertBot(1)
    bot.choose(_view(profile, 24, 0))
    assert bot.model().settled_later == (profile == "laizishanzhuang")
    off = ExpertBot(1, settled_later=False)
    off.choose(_view(profile, 24, 0))
    assert not off.model().settled_later
    everywhere = ExpertBot(1, settled_everywhere=True)
    everywhere.choose(_view(profile, 24, 0))
    assert everywhere.model().settled_later


@pytest.mark.parametrize("reds", [0, 2, 4])
@pytest.mark.parametrize("wall", [32, 16])
def test_guard_the_safe_8m_still_goes(reds: int, wall: int) -> None:
    """Guard (right before and after the fix): the twenty-sixth hunt's 8m (19 tiles of
    21, none of his ready hands wins on it; 41 of 215 on the 4p) goes beside his 清一色
    with any number of 红中 kongs: the deal-in costs less than the fixed ratio said, but
    still more than a tenth of a closed hand's speed."""
    assert ExpertBot(1).choose(_view("laizishanzhuang", wall, reds)) == Discard(parse_tile("8m"))
