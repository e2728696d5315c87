"""An added kong (蓄杠) may be robbed (抢杠), and the konger then pays all three shares
(杠进杠出 in 远航 and 边锋, the robbed player contracts in 赖子山庄: RULES §17.10-17.11).

Seat 1 shows three melds of 筒 and has thrown none; this seat pengs 555p and holds the
fourth 5p.  Adding the kong keeps its shanten (greedy's rule makes it), but 5p sits in the
middle of the suit he collects.  The expert skips such a kong when its expected cost of
being robbed is higher than ``rob_max`` points (30 by default).
"""

from __future__ import annotations

import pytest
from handmade import make_view, meld

from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine.actions import Discard, Kong
from wuhan_mahjong.tiles import parse_tile

PINS = [meld("chi", "123p", 0), meld("peng", "777p", 2), meld("chi", "789p", 0)]
ADDED = {"type": "kong", "kind": "added", "tile": "5p"}


def _view(profile: str, pins: bool = True):  # type: ignore[no-untyped-def]
    return make_view("234m68m11s35s9s5p", profile=profile, wall=16, indicator="3z", dealer=2,
                     melds={0: [meld("peng", "555p", 2)], **({1: PINS} if pins else {})},
                     discards={1: "1s9m4z7s2m3z8m", 2: "1z2z9s", 3: "3z4z1m"},
                     extra_actions=[ADDED])


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng", "laizishanzhuang"])
def test_an_added_kong_into_a_flush_is_skipped(profile: str) -> None:
    view = _view(profile)
    assert ExpertBot(1, rob_max=0).choose(view) == Kong("added", parse_tile("5p"))  # off
    bot = ExpertBot(1)  # rob_max=30 by default
    assert bot.choose(view) == Discard(parse_tile("9s"))
    p, cost = bot.model().rob_risk(parse_tile("5p"))
    assert p > 0.04 and cost > 30
    # the konger holds all four copies, so only a run can wait on the tile: never an honour
    assert bot.model().rob_risk(parse_tile("1z")) == (0.0, 0.0)


def test_without_an_opened_opponent_the_kong_is_made() -> None:
    view = _view("yuanhang", pins=False)
    assert not any(s["melds"] for s in view["seats"][1:])
    assert ExpertBot(1).choose(view) == Kong("added", parse_tile("5p"))
    assert SeatReading(view).wall == 16
