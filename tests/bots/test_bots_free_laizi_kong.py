"""The expert's ``free_laizi_kong`` rule (on by default in every profile since 3 December
2026, docs/bots-log.md): the single laizi is konged when the kong costs no shanten (the tiles
left are as close as the best discard keeping the wild), so the kong's factor, a hard hand
and the replacement draw come for free; a kong that would cost a step keeps the wild."""

from __future__ import annotations

import pytest
from handmade import make_view

from wuhan_mahjong.bots import get_bot
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.engine.actions import Discard, SpecialKong
from wuhan_mahjong.tiles import parse_tile

LAIZI_KONG = {"type": "special_kong", "kind": "laizi"}


def _actions(tiles: tuple[str, ...]) -> list[dict[str, str]]:
    return [{"type": "discard", "tile": x} for x in tiles] + [LAIZI_KONG]


def _free_kong_view(profile: str = "yuanhang", indicator: str = "1z",
                    laizi: str = "2z") -> SeatView:
    """Closed, 123m 456m 789s 55m 67p + the wild.  Kept, the best discards leave it ready;
    konged, 123m 456m 789s 55m 67p is ready on 5p/8p too.  Two 红中 kongs: the soft waits
    pass the minimum, so the lone-laizi rule is silent."""
    view = make_view("123m456m789s55m67p" + laizi, profile=profile, indicator=indicator,
                     red_kongs={0: 2},
                     actions=_actions(("1m", "2m", "3m", "4m", "5m", "6m", "7s", "8s", "9s",
                                       "6p", "7p")))
    assert view["laizi"] == laizi
    return view


def test_a_free_laizi_kong_is_made() -> None:
    view = _free_kong_view()
    reading = SeatReading(view)
    assert not ExpertBot(1).lone_laizi_blocks(reading)
    assert ExpertBot(1).laizi_kong_is_free(reading)
    assert ExpertBot(1, free_laizi_kong=True).choose(view) == SpecialKong("laizi")
    assert ExpertBot(1, free_laizi_kong=False).choose(view) == Discard(parse_tile("6p"))


def test_a_laizi_kong_that_costs_a_step_keeps_the_wild() -> None:
    # 123m 456m 789s 55m 6p 9p + the wild: ready after 9p with the wild; konged, the
    # thirteen tiles 123m 456m 789s 55m 6p 9p are one step away
    view = make_view("123m456m789s55m6p9p2z", red_kongs={0: 2}, actions=_actions(
        ("1m", "2m", "3m", "4m", "5m", "6m", "7s", "8s", "9s", "6p", "9p")))
    assert not ExpertBot(1).laizi_kong_is_free(SeatReading(view))
    assert ExpertBot(1, free_laizi_kong=True).choose(view) == Discard(parse_tile("9p"))


@pytest.mark.parametrize(("profile", "indicator", "laizi"),
                         [("yuanhang", "1z", "2z"), ("bianfeng", "1z", "2z"),
                          ("laizishanzhuang", "9s", "1s")])
@pytest.mark.parametrize("bot", ["greedy", "expert", "search"])
def test_the_shipped_bots_make_the_free_kong(profile: str, indicator: str, laizi: str,
                                             bot: str) -> None:
    # the free-kong position in each profile (in 赖子山庄 a 9s indicator makes 1s the
    # laizi): a strong player kongs the wild that costs no step (its factor, a hard hand
    # and a replacement draw, for nothing); greedy, whose laizi rule looked only at the
    # minimum score, kept it until 5 December 2026 (its ``free_laizi_kong`` off: as then)
    from wuhan_mahjong.bots.greedy import GreedyBot

    view = _free_kong_view(profile, indicator, laizi)
    reading = SeatReading(view)
    assert not ExpertBot(1).lone_laizi_blocks(reading)  # the other laizi rule is silent
    assert get_bot(bot, 1).choose(view) == SpecialKong("laizi")
    old = GreedyBot(1)
    old.free_laizi_kong = False
    assert old.choose(view) == Discard(parse_tile("6p"))
