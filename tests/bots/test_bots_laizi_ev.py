"""The expert's ``laizi_ev`` option: a single laizi is konged or kept by expected value,
P(win) × the value of a win in each line (keep the wild: faster, soft; kong it now: the
kong's factor, a hard hand and a replacement draw, one wild fewer), not by a fixed rule."""

from __future__ import annotations

from typing import Any

from handmade import make_view, meld

from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine.actions import Discard, SpecialKong
from wuhan_mahjong.engine.views import SeatView
from wuhan_mahjong.tiles import parse_tile, parse_tiles, tile_str

LAIZI_KONG = SpecialKong("laizi")


def _view(hand: str, **kw: Any) -> SeatView:
    """A yuanhang turn (laizi 2z) that may discard any non-laizi tile or kong the laizi."""
    actions = [{"type": "discard", "tile": tile_str(x)} for x in sorted(set(parse_tiles(hand)))
               if tile_str(x) != "2z"]
    view = make_view(hand, actions=[*actions, {"type": "special_kong", "kind": "laizi"}], **kw)
    assert view["laizi"] == "2z"
    return view


def _lines(view: SeatView) -> tuple[float, float]:
    t = SeatReading(view)
    bot = ExpertBot(1, laizi_ev=True)
    bot._prepare(t)
    return bot.laizi_lines(t)


def test_a_ready_hand_whose_kong_keeps_it_ready_kongs() -> None:
    # 123m 456m 789s 55m 67p + the wild, two 红中 kongs (the minimum is met): kept, it is
    # ready; konged, 123m 456m 789s 55m 67p is ready on 5p/8p too.  The kong's ×4, a hard
    # hand and the replacement draw cost nothing: a strong player kongs.
    view = _view("123m456m789s55m67p2z", red_kongs={0: 2})
    keep, kong = _lines(view)
    assert kong > 1.5 * keep
    assert ExpertBot(1, laizi_ev=True).choose(view) == LAIZI_KONG
    # the shipped expert kongs it too (its free-kong rule); without that rule it keeps
    assert ExpertBot(1).choose(view) == LAIZI_KONG
    assert ExpertBot(1, free_laizi_kong=False).choose(view) == Discard(parse_tile("6p"))


def test_a_far_hand_short_of_the_minimum_kongs() -> None:
    # closed and far (four steps from ready with the wild), no factor yet: a soft small
    # win cannot pass yuanhang's minimum without two more doublings, the kong's ×4 and a
    # hard hand pass it at once.  Early in the wall the kong is worth the step.
    view = _view("13m46m79m2p5p8p3s6s9s4z2z", wall=60)
    keep, kong = _lines(view)
    assert kong > keep
    assert ExpertBot(1, laizi_ev=True).choose(view) == LAIZI_KONG


def test_a_ready_flush_keeps_its_wild() -> None:
    # 清一色 ready with the wild (peng 777p; 123p 456p 99p 8p + wild), one step away
    # without it: the big hand reaches the cap anyway, the kong's factor adds little and
    # costs the step.  A strong player keeps the wild.
    view = _view("1p2p3p4p5p6p8p9p9p1m2z", melds={0: [meld("peng", "777p", 2)]})
    keep, kong = _lines(view)
    assert keep > kong
    choice = ExpertBot(1, laizi_ev=True).choose(view)
    assert choice == Discard(parse_tile("1m"))


def test_late_in_the_wall_a_ready_hand_keeps_its_wild() -> None:
    # opened twice with a 红中 kong (the minimum is met), ready with the wild on 23m 56m
    # 88p (9s out), one step away without it; twenty tiles left: the step costs more
    # than the ×4 brings.  Early (wall 60) the same hand is a closer call.
    melds = {0: [meld("peng", "777s", 2), meld("chi", "345p", 3)]}
    late = _view("23m56m88p9s2z", wall=20, melds=melds, red_kongs={0: 1})
    keep, kong = _lines(late)
    assert keep > 1.5 * kong
    assert ExpertBot(1, laizi_ev=True).choose(late) == Discard(parse_tile("9s"))


def test_the_lines_are_a_pure_function_of_the_view() -> None:
    view = _view("123m456m789s55m6p9p2z", red_kongs={0: 2})
    assert _lines(view) == _lines(view)
    assert ExpertBot(1, laizi_ev=True).choose(view) == ExpertBot(7, laizi_ev=True).choose(view)


def test_off_by_default() -> None:
    assert not ExpertBot(1).laizi_ev


def _lines_with(view: SeatView, **opts: Any) -> tuple[float, float]:
    t = SeatReading(view)
    bot = ExpertBot(1, laizi_ev=True, **opts)
    bot._prepare(t)
    return bot.laizi_lines(t)


def test_the_kong_line_pays_its_factor_when_another_seat_wins() -> None:
    # the kong's ×4 joins this seat's multiplier, so it also pays ×4 (to the cap) when
    # another seat wins: charged for that, the kong line loses more than the keep line
    view = _view("123m456m789s55m6p9p2z", red_kongs={0: 2}, wall=60)
    keep0, kong0 = _lines_with(view, laizi_loss=0.0)
    keep1, kong1 = _lines_with(view, laizi_loss=1.0)
    assert keep1 < keep0 and kong1 < kong0
    assert kong0 - kong1 > 1.5 * (keep0 - keep1)


def test_a_far_hand_keeps_its_wild_when_the_kong_line_is_closed() -> None:
    # laizi_ev_shanten 1: the kong is weighed only when the 13 tiles it leaves are at
    # most one from ready; this hand is far, so the wild stays
    view = _view("13m46m79m2p5p8p3s6s9s4z2z", wall=60)
    keep, kong = _lines_with(view, laizi_ev_shanten=1)
    assert kong < keep
    assert ExpertBot(1, laizi_ev=True, laizi_ev_shanten=1).choose(view) != LAIZI_KONG
