"""An added kong (蓄杠) may be robbed (抢杠), and the konger then pays all three shares
(杠进杠出 in 远航 and 边锋, the robbed player contracts in 赖子山庄: RULES §17.10-17.11).

Seat 1 shows three melds of 筒 and has thrown none; this seat pengs 555p and holds the
fourth 5p.  Adding the kong keeps its shanten (greedy's rule makes it), but 5p sits in the
middle of the suit he collects.  The expert skips such a kong when its expected cost of
being robbed is higher than ``rob_max`` points (30 by default).
"""

from __future__ import annotations

from typing import Any

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
    # off (and the threat_kongs layer off: a far hand beside his flush skips it too)
    assert ExpertBot(1, rob_max=0, threat_kongs=False).choose(view) == Kong("added", parse_tile("5p"))
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


#: seat 1 shows three honour pungs (东 南 西): a 风一色 read
HONOUR_PENGS = [meld("peng", "111z", 3), meld("peng", "222z", 2), meld("peng", "333z", 3)]
#: seat 1 shows mixed melds: no family read
MIXED = [meld("chi", "123s", 0), meld("peng", "777p", 2), meld("chi", "678m", 0)]


def _honour_kong_view(profile: str, wall: int, melds: list[dict[str, Any]]):  # type: ignore[no-untyped-def]
    return make_view("456p55m34s5z", profile=profile, indicator="9s", wall=wall, dealer=2,
                     melds={0: [meld("chi", "123m", 3), meld("peng", "555z", 2)], 1: melds},
                     discards={0: "9m1p7m", 1: "1m9p7s2m8p", 2: "9m1p6s", 3: "9s1s2p"},
                     extra_actions=[{"type": "kong", "kind": "added", "tile": "5z"}])


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng", "laizishanzhuang"])
@pytest.mark.parametrize("wall", [20, 36])
def test_no_honour_kong_into_a_fengyise(profile: str, wall: int) -> None:
    """No pair can wait on a tile the konger holds four of, but a ready 风一色 needs no pair
    (乱风, RULES §10): it robs the 白 kong as 风一色 and 抢杠 (the engine settles it: the
    konger pays 880, 480 and 320 in the three profiles).  The model used to rate every
    honour kong safe; against the read the kong is skipped."""
    view = _honour_kong_view(profile, wall, HONOUR_PENGS)
    assert ExpertBot(1, rob_max=0).choose(view) == Kong("added", parse_tile("5z"))  # off
    bot = ExpertBot(1)
    assert isinstance(bot.choose(view), Discard)
    p, cost = bot.model().rob_risk(parse_tile("5z"))
    assert p > 0.3 and cost > 30


def test_an_honour_kong_is_safe_without_a_fengyise_read() -> None:
    """Against mixed melds nothing can rob an honour kong: the kong is made."""
    bot = ExpertBot(1)
    assert bot.choose(_honour_kong_view("yuanhang", 20, MIXED)) == Kong("added", parse_tile("5z"))
    assert bot.model().rob_risk(parse_tile("5z")) == (0.0, 0.0)
