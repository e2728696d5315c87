"""Decision problems of the thirty-eighth hunt (7 December 2026): ``bianfeng`` (边风), why
the expert's wins are smaller than greedy's (+337 against +376 a win on the same deals of
tuning seeds 455 and 456, docs/bots-log.md, *The thirty-eighth decision-problem hunt*).
The study split every win's payments into their factors: the gap is the laizi kong
(0.28 a win against greedy's 0.40) and the hard hand that comes with it, most of it the
choice of which hands are won (the expert's extra wins are early, cheap ones; greedy's
slow hands carry the kong).  One decision behind it was read with the settlement: the
expert takes a self-drawn win in hand holding its single laizi where the thirteen other
tiles are ready without it (the kong would cost no step), 51 times in 800 hands on each
seed; the win in hand averaged about 400, the kong's replacement draw (杠上花) about 95.
No fault was found.

The position below is a guard (every bot it concerns answers it already), settled by the
settlement, not by the bots:

* Opened by a chi of 123p, two 红中 kongs, holding 456p 789p 55p 67p and the single laizi
  (the 9s), the other three seats closed with a laizi kong each (seat 1 deals).  The
  self-draw in hand is a soft 清一色 that reaches 金顶 (every loser 400, 1,200 in all);
  the laizi kong would leave 456p 789p 55p 67p ready on 5p/8p (the wild idle), and its
  杠上花 on either collects the same 1,200, as would every later win: nothing the kong
  can bring pays more than the win in hand.  The expert and the search bot win, nobody
  opened beside them (so that ``bloom_instead`` weighs the bloom).
"""

from __future__ import annotations

from typing import Any

import pytest
from handmade import ask, make_view, meld, paid_by

from wuhan_mahjong.analysis import shanten
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.meld import Meld
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.tiles import parse_tile, parse_tiles

CHI = meld("chi", "123p", 3)
WIN_HAND = "45667p55p789p9s"  # the 9s is the laizi (indicator 8s)
WINS = [{"type": "win"}, {"type": "special_kong", "kind": "laizi"}]


def _view(wall: int) -> SeatView:
    """Seat 0's turn after drawing into a win in hand (the 6p last), the laizi kong legal."""
    view: dict[str, Any] = dict(make_view(
        WIN_HAND, profile="bianfeng", indicator="8s", wall=wall, dealer=1,
        melds={0: [CHI]}, red_kongs={0: 2}, concealed={1: 12, 2: 12, 3: 12},
        discards={0: "1z 2z 9m", 1: "3z 1s", 2: "4z 2s", 3: "7z 3s"},
        extra_actions=[{"type": "win"}, {"type": "special_kong", "kind": "laizi"}]))
    view["legal_actions"] = WINS
    view["drawn"] = "6p"
    for s in (1, 2, 3):
        view["seats"][s]["special_kongs"]["laizi"] = 1
    return view  # type: ignore[return-value]


def _paid(hand: str, tile: str, win_by: str, laizi_kongs: int) -> dict[int, int]:
    """What each loser pays seat 0 winning on ``tile`` with ``hand`` (the winning tile
    apart) beside the chi and the two 红中 kongs, the others with a laizi kong each."""
    seats: list[dict[str, Any]] = [{"hand": hand, "kongs": {"red": 2, "laizi": laizi_kongs},
                                    "melds": [{"type": "chi", "tiles": "123p", "from": 3}]}]
    seats += [{"hand": "", "kongs": {"laizi": 1}, "melds": []} for _ in range(3)]
    return paid_by({"profile": "bianfeng", "dealer": 1, "indicator": "8s", "winner": 0,
                    "win_by": win_by, "winning_tile": tile, "seats": seats})


# ---------------------------------------------------------------- the rules' side

def test_the_thirteen_tiles_without_the_wild_are_ready() -> None:
    """The laizi kong costs no step: 456p 789p 55p 67p beside the chi is ready (5p / 8p)."""
    rules = get_rules("bianfeng")
    laizi = rules.laizi_of(parse_tile("8s"))
    assert laizi == parse_tile("9s")
    rest = parse_tiles("456p789p55p67p")
    assert shanten(rest, [Meld("chi", tuple(parse_tiles("123p")), 3)], laizi, rules) == 0


def test_the_win_in_hand_is_at_the_golden_cap_and_nothing_after_the_kong_pays_more() -> None:
    """The soft self-draw collects 金顶 from every loser; so do the kong's 杠上花 and its
    later self-draws (the laizi kong's ×4 and the hard hand add nothing past the cap)."""
    now = _paid("4567p55p789p9s", "6p", "self_draw", 0)
    assert now == {1: 400, 2: 400, 3: 400}
    for tile in ("5p", "8p"):
        assert _paid("456p789p55p67p", tile, "kong_bloom", 1) == now
        assert _paid("456p789p55p67p", tile, "self_draw", 1) == now


# ---------------------------------------------------------------- the bots

@pytest.mark.parametrize("wall", [60, 44, 30])
@pytest.mark.parametrize("bot", ["expert", "search", "greedy"])
def test_a_win_in_hand_at_the_golden_cap_is_taken(bot: str, wall: int) -> None:
    """Guard: the win, not the idle wild's kong for 杠上花."""
    ask(bot, _view(wall), [{"type": "win"}])
