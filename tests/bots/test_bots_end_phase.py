"""The end phase (海底, RULES §16): once the live wall is down to ``end_phase_wall``, the
discard made is the last before the final draws, in which each seat draws once and may
only win on that draw (海底捞).  海底捞 is a big hand: it passes any minimum score, and
in 远航 and 边锋 its pair need not be a 2/5/8 (Project decision 9).  So what counts at
the last discard is how many unseen tiles win on the one draw left, and, with none left,
only safety; and a chi or peng is worth nothing unless it adds winning tiles.
"""

from __future__ import annotations

from typing import Any

import pytest
from handmade import make_view, meld

from wuhan_mahjong.analysis import waits
from wuhan_mahjong.bots import get_bot
from wuhan_mahjong.bots.greedy import GreedyBot
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.engine.actions import PASS, Chi, Discard
from wuhan_mahjong.meld import Meld
from wuhan_mahjong.tiles import parse_tile, parse_tiles

BOTS = ("greedy", "expert", "search")
PROFILES = ("yuanhang", "bianfeng", "laizishanzhuang")


def _end(view: SeatView, end: bool = True) -> SeatView:
    """The view with the end phase begun (the wall at ``end_phase_wall``)."""
    v: dict[str, Any] = dict(view)
    v["end_phase"] = end
    return v  # type: ignore[return-value]


#: opened (chi 123m) with four sets and two singles: 9p leaves the 5m single wait (pair
#: 55m, a 2/5/8), 5m leaves the 9p single wait (pair 99p).  Three 5m are seen, so one
#: is left to win on; no 9p is seen, three are left
SINGLES = "456p789s345s9p5m"


def _singles(profile: str, end: bool) -> SeatView:
    return _end(make_view(SINGLES, profile=profile, indicator="9s", wall=14 if end else 30,
                          melds={0: [meld("chi", "123m", 3)]}, discards={1: "5m", 2: "5m"}),
                end)


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
def test_the_last_discard_keeps_the_most_haidi_wins(profile: str, bot: str) -> None:
    """In 远航 and 边锋 the 9p wait wins 海底捞 with its 99p pair, on three live tiles
    against one, so 5m goes; in 赖子山庄 海底捞 needs the 2/5/8 pair too, and 9p goes.
    Before the end phase a 99p pair never makes a small hand, so 9p goes everywhere."""
    end = _singles(profile, True)
    kept = "5m" if profile == "laizishanzhuang" else "9p"
    thrown = "9p" if kept == "5m" else "5m"
    assert get_bot(bot, 1).choose(end) == Discard(parse_tile(thrown))
    assert get_bot(bot, 1).choose(_singles(profile, False)) == Discard(parse_tile("9p"))
    t = SeatReading(end)
    rest = parse_tiles(SINGLES)
    rest.remove(parse_tile(thrown))
    # drawn, the laizi (1s under a 9s indicator) wins too: four copies are unseen
    assert GreedyBot.haidi_live(t, rest, t.melds) == 4 + (3 if kept == "9p" else 1)


PINS = [meld("chi", "123p", 0), meld("peng", "555p", 2), meld("chi", "789p", 0)]
DISCARDS = {1: "1s9m4z7s2m3z8m", 2: "1z2z9s", 3: "3z4z1p"}


@pytest.mark.parametrize("bot", ["expert", "search"])
@pytest.mark.parametrize("profile", PROFILES)
def test_with_no_win_left_the_last_discard_is_safe(profile: str, bot: str) -> None:
    """Closed and a step from ready, the hand cannot win on the one draw left, so the
    last discard only has to be safe: not 4p or 6p, the core's choice, into the next
    seat's three melds of pins.  In 赖子山庄, whose push-or-fold layer keeps the core's
    speed, the expert threw 4p."""
    view = _end(make_view("234m456m55s23s78s46p", profile=profile, wall=14, melds={1: PINS},
                          discards=DISCARDS, dealer=2))
    assert get_bot("greedy", 1).choose(view) == Discard(parse_tile("4p"))
    choice = get_bot(bot, 1).choose(view)
    assert isinstance(choice, Discard) and not 9 <= choice.tile < 18


def _claim(hand: str, tile: str, frm: int, chi: str, end: bool,
           profile: str = "yuanhang") -> SeatView:
    return _end(make_view(hand, profile=profile, indicator="9s", wall=14 if end else 30,
                          claim=(tile, frm), dealer=2, discards={frm: "1z"},
                          actions=[{"type": "chi", "tile": chi}, {"type": "pass"}]), end)


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
def test_no_end_phase_chi_that_wins_nothing(profile: str, bot: str) -> None:
    """Closed, a step from ready: the chi of 5p (456p) opens the hand but leaves it a step
    from ready, and one draw cannot win it, while the opening raises what this seat pays
    when another wins.  Earlier in the hand the same chi is made (it opens, at equal
    shanten)."""
    hand = "234m456m5s23s78s4p6p"
    assert get_bot(bot, 1).choose(_claim(hand, "5p", 3, "4p", True, profile)) == PASS
    assert get_bot(bot, 1).choose(_claim(hand, "5p", 3, "4p", False, profile)) == Chi(
        parse_tile("4p"))


@pytest.mark.parametrize("bot", BOTS)
def test_the_end_phase_chi_that_makes_a_haidi_win_is_made(bot: str) -> None:
    """Ready but closed, so no 海底捞 is possible: the chi of 1m (123m) opens the hand
    and, 1m thrown, it wins 海底捞 on 2s or 5s."""
    view = _claim("123m456p789s55m34s", "1m", 3, "1m", True)
    assert get_bot(bot, 1).choose(view) == Chi(parse_tile("1m"))


@pytest.mark.parametrize("bot", BOTS)
def test_no_end_phase_claim_without_a_final_draw(bot: str) -> None:
    """With ``final_draws`` 3 the final draws end with the seat before this one: the chi
    of 1m would open the hand for a 海底捞 it never draws, so it is passed."""
    view: dict[str, Any] = dict(_claim("123m456p789s55m34s", "1m", 3, "1m", True))
    view["options"] = {"final_draws": 3}
    t = SeatReading(view)  # type: ignore[arg-type]
    assert GreedyBot.my_final_draws(t) == 0
    assert get_bot(bot, 1).choose(view) == PASS  # type: ignore[arg-type]


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
def test_both_laizi_are_kept_for_the_last_draw(profile: str, bot: str) -> None:
    """Opened, holding two laizi (1s under a 9s indicator) beside 456p 789s 55m and a 3s, at
    the last discard (no kong is legal now).  A small hand may not win holding two laizi,
    so earlier one would go; but a win on the final draw is 海底捞, a big hand, which may
    hold any number (RULES §12): with 3s thrown the two wilds make a set of almost any
    tile drawn (32 or more kinds), where 丢癞子 would leave a wait of five or six kinds."""
    view = _end(make_view("456p789s55m3s1s1s", profile=profile, indicator="9s", wall=14,
                          melds={0: [meld("chi", "123m", 3)]},
                          extra_actions=[{"type": "laizi_discard"}]))
    rules, chi = SeatReading(view).rules, [Meld("chi", tuple(parse_tiles("123m")), 3)]
    kept, thrown = (waits(parse_tiles(h), chi, parse_tile("1s"), rules, "last_tile")
                    for h in ("456p789s55m1s1s", "456p789s55m3s1s"))
    assert len(kept) >= 32 and len(thrown) <= 6
    assert get_bot(bot, 1).choose(view) == Discard(parse_tile("3s"))
